//! BitMap: per-EV congestion statistics in a bitmap, STrack-like (Le et al., "STrack: A
//! Reliable Multipath Transport for AI/ML Clusters", 2024), as a REPS baseline.
//!
//! REPS section 4.1 ("Baseline load balancers"): "a bitmap approach where we keep per EV
//! statistics similarly to STrack \[40\]". The connection sprays over a small set of
//! `2^paths_log2` entropy values, visiting them in a round-robin order permuted by a random
//! XOR mask redrawn at every lap (so consecutive connections and laps do not walk the paths
//! in the same order). One bit per EV records "bad": set when an ACK for that EV comes back
//! ECN-marked or a NACK reports it trimmed. A send skips bad EVs; the whole bitmap is
//! cleared every `clear_period` cycles, so a path congested a while ago is tried again.
//!
//! ```text
//!  poll(now):   while now >= next_clear: bad = 0, next_clear += clear_period
//!  on_send:     poll; over the rest of this lap and one whole lap:
//!                 e = idx ^ xor; bad[e] ? step : take e
//!               (all bad: take the candidate reached after that) ; step
//!  step:        idx += 1; idx == 2^p ? idx = 0, xor = rand() & (2^p - 1)
//!  on_ack(ev, ecn): poll; ecn ? bad[ev mod 2^p] = 1      on_nack(ev): poll; bad[ev] = 1
//! ```
//!
//! The clear is a periodic timer on the grid `next_clear + k * clear_period`; it is
//! evaluated lazily at the next event (in O(1): `k` is a division), so polling it every
//! cycle or only at events gives the same state (a property test proves it).
//!
//! ## Packed word (108 bits, 14 bytes, LSB first; sized for the largest set, 64 EVs)
//!
//! ```text
//!  bits   0..64   bad[e] at bit e (bits >= 2^paths_log2 are 0)
//!  bits  64..70   idx          position in the lap
//!  bits  70..76   xor          this lap's permutation mask
//!  bits  76..108  next_clear   NIC cycle (low 32 bits) of the next clear
//!  bits 108..112  padding (0)
//! ```
//!
//! Units: `clear_period` and `next_clear` in NIC cycles; EVs are `paths_log2` bits wide.

use super::pack::{reached, BitCursor, WordError};
use super::{Ev, LoadBalancer};
use crate::reps::nic_time;
use rtl_models::{Clocked, ConfigError, Cycles, RandomSource, StateBudget};

/// Largest EV set (64 EVs, one bitmap word).
pub const MAX_PATHS_LOG2: u32 = 6;
/// Bits of the packed BitMap word.
pub const BITMAP_BITS: u32 = 64 + 6 + 6 + 32;
/// Bytes of the packed BitMap word.
pub const BITMAP_BYTES: usize = 14;
const _: () = assert!(BITMAP_BITS.div_ceil(8) as usize == BITMAP_BYTES);

/// BitMap parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BitmapConfig {
    /// The connection sprays over `2^paths_log2` EVs (1..=6).
    pub paths_log2: u32,
    /// Cycles between clears of the bitmap (1..2^31).
    pub clear_period: u32,
}

impl BitmapConfig {
    /// Check every field.
    pub const fn check(&self) -> Result<(), ConfigError> {
        if self.paths_log2 == 0 || self.paths_log2 > MAX_PATHS_LOG2 {
            return Err(ConfigError::new("paths_log2", "must be between 1 and 6"));
        }
        if self.clear_period == 0 || self.clear_period >= 1 << 31 {
            return Err(ConfigError::new(
                "clear_period",
                "must be between 1 and 2^31 - 1 cycles",
            ));
        }
        Ok(())
    }

    const fn mask(&self) -> u32 {
        (1 << self.paths_log2) - 1
    }
}

