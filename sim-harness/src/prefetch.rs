//! A cache prefetch hint for the event loop: the DES is bound by memory latency, and the
//! events a few places ahead in the calendar queue name the ports they will touch, so their
//! cache lines can be requested early (see `Sim::prefetch_ahead` in [`crate::engine`]).
#![allow(unsafe_code)]

/// Ask the CPU to bring the cache line holding `x` into L1. A hint only: it never faults,
/// changes no program state and so cannot change results. A no-op off x86-64.
#[inline(always)]
pub fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` needs SSE, which every x86-64 CPU has; it does not access memory
    // architecturally (no fault, no read), and the pointer comes from a live reference.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
            (x as *const T).cast::<i8>(),
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}
