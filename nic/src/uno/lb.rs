//! UnoLB: Uno's subflow load balancer (Uno section 4.2, Algorithm 2).
//!
//! ```text
//!   subflow[0..N]  (EVs: one path each)      last_ack[0..N] (cycle of the last ACK)
//!   on_send:  ev = subflow[index]; index = (index + 1) mod N        (Alg. 2 lines 1-4)
//!   on_ack(ev):    last_ack[k of ev] = now
//!   on_nack_or_timeout(ev):                                         (Alg. 2 lines 5-10)
//!     if now - last_reroute > base_rtt:
//!        subflow[k of ev] = subflow[j], j drawn among subflows ACKed within base_rtt
//!        (a fresh random EV when none is), last_reroute = now
//!   stale mode (`set_reroute_stale`, the authors' simulator):
//!   on_nack_or_timeout(_):
//!     for every subflow k not rerouted within base_rtt and not ACKed within base_rtt / 2:
//!        subflow[k] = fresh random EV, reroute_at[k] = now
//! ```
//!
//! Packets of an erasure-coded block go out back to back, so the round robin spreads a
//! block across the `N` subflows (4.2: "we spread the packets of a block across n
//! subflows"). Units: cycles of the NIC clock; time stamps keep their low 32 bits
//! (compared with wrapping arithmetic, so any interval below 2^31 cycles is exact).

use rtl_models::{Clocked, Cycles, RandomSource, StateBudget};

use crate::lb::{Ev, LoadBalancer};

/// UnoLB with `N` subflows (`1 <= N <= 256`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct UnoLb<const N: usize> {
    subflow: [Ev; N],
    last_ack: [u32; N],
    acked: [bool; N],
    index: u8,
    last_reroute: u32,
    rerouted: bool,
    base_rtt: u32,
    reroutes: u32,
    now: Cycles,
    /// Stale mode (see [`UnoLb::set_reroute_stale`]).
    stale: bool,
    /// Stale mode: the cycle each subflow was last rerouted (valid where `moved`).
    reroute_at: [u32; N],
    moved: [bool; N],
}

impl<const N: usize> UnoLb<N> {
    const CHECK: () = assert!(N >= 1 && N <= 256, "UnoLb needs 1..=256 subflows");

    /// `N` subflows with EVs drawn from `rng`, rerouting at most once per `base_rtt` cycles
    /// (below 2^31).
    pub fn new<R: RandomSource>(base_rtt: Cycles, rng: &mut R) -> Self {
        #[allow(clippy::let_unit_value)]
        let () = Self::CHECK;
        let mut subflow = [0; N];
        for ev in subflow.iter_mut() {
            *ev = rng.next_u32() as Ev;
        }
        UnoLb {
            subflow,
            last_ack: [0; N],
            acked: [false; N],
            index: 0,
            last_reroute: 0,
            rerouted: false,
            base_rtt: base_rtt.min(i32::MAX as u64) as u32,
            reroutes: 0,
            now: 0,
            stale: false,
            reroute_at: [0; N],
            moved: [false; N],
        }
    }

    /// Stale mode, the authors' reading of Alg. 2 (spcl/Uno_SC25 `sim/lcp.cpp`,
    /// `LcpSrc::processParityNack` and `LcpSrc::retransmit_packet` under `_subflow_reroute`):
    /// a NACK or timeout moves *every* subflow that was not rerouted within the last base
    /// RTT and has had no ACK for half a base RTT (never ACKed counts) to a fresh random
    /// EV; the once-per-base-RTT limit is per subflow, not per flow, and no subflow copies
    /// another's path. Off (default): Alg. 2 as printed in 4.2 (one subflow per base RTT
    /// per flow, onto the path of a subflow "that has recently received ACKs").
    pub fn set_reroute_stale(&mut self, on: bool) {
        self.stale = on;
    }

    /// The subflows' EVs.
    pub const fn subflows(&self) -> &[Ev; N] {
        &self.subflow
    }

    /// Reroutes so far.
    pub const fn reroutes(&self) -> u32 {
        self.reroutes
    }

    fn since(&self, now: Cycles, t: u32) -> u32 {
        (now as u32).wrapping_sub(t)
    }

    /// Alg. 2 ONSEND: the EV of the next subflow in round robin.
    pub fn next_ev(&mut self) -> Ev {
        let ev = self.subflow[self.index as usize];
        self.index = ((self.index as usize + 1) % N) as u8;
        ev
    }