/// How a send chose its EV.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BitmapSend {
    /// The EV.
    pub ev: Ev,
    /// Bad EVs skipped before it.
    pub skipped: u8,
    /// Every EV was bad (the EV is the one reached after the rest of the lap and a whole
    /// lap).
    pub all_bad: bool,
}

/// The per-connection BitMap registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bitmap {
    cfg: BitmapConfig,
    bad: u64,
    idx: u8,
    xor: u8,
    next_clear: u32,
}

impl Bitmap {
    /// A connection set up at cycle `now`, its first lap's XOR mask drawn from `rng`.
    pub fn new<R: RandomSource>(
        cfg: BitmapConfig,
        now: Cycles,
        rng: &mut R,
    ) -> Result<Self, ConfigError> {
        cfg.check()?;
        Ok(Bitmap {
            cfg,
            bad: 0,
            idx: 0,
            xor: (rng.next_u32() & cfg.mask()) as u8,
            next_clear: nic_time(now).wrapping_add(cfg.clear_period),
        })
    }

    /// The configuration.
    pub const fn config(&self) -> BitmapConfig {
        self.cfg
    }
    /// The bad bits.
    pub const fn bad(&self) -> u64 {
        self.bad
    }
    /// Position in the lap.
    pub const fn idx(&self) -> u8 {
        self.idx
    }
    /// This lap's XOR mask.
    pub const fn xor(&self) -> u8 {
        self.xor
    }
    /// Cycle (low 32 bits) of the next clear.
    pub const fn next_clear(&self) -> u32 {
        self.next_clear
    }

    /// Run the clear timer up to `now` (every event does this first).
    pub fn poll(&mut self, now: Cycles) {
        let n = nic_time(now);
        if reached(n, self.next_clear) {
            let k = n.wrapping_sub(self.next_clear) / self.cfg.clear_period + 1;
            self.bad = 0;
            self.next_clear = self
                .next_clear
                .wrapping_add(k.wrapping_mul(self.cfg.clear_period));
        }
    }

    fn step<R: RandomSource>(&mut self, rng: &mut R) {
        self.idx += 1;
        if self.idx as u32 > self.cfg.mask() {
            self.idx = 0;
            self.xor = (rng.next_u32() & self.cfg.mask()) as u8;
        }
    }

    /// The EV of the next DATA sent at `now`.
    pub fn choose<R: RandomSource>(&mut self, now: Cycles, rng: &mut R) -> BitmapSend {
        self.poll(now);
        let paths = self.cfg.mask() + 1;
        let mut skipped = 0u8;
        let mut found = false;
        // The rest of this lap, then one whole (re-permuted) lap.
        let limit = paths - self.idx as u32 + paths;
        for _ in 0..limit {
            let e = self.idx ^ self.xor;
            if self.bad & (1u64 << e) == 0 {
                found = true;
                break;
            }
            skipped += 1;
            self.step(rng);
        }
        let ev = (self.idx ^ self.xor) as Ev;
        self.step(rng);
        BitmapSend {
            ev,
            skipped,
            all_bad: !found,
        }
    }

    /// Mark `ev` bad.
    fn mark(&mut self, ev: Ev) {
        self.bad |= 1u64 << (ev as u32 & self.cfg.mask());
    }

    /// The packed word.
    pub fn pack(&self) -> [u8; BITMAP_BYTES] {
        let mut b = [0u8; BITMAP_BYTES];
        let mut c = BitCursor::new();
        c.put(&mut b, 32, self.bad as u32);
        c.put(&mut b, 32, (self.bad >> 32) as u32);
        c.put(&mut b, 6, self.idx as u32);
        c.put(&mut b, 6, self.xor as u32);
        c.put(&mut b, 32, self.next_clear);
        b
    }

