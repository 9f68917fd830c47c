//! # golden — golden traces for every dcfab block
//!
//! Trace schema, recorder, VCD export and the block-level golden scenarios that
//! `dcfab golden verify` re-runs.
#![forbid(unsafe_code)]
