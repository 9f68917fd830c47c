//! `[transport.dcpim]`: dcPIM's parameters (Cai et al., SIGCOMM 2022, section 3; the
//! defaults are the dcPIM simulator's, the "simulator default settings" the DCSIM paper
//! ran (section 4.1): `pim_iter_limit = 4`, `pim_beta = 1.3`, `pim_alpha = 1`,
//! `pim_k = 4`, `token_window = 1` (which its `params.cpp` scales by the BDP),
//! `token_window_timeout = 1.1`, short flows under one BDP).

use crate::error::{Error, Result};
use crate::scenario::{CcKind, LbKind, Scenario, TopologyKind};
use crate::units::num;
use serde::{Deserialize, Serialize};

/// `[transport.dcpim]`: the epoch and its matching rounds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DcpimSection {
    /// Matching rounds per epoch (dcPIM's constant `r`: 4).
    pub rounds: u32,
    /// Length of one request / grant / accept round in base RTTs (dcPIM's `beta`: 1.3
    /// control-packet RTTs, so that a round's GRANTs and ACCEPTs arrive within it).
    pub round_rtts: f64,
    /// Epoch length in base RTTs: the data phase, during which the next epoch's matching
    /// runs (pipelined). dcPIM: `alpha x rounds x round_rtts` with `alpha = 1`, i.e. 5.2.
    /// At least `rounds x round_rtts` (the matching must end within the epoch).
    pub epoch_rtts: f64,
    /// Flows of fewer bytes than this many BDPs are sent at once, without matching
    /// (dcPIM: 1 BDP).
    pub unscheduled_bdp: f64,
    /// Rounds in which receivers grant and senders accept the smallest remaining size;
    /// later rounds choose at random (PIM; the dcPIM simulator's `pim_select_min_iters`: 1).
    pub srpt_rounds: u32,
    /// Channels per host, dcPIM's `k` (the simulator's `pim_k`: 4): a host is matched on
    /// at most `k` channels as a sender and `k` as a receiver per epoch, each channel
    /// `1 / k` of the host's rate; an RTS asks for the channels the sender's data to that
    /// receiver needs, a GRANT and an ACCEPT give as many as are left. 1 to 32.
    pub channels: u32,
    /// The token window per matched pair, in BDPs for all `k` channels (the simulator's
    /// `token_window = 1`, scaled by the BDP; a pair matched on `l` channels keeps at most
    /// `token_window_bdp x BDP x l / k` tokens, i.e. scheduled DATAs, unanswered). Tokens
    /// are clocked by the DATAs reaching the receiver, so queueing in the fabric slows
    /// the sender: dcPIM's reaction to congestion. 0: no window (line rate per channel).
    pub token_window_bdp: f64,
    /// With the window full, one more token after this many base RTTs without one (the
    /// simulator's `token_window_timeout = 1.1` and `relax_token_gap`).
    pub token_window_timeout_rtts: f64,
}

impl Default for DcpimSection {
    fn default() -> Self {
        DcpimSection {
            rounds: 4,
            round_rtts: 1.3,
            epoch_rtts: 5.2,
            unscheduled_bdp: 1.0,
            srpt_rounds: 1,
            channels: 4,
            token_window_bdp: 1.0,
            token_window_timeout_rtts: 1.1,
        }
    }
}

impl DcpimSection {
    /// The defaults (the section is then left out of a written `scenario.toml`).
    pub fn is_default(&self) -> bool {
        *self == DcpimSection::default()
    }

    /// Check the section (whatever `cc` is); errors name `transport.dcpim.<field>`.
    pub fn check(&self) -> Result<()> {
        if !(1..=64).contains(&self.rounds) {
            return Err(Error::field(
                "transport.dcpim.rounds",
                format!("must be in 1 ..= 64, got {}", self.rounds),
            ));
        }
        let num = |name: &str, v: f64, lo: f64, hi: f64| -> Result<()> {
            if !v.is_finite() || v < lo || v > hi {
                return Err(Error::field(
                    format!("transport.dcpim.{name}"),
                    format!("must be a number in {lo} ..= {hi}, got {}", num(v)),
                ));
            }
            Ok(())
        };
        num("round_rtts", self.round_rtts, 0.01, 1000.0)?;
        num("epoch_rtts", self.epoch_rtts, 0.01, 100_000.0)?;
        num("unscheduled_bdp", self.unscheduled_bdp, 0.0, 1e6)?;
        num("token_window_bdp", self.token_window_bdp, 0.0, 1e6)?;
        num(
            "token_window_timeout_rtts",
            self.token_window_timeout_rtts,
            0.01,
            1e6,
        )?;
        if !(1..=32).contains(&self.channels) {
            return Err(Error::field(
                "transport.dcpim.channels",
                format!("must be in 1 ..= 32, got {}", self.channels),
            ));
        }
        let matching = f64::from(self.rounds) * self.round_rtts;
        if self.epoch_rtts + 1e-9 < matching {
            return Err(Error::field(
                "transport.dcpim.epoch_rtts",
                format!(
                    "must be at least rounds x round_rtts = {matching} (the next epoch's \
                     matching runs within this epoch), got {}",
                    self.epoch_rtts
                ),
            ));
        }
        Ok(())
    }
}

/// The refusals of dcPIM (called by [`crate::validate`]).
pub fn check_supported(s: &Scenario) -> Result<()> {
    if s.transport.cc != CcKind::Dcpim {
        return Ok(());
    }
    if !matches!(s.transport.lb, LbKind::Ecmp | LbKind::Ops | LbKind::SprayRr) {
        return Err(Error::field(
            "transport.lb",
            "dcpim sends its DATAs with ecmp, ops or spray_rr (the load balancers of the DCSIM \
             comparison); the others need feedback dcpim does not give them",
        ));
    }
    if s.topology.kind == TopologyKind::TwoDc {
        return Err(Error::field(
            "transport.cc",
            "dcpim on a two_dc topology is not supported yet by the fabric simulator (its \
             epoch is set from one fabric-wide RTT; use a fat_tree)",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_the_field() {
        let f = |s: DcpimSection| match s.check() {
            Err(Error::Field { field, .. }) => field,
            other => panic!("expected a field error, got {other:?}"),
        };
        assert!(DcpimSection::default().check().is_ok());
        let d = DcpimSection::default;
        assert_eq!(
            f(DcpimSection { rounds: 0, ..d() }),
            "transport.dcpim.rounds"
        );
        assert_eq!(
            f(DcpimSection {
                round_rtts: f64::NAN,
                ..d()
            }),
            "transport.dcpim.round_rtts"
        );
        assert_eq!(
            f(DcpimSection {
                epoch_rtts: 4.0,
                ..d()
            }),
            "transport.dcpim.epoch_rtts"
        );
        assert_eq!(
            f(DcpimSection {
                unscheduled_bdp: -1.0,
                ..d()
            }),
            "transport.dcpim.unscheduled_bdp"
        );
        assert_eq!(
            f(DcpimSection { channels: 0, ..d() }),
            "transport.dcpim.channels"
        );
        assert_eq!(
            f(DcpimSection {
                token_window_bdp: f64::INFINITY,
                ..d()
            }),
            "transport.dcpim.token_window_bdp"
        );
        assert_eq!(
            f(DcpimSection {
                token_window_timeout_rtts: 0.0,
                ..d()
            }),
            "transport.dcpim.token_window_timeout_rtts"
        );
    }
}