    /// Inverse of [`Bitmap::pack`] under `cfg`, naming the field of a malformed word.
    pub fn unpack(b: [u8; BITMAP_BYTES], cfg: BitmapConfig) -> Result<Self, WordError> {
        cfg.check()
            .map_err(|e| WordError::new(e.field, e.problem))?;
        let mut c = BitCursor::new();
        let lo = c.get(&b, 32) as u64;
        let hi = c.get(&b, 32) as u64;
        let bad = lo | hi << 32;
        let idx = c.get(&b, 6) as u8;
        let xor = c.get(&b, 6) as u8;
        let next_clear = c.get(&b, 32);
        if c.get(&b, 4) != 0 {
            return Err(WordError::new("padding", "bits 108..112 must be zero"));
        }
        let paths = cfg.mask() + 1;
        if paths < 64 && bad >> paths != 0 {
            return Err(WordError::new(
                "bad",
                "bits above 2^paths_log2 must be zero",
            ));
        }
        if idx as u32 >= paths {
            return Err(WordError::new("idx", "must be below 2^paths_log2"));
        }
        if xor as u32 >= paths {
            return Err(WordError::new("xor", "must be below 2^paths_log2"));
        }
        Ok(Bitmap {
            cfg,
            bad,
            idx,
            xor,
            next_clear,
        })
    }
}

impl LoadBalancer for Bitmap {
    fn on_send<R: RandomSource>(&mut self, now: Cycles, rng: &mut R) -> Ev {
        self.choose(now, rng).ev
    }

    fn on_ack(&mut self, now: Cycles, ev: Ev, ecn: bool) {
        self.poll(now);
        if ecn {
            self.mark(ev);
        }
    }

    fn on_nack(&mut self, now: Cycles, ev: Ev) {
        self.poll(now);
        self.mark(ev);
    }
}

impl Clocked for Bitmap {
    /// The clear timer is a stored deadline evaluated at the next event ([`Bitmap::poll`]).
    fn tick(&mut self) {}
    fn advance(&mut self, _cycles: Cycles) {}
}

