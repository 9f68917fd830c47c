//! Adaptive RoCE: switch-based adaptive routing (NVIDIA Spectrum-X adaptive routing, REPS
//! reference \[50\]), a REPS baseline (REPS section 4.1: "adaptive RoCE by NVIDIA \[50\]"; section
//! 6: in-network, switch-based load balancing that relies on the transport to accept
//! out-of-order delivery).
//!
//! Instead of hashing a packet's header (ECMP), the switch sends each packet to the
//! least-loaded of the equal-cost uplinks towards its destination, judged from the local
//! output-port occupancy. This block is the per-switch adaptive-routing engine: it mirrors the
//! occupancy register of each uplink in load units of `2^quantum_log2` bytes (the quantised
//! port-load the AR logic compares), keeps an up/down bit per uplink (a failed link is never
//! chosen), and per packet picks, among the candidate ports the routing table gives, the one
//! with the smallest load; ties are broken round robin (a pointer just past the last port
//! taken) or by the hardware RNG. The chosen port's load is bumped by the packet at once, so
//! back-to-back packets in one cycle do not all pile onto the same port before the next
//! occupancy update arrives.
//!
//! ```text
//!  set_occupancy(p, bytes) ─► load[p] = min(ceil(bytes / 2^q), 0xffff)   (port mirror)
//!  set_port_up(p, up)      ─► up[p]
//!  choose(cands, bytes):     E = cands & up ; E empty ? None
//!                            m = min_{p in E} load[p] ; T = {p in E : load[p] == m}
//!                            p = RoundRobin ? first of T at or after rr : T[rand() mod |T|]
//!                            rr = p + 1 ; load[p] += ceil(bytes / 2^q) ; Some(p)
//! ```
//!
//! The sender NIC keeps any EV (for example ECMP's): this switch ignores it.
//!
//! ## Packed state (`PORTS x 16 + PORTS + ceil(log2 PORTS)` bits; 8 uplinks: 139 bits, 18 bytes)
//!
//! ```text
//!  bits 16p..16p+16       load[p]   quantised occupancy of uplink p
//!  bits 16P..17P          up[p]     at bit 16P + p
//!  bits 17P..17P+log2 P   rr        round-robin pointer
//! ```
//!
//! Units: occupancies and packet sizes in bytes, loads in `2^quantum_log2`-byte units.

use rtl_models::budget::{bits_for, StateBudget};
use rtl_models::{Clocked, ConfigError, Cycles, RandomSource};

/// Width of one quantised load register.
pub const LOAD_BITS: u32 = 16;
const LOAD_MAX: u32 = (1 << LOAD_BITS) - 1;

/// How ties between equally loaded ports are broken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TieBreak {
    /// The first tied port at or after the round-robin pointer.
    RoundRobin,
    /// A uniformly random tied port (hardware RNG, `RandomSource::below`).
    Random,
}

/// Adaptive-routing parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArConfig {
    /// Bytes per load unit, as a power of two (0..=20).
    pub quantum_log2: u32,
    /// Tie-break rule.
    pub tie_break: TieBreak,
}

impl ArConfig {
    /// Check every field.
    pub const fn check(&self) -> Result<(), ConfigError> {
        if self.quantum_log2 > 20 {
            return Err(ConfigError::new("quantum_log2", "must be at most 20"));
        }
        Ok(())
    }
}

/// The adaptive-routing engine of one switch with `PORTS` equal-cost uplinks (1..=64).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AdaptiveRouting<const PORTS: usize> {
    cfg: ArConfig,
    load: [u16; PORTS],
    up: u64,
    rr: u8,
}

/// The 8-uplink engine (REPS section 4.3.1's T0 switch with 8 uplinks).
pub type AdaptiveRouting8 = AdaptiveRouting<8>;

impl<const PORTS: usize> AdaptiveRouting<PORTS> {
    const PORTS_OK: () = assert!(PORTS >= 1 && PORTS <= 64, "1..=64 uplinks");
    /// Mask of the existing ports.
    pub const ALL: u64 = if PORTS == 64 {
        u64::MAX
    } else {
        (1u64 << PORTS) - 1
    };
    /// Bits of the packed state.
    pub const STATE_BITS: u32 =
        PORTS as u32 * LOAD_BITS + PORTS as u32 + bits_for(PORTS as u64 - 1);
    /// Bytes of the packed state.
    pub const STATE_BYTES: usize = Self::STATE_BITS.div_ceil(8) as usize;

