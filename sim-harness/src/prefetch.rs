//! Cache prefetch hints for the event loop: the DES is bound by memory latency, and the
//! events a few places ahead in the calendar queue name the ports they will touch, so their
//! cache lines can be requested early (see `Sim::prefetch_ahead` in [`crate::engine`]).
//! Hints only: a prefetch never faults and changes no program state, so it cannot change
//! results.
#![allow(unsafe_code)]

const LINE: usize = 64;

/// Request the cache line holding the byte at `p` (any address; never dereferenced).
#[inline(always)]
fn prefetch_addr(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` needs SSE, which every x86-64 CPU has; it does not access memory
    // architecturally (no fault, no read), so any address is allowed.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Request the cache line holding the start of `x`.
#[inline(always)]
pub fn prefetch<T>(x: &T) {
    prefetch_addr((x as *const T).cast::<u8>());
}

/// Request the cache lines of the first `bytes` bytes of `x` (at most its size).
#[inline(always)]
pub fn prefetch_head<T>(x: &T, bytes: usize) {
    let start = (x as *const T).cast::<u8>();
    let mut off = 0;
    while off < bytes.min(std::mem::size_of::<T>()) {
        prefetch_addr(start.wrapping_add(off));
        off += LINE;
    }
}

/// Request every cache line `x` spans.
#[inline(always)]
pub fn prefetch_lines<T>(x: &T) {
    let start = (x as *const T).cast::<u8>();
    let size = std::mem::size_of::<T>();
    let first = start as usize / LINE;
    let last = (start as usize + size.max(1) - 1) / LINE;
    for l in 0..=last - first {
        prefetch_addr(start.wrapping_add(l * LINE));
    }
}

/// Request the lines of the element after `x` in memory (where a ring's next push lands
/// when it does not wrap).
#[inline(always)]
pub fn prefetch_next<T>(x: &T) {
    let next = (x as *const T).wrapping_add(1).cast::<u8>();
    let size = std::mem::size_of::<T>();
    prefetch_addr(next);
    prefetch_addr(next.wrapping_add(size.max(1) - 1));
}