impl StateBudget for Bitmap {
    const NAME: &'static str = "BitMap (STrack-like), 64 EV bits";
    const BITS: u32 = BITMAP_BITS;
    const UNIT: &'static str = "per connection";
}
const _: () = assert!(Bitmap::BITS == 108 && Bitmap::BYTES as usize == BITMAP_BYTES);

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rtl_models::Lfsr32;

    fn cfg() -> BitmapConfig {
        BitmapConfig {
            paths_log2: 3,
            clear_period: 1_000,
        }
    }

    #[test]
    fn a_lap_visits_every_ev_once() {
        let mut rng = Lfsr32::new(12);
        let mut b = Bitmap::new(cfg(), 0, &mut rng).unwrap();
        let mut seen = 0u64;
        for t in 0..8 {
            seen |= 1 << b.on_send(t, &mut rng);
        }
        assert_eq!(seen, 0xff);
    }

    #[test]
    fn marked_evs_are_skipped_until_the_clear() {
        let mut rng = Lfsr32::new(12);
        let mut b = Bitmap::new(cfg(), 0, &mut rng).unwrap();
        for e in [1, 4, 6] {
            b.on_ack(10, e, true);
        }
        b.on_ack(10, 2, false);
        b.on_nack(10, 0x0f); // 15 mod 8 = 7
        for t in 0..40 {
            let ev = b.on_send(20 + t, &mut rng);
            assert!(![1, 4, 6, 7].contains(&ev), "{ev}");
        }
        b.poll(999);
        assert_ne!(b.bad(), 0);
        b.poll(1_000);
        assert_eq!(b.bad(), 0);
        assert_eq!(b.next_clear(), 2_000);
        // All bad: the send still returns an EV, flagged.
        for e in 0..8 {
            b.on_ack(1_001, e, true);
        }
        let s = b.choose(1_002, &mut rng);
        assert!(s.all_bad);
        assert!(s.skipped >= 8);
        // A long silence clears once and keeps the grid.
        b.poll(5_500);
        assert_eq!(b.bad(), 0);
        assert_eq!(b.next_clear(), 6_000);
    }

    #[test]
    fn golden_word_and_bad_words() {
        let mut rng = Lfsr32::new(12);
        let mut b = Bitmap::new(cfg(), 0, &mut rng).unwrap();
        b.bad = 0x81;
        b.idx = 5;
        b.xor = 3;
        b.next_clear = 0x0102_0304;
        let w = b.pack();
        assert_eq!(w[0], 0x81);
        // idx at bit 64 (byte 8), xor at bit 70 (byte 8 bits 6-7, byte 9 bits 0-3).
        assert_eq!(w[8], 0x05 | 0xc0);
        // xor bits 2..6 are 0; next_clear's low nibble (4) sits in byte 9 bits 4-7.
        assert_eq!(w[9], 0x40);
        assert_eq!(Bitmap::unpack(w, cfg()), Ok(b));
        let mut bad = w;
        bad[1] = 1; // EV 8 in an 8-EV set
        assert_eq!(Bitmap::unpack(bad, cfg()).unwrap_err().field, "bad");
        let mut bad = w;
        bad[8] = 0x08; // idx 8
        assert_eq!(Bitmap::unpack(bad, cfg()).unwrap_err().field, "idx");
        let mut bad = w;
        bad[13] |= 0x10;
        assert_eq!(Bitmap::unpack(bad, cfg()).unwrap_err().field, "padding");
        let c = BitmapConfig {
            paths_log2: 7,
            clear_period: 1,
        };
        assert_eq!(Bitmap::new(c, 0, &mut rng).unwrap_err().field, "paths_log2");
    }

    proptest! {
        /// Lazy clearing at events equals polling every cycle; sent EVs are never bad when
        /// a good one exists; the word round-trips.
        #[test]
        fn lazy_timer_equals_polled_and_bad_evs_are_skipped(
            seed in 1u32..,
            p in 1u32..=6,
            period in 1u32..300,
            ops in proptest::collection::vec((0u8..4, 0u64..40, any::<u16>()), 0..150),
        ) {
            let c = BitmapConfig { paths_log2: p, clear_period: period };
            let mut rng = Lfsr32::new(seed);
            let mut lazy = Bitmap::new(c, 0, &mut rng).unwrap();
            let mut polled = lazy;
            let mut rng2 = rng;
            let mut now = 0u64;
            for (op, dt, ev) in ops {
                for t in now + 1..=now + dt { polled.poll(t); }
                now += dt;
                match op {
                    0 => {
                        let bad_before = { let mut l = lazy; l.poll(now); l.bad() };
                        let s = lazy.choose(now, &mut rng);
                        let s2 = polled.choose(now, &mut rng2);
                        prop_assert_eq!(s, s2);
                        prop_assert!((s.ev as u32) < (1 << p));
                        let full = if p == 6 { u64::MAX } else { (1u64 << (1u32 << p)) - 1 };
                        if bad_before != full {
                            prop_assert!(!s.all_bad);
                            prop_assert_eq!(bad_before & (1 << s.ev), 0);
                        }
                    }
                    1 | 2 => { lazy.on_ack(now, ev, op == 1); polled.on_ack(now, ev, op == 1); }
                    _ => { lazy.on_nack(now, ev); polled.on_nack(now, ev); }
                }
                prop_assert_eq!(lazy, polled);
                prop_assert_eq!(Bitmap::unpack(lazy.pack(), c), Ok(lazy));
            }
        }

        #[test]
        fn advance_equals_idle_ticks(seed in 1u32.., n in 0u64..2000) {
            let mut rng = Lfsr32::new(seed);
            let mut a = Bitmap::new(cfg(), 7, &mut rng).unwrap();
            a.on_ack(8, 3, true);
            let mut b = a;
            a.advance(n);
            for _ in 0..n { b.tick(); }
            prop_assert_eq!(a, b);
        }
    }
}
