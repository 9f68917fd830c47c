//! # cosim — the C ABI of dcfab blocks
//!
//! One umbrella crate built as `staticlib` and `cdylib` (two Rust staticlibs cannot be
//! linked into one simulator binary), so that Verilator, a C/C++ testbench or Python
//! (`ctypes`, cocotb) can run a dcfab block cycle by cycle as a reference model.
//!
//! ```text
//!   SystemVerilog (sv/dcfab_dpi.sv)   C / C++ (include/dcfab.h)   Python (python/dcfab.py)
//!                 \                          |                          /
//!                  +------------ extern "C" dcfab_* entry points ------+
//!                                            |  catch_unwind, status codes, last error
//!                                  handle table (generation-checked)
//!                                            |
//!                       rtl-models / nic / switch blocks (cycle-accurate)
//! ```
//!
//! Conventions of every block's API (prefix `dcfab_<block>_`):
//!
//! * `*_new(const Config *)` returns an opaque handle, NULL on a bad config; `*_new_flat`
//!   takes the config fields as arguments (DPI-C cannot pass C structs). `*_free` frees it.
//! * Per-cycle inputs are calls made during the cycle, `*_tick` is the clock edge, and
//!   readers write through output pointers. Every call returns an `int32_t` status:
//!   `DCFAB_OK` (0) or a negative `DCFAB_ERR_*`; `dcfab_last_error()` says why.
//! * Nothing crashes the caller: NULL, freed, foreign or wrong-kind handles, NULL output
//!   pointers, out-of-range arguments and bad configs are errors, and every entry point
//!   is wrapped in `catch_unwind` so no panic unwinds across the ABI.
//! * Booleans are `uint8_t` 0/1 (SystemVerilog `bit`).
//!
//! The header `include/dcfab.h` is generated from this crate by cbindgen and checked in;
//! `tests/header.rs` fails when it is stale (regenerate with
//! `DCFAB_BLESS=1 cargo test -p dcfab-cosim --test header`).

pub mod dcsim;
mod entry;
mod handle;
pub mod phantom;
pub mod red;
pub mod reps;
pub mod status;
pub mod token_bucket;
pub mod uno;
pub mod zeropod;

pub use dcsim::*;
pub use phantom::*;
pub use red::*;
pub use reps::*;
pub use status::*;
pub use token_bucket::*;
pub use uno::*;
pub use zeropod::*;

/// Number of live blocks (of every kind); useful to check a testbench frees what it makes.
#[no_mangle]
pub extern "C" fn dcfab_live_handles() -> u32 {
    std::panic::catch_unwind(handle::live).unwrap_or(0) as u32
}