    /// An engine with every uplink up and empty.
    pub const fn new(cfg: ArConfig) -> Result<Self, ConfigError> {
        let () = Self::PORTS_OK;
        if let Err(e) = cfg.check() {
            return Err(e);
        }
        Ok(AdaptiveRouting {
            cfg,
            load: [0; PORTS],
            up: Self::ALL,
            rr: 0,
        })
    }

    /// The configuration.
    pub const fn config(&self) -> ArConfig {
        self.cfg
    }
    /// Quantised load of every port.
    pub const fn loads(&self) -> [u16; PORTS] {
        self.load
    }
    /// Up bits.
    pub const fn up_mask(&self) -> u64 {
        self.up
    }
    /// Round-robin pointer.
    pub const fn rr(&self) -> u8 {
        self.rr
    }

    fn units(&self, bytes: u64) -> u32 {
        let q = self.cfg.quantum_log2;
        let u = (bytes + (1u64 << q) - 1) >> q;
        u.min(LOAD_MAX as u64) as u32
    }

    fn check_port(port: usize) -> Result<(), ConfigError> {
        if port >= PORTS {
            Err(ConfigError::new("port", "beyond the switch's uplinks"))
        } else {
            Ok(())
        }
    }

    /// The output port's occupancy register changed: mirror it.
    pub fn set_occupancy(&mut self, port: usize, bytes: u64) -> Result<(), ConfigError> {
        Self::check_port(port)?;
        self.load[port] = self.units(bytes) as u16;
        Ok(())
    }

    /// A link went down (`false`) or came back (`true`).
    pub fn set_port_up(&mut self, port: usize, up: bool) -> Result<(), ConfigError> {
        Self::check_port(port)?;
        if up {
            self.up |= 1 << port;
        } else {
            self.up &= !(1u64 << port);
        }
        Ok(())
    }

    /// The uplink for a packet of `bytes` whose equal-cost candidates are the bits of
    /// `candidates`; `None` when none of them is up.
    pub fn choose<R: RandomSource>(
        &mut self,
        candidates: u64,
        bytes: u32,
        rng: &mut R,
    ) -> Option<usize> {
        let eligible = candidates & self.up & Self::ALL;
        if eligible == 0 {
            return None;
        }
        let mut min = u16::MAX;
        for p in 0..PORTS {
            if eligible >> p & 1 != 0 {
                min = min.min(self.load[p]);
            }
        }
        let mut tied = 0u64;
        for p in 0..PORTS {
            if eligible >> p & 1 != 0 && self.load[p] == min {
                tied |= 1 << p;
            }
        }
        let port = match self.cfg.tie_break {
            TieBreak::RoundRobin => {
                let start = self.rr as usize % PORTS;
                (0..PORTS)
                    .map(|i| (start + i) % PORTS)
                    .find(|&p| tied >> p & 1 != 0)
                    .unwrap_or(0)
            }
            TieBreak::Random => {
                let mut n = rng.below(tied.count_ones());
                let mut pick = 0;
                for p in 0..PORTS {
                    if tied >> p & 1 != 0 {
                        if n == 0 {
                            pick = p;
                            break;
                        }
                        n -= 1;
                    }
                }
                pick
            }
        };
        self.rr = ((port + 1) % PORTS) as u8;
        let add = self.units(bytes as u64);
        self.load[port] = (self.load[port] as u32 + add).min(LOAD_MAX) as u16;
        Some(port)
    }

    /// Write the packed state into `buf` (at least [`Self::STATE_BYTES`] long).
    pub fn pack_into(&self, buf: &mut [u8]) -> Result<(), ConfigError> {
        if buf.len() < Self::STATE_BYTES {
            return Err(ConfigError::new("buf", "shorter than STATE_BYTES"));
        }
        buf[..Self::STATE_BYTES].fill(0);
        let mut pos = 0u32;
        for l in self.load {
            put(buf, &mut pos, LOAD_BITS, l as u64);
        }
        put(buf, &mut pos, PORTS as u32, self.up);
        put(buf, &mut pos, bits_for(PORTS as u64 - 1), self.rr as u64);
        Ok(())
    }