    /// An ACK for a packet sent on `ev` at `now`.
    pub fn ack(&mut self, now: Cycles, ev: Ev) {
        self.sync(now);
        if let Some(k) = self.subflow.iter().position(|&e| e == ev) {
            self.last_ack[k] = now as u32;
            self.acked[k] = true;
        }
    }

    /// Alg. 2 ONNACKORTIMEOUT for a packet sent on `ev`: at most once per base RTT, the
    /// subflow of `ev` takes the path of a subflow ACKed within the last base RTT (drawn
    /// with `rng`), or a fresh random EV if none was. Returns whether it rerouted.
    pub fn on_nack_or_timeout<R: RandomSource>(
        &mut self,
        now: Cycles,
        ev: Ev,
        rng: &mut R,
    ) -> bool {
        self.sync(now);
        if self.stale {
            return self.reroute_stale(now, rng);
        }
        if self.rerouted && self.since(now, self.last_reroute) <= self.base_rtt {
            return false;
        }
        let Some(bad) = self.subflow.iter().position(|&e| e == ev) else {
            return false;
        };
        let mut recent = [0u8; N];
        let mut n = 0;
        for k in 0..N {
            if k != bad
                && self.acked[k]
                && self.subflow[k] != ev
                && self.since(now, self.last_ack[k]) <= self.base_rtt
            {
                recent[n] = k as u8;
                n += 1;
            }
        }
        self.subflow[bad] = if n > 0 {
            let pick = (rng.next_u32() as u64 * n as u64) >> 32;
            self.subflow[recent[pick as usize] as usize]
        } else {
            rng.next_u32() as Ev
        };
        self.acked[bad] = false;
        self.last_reroute = now as u32;
        self.rerouted = true;
        self.reroutes += 1;
        true
    }

    /// Stale mode's NACK / timeout: every subflow due moves to a fresh random EV.
    fn reroute_stale<R: RandomSource>(&mut self, now: Cycles, rng: &mut R) -> bool {
        let mut any = false;
        for k in 0..N {
            let due = !self.moved[k] || self.since(now, self.reroute_at[k]) > self.base_rtt;
            let quiet = !self.acked[k] || self.since(now, self.last_ack[k]) > self.base_rtt / 2;
            if due && quiet {
                self.subflow[k] = rng.next_u32() as Ev;
                self.reroute_at[k] = now as u32;
                self.moved[k] = true;
                self.reroutes += 1;
                any = true;
            }
        }
        any
    }

    fn sync(&mut self, now: Cycles) {
        if now > self.now {
            self.now = now;
        }
    }
}

impl<const N: usize> LoadBalancer for UnoLb<N> {
    fn on_send<R: RandomSource>(&mut self, now: Cycles, _rng: &mut R) -> Ev {
        self.sync(now);
        self.next_ev()
    }

    fn on_ack(&mut self, now: Cycles, ev: Ev, _ecn: bool) {
        self.ack(now, ev);
    }
}

/// Time only moves `now`; every comparison is against stamps.
impl<const N: usize> Clocked for UnoLb<N> {
    fn tick(&mut self) {
        self.now += 1;
    }
    fn advance(&mut self, cycles: Cycles) {
        self.now += cycles;
    }
}

