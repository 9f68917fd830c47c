//! dcPIM: receiver-driven matching in a constant number of rounds per epoch.
//!
//! dcPIM (Cai, Tahmasbi Arashloo, Agarwal, SIGCOMM 2022), a DCSIM baseline (DCSIM section
//! 4.1; section 4.2: "Under 1 BDP, dcPIM does not activate its full algorithm for small
//! flows, and therefore simply sends the flows without any control packets"; section 5:
//! dcPIM "replaces log(n) matching rounds from classical PIM with constant-time matching").
//! Time is cut into epochs; during each epoch the hosts run `rounds` rounds of
//!
//! 1. **request**: every unmatched sender sends an RTS, carrying the flow's remaining size,
//!    to every unmatched receiver it has scheduled data for;
//! 2. **grant**: every unmatched receiver grants the RTS with the smallest remaining size
//!    (dcPIM's `min_rts`; ties to the lowest sender index);
//! 3. **accept**: every unmatched sender accepts the grant with the smallest remaining size
//!    (`min_grant`; ties to the lowest receiver index);
//!
//! and the matching found is used for the next epoch: a matched sender sends to its
//! receiver at line rate. A flow under one BDP skips all of it and is sent at once.
//!
//! ```text
//!   on_flow(src, dst, size) --size < BDP--> Unscheduled (send now, no control packets)
//!                           --else--------> demand[src][dst] += size
//!   tick: epoch counter; at the epoch boundary: R x (request, grant, accept) over the
//!         unmatched hosts -> matching (src -> dst, at most one each) for this epoch
//!   matched_dst(src) / matched_src(dst) <-- the current epoch's matching
//!   on_sent(src, dst, n)                --> demand[src][dst] -= n
//! ```
//!
//! The block evaluates the `H` hosts' matching engines together (each one reads only its own
//! demand row as a sender and its own column as a receiver, as the RTS / grant / accept
//! messages would carry). Units: cycles, packets; hosts are indices `0..H` (`H <= 65535`).

use rtl_models::budget::{bits_for, StateBudget};
use rtl_models::{field_bits, Clocked, ConfigError, Cycles};

/// dcPIM configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct DcpimConfig {
    /// Flows of fewer packets are sent at once, unscheduled (one BDP). `>= 1`.
    pub bdp_pkts: u32,
    /// Matching rounds per epoch (constant; dcPIM uses a small constant such as 4). `>= 1`.
    pub rounds: u8,
    /// Epoch length in cycles. `>= 1`.
    pub epoch_cycles: u32,
}

impl DcpimConfig {
    /// Check the configuration; the error names the bad field.
    pub const fn validate(&self) -> Result<(), ConfigError> {
        if self.bdp_pkts == 0 {
            return Err(ConfigError::new("bdp_pkts", "must be at least 1"));
        }
        if self.rounds == 0 {
            return Err(ConfigError::new("rounds", "must be at least 1"));
        }
        if self.epoch_cycles == 0 {
            return Err(ConfigError::new("epoch_cycles", "must be at least 1"));
        }
        Ok(())
    }
}

/// How a new flow is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FlowStart {
    /// Under one BDP: sent at once, without matching.
    Unscheduled,
    /// Added to the matching demand.
    Scheduled,
}

/// Sentinel for "not matched" in the match registers.
const NONE: u16 = u16::MAX;

/// dcPIM matching over `H` hosts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DcpimMatcher<const H: usize> {
    cfg: DcpimConfig,
    /// Scheduled packets left, `demand[src][dst]`.
    demand: [[u32; H]; H],
    /// This epoch's receiver per sender (`NONE`: unmatched).
    dst_of: [u16; H],
    /// This epoch's sender per receiver (`NONE`: unmatched).
    src_of: [u16; H],
    /// Cycles into the current epoch.
    phase: u32,
    /// Epochs completed.
    epoch: u64,
    /// Matches made in each round of the last epoch (round `r` at index `r`, up to 8).
    round_matches: [u16; 8],
}

