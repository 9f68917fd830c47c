//! MPRDMA-style load balancing: ECN-driven per-packet path choice with ACK clocking and a
//! limited out-of-order window (Lu et al., "Multi-Path Transport for RDMA in Datacenters",
//! NSDI 2018, sections 3.2-3.3), as a REPS baseline (REPS section 4.1 and section 6: "MPRDMA
//! also uses ECN for load balancing like REPS, however it requires probing and ACK clocking
//! and does not offer caching of entropies").
//!
//! MP-RDMA spreads a connection over virtual paths (VPs: UDP source ports, here entropy
//! values). Its *multi-path ACK clocking* (section 3.2) sends the packet each ACK clocks out
//! on the VP that ACK came back on when the ACK is not ECN-marked, and drops that VP when it
//! is marked; a packet with no returned VP to ride (window growth, start-up) *probes* a new
//! random VP. Its *out-of-order aware path selection* (section 3.3) keeps the receiver's
//! bitmap small: the sender tracks `snd_ooh`, the highest PSN acknowledged, treats a VP whose
//! ACK carries a PSN more than `delta` below `snd_ooh` as a slow path and drops it like a
//! marked one, and never lets `snd_nxt - snd_una` reach the bitmap size `ooo_window` (L).
//!
//! In a NIC whose sender is not strictly ACK-clocked the returned VPs wait in a small FIFO
//! (the *pool*): an unmarked, in-order-enough ACK pushes its EV, the next DATA pops the
//! oldest; an empty pool means a probe.
//!
//! ```text
//!  on_ack_psn(ev, ecn, psn):  slow = seen && snd_ooh - psn > delta   (24-bit serial)
//!                             snd_ooh = max(snd_ooh, psn), seen = 1
//!                             ecn || slow ? drop ev : pool.push(ev)   (full: oldest lost)
//!  on_send(rng):              pool empty ? probe: rand() & evs_mask : pool.pop_oldest()
//!  max_ooo_packets:           L  (the transport keeps snd_nxt - snd_una < L)
//! ```
//!
//! ## Packed word (160 bits, 20 bytes, LSB first)
//!
//! ```text
//!  bits   0..128  pool[k] at bits 16k..16k+16   8 x 16-bit EV
//!  bits 128..131  head     oldest entry (0..8)
//!  bits 131..135  count    entries in the pool (0..=8)
//!  bits 135..159  snd_ooh  highest PSN acknowledged (low 24 bits, RoCE PSN width)
//!  bit  159       seen     snd_ooh is valid
//! ```
//!
//! Units: PSNs, `delta` and `ooo_window` in packets; EVs dimensionless.

use super::ecmp::evs_mask;
use super::pack::{BitCursor, WordError};
use super::{Ev, LoadBalancer};
use rtl_models::{Clocked, ConfigError, Cycles, RandomSource, StateBudget};

/// Entries of the returned-VP pool.
pub const POOL: usize = 8;
/// PSN width kept for `snd_ooh` (RoCE BTH PSN).
pub const PSN_BITS: u32 = 24;
const PSN_MASK: u32 = (1 << PSN_BITS) - 1;
/// Bits of the packed MPRDMA word.
pub const MPRDMA_BITS: u32 = (POOL as u32) * 16 + 3 + 4 + PSN_BITS + 1;
/// Bytes of the packed MPRDMA word.
pub const MPRDMA_BYTES: usize = 20;
const _: () = assert!(MPRDMA_BITS.div_ceil(8) as usize == MPRDMA_BYTES);

/// MPRDMA parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MprdmaConfig {
    /// EVS width in bits (1..=16).
    pub evs_bits: u32,
    /// Out-of-order tolerance `delta`: an ACK whose PSN is more than this below `snd_ooh`
    /// marks its path slow (MP-RDMA section 3.3), 1..2^23.
    pub delta: u32,
    /// Receiver bitmap size `L`: the sender keeps `snd_nxt - snd_una < L`, 1..2^23.
    pub ooo_window: u32,
}

impl MprdmaConfig {
    /// A 64-packet receiver bitmap (`L = 64`) and `delta = L / 2`: a path is slow when its
    /// ACKs lag the newest by half the bitmap (the split of `L` between tolerated lag and
    /// headroom is this model's choice; both are configuration).
    pub const fn paper(evs_bits: u32) -> Self {
        MprdmaConfig {
            evs_bits,
            delta: 32,
            ooo_window: 64,
        }
    }