    /// Inverse of [`Self::pack_into`] under `cfg`, naming the field of a malformed word.
    pub fn unpack_from(buf: &[u8], cfg: ArConfig) -> Result<Self, ConfigError> {
        let mut s = Self::new(cfg)?;
        if buf.len() < Self::STATE_BYTES {
            return Err(ConfigError::new("buf", "shorter than STATE_BYTES"));
        }
        let mut pos = 0u32;
        for l in s.load.iter_mut() {
            *l = get(buf, &mut pos, LOAD_BITS) as u16;
        }
        s.up = get(buf, &mut pos, PORTS as u32);
        s.rr = get(buf, &mut pos, bits_for(PORTS as u64 - 1)) as u8;
        if s.rr as usize >= PORTS {
            return Err(ConfigError::new("rr", "must be below PORTS"));
        }
        while pos < Self::STATE_BYTES as u32 * 8 {
            if get(buf, &mut pos, 1) != 0 {
                return Err(ConfigError::new("padding", "must be zero"));
            }
        }
        Ok(s)
    }
}

impl AdaptiveRouting8 {
    /// The packed 18-byte state of the 8-uplink engine.
    pub fn pack(&self) -> [u8; 18] {
        let mut b = [0u8; 18];
        let _ = self.pack_into(&mut b);
        b
    }
}

fn put(buf: &mut [u8], pos: &mut u32, width: u32, v: u64) {
    for i in 0..width {
        let b = *pos + i;
        if let Some(x) = buf.get_mut((b / 8) as usize) {
            if v >> i & 1 != 0 {
                *x |= 1 << (b % 8);
            } else {
                *x &= !(1 << (b % 8));
            }
        }
    }
    *pos += width;
}

fn get(buf: &[u8], pos: &mut u32, width: u32) -> u64 {
    let mut v = 0u64;
    for i in 0..width {
        let b = *pos + i;
        let bit = buf.get((b / 8) as usize).map_or(0, |x| x >> (b % 8) & 1);
        v |= (bit as u64) << i;
    }
    *pos += width;
    v
}

impl<const PORTS: usize> Clocked for AdaptiveRouting<PORTS> {
    /// The loads are mirrors of the ports' registers, updated by events: nothing counts.
    fn tick(&mut self) {}
    fn advance(&mut self, _cycles: Cycles) {}
}

