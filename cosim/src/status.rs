//! Status codes, the error type and the per-thread last-error string.
//!
//! Every entry point returns an `int32_t` status (`DCFAB_OK` = 0, errors negative) or, for a
//! constructor, a handle that is NULL on failure. On failure the calling thread's last-error
//! string is set; [`dcfab_last_error`] reads it. It is not cleared by successful calls
//! (errno-style), so read it right after the failing call.

use std::cell::RefCell;
use std::ffi::{c_char, CString};

/// Success.
pub const DCFAB_OK: i32 = 0;
/// A NULL handle was passed.
pub const DCFAB_ERR_NULL_HANDLE: i32 = -1;
/// The handle was freed, or was never issued by this library.
pub const DCFAB_ERR_BAD_HANDLE: i32 = -2;
/// The handle is live but belongs to another kind of block.
pub const DCFAB_ERR_WRONG_KIND: i32 = -3;
/// A required pointer argument (output or input buffer) was NULL.
pub const DCFAB_ERR_NULL_POINTER: i32 = -4;
/// An argument is out of range.
pub const DCFAB_ERR_ARG: i32 = -5;
/// A configuration field is invalid (the last-error string names the field).
pub const DCFAB_ERR_CONFIG: i32 = -6;
/// The handle table is full (too many live blocks).
pub const DCFAB_ERR_FULL: i32 = -7;
/// An internal error (a Rust panic) was caught at the ABI boundary; the block may be
/// inconsistent and should be freed.
pub const DCFAB_ERR_INTERNAL: i32 = -8;

/// Version of this C ABI; bumped on any incompatible change of a signature or struct.
/// Compare it with [`dcfab_abi_version`] at start-up.
pub const DCFAB_ABI_VERSION: u32 = 1;

/// An error on its way to the ABI: a status code and a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// One of the negative `DCFAB_ERR_*` codes.
    pub code: i32,
    /// Human-readable explanation (names the field or argument at fault).
    pub msg: String,
}

impl Error {
    /// A new error.
    pub fn new(code: i32, msg: impl Into<String>) -> Self {
        Error {
            code,
            msg: msg.into(),
        }
    }

    /// A configuration error naming `field` and the problem.
    pub fn config(field: &str, problem: impl core::fmt::Display) -> Self {
        Error::new(
            DCFAB_ERR_CONFIG,
            format!("config field `{field}`: {problem}"),
        )
    }

    /// An out-of-range argument naming `arg` and the problem.
    pub fn arg(arg: &str, problem: impl core::fmt::Display) -> Self {
        Error::new(DCFAB_ERR_ARG, format!("argument `{arg}`: {problem}"))
    }

    /// A NULL pointer argument.
    pub fn null(arg: &str) -> Self {
        Error::new(DCFAB_ERR_NULL_POINTER, format!("argument `{arg}` is NULL"))
    }
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

/// Store `msg` (prefixed by the entry point's name) as this thread's last error.
pub(crate) fn set_last_error(func: &str, msg: &str) {
    let text: Vec<u8> = format!("{func}: {msg}")
        .into_bytes()
        .into_iter()
        .filter(|&b| b != 0)
        .collect();
    let c = CString::new(text).unwrap_or_default();
    // `try_with` so that a call during thread teardown cannot panic.
    let _ = LAST_ERROR.try_with(|e| *e.borrow_mut() = c);
}

/// The last error of the calling thread as a NUL-terminated string ("" if none yet).
///
/// The pointer stays valid until the next failing dcfab call on the same thread; copy the
/// string if you need it longer. Never NULL.
#[no_mangle]
pub extern "C" fn dcfab_last_error() -> *const c_char {
    static EMPTY: &[u8] = b"\0";
    LAST_ERROR
        .try_with(|e| e.borrow().as_ptr())
        .unwrap_or(EMPTY.as_ptr().cast())
}

/// The symbolic name of a status code (for example "DCFAB_ERR_BAD_HANDLE"); never NULL.
#[no_mangle]
pub extern "C" fn dcfab_status_name(status: i32) -> *const c_char {
    let s: &'static [u8] = match status {
        DCFAB_OK => b"DCFAB_OK\0",
        DCFAB_ERR_NULL_HANDLE => b"DCFAB_ERR_NULL_HANDLE\0",
        DCFAB_ERR_BAD_HANDLE => b"DCFAB_ERR_BAD_HANDLE\0",
        DCFAB_ERR_WRONG_KIND => b"DCFAB_ERR_WRONG_KIND\0",
        DCFAB_ERR_NULL_POINTER => b"DCFAB_ERR_NULL_POINTER\0",
        DCFAB_ERR_ARG => b"DCFAB_ERR_ARG\0",
        DCFAB_ERR_CONFIG => b"DCFAB_ERR_CONFIG\0",
        DCFAB_ERR_FULL => b"DCFAB_ERR_FULL\0",
        DCFAB_ERR_INTERNAL => b"DCFAB_ERR_INTERNAL\0",
        _ => b"DCFAB_UNKNOWN_STATUS\0",
    };
    s.as_ptr().cast()
}

/// The ABI version this library implements (equal to `DCFAB_ABI_VERSION` of the header it
/// was built with).
#[no_mangle]
pub extern "C" fn dcfab_abi_version() -> u32 {
    DCFAB_ABI_VERSION
}

/// The dcfab crate version as a NUL-terminated string ("0.1.0"); never NULL.
#[no_mangle]
pub extern "C" fn dcfab_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}