    /// Check every field.
    pub const fn check(&self) -> Result<(), ConfigError> {
        if self.evs_bits == 0 || self.evs_bits > 16 {
            return Err(ConfigError::new("evs_bits", "must be between 1 and 16"));
        }
        if self.delta == 0 || self.delta >= 1 << (PSN_BITS - 1) {
            return Err(ConfigError::new("delta", "must be between 1 and 2^23 - 1"));
        }
        if self.ooo_window == 0 || self.ooo_window >= 1 << (PSN_BITS - 1) {
            return Err(ConfigError::new(
                "ooo_window",
                "must be between 1 and 2^23 - 1",
            ));
        }
        Ok(())
    }
}

/// What an ACK did to the pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MprdmaAck {
    /// Unmarked and in time: the EV was pushed (`evicted`: the pool was full and the
    /// oldest entry was overwritten).
    Pooled {
        /// The oldest entry was lost to make room.
        evicted: bool,
    },
    /// ECN-marked: the VP is dropped.
    Marked,
    /// The PSN lagged `snd_ooh` by more than `delta`: a slow VP, dropped.
    Slow,
}

impl MprdmaAck {
    /// Short name for traces.
    pub const fn name(self) -> &'static str {
        match self {
            MprdmaAck::Pooled { .. } => "pooled",
            MprdmaAck::Marked => "marked",
            MprdmaAck::Slow => "slow",
        }
    }
}

/// The per-connection MPRDMA path-selection registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mprdma {
    cfg: MprdmaConfig,
    pool: [Ev; POOL],
    head: u8,
    count: u8,
    snd_ooh: u32,
    seen: bool,
}

impl Mprdma {
    /// A connection with an empty pool (its first packets probe).
    pub const fn new(cfg: MprdmaConfig) -> Result<Self, ConfigError> {
        if let Err(e) = cfg.check() {
            return Err(e);
        }
        Ok(Mprdma {
            cfg,
            pool: [0; POOL],
            head: 0,
            count: 0,
            snd_ooh: 0,
            seen: false,
        })
    }

    /// The configuration.
    pub const fn config(&self) -> MprdmaConfig {
        self.cfg
    }
    /// EVs waiting in the pool.
    pub const fn count(&self) -> u8 {
        self.count
    }
    /// Index of the oldest pool entry.
    pub const fn head(&self) -> u8 {
        self.head
    }
    /// Highest PSN acknowledged (low 24 bits), if any.
    pub const fn snd_ooh(&self) -> Option<u32> {
        if self.seen {
            Some(self.snd_ooh)
        } else {
            None
        }
    }
    /// Whether the sender may send PSN `snd_nxt` with `snd_una` the oldest unacknowledged
    /// PSN (`snd_nxt - snd_una < L`).
    pub const fn may_send(&self, snd_nxt: u32, snd_una: u32) -> bool {
        snd_nxt.wrapping_sub(snd_una) < self.cfg.ooo_window
    }

    /// The EV of the next DATA: the oldest returned VP, or a probe (`true` in the second
    /// field when it was a probe).
    pub fn choose<R: RandomSource>(&mut self, rng: &mut R) -> (Ev, bool) {
        if self.count == 0 {
            return ((rng.next_u32() & evs_mask(self.cfg.evs_bits)) as Ev, true);
        }
        let ev = self.pool[self.head as usize];
        self.head = (self.head + 1) % POOL as u8;
        self.count -= 1;
        (ev, false)
    }

    /// An ACK for `psn` (when known) carrying `ev`.
    pub fn observe_ack(&mut self, ev: Ev, ecn: bool, psn: Option<u32>) -> MprdmaAck {
        let mut slow = false;
        if let Some(p) = psn {
            let p = p & PSN_MASK;
            if self.seen {
                // Signed 24-bit distance snd_ooh - p.
                let d = ((self.snd_ooh.wrapping_sub(p) & PSN_MASK) << 8) as i32 >> 8;
                if d > self.cfg.delta as i32 {
                    slow = true;
                }
                if d < 0 {
                    self.snd_ooh = p;
                }
            } else {
                self.snd_ooh = p;
                self.seen = true;
            }
        }
        if ecn {
            return MprdmaAck::Marked;
        }
        if slow {
            return MprdmaAck::Slow;
        }
        let tail = (self.head as usize + self.count as usize) % POOL;
        self.pool[tail] = ev & evs_mask(self.cfg.evs_bits) as Ev;
        if self.count as usize == POOL {
            self.head = (self.head + 1) % POOL as u8;
            MprdmaAck::Pooled { evicted: true }
        } else {
            self.count += 1;
            MprdmaAck::Pooled { evicted: false }
        }
    }

