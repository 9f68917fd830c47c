//! # cosim — the C ABI of dcfab blocks
//!
//! One umbrella crate built as `staticlib` and `cdylib`; every block gets a prefixed C API.
//! Nothing panics or unwinds across the ABI.
