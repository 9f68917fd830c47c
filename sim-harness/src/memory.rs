//! Memory for the event loop: the `dcfab` binary's allocator is mimalloc (its
//! `#[global_allocator]` is in `src/main.rs`, so a library user chooses their own), with large
//! (2 MiB) OS pages when the kernel offers them ([`use_large_pages`], which only sets a
//! mimalloc option: harmless when another allocator is in use).
//!
//! The DES is bound by memory latency: every event touches a port, a packet ring and a
//! flow picked by the traffic, and at 8192 hosts those are tens of megabytes touched at
//! random. With 4 KiB pages most of those touches also miss the TLB; mimalloc's
//! size-segregated pages keep the small packet rings together, and its large OS pages cut
//! the page walks (measured in `benches/README.md`: about +15% DATA packets/s at 8192
//! hosts over the system allocator). Neither changes any result: allocation never feeds
//! the simulation.
#![allow(unsafe_code)]

use std::sync::Once;

/// Ask mimalloc for large OS pages for the memory it maps from now on (once per process;
/// called by [`crate::engine::Sim::build`] before it allocates the fabric). Where the kernel
/// has no transparent huge pages this changes nothing.
pub fn use_large_pages() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // SAFETY: `mi_option_set` takes an option id defined by the linked mimalloc and a
        // value; it only stores the value (atomically) for later segment allocations.
        unsafe {
            libmimalloc_sys::mi_option_set(libmimalloc_sys::mi_option_large_os_pages, 1);
        }
    });
}