    /// The packed word.
    pub fn pack(&self) -> [u8; MPRDMA_BYTES] {
        let mut b = [0u8; MPRDMA_BYTES];
        let mut c = BitCursor::new();
        for ev in self.pool {
            c.put(&mut b, 16, ev as u32);
        }
        c.put(&mut b, 3, self.head as u32);
        c.put(&mut b, 4, self.count as u32);
        c.put(&mut b, PSN_BITS, self.snd_ooh);
        c.put(&mut b, 1, self.seen as u32);
        b
    }

    /// Inverse of [`Mprdma::pack`] under `cfg`, naming the field of a malformed word.
    pub fn unpack(b: [u8; MPRDMA_BYTES], cfg: MprdmaConfig) -> Result<Self, WordError> {
        let mut m = Mprdma::new(cfg).map_err(|e| WordError::new(e.field, e.problem))?;
        let mut c = BitCursor::new();
        for k in 0..POOL {
            m.pool[k] = c.get(&b, 16) as Ev;
            if m.pool[k] as u32 & !evs_mask(cfg.evs_bits) != 0 {
                return Err(WordError::new("pool", "an entry is wider than evs_bits"));
            }
        }
        m.head = c.get(&b, 3) as u8;
        m.count = c.get(&b, 4) as u8;
        m.snd_ooh = c.get(&b, PSN_BITS);
        m.seen = c.get(&b, 1) != 0;
        if m.count as usize > POOL {
            return Err(WordError::new("count", "exceeds the pool size (8)"));
        }
        if !m.seen && m.snd_ooh != 0 {
            return Err(WordError::new(
                "snd_ooh",
                "must be zero before the first ACK",
            ));
        }
        Ok(m)
    }
}

impl LoadBalancer for Mprdma {
    fn on_send<R: RandomSource>(&mut self, _now: Cycles, rng: &mut R) -> Ev {
        self.choose(rng).0
    }

    fn on_ack(&mut self, _now: Cycles, ev: Ev, ecn: bool) {
        self.observe_ack(ev, ecn, None);
    }

    fn on_ack_psn(&mut self, _now: Cycles, ev: Ev, ecn: bool, psn: u32) {
        self.observe_ack(ev, ecn, Some(psn));
    }

    fn max_ooo_packets(&self) -> Option<u32> {
        Some(self.cfg.ooo_window)
    }
}

impl Clocked for Mprdma {
    /// ACK-clocked: no time-dependent state.
    fn tick(&mut self) {}
    fn advance(&mut self, _cycles: Cycles) {}
}