impl<const N: usize> StateBudget for UnoLb<N> {
    const NAME: &'static str = "UnoLB subflows (Uno Alg. 2)";
    /// Per subflow: EV (16) + last-ACK stamp (32) + ACKed flag; round-robin index (8),
    /// last-reroute stamp (32) + valid flag, reroute counter (32); stale mode: a reroute
    /// stamp (32) + valid flag per subflow and the mode bit. Base RTT is configuration.
    const BITS: u32 = N as u32 * (16 + 32 + 1) + 8 + 32 + 1 + 32 + N as u32 * (32 + 1) + 1;
    const UNIT: &'static str = "per connection";
}
const _: () = assert!(
    <UnoLb<8> as StateBudget>::BITS
        == 8 * (Ev::BITS + u32::BITS + 1)
            + u8::BITS
            + u32::BITS
            + 1
            + u32::BITS
            + 8 * (u32::BITS + 1)
            + 1
);

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rtl_models::Lfsr32;

    #[test]
    fn round_robin_spreads_a_block() {
        let mut rng = Lfsr32::new(7);
        let mut lb = UnoLb::<4>::new(1000, &mut rng);
        let evs = *lb.subflows();
        let sent: [Ev; 10] = core::array::from_fn(|_| lb.on_send(0, &mut rng));
        for (i, ev) in sent.iter().enumerate() {
            assert_eq!(*ev, evs[i % 4]);
        }
    }

    #[test]
    fn reroute_to_recently_acked_at_most_once_per_rtt() {
        let mut rng = Lfsr32::new(7);
        let mut lb = UnoLb::<4>::new(1000, &mut rng);
        let evs = *lb.subflows();
        lb.ack(100, evs[1]);
        lb.ack(150, evs[2]);
        assert!(lb.on_nack_or_timeout(200, evs[0], &mut rng));
        let now0 = lb.subflows()[0];
        assert!(now0 == evs[1] || now0 == evs[2], "{now0} {evs:?}");
        // Within one base RTT: no second reroute.
        assert!(!lb.on_nack_or_timeout(1200, evs[3], &mut rng));
        assert_eq!(lb.subflows()[3], evs[3]);
        // After it: allowed; subflows 1 and 2 were ACKed > base RTT ago, so a fresh EV.
        assert!(lb.on_nack_or_timeout(1201, evs[3], &mut rng));
        assert_eq!(lb.reroutes(), 2);
        // An unknown EV changes nothing.
        assert!(!lb.on_nack_or_timeout(5000, 0xdead, &mut rng) || evs.contains(&0xdead));
    }

    #[test]
    fn stale_mode_moves_every_quiet_subflow_to_a_fresh_path_once_per_rtt() {
        let mut rng = Lfsr32::new(7);
        let mut lb = UnoLb::<4>::new(1000, &mut rng);
        lb.set_reroute_stale(true);
        let evs = *lb.subflows();
        // Subflow 0 is quiet by t = 700 (ACKed > 500 ago), subflow 1 fresh; 2 and 3 never
        // ACKed.
        lb.ack(100, evs[0]);
        lb.ack(650, evs[1]);
        assert!(lb.on_nack_or_timeout(700, evs[2], &mut rng));
        let now = *lb.subflows();
        assert_eq!(now[1], evs[1], "recently ACKed: kept");
        for k in [0, 2, 3] {
            assert_ne!(now[k], evs[k], "quiet subflow {k} moved");
            assert!(
                !evs.contains(&now[k]),
                "a fresh EV, not another subflow's path"
            );
        }
        assert_eq!(lb.reroutes(), 3);
        // Within a base RTT of their move the three stay put; subflow 1, not moved yet,
        // goes once it is quiet.
        assert!(lb.on_nack_or_timeout(1300, now[0], &mut rng));
        let later = *lb.subflows();
        assert_eq!([later[0], later[2], later[3]], [now[0], now[2], now[3]]);
        assert_ne!(later[1], evs[1]);
        assert_eq!(lb.reroutes(), 4);
        // Default mode on the same history moves one subflow only.
        let mut rng = Lfsr32::new(7);
        let mut alg2 = UnoLb::<4>::new(1000, &mut rng);
        alg2.ack(100, evs[0]);
        alg2.ack(650, evs[1]);
        assert!(alg2.on_nack_or_timeout(700, evs[2], &mut rng));
        let moved = (0..4).filter(|&k| alg2.subflows()[k] != evs[k]).count();
        assert_eq!(moved, 1);
    }

    proptest! {
        #[test]
        fn advance_equals_idle_ticks(seed: u32, n in 0u64..5000, acks in proptest::collection::vec((0usize..8, 0u64..500), 0..10)) {
            let mut rng = Lfsr32::new(seed | 1);
            let mut a = UnoLb::<8>::new(700, &mut rng);
            let mut t = 0;
            for (k, gap) in acks { t += gap; let ev = a.subflows()[k]; a.ack(t, ev); }
            let mut b = a;
            a.advance(n);
            for _ in 0..n { b.tick(); }
            prop_assert_eq!(a, b);
            let (mut ra, mut rb) = (Lfsr32::new(seed), Lfsr32::new(seed));
            let ev = a.subflows()[0];
            let now = a.now;
            prop_assert_eq!(a.on_nack_or_timeout(now, ev, &mut ra), b.on_nack_or_timeout(now, ev, &mut rb));
            prop_assert_eq!(a, b);
        }
    }
}
