//! `[transport.phost]`: pHost's parameters (Gao et al., CoNEXT 2015, section 3: token TTL,
//! downgrade, free first BDP; DCSIM 4.1's baseline) with their checks, and the refusals of
//! the pHost transport.

use crate::error::{Error, Result};
use crate::scenario::{CcKind, LbKind, Scenario, TopologyKind};
use crate::units::num;
use serde::{Deserialize, Serialize};

/// `[transport.phost]`: pHost's parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PhostSection {
    /// Free tokens of a new flow, in BDPs (pHost: the first BDP goes at once).
    pub free_bdp: f64,
    /// Free tokens only for a flow that fits in `free_bdp` whole (all its packets go at
    /// once); a larger flow gets none and waits for tokens after its RTS. The dcPIM
    /// simulator's pHost does this (Terabit-Ethernet/dcPIM `ext/capabilityflow.cpp`,
    /// `CapabilityFlow::init_capa_size`: `size_in_pkt <= capability_initial ? size_in_pkt :
    /// 0`), where the DCSIM paper ran it (4.1). false: every flow sends its first
    /// `free_bdp` at once (pHost's paper).
    pub free_small_flows_only: bool,
    /// The receiver's SRPT as the dcPIM simulator's pHost keeps it (Terabit-Ethernet/dcPIM
    /// `ext/capabilityhost.cpp`, `CapabilityFlowComparatorAtReceiver`, `send_capability`,
    /// over `ext/custompriorityqueue.h`), where the DCSIM paper ran it (4.1): the flow
    /// with the fewest packets not yet *received*, ties to the flow granted (tried) last.
    /// false: the fewest packets not yet *granted*, ties to the flow registered first.
    pub srpt_by_received: bool,
    /// Token validity after the one-way base delay, in MTU times (pHost: about 1.5).
    pub token_ttl_mtus: f64,
    /// Base RTTs a flow's tokens may go unanswered before it is downgraded.
    pub downgrade_timeout_rtts: f64,
    /// Base RTTs a downgraded flow gets no tokens.
    pub downgrade_rtts: f64,
    /// Base RTTs a sender that sent everything waits for DONE before re-sending its RTS.
    pub rts_timeout_rtts: f64,
    /// Tokens a flow may have unanswered at its receiver, in BDPs (session 7; the dcPIM
    /// simulator's pHost, `capability_window`: 19 packets of 1.5 KB in its 100 Gb/s
    /// settings, of the order of a BDP there; read here as one BDP), counted from the
    /// latest token a DATA answered (the simulator's `token_count -
    /// largest_token_seq_received - 1`: tokens that expired at the sender or whose DATA
    /// was lost are given up when a later one is answered). A token is answered by its
    /// DATA, so a sender whose DATAs queue in the fabric gets tokens more slowly (the DCSIM
    /// paper, 4.2: pHost "decreases its sending rate as it detects congestion in the
    /// network, based on received token packets"). 0: no window (tokens at line rate
    /// whatever comes back, pHost's paper).
    pub token_window_bdp: f64,
    /// Base RTTs a flow may stay at its token window before one unanswered token is given
    /// up (its DATA taken as lost; the simulator's `capability_window_timeout`, here as
    /// dcPIM's `token_window_timeout = 1.1` of the same simulator).
    pub token_window_timeout_rtts: f64,
}

impl Default for PhostSection {
    fn default() -> Self {
        PhostSection {
            free_bdp: 1.0,
            free_small_flows_only: false,
            srpt_by_received: false,
            token_ttl_mtus: 1.5,
            downgrade_timeout_rtts: 2.0,
            downgrade_rtts: 3.0,
            rts_timeout_rtts: 4.0,
            token_window_bdp: 1.0,
            token_window_timeout_rtts: 1.1,
        }
    }
}

impl PhostSection {
    /// The defaults (the section is then left out of a written `scenario.toml`).
    pub fn is_default(&self) -> bool {
        *self == PhostSection::default()
    }

    /// Check the section (whatever `cc` is); errors name `transport.phost.<field>`.
    pub fn check(&self) -> Result<()> {
        let range = |name: &str, v: f64, lo: f64, hi: f64| -> Result<()> {
            if !v.is_finite() || v < lo || v > hi {
                return Err(Error::field(
                    format!("transport.phost.{name}"),
                    format!("must be a number in {lo} ..= {hi}, got {}", num(v)),
                ));
            }
            Ok(())
        };
        range("free_bdp", self.free_bdp, 0.0, 1000.0)?;
        range("token_ttl_mtus", self.token_ttl_mtus, 0.01, 1000.0)?;
        range(
            "downgrade_timeout_rtts",
            self.downgrade_timeout_rtts,
            0.01,
            1000.0,
        )?;
        range("downgrade_rtts", self.downgrade_rtts, 0.0, 1000.0)?;
        range("rts_timeout_rtts", self.rts_timeout_rtts, 0.1, 1000.0)?;
        range("token_window_bdp", self.token_window_bdp, 0.0, 100.0)?;
        range(
            "token_window_timeout_rtts",
            self.token_window_timeout_rtts,
            0.01,
            1000.0,
        )?;
        Ok(())
    }
}

/// The refusals of pHost (called by [`crate::validate`]).
pub fn check_supported(s: &Scenario) -> Result<()> {
    if s.transport.cc != CcKind::Phost {
        return Ok(());
    }
    if !matches!(s.transport.lb, LbKind::Ecmp | LbKind::Ops | LbKind::SprayRr) {
        return Err(Error::field(
            "transport.lb",
            "phost sprays its packets (ops, or spray_rr in the switches) or hashes them per flow (ecmp); other load balancers need ACK feedback pHost does not send",
        ));
    }
    if s.transport.trimming {
        return Err(Error::field(
            "transport.trimming",
            "phost runs on plain switches (no trimming); set it to false",
        ));
    }
    if s.topology.kind == TopologyKind::TwoDc {
        return Err(Error::field(
            "transport.cc",
            "phost on a two_dc topology is not supported (its token timing uses one fabric-wide RTT); use a fat_tree",
        ));
    }
    Ok(())
}