impl<const PORTS: usize> StateBudget for AdaptiveRouting<PORTS> {
    const NAME: &'static str = "Adaptive RoCE uplink selector (16-bit load per uplink)";
    const BITS: u32 = Self::STATE_BITS;
    const UNIT: &'static str = "per switch uplink group";
}
const _: () = assert!(
    AdaptiveRouting8::BITS == 139
        && AdaptiveRouting8::BYTES == 18
        && AdaptiveRouting8::STATE_BYTES == 18
);

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rtl_models::Lfsr32;

    fn rr() -> AdaptiveRouting8 {
        AdaptiveRouting8::new(ArConfig {
            quantum_log2: 6,
            tie_break: TieBreak::RoundRobin,
        })
        .unwrap()
    }

    #[test]
    fn least_loaded_wins_and_failed_links_are_skipped() {
        let mut rng = Lfsr32::new(1);
        let mut ar = rr();
        for p in 0..8 {
            ar.set_occupancy(p, 10_000 - 1_000 * p as u64).unwrap();
        }
        assert_eq!(ar.choose(0xff, 4096, &mut rng), Some(7));
        // 7 now carries 3000 + 4096 bytes: port 6 (4000) is least loaded.
        assert_eq!(ar.choose(0xff, 4096, &mut rng), Some(6));
        ar.set_port_up(5, false).unwrap();
        ar.set_occupancy(5, 0).unwrap();
        assert_eq!(ar.choose(0x3f, 64, &mut rng), Some(4), "5 is down");
        assert_eq!(ar.choose(0x20, 64, &mut rng), None);
        assert_eq!(ar.set_occupancy(8, 0).unwrap_err().field, "port");
        assert_eq!(ar.set_port_up(9, true).unwrap_err().field, "port");
    }

    #[test]
    fn ties_round_robin_over_equal_ports() {
        let mut rng = Lfsr32::new(1);
        let mut ar = rr();
        // Zero-byte packets keep every port equal: pure round robin.
        let picks: [usize; 10] = core::array::from_fn(|_| ar.choose(0xff, 0, &mut rng).unwrap());
        assert_eq!(picks, [0, 1, 2, 3, 4, 5, 6, 7, 0, 1]);
    }

    #[test]
    fn random_ties_cover_the_tied_ports() {
        let mut rng = Lfsr32::new(77);
        let mut ar = AdaptiveRouting8::new(ArConfig {
            quantum_log2: 6,
            tie_break: TieBreak::Random,
        })
        .unwrap();
        let mut hist = [0u32; 8];
        for _ in 0..800 {
            hist[ar.choose(0b1010_1010, 0, &mut rng).unwrap()] += 1;
        }
        for (p, h) in hist.iter().enumerate() {
            if p % 2 == 1 {
                assert!((150..250).contains(h), "{hist:?}");
            } else {
                assert_eq!(*h, 0);
            }
        }
    }

    #[test]
    fn golden_word_and_bad_words() {
        let mut ar = rr();
        ar.set_occupancy(0, 0x1234 << 6).unwrap();
        ar.set_occupancy(7, 0xffff_ffff).unwrap(); // saturates
        ar.set_port_up(2, false).unwrap();
        ar.rr = 5;
        let w = ar.pack();
        assert_eq!(&w[..2], &[0x34, 0x12]);
        assert_eq!(&w[14..16], &[0xff, 0xff]);
        assert_eq!(w[16], 0xfb);
        assert_eq!(w[17], 0x05);
        assert_eq!(AdaptiveRouting8::unpack_from(&w, ar.config()), Ok(ar));
        let mut bad = w;
        bad[17] |= 0x08;
        assert_eq!(
            AdaptiveRouting8::unpack_from(&bad, ar.config())
                .unwrap_err()
                .field,
            "padding"
        );
        assert_eq!(
            AdaptiveRouting8::unpack_from(&w[..17], ar.config())
                .unwrap_err()
                .field,
            "buf"
        );
        assert_eq!(
            AdaptiveRouting8::new(ArConfig {
                quantum_log2: 21,
                tie_break: TieBreak::Random
            })
            .unwrap_err()
            .field,
            "quantum_log2"
        );
        // A 6-port engine: rr needs 3 bits and 6 and 7 are out of range.
        let six = AdaptiveRouting::<6>::new(ar.config()).unwrap();
        let mut b = [0u8; 14];
        six.pack_into(&mut b).unwrap();
        // rr occupies bits 102..105 (byte 12 bits 6-7, byte 13 bit 0): rr = 6 = 0b110.
        b[12] |= 0x80;
        b[13] |= 0x01;
        assert_eq!(
            AdaptiveRouting::<6>::unpack_from(&b, ar.config())
                .unwrap_err()
                .field,
            "rr"
        );
    }

    proptest! {
        /// The chosen port is an up candidate with the least load; with round robin the
        /// pointer follows it; the state round-trips.
        #[test]
        fn picks_an_up_candidate_of_least_load(
            seed in 1u32..,
            random in any::<bool>(),
            ops in proptest::collection::vec((0u8..3, 0usize..8, 0u64..200_000, 1u64..256), 0..200),
        ) {
            let cfg = ArConfig {
                quantum_log2: 8,
                tie_break: if random { TieBreak::Random } else { TieBreak::RoundRobin },
            };
            let mut rng = Lfsr32::new(seed);
            let mut ar = AdaptiveRouting8::new(cfg).unwrap();
            for (op, port, bytes, cands) in ops {
                match op {
                    0 => ar.set_occupancy(port, bytes).unwrap(),
                    1 => ar.set_port_up(port, bytes % 3 != 0).unwrap(),
                    _ => {
                        let before = ar;
                        let e = cands & before.up_mask();
                        match ar.choose(cands, (bytes % 9000) as u32, &mut rng) {
                            None => prop_assert_eq!(e, 0),
                            Some(p) => {
                                prop_assert!(e >> p & 1 == 1);
                                for q in 0..8 {
                                    if e >> q & 1 == 1 {
                                        prop_assert!(before.loads()[p] <= before.loads()[q]);
                                    }
                                }
                                prop_assert!(ar.loads()[p] >= before.loads()[p]);
                                prop_assert_eq!(ar.rr() as usize, (p + 1) % 8);
                                if !random {
                                    // No tied port strictly between the pointer and p.
                                    let mut q = before.rr() as usize;
                                    while q != p {
                                        prop_assert!(!(e >> q & 1 == 1 && before.loads()[q] == before.loads()[p]));
                                        q = (q + 1) % 8;
                                    }
                                }
                            }
                        }
                    }
                }
                prop_assert_eq!(AdaptiveRouting8::unpack_from(&ar.pack(), cfg), Ok(ar));
            }
        }

        #[test]
        fn advance_equals_idle_ticks(n in 0u64..2000, occ in 0u64..100_000) {
            let mut a = rr();
            a.set_occupancy(3, occ).unwrap();
            let mut b = a;
            a.advance(n);
            for _ in 0..n { b.tick(); }
            prop_assert_eq!(a, b);
        }
    }
}