impl<const H: usize> DcpimMatcher<H> {
    const VALID_H: () = assert!(H >= 1 && H < NONE as usize, "H must be in 1..=65534");

    /// An idle matcher at the start of epoch 0; the error names the bad field.
    pub const fn new(cfg: DcpimConfig) -> Result<Self, ConfigError> {
        #[allow(clippy::let_unit_value)]
        let () = Self::VALID_H;
        if let Err(e) = cfg.validate() {
            return Err(e);
        }
        Ok(DcpimMatcher {
            cfg,
            demand: [[0; H]; H],
            dst_of: [NONE; H],
            src_of: [NONE; H],
            phase: 0,
            epoch: 0,
            round_matches: [0; 8],
        })
    }

    /// A flow of `size_pkts` from `src` to `dst` starts. The error names `src` / `dst` if
    /// out of range or equal, `size_pkts` if zero.
    pub fn on_flow(
        &mut self,
        src: usize,
        dst: usize,
        size_pkts: u32,
    ) -> Result<FlowStart, ConfigError> {
        self.check(src, dst)?;
        if size_pkts == 0 {
            return Err(ConfigError::new(
                "size_pkts",
                "a flow has at least one packet",
            ));
        }
        if size_pkts < self.cfg.bdp_pkts {
            return Ok(FlowStart::Unscheduled);
        }
        let d = &mut self.demand[src][dst];
        *d = d.saturating_add(size_pkts);
        Ok(FlowStart::Scheduled)
    }

    /// `n` scheduled packets from `src` to `dst` were sent (saturating at the demand).
    pub fn on_sent(&mut self, src: usize, dst: usize, n: u32) -> Result<(), ConfigError> {
        self.check(src, dst)?;
        let d = &mut self.demand[src][dst];
        *d = d.saturating_sub(n);
        Ok(())
    }

    /// The receiver `src` is matched to in this epoch.
    pub fn matched_dst(&self, src: usize) -> Option<usize> {
        self.dst_of
            .get(src)
            .filter(|&&d| d != NONE)
            .map(|&d| d as usize)
    }

    /// The sender `dst` is matched to in this epoch.
    pub fn matched_src(&self, dst: usize) -> Option<usize> {
        self.src_of
            .get(dst)
            .filter(|&&s| s != NONE)
            .map(|&s| s as usize)
    }

    /// Scheduled packets left from `src` to `dst`.
    pub fn demand(&self, src: usize, dst: usize) -> u32 {
        self.demand
            .get(src)
            .and_then(|r| r.get(dst))
            .copied()
            .unwrap_or(0)
    }

    /// Epochs completed.
    pub const fn epoch(&self) -> u64 {
        self.epoch
    }

    /// Matches made in round `r` of the last epoch's matching (rounds beyond 8 not kept).
    pub fn round_matches(&self, r: usize) -> u16 {
        self.round_matches.get(r).copied().unwrap_or(0)
    }

    fn check(&self, src: usize, dst: usize) -> Result<(), ConfigError> {
        if src >= H {
            return Err(ConfigError::new("src", "not below the number of hosts H"));
        }
        if dst >= H {
            return Err(ConfigError::new("dst", "not below the number of hosts H"));
        }
        if src == dst {
            return Err(ConfigError::new("dst", "equals src"));
        }
        Ok(())
    }