impl StateBudget for Mprdma {
    const NAME: &'static str = "MPRDMA VP pool (8 x 16-bit EV) + snd_ooh";
    const BITS: u32 = MPRDMA_BITS;
    const UNIT: &'static str = "per connection";
}
const _: () = assert!(Mprdma::BITS == 160 && Mprdma::BYTES as usize == MPRDMA_BYTES);

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use proptest::prelude::*;
    use rtl_models::Lfsr32;

    fn m() -> Mprdma {
        Mprdma::new(MprdmaConfig::paper(16)).unwrap()
    }

    #[test]
    fn unmarked_acks_clock_their_vp_marked_and_slow_ones_drop_it() {
        let mut rng = Lfsr32::new(3);
        let mut m = m();
        let (_, probe) = m.choose(&mut rng);
        assert!(probe, "empty pool probes");
        assert_eq!(
            m.observe_ack(0x11, false, Some(100)),
            MprdmaAck::Pooled { evicted: false }
        );
        assert_eq!(m.observe_ack(0x22, true, Some(101)), MprdmaAck::Marked);
        assert_eq!(
            m.observe_ack(0x33, false, Some(69)),
            MprdmaAck::Pooled { evicted: false }
        );
        assert_eq!(
            m.observe_ack(0x44, false, Some(68)),
            MprdmaAck::Slow,
            "101 - 68 = 33 > 32"
        );
        assert_eq!(m.snd_ooh(), Some(101));
        assert_eq!(m.choose(&mut rng), (0x11, false));
        assert_eq!(m.choose(&mut rng), (0x33, false));
        assert!(m.choose(&mut rng).1);
        assert_eq!(m.max_ooo_packets(), Some(64));
        assert!(m.may_send(163, 100));
        assert!(!m.may_send(164, 100));
    }

    #[test]
    fn full_pool_overwrites_the_oldest() {
        let mut rng = Lfsr32::new(3);
        let mut m = m();
        for k in 0..9u16 {
            let r = m.observe_ack(k, false, None);
            assert_eq!(r, MprdmaAck::Pooled { evicted: k == 8 });
        }
        assert_eq!(m.count(), 8);
        for k in 1..9u16 {
            assert_eq!(m.choose(&mut rng), (k, false));
        }
    }

    #[test]
    fn psn_distance_wraps_at_24_bits() {
        let mut m = m();
        m.observe_ack(1, false, Some(PSN_MASK - 1));
        assert_eq!(
            m.observe_ack(2, false, Some(PSN_MASK + 5)),
            MprdmaAck::Pooled { evicted: false }
        );
        assert_eq!(m.snd_ooh(), Some(4));
        assert_eq!(
            m.observe_ack(3, false, Some(PSN_MASK - 40)),
            MprdmaAck::Slow
        );
    }

    #[test]
    fn golden_word_and_bad_words() {
        let mut m = m();
        m.observe_ack(0xabcd, false, Some(0x12_3456));
        let w = m.pack();
        assert_eq!(&w[..2], &[0xcd, 0xab]);
        // bits 128..: head 0 (3), count 1 (4) -> byte 16 = 0b0000_1000, then snd_ooh << 7.
        assert_eq!(w[16], 0x08 | ((0x56 << 7) & 0xff) as u8);
        assert_eq!(Mprdma::unpack(w, m.config()), Ok(m));
        let mut bad = [0u8; 20];
        bad[16] = 0x48; // count 9
        assert_eq!(Mprdma::unpack(bad, m.config()).unwrap_err().field, "count");
        let mut bad = [0u8; 20];
        bad[17] = 1;
        assert_eq!(
            Mprdma::unpack(bad, m.config()).unwrap_err().field,
            "snd_ooh"
        );
        assert_eq!(
            Mprdma::new(MprdmaConfig {
                delta: 0,
                ..MprdmaConfig::paper(16)
            })
            .unwrap_err()
            .field,
            "delta"
        );
    }

    proptest! {
        #[test]
        fn pool_is_a_fifo_of_unmarked_timely_evs(
            seed in 1u32..,
            ops in proptest::collection::vec((0u8..3, any::<u16>(), 0u32..200), 0..300),
        ) {
            let cfg = MprdmaConfig::paper(16);
            let mut rng = Lfsr32::new(seed);
            let mut m = Mprdma::new(cfg).unwrap();
            let mut model: std::collections::VecDeque<u16> = Default::default();
            let mut ooh: Option<u32> = None;
            for (op, ev, psn) in ops {
                match op {
                    0 | 1 => {
                        let ecn = op == 1;
                        let slow = ooh.is_some_and(|o| o > psn && o - psn > cfg.delta);
                        ooh = Some(ooh.map_or(psn, |o| o.max(psn)));
                        let r = m.observe_ack(ev, ecn, Some(psn));
                        if ecn { prop_assert_eq!(r, MprdmaAck::Marked); }
                        else if slow { prop_assert_eq!(r, MprdmaAck::Slow); }
                        else {
                            if model.len() == POOL { model.pop_front(); }
                            model.push_back(ev);
                        }
                    }
                    _ => {
                        let (got, probe) = m.choose(&mut rng);
                        match model.pop_front() {
                            Some(e) => { prop_assert!(!probe); prop_assert_eq!(got, e); }
                            None => prop_assert!(probe),
                        }
                    }
                }
                prop_assert_eq!(m.count() as usize, model.len());
                prop_assert_eq!(m.snd_ooh(), ooh);
                prop_assert_eq!(Mprdma::unpack(m.pack(), cfg), Ok(m));
            }
        }

        #[test]
        fn advance_equals_idle_ticks(evs in proptest::collection::vec(any::<u16>(), 0..12), n in 0u64..2000) {
            let mut a = m();
            for e in evs { a.observe_ack(e, false, None); }
            let mut b = a;
            a.advance(n);
            for _ in 0..n { b.tick(); }
            prop_assert_eq!(a, b);
        }
    }
}
