//! `[transport.dcsim]`: the DCSIM transport's parameters (DCSIM 2.3-2.4, 4.4), used when
//! `transport.cc = "dcsim"`; [`super::config::DcsimParams`] resolves them against the fabric.

use crate::error::{Error, Result};
use crate::scenario::Size;
use crate::units::num;
use serde::{Deserialize, Serialize};

/// DCSIM release rule (DCSIM 2.4 Eq. 4 and 4.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DcsimVariantKind {
    /// DATA at `t_SIM + RTT_max` (Eq. 4).
    Sync,
    /// DATA as soon as the SIM-ACK arrives.
    Async,
    /// DATA at the later of `t_SIM + fraction * RTT_max` and the SIM-ACK.
    Fractional,
}

/// `[transport.dcsim]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DcsimSection {
    /// Release rule (section 4.4): `sync` (`t_DATA = t_SIM + RTT_max`, Eq. 4), `async` (at the
    /// SIM-ACK) or `fractional` (`t_SIM + fraction * RTT_max`, not before the SIM-ACK).
    pub variant: DcsimVariantKind,
    /// Fraction of `RTT_max` of the `fractional` variant, 0 to 1.
    pub fraction: f64,
    /// `B`: packets each small queue (SIM, SIM-ACK, DATA-ACK) holds, 1 to 15 (paper: 12).
    pub small_queue_pkts: u32,
    /// `l`: bytes of a SIM, SIM-ACK and DATA-ACK on the wire (paper: 64).
    pub small_bytes: u32,
    /// `h` of the SIM token rate `C / (alpha + h)` (Eq. 2: 2.1; Eq. 1: 1).
    pub h: f64,
    /// SIM token-bucket depth, tokens (Theorem 3: 2).
    pub bucket_depth: u32,
    /// DATA buffer of every DCSIM port (a size); absent = the rest of `topology.buffer`
    /// after the three small buffers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data_buffer: Option<Size>,
    /// DATA buffer as `B_data / B` (DATAs per SIM slot, Fig. 11); 0 = not used. Exclusive
    /// with `data_buffer`.
    pub data_buffer_ratio: f64,
    /// DATAs per DATA-ACK at the receiver (paper: 16).
    pub ack_every: u32,
    /// Longest wait of a DATA for its DATA-ACK, in propagation RTTs (paper: 3).
    pub ack_interval_rtts: f64,
}

impl Default for DcsimSection {
    fn default() -> Self {
        DcsimSection {
            variant: DcsimVariantKind::Sync,
            fraction: 0.85,
            small_queue_pkts: 12,
            small_bytes: 64,
            h: 2.1,
            bucket_depth: 2,
            data_buffer: None,
            data_buffer_ratio: 0.0,
            ack_every: 16,
            ack_interval_rtts: 3.0,
        }
    }
}

fn finite(field: &str, v: f64) -> Result<()> {
    if v.is_finite() {
        Ok(())
    } else {
        Err(Error::field(
            field,
            format!("must be a finite number, got {v}"),
        ))
    }
}

impl DcsimSection {
    /// Check the section (whatever `cc` is, like every field); errors name
    /// `transport.dcsim.<field>`. Checks that need the fabric are
    /// [`super::config::check`].
    pub fn check(&self) -> Result<()> {
        finite("transport.dcsim.fraction", self.fraction)?;
        if !(0.0..=1.0).contains(&self.fraction) {
            return Err(Error::field(
                "transport.dcsim.fraction",
                format!(
                    "must be a fraction of RTT_max, 0 to 1, got {}",
                    num(self.fraction)
                ),
            ));
        }
        if !(1..=15).contains(&self.small_queue_pkts) {
            return Err(Error::field(
                "transport.dcsim.small_queue_pkts",
                format!(
                    "must be between 1 and 15 packets, got {}",
                    self.small_queue_pkts
                ),
            ));
        }
        if self.small_bytes == 0 || self.small_bytes > 65536 {
            return Err(Error::field(
                "transport.dcsim.small_bytes",
                format!(
                    "{} bytes is out of range: allowed 1 to 65536 bytes",
                    self.small_bytes
                ),
            ));
        }
        finite("transport.dcsim.h", self.h)?;
        if self.h <= 0.0 || self.h > 1000.0 {
            return Err(Error::field(
                "transport.dcsim.h",
                format!(
                    "{} is out of range: allowed more than 0 and at most 1000",
                    num(self.h)
                ),
            ));
        }
        if self.bucket_depth == 0 {
            return Err(Error::field(
                "transport.dcsim.bucket_depth",
                "must be at least 1 token, got 0",
            ));
        }
        finite("transport.dcsim.data_buffer_ratio", self.data_buffer_ratio)?;
        if self.data_buffer_ratio < 0.0 {
            return Err(Error::field(
                "transport.dcsim.data_buffer_ratio",
                format!("must not be negative, got {}", num(self.data_buffer_ratio)),
            ));
        }
        if self.data_buffer.is_some() && self.data_buffer_ratio > 0.0 {
            return Err(Error::field(
                "transport.dcsim.data_buffer_ratio",
                "cannot be used together with transport.dcsim.data_buffer (set one of them)",
            ));
        }
        if self.ack_every == 0 || self.ack_every > u32::from(u16::MAX) {
            return Err(Error::field(
                "transport.dcsim.ack_every",
                format!(
                    "{} is out of range: allowed 1 to 65535 DATAs per DATA-ACK",
                    self.ack_every
                ),
            ));
        }
        finite("transport.dcsim.ack_interval_rtts", self.ack_interval_rtts)?;
        if self.ack_interval_rtts <= 0.0 || self.ack_interval_rtts > 1000.0 {
            return Err(Error::field(
                "transport.dcsim.ack_interval_rtts",
                format!(
                    "{} is out of range: allowed more than 0 and at most 1000 RTTs",
                    num(self.ack_interval_rtts)
                ),
            ));
        }
        if let Some(b) = self.data_buffer {
            crate::units::check_size("transport.dcsim.data_buffer", b)?;
        }
        Ok(())
    }
}