    /// The epoch boundary: run the constant number of rounds on the current demand.
    fn match_epoch(&mut self) {
        self.dst_of = [NONE; H];
        self.src_of = [NONE; H];
        self.round_matches = [0; 8];
        for r in 0..self.cfg.rounds as usize {
            // Request + grant: each unmatched receiver grants the smallest-remaining RTS
            // from an unmatched sender.
            let mut grant = [NONE; H];
            for (dst, g) in grant.iter_mut().enumerate() {
                if self.src_of[dst] != NONE {
                    continue;
                }
                let mut best: Option<(u32, usize)> = None;
                for src in 0..H {
                    let rem = self.demand[src][dst];
                    if rem > 0
                        && self.dst_of[src] == NONE
                        && !matches!(best, Some((b, _)) if b <= rem)
                    {
                        best = Some((rem, src));
                    }
                }
                if let Some((_, src)) = best {
                    *g = src as u16;
                }
            }
            // Accept: each sender with grants accepts the smallest-remaining one.
            let mut made = 0u16;
            for src in 0..H {
                let mut best: Option<(u32, usize)> = None;
                for (dst, &g) in grant.iter().enumerate() {
                    if g as usize == src {
                        let rem = self.demand[src][dst];
                        if !matches!(best, Some((b, _)) if b <= rem) {
                            best = Some((rem, dst));
                        }
                    }
                }
                if let Some((_, dst)) = best {
                    self.dst_of[src] = dst as u16;
                    self.src_of[dst] = src as u16;
                    made += 1;
                }
            }
            if let Some(m) = self.round_matches.get_mut(r) {
                *m = made;
            }
            if made == 0 {
                break;
            }
        }
    }
}

impl<const H: usize> Clocked for DcpimMatcher<H> {
    fn tick(&mut self) {
        self.phase += 1;
        if self.phase >= self.cfg.epoch_cycles {
            self.phase = 0;
            self.epoch += 1;
            self.match_epoch();
        }
    }

    /// Jumps from epoch boundary to epoch boundary (the matching is recomputed at each).
    fn advance(&mut self, cycles: Cycles) {
        let mut n = cycles;
        while n > 0 {
            let to_boundary = (self.cfg.epoch_cycles - self.phase) as u64;
            if n < to_boundary {
                self.phase += n as u32;
                return;
            }
            n -= to_boundary;
            self.phase = 0;
            self.epoch += 1;
            self.match_epoch();
        }
    }
}

