//! The shared number checks (`finite`, `positive`, `non_negative`: each error names its
//! field), how a number is printed in an error ([`num`]), the problem part of a field error,
//! and the largest packet on the wire (which every rate must serialize).

use super::{MAX_HEADER_BYTES, MAX_MTU};
use crate::error::{Error, Result};
use crate::scenario::Transport;

/// The largest packet on the wire: a DATA of `mtu + header_bytes` (each capped at its
/// limit, so an out-of-range MTU is reported on its own field).
pub(super) fn largest_packet(t: &Transport) -> u32 {
    t.mtu.min(MAX_MTU) + t.header_bytes.min(MAX_HEADER_BYTES)
}

/// The problem part of a field error.
pub(super) fn problem_of(e: Error) -> String {
    match e {
        Error::Field { problem, .. } => problem,
        other => other.to_string(),
    }
}

/// A number as the user would read it ([`crate::units::num`]).
pub(super) use crate::units::num;

pub(super) fn finite(field: &str, v: f64) -> Result<()> {
    if v.is_finite() {
        Ok(())
    } else {
        Err(Error::field(
            field,
            format!("must be a finite number, got {}", num(v)),
        ))
    }
}

pub(super) fn positive(field: &str, v: f64) -> Result<()> {
    finite(field, v)?;
    if v > 0.0 {
        Ok(())
    } else {
        Err(Error::field(
            field,
            format!("must be positive, got {}", num(v)),
        ))
    }
}

pub(super) fn non_negative(field: &str, v: f64) -> Result<()> {
    finite(field, v)?;
    if v >= 0.0 {
        Ok(())
    } else {
        Err(Error::field(
            field,
            format!("must not be negative, got {}", num(v)),
        ))
    }
}
