//! The belt and braces around every entry point: errors become status codes and the
//! last-error string, and a panic is caught before it can unwind into C.

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::handle;
use crate::status::{set_last_error, Error, DCFAB_ERR_INTERNAL, DCFAB_OK};

fn panic_error(p: Box<dyn Any + Send>) -> Error {
    let what = p
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string());
    Error::new(
        DCFAB_ERR_INTERNAL,
        format!("internal error (caught panic): {what}"),
    )
}

fn fail(func: &str, e: &Error) -> i32 {
    set_last_error(func, &e.msg);
    e.code
}

/// Run an entry point returning a status code.
pub(crate) fn call(func: &str, f: impl FnOnce() -> Result<(), Error>) -> i32 {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => DCFAB_OK,
        Ok(Err(e)) => fail(func, &e),
        Err(p) => fail(func, &panic_error(p)),
    }
}

/// Run a constructor: the new handle, or NULL with the last error set.
pub(crate) fn construct<O>(func: &str, f: impl FnOnce() -> Result<u64, Error>) -> *mut O {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(h)) => handle::to_ptr(h),
        Ok(Err(e)) => {
            fail(func, &e);
            core::ptr::null_mut()
        }
        Err(p) => {
            fail(func, &panic_error(p));
            core::ptr::null_mut()
        }
    }
}

/// Run `f` on the block behind `h` (of kind `T`) and return a status code.
pub(crate) fn on<T: handle::Kind, O>(
    func: &str,
    h: *const O,
    f: impl FnOnce(&mut T) -> Result<(), Error>,
) -> i32 {
    call(func, || handle::with(handle::from_ptr(h), f))
}

/// An output pointer, checked for NULL.
///
/// # Safety
/// `p` must be NULL or valid for writes of one `T`.
pub(crate) unsafe fn out<'a, T>(p: *mut T, name: &str) -> Result<&'a mut T, Error> {
    // SAFETY: the caller guarantees `p` is NULL or valid for writes.
    unsafe { p.as_mut() }.ok_or_else(|| Error::null(name))
}

/// An input pointer, checked for NULL.
///
/// # Safety
/// `p` must be NULL or valid for reads of one `T`.
pub(crate) unsafe fn input<'a, T>(p: *const T, name: &str) -> Result<&'a T, Error> {
    // SAFETY: the caller guarantees `p` is NULL or valid for reads.
    unsafe { p.as_ref() }.ok_or_else(|| Error::null(name))
}

/// A C boolean (`uint8_t`, SystemVerilog `bit`) that must be 0 or 1.
pub(crate) fn flag(v: u8, field: &str) -> Result<bool, Error> {
    match v {
        0 => Ok(false),
        1 => Ok(true),
        _ => Err(Error::config(
            field,
            format_args!("must be 0 or 1, got {v}"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::status::dcfab_last_error;
    use std::ffi::CStr;

    #[test]
    fn panics_become_internal_errors() {
        let prev = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let st = call("dcfab_test", || panic!("boom {}", 7));
        let p: *mut u8 = construct("dcfab_test_new", || panic!("bang"));
        std::panic::set_hook(prev);
        assert_eq!(st, DCFAB_ERR_INTERNAL);
        assert!(p.is_null());
        let msg = unsafe { CStr::from_ptr(dcfab_last_error()) }
            .to_str()
            .unwrap();
        assert_eq!(msg, "dcfab_test_new: internal error (caught panic): bang");
    }
}
