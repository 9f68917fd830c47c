//! `[[failures]]` and `[[loss]]`: links going down, changing rate or losing packets at
//! random (REPS Fig. 8-9 failures; Uno 2.4 / Table 1 block losses, Fig. 13 flaky links).

use serde::{Deserialize, Serialize};

/// Random loss on a link (`[[loss]]`; `crate::engine::loss`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Loss {
    /// A link name (both directions of the cable, like `failures[].link`), `inter_dc` for
    /// every inter-DC link of a `two_dc`, or `border` for every cable of its border switches
    /// (`engine::loss::loss_ports`).
    pub link: String,
    /// `uno_setup1` / `uno_setup2` (Uno Table 1), `block` (`block_packets`,
    /// `block_loss_probs`) or `bernoulli` (`rate`).
    pub model: LossModel,
    /// `block`: packets per block (Uno 2.4: 10).
    pub block_packets: u32,
    /// `block`: probability that a block loses 1, 2, 3, ... of its packets.
    pub block_loss_probs: Vec<f64>,
    /// `bernoulli`: probability that a packet is lost.
    pub rate: f64,
    /// When the link starts losing, us (Uno Fig. 13: a link "temporarily flaky").
    pub at_us: f64,
    /// How long it loses, us; absent = until the end of the run.
    pub for_us: Option<f64>,
    /// Where a switch port loses a packet: `wire` (after its queue) or `arrival` (before
    /// the buffer, the Uno authors' `CompositeQueue::receivePacket`).
    #[serde(skip_serializing_if = "LossPlace::is_wire")]
    pub place: LossPlace,
}

/// Where a lossy switch port loses a packet (`loss[].place`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LossPlace {
    /// On the wire, after the queue: a lost packet held its buffer slot and took its line
    /// time; only packets sent draw.
    #[default]
    Wire,
    /// On arrival, before the buffer check (spcl/Uno_SC25 `sim/compositequeue.cpp`,
    /// `CompositeQueue::receivePacket` under `failure_multiples`): a lost packet takes no
    /// buffer slot, no line time and no phantom-queue credit, and every arriving packet
    /// draws, the ones the full buffer then drops too. A host's own port stays `wire`.
    Arrival,
}

impl LossPlace {
    fn is_wire(&self) -> bool {
        *self == LossPlace::Wire
    }
}

impl Default for Loss {
    fn default() -> Self {
        Loss {
            link: String::new(),
            model: LossModel::UnoSetup1,
            block_packets: 10,
            block_loss_probs: Vec::new(),
            rate: 0.0,
            at_us: 0.0,
            for_us: None,
            place: LossPlace::Wire,
        }
    }
}

/// How a lossy link loses packets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LossModel {
    /// Uno Table 1, Setup 1 (65 ms RTT): blocks of 10 lose 1 / 2 / 3 packets with
    /// probability 3.0e-4 / 7.5e-5 / 1.6e-5.
    UnoSetup1,
    /// Uno Table 1, Setup 2 (33 ms RTT): 4.0e-5 / 2.3e-5 / 4.9e-6.
    UnoSetup2,
    /// Blocks of `block_packets` losing k packets with `block_loss_probs[k - 1]`.
    Block,
    /// Each packet lost with probability `rate`.
    Bernoulli,
}

/// A link going down for a while, changing rate, or dropping packets at random; or such a
/// failure of a random fraction of a set of cables (`engine::failure_sets`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Failure {
    /// Link name, e.g. `tor0.up3` (see README for naming).
    pub link: String,
    /// When the failure starts, in us.
    pub at_us: f64,
    /// How long it lasts, in us; absent = forever.
    #[serde(default)]
    pub for_us: Option<f64>,
    /// New rate in Gb/s instead of going down; absent = link down.
    #[serde(default)]
    pub gbps: Option<f64>,
    /// Instead of going down, the cable loses each packet crossing it (either direction)
    /// with this probability, drawn from the seed (REPS Fig. 8 "random drops", a partial
    /// failure); counted as drops of cause `random_loss`. Not with `gbps`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drop_prob: Option<f64>,
    /// `link` names a set of cables (`tor_uplinks`, `agg_uplinks` or `switch_cables`) and
    /// this fraction of them (rounded, at least one), drawn from the seed, fail (REPS Fig. 8
    /// "1 % cables", Fig. 9); the chosen cables are listed in `failures.csv`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub random_fraction: Option<f64>,
    /// Only the direction out of the port `link` names goes down (or changes rate); the
    /// cable's other direction keeps working. The Uno authors' `-fail_one` fails one queue,
    /// datacenter 0's border towards datacenter 1 (`border0.wan<n>`), and leaves the way back
    /// up, so the ACKs of a flow across it still return (Fig. 13). A link name only; not
    /// with `drop_prob` or `random_fraction`. Left out of `scenario.toml` when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub one_direction: bool,
}