impl<const H: usize> StateBudget for DcpimMatcher<H> {
    const NAME: &'static str = "dcPIM matching engine";
    /// Per host: its demand row (`H` 32-bit counters: one per destination), the match
    /// registers as sender and receiver (`bits_for(H)` each: an index or "none"), its share
    /// of the round-match counters; plus the epoch phase and epoch counters, all divided
    /// by `H` hosts: the figure is per host.
    const BITS: u32 = H as u32 * 32 + 2 * bits_for(H as u64) + 16 + (32 + 64) / H as u32;
    const UNIT: &'static str = "per host";
}
const _: () = assert!(
    DcpimMatcher::<32>::BITS
        == field_bits!(DcpimMatcher<32>, demand) / 32
            + 2 * bits_for(32)
            + field_bits!(DcpimMatcher<32>, round_matches) / 8
            + (field_bits!(DcpimMatcher<32>, phase) + field_bits!(DcpimMatcher<32>, epoch)) / 32
        && bits_for(32) <= u16::BITS
);

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use proptest::prelude::*;
    use rtl_models::testing::assert_advance_eq_ticks;
    use std::vec::Vec;

    const CFG: DcpimConfig = DcpimConfig {
        bdp_pkts: 4,
        rounds: 4,
        epoch_cycles: 10,
    };

    #[test]
    fn short_flows_skip_matching_and_rounds_match_srpt() {
        let mut m = DcpimMatcher::<4>::new(CFG).unwrap();
        assert_eq!(m.on_flow(0, 1, 3).unwrap(), FlowStart::Unscheduled);
        assert_eq!(m.demand(0, 1), 0);
        // Receiver 1 gets RTSs from senders 0 (20) and 2 (8): grants 2. Receiver 3 gets
        // RTSs from 2 (30) and 0 (40): grants 2. Sender 2 accepts 1 (8 < 30).
        m.on_flow(0, 1, 20).unwrap();
        m.on_flow(2, 1, 8).unwrap();
        m.on_flow(2, 3, 30).unwrap();
        m.on_flow(0, 3, 40).unwrap();
        m.advance(9);
        assert_eq!(
            m.matched_dst(2),
            None,
            "no matching before the first boundary"
        );
        m.tick();
        assert_eq!(m.epoch(), 1);
        assert_eq!(m.matched_dst(2), Some(1));
        assert_eq!(m.matched_src(1), Some(2));
        // Round 1: receiver 3 granted sender 2 (30 < 40) which accepted 1 instead; round 2:
        // receiver 3 grants sender 0.
        assert_eq!(m.matched_dst(0), Some(3));
        assert_eq!((m.round_matches(0), m.round_matches(1)), (1, 1));
        m.on_sent(2, 1, 8).unwrap();
        m.advance(10);
        assert_eq!(m.matched_dst(2), Some(3));
        assert_eq!(m.matched_dst(0), Some(1));
    }

    #[test]
    fn errors_name_fields() {
        let e = |c| DcpimMatcher::<2>::new(c).unwrap_err().field;
        assert_eq!(e(DcpimConfig { bdp_pkts: 0, ..CFG }), "bdp_pkts");
        assert_eq!(e(DcpimConfig { rounds: 0, ..CFG }), "rounds");
        assert_eq!(
            e(DcpimConfig {
                epoch_cycles: 0,
                ..CFG
            }),
            "epoch_cycles"
        );
        let mut m = DcpimMatcher::<2>::new(CFG).unwrap();
        assert_eq!(m.on_flow(2, 0, 9).unwrap_err().field, "src");
        assert_eq!(m.on_flow(0, 2, 9).unwrap_err().field, "dst");
        assert_eq!(m.on_flow(1, 1, 9).unwrap_err().field, "dst");
        assert_eq!(m.on_flow(0, 1, 0).unwrap_err().field, "size_pkts");
        assert_eq!(m.on_sent(0, 5, 1).unwrap_err().field, "dst");
    }

    fn flows() -> impl Strategy<Value = Vec<(usize, usize, u32)>> {
        proptest::collection::vec((0usize..6, 0usize..6, 1u32..50), 0..30)
    }

    proptest! {
        /// A matching is a matching: each sender and each receiver is matched at most once
        /// per epoch, the two registers agree, and every matched pair has scheduled data.
        /// With as many rounds as hosts the matching is maximal.
        #[test]
        fn a_matching_is_a_matching(fl in flows(), rounds in 1u8..8, epochs in 1u64..4,
                                    sent in proptest::collection::vec((0usize..6, 0usize..6, 0u32..30), 0..10)) {
            let mut m = DcpimMatcher::<6>::new(DcpimConfig { rounds, ..CFG }).unwrap();
            for (s, d, n) in fl { let _ = m.on_flow(s, d, n); }
            for e in 0..epochs {
                m.advance(10);
                let mut seen_dst = [false; 6];
                for src in 0..6 {
                    if let Some(dst) = m.matched_dst(src) {
                        prop_assert!(!seen_dst[dst], "receiver {} matched twice", dst);
                        seen_dst[dst] = true;
                        prop_assert_eq!(m.matched_src(dst), Some(src));
                        prop_assert!(m.demand(src, dst) > 0);
                    }
                }
                for dst in 0..6 {
                    if let Some(src) = m.matched_src(dst) { prop_assert_eq!(m.matched_dst(src), Some(dst)); }
                }
                if rounds >= 6 {
                    for src in (0..6).filter(|&s| m.matched_dst(s).is_none()) {
                        for dst in (0..6).filter(|&d| m.matched_src(d).is_none()) {
                            prop_assert_eq!(m.demand(src, dst), 0, "not maximal: {}->{}", src, dst);
                        }
                    }
                }
                if let Some(&(s, d, n)) = sent.get(e as usize) { let _ = m.on_sent(s, d, n); }
            }
        }

        /// `advance(n)` equals `n` idle ticks from any reachable state.
        #[test]
        fn advance_equals_idle_ticks(fl in flows(), pre in 0u64..25, n in 0u64..60) {
            let mut m = DcpimMatcher::<6>::new(CFG).unwrap();
            for (s, d, k) in fl { let _ = m.on_flow(s, d, k); }
            m.advance(pre);
            assert_advance_eq_ticks(&m, n);
        }
    }
}
