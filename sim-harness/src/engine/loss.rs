//! Random loss on links (`[[loss]]`), with the correlation Uno section 2.4 measured between
//! cloud regions (Table 1): packets crossing a lossy port are grouped into consecutive blocks
//! ("chunks of 10 packets"), and each block loses k of its packets with the probability the
//! table gives for k = 1, 2, 3 ("Losses Within a Block"), at k distinct positions drawn
//! uniformly. Setup 1 (65 ms RTT): 3.0e-4, 7.5e-5, 1.6e-5 per block, a mean loss rate of
//! (1 x 3.0e-4 + 2 x 7.5e-5 + 3 x 1.6e-5) / 10 = 5.0e-5 (the paper: 5.01e-5); Setup 2 (33 ms
//! RTT): 4.0e-5, 2.3e-5, 4.9e-6, mean 1.0e-5 (the paper: 1.22e-5). `bernoulli` loses each
//! packet independently.
//!
//! Each direction of each lossy cable has its own block state and its own random stream
//! (ChaCha8, seeded from the scenario seed and the port), drawn from only when a packet
//! crosses it, so a run is deterministic and a run without `[[loss]]` draws nothing. A lost
//! packet has been serialized (it counts in `links.csv` `tx_bytes`) and vanishes on the wire;
//! it counts as a drop of cause `random_loss`. With `place = "arrival"` a switch port loses
//! the packet as it arrives, before its buffer (the Uno authors' `CompositeQueue`): every
//! arrival draws, and a lost packet takes no buffer slot and no line time.
//! `failures[].drop_prob` (REPS Fig. 8 "random drops") uses the same Bernoulli ports
//! ([`super::failure_sets`]). An entry may lose only for a while (`at_us`, `for_us`: a link
//! "temporarily flaky", Uno 5.3).

use super::*;
use crate::scenario::{Loss, LossModel, LossPlace};
use crate::units::num;

/// Largest `loss[].block_packets`.
pub const MAX_BLOCK_PACKETS: u32 = 64;

/// The per-block loss probabilities of a model (k = 1, 2, ...) and its block size.
pub fn block_probs(l: &Loss) -> (u32, Vec<f64>) {
    match l.model {
        LossModel::UnoSetup1 => (10, vec![3.0e-4, 7.5e-5, 1.6e-5]),
        LossModel::UnoSetup2 => (10, vec![4.0e-5, 2.3e-5, 4.9e-6]),
        LossModel::Block => (l.block_packets, l.block_loss_probs.clone()),
        LossModel::Bernoulli => (1, vec![l.rate]),
    }
}

/// Check `loss[i]` (everything but the link name, which needs the fabric); errors name
/// `loss[i].<field>`.
pub fn check_entry(i: usize, l: &Loss) -> Result<()> {
    let f = |n: &str| format!("loss[{i}].{n}");
    if l.link.trim().is_empty() {
        return Err(Error::field(
            f("link"),
            "must name a link (e.g. \"border0.wan3\") or be \"inter_dc\" or \"border\"",
        ));
    }
    let prob = |name: String, v: f64| -> Result<()> {
        if v.is_finite() && (0.0..=1.0).contains(&v) {
            Ok(())
        } else {
            Err(Error::field(
                name,
                format!("must be a probability 0 to 1, got {}", num(v)),
            ))
        }
    };
    if !(l.at_us.is_finite() && l.at_us >= 0.0) {
        return Err(Error::field(
            f("at_us"),
            format!("must be a time of at least 0 us, got {}", num(l.at_us)),
        ));
    }
    crate::units::us_to_ps(&f("at_us"), l.at_us)?;
    if let Some(d) = l.for_us {
        if !(d.is_finite() && d > 0.0) {
            return Err(Error::field(
                f("for_us"),
                format!("must be a duration above 0 us, got {}", num(d)),
            ));
        }
        crate::units::us_to_ps(&f("for_us"), l.at_us + d)?;
    }
    match l.model {
        LossModel::Bernoulli => prob(f("rate"), l.rate)?,
        LossModel::Block => {
            if l.block_packets == 0 || l.block_packets > MAX_BLOCK_PACKETS {
                return Err(Error::field(
                    f("block_packets"),
                    format!("must be 1 to {MAX_BLOCK_PACKETS}, got {}", l.block_packets),
                ));
            }
            if l.block_loss_probs.is_empty() || l.block_loss_probs.len() > l.block_packets as usize
            {
                return Err(Error::field(
                    f("block_loss_probs"),
                    format!(
                        "needs 1 to block_packets ({}) probabilities (of losing 1, 2, ... \
                         packets of a block), got {}",
                        l.block_packets,
                        l.block_loss_probs.len()
                    ),
                ));
            }
            for (k, &v) in l.block_loss_probs.iter().enumerate() {
                prob(format!("loss[{i}].block_loss_probs[{k}]"), v)?;
            }
            let sum: f64 = l.block_loss_probs.iter().sum();
            if sum > 1.0 + 1e-12 {
                return Err(Error::field(
                    f("block_loss_probs"),
                    format!("sum to {sum}, more than 1"),
                ));
            }
        }
        LossModel::UnoSetup1 | LossModel::UnoSetup2 => {}
    }
    Ok(())
}

/// One lossy output port's state.
#[derive(Debug, Clone)]
pub struct PortLoss {
    /// Losing during `[from_ps, until_ps)`; packets outside it neither count nor draw.
    pub from_ps: u64,
    pub until_ps: u64,
    block: u32,
    /// Cumulative thresholds of k = 1, 2, ... losses, in units of 2^-53.
    cum: Vec<u64>,
    /// Position in the current block.
    pos: u32,
    /// Positions of the current block that are lost (bit i: position i).
    lost: u64,
    rng: ChaCha8Rng,
    /// Packets that crossed the port.
    pub seen: u64,
    /// Packets lost.
    pub dropped: u64,
    /// Blocks begun, and blocks by losses drawn (index k, the last one k >= its index).
    pub blocks: u64,
    pub blocks_with: [u64; 4],
    /// Loses on arrival at the switch port (`loss[].place = "arrival"`), not on its wire.
    pub arrival: bool,
}

impl PortLoss {
    /// A port losing per `(block, probs)` with its own stream from `seed`.
    pub fn new(block: u32, probs: &[f64], seed: u64) -> PortLoss {
        let mut acc = 0.0;
        let cum = probs
            .iter()
            .map(|p| {
                acc += p;
                (acc.min(1.0) * (1u64 << 53) as f64).round() as u64
            })
            .collect();
        PortLoss {
            from_ps: 0,
            until_ps: u64::MAX,
            block: block.max(1),
            cum,
            pos: 0,
            lost: 0,
            rng: ChaCha8Rng::seed_from_u64(seed),
            seen: 0,
            dropped: 0,
            blocks: 0,
            blocks_with: [0; 4],
            arrival: false,
        }
    }

    /// Whether the next packet crossing the port is lost.
    pub fn lose(&mut self) -> bool {
        if self.pos == 0 {
            // A new block: how many of its packets are lost, and which.
            self.blocks += 1;
            let u = self.rng.gen::<u64>() >> 11;
            let k = self.cum.iter().take_while(|&&c| u >= c).count();
            let k = if k < self.cum.len() { k + 1 } else { 0 };
            self.blocks_with[k.min(3)] += 1;
            self.lost = 0;
            let mut placed = 0;
            while placed < k.min(self.block as usize) {
                let i = self.rng.gen_range(0..self.block);
                if self.lost & (1 << i) == 0 {
                    self.lost |= 1 << i;
                    placed += 1;
                }
            }
        }
        let hit = self.lost & (1 << self.pos) != 0;
        self.pos = (self.pos + 1) % self.block;
        self.seen += 1;
        self.dropped += hit as u64;
        hit
    }
}

/// Every lossy port of a run.
#[derive(Debug, Clone, Default)]
pub struct LossState {
    /// Per output port: index into `ports` (`u32::MAX`: lossless).
    slot: Vec<u32>,
    ports: Vec<(u32, PortLoss)>,
}

/// The output ports `[[loss]]` entry `l` names: both directions of a cable; with
/// `link = "inter_dc"` every inter-DC link (role `border_wan`); with `link = "border"` every
/// cable of a border switch, both directions: its inter-DC links and its links to the cores
/// (roles `border_wan`, `border_down`, `spine_up`), as the Uno authors'
/// `CompositeQueue::failure_multiples` loses on every queue named `BORDER` (Fig. 13 C's
/// `-multiple_failures`). `None` if the name is unknown.
pub fn loss_ports(fabric: &Fabric, l: &Loss) -> Option<Vec<u32>> {
    use crate::topology::PortRole;
    let name = l.link.trim();
    let roles: &[PortRole] = match name {
        "inter_dc" => &[PortRole::BorderWan],
        "border" => &[PortRole::BorderWan, PortRole::BorderDown, PortRole::SpineUp],
        _ => &[],
    };
    if !roles.is_empty() {
        let v: Vec<u32> = (0..fabric.ports.len() as u32)
            .filter(|&p| roles.contains(&fabric.ports[p as usize].role))
            .collect();
        return (!v.is_empty()).then_some(v);
    }
    let p = fabric.port_by_name(name)?;
    Some(vec![p, fabric.ports[p as usize].reverse])
}

impl LossState {
    /// The loss state of scenario `s` on `fabric` (names checked by validation): its
    /// `[[loss]]` entries, then its `failures[].drop_prob` entries (Bernoulli, on the cables
    /// `resolved` gives them, [`super::failure_sets`]; validation keeps them off the ports of
    /// other lossy entries); `None` without either.
    pub fn new(s: &Scenario, fabric: &Fabric, resolved: &[Vec<u32>]) -> Option<Box<LossState>> {
        if s.loss.is_empty() && s.failures.iter().all(|f| f.drop_prob.is_none()) {
            return None;
        }
        let mut st = LossState {
            slot: vec![u32::MAX; fabric.ports.len()],
            ports: Vec::new(),
        };
        for l in &s.loss {
            let (block, probs) = block_probs(l);
            let from_ps = (l.at_us * 1e6).round() as u64;
            let until_ps = l
                .for_us
                .map_or(u64::MAX, |d| ((l.at_us + d) * 1e6).round() as u64);
            for p in loss_ports(fabric, l).unwrap_or_default() {
                let seed = s.seed ^ 0x105e_5eed_0000_0000 ^ (u64::from(p) << 20);
                let mut pl = PortLoss::new(block, &probs, seed);
                pl.from_ps = from_ps;
                pl.until_ps = until_ps;
                // A host's port has no switch arrival: it loses on its wire.
                pl.arrival = l.place == LossPlace::Arrival && p >= fabric.hosts;
                match st.slot[p as usize] {
                    u32::MAX => {
                        st.slot[p as usize] = st.ports.len() as u32;
                        st.ports.push((p, pl));
                    }
                    // A later entry for the same port replaces the earlier one.
                    i => st.ports[i as usize].1 = pl,
                }
            }
        }
        for (f, ports) in s.failures.iter().zip(resolved) {
            let Some(prob) = f.drop_prob else { continue };
            let from_ps = (f.at_us * 1e6).round() as u64;
            let until_ps = f
                .for_us
                .map_or(u64::MAX, |d| ((f.at_us + d) * 1e6).round() as u64);
            for &c in ports {
                for p in [c, fabric.ports[c as usize].reverse] {
                    // Its own stream, apart from `[[loss]]`'s.
                    let seed = s.seed ^ 0xd20b_f417_0000_0000 ^ (u64::from(p) << 20);
                    let mut pl = PortLoss::new(1, &[prob], seed);
                    pl.from_ps = from_ps;
                    pl.until_ps = until_ps;
                    if st.slot[p as usize] == u32::MAX {
                        st.slot[p as usize] = st.ports.len() as u32;
                        st.ports.push((p, pl));
                    }
                }
            }
        }
        Some(Box::new(st))
    }

    /// Whether the packet port `p` is sending at `now` (ps) is lost on its wire (ports
    /// losing on arrival: never).
    #[inline]
    pub fn lose(&mut self, p: u32, now: u64) -> bool {
        self.draw(p, now, false)
    }

    /// Whether the packet arriving at switch port `p` at `now` (ps) is lost before its
    /// buffer (`loss[].place = "arrival"` ports only).
    #[inline]
    pub fn lose_on_arrival(&mut self, p: u32, now: u64) -> bool {
        self.draw(p, now, true)
    }

    /// A draw at port `p` at `now` if it has a loss entry whose place is `arrival` (on
    /// arrival, or on the wire) and whose period holds `now`.
    #[inline]
    fn draw(&mut self, p: u32, now: u64, arrival: bool) -> bool {
        match self.slot[p as usize] {
            u32::MAX => false,
            i => {
                let pl = &mut self.ports[i as usize].1;
                pl.arrival == arrival && now >= pl.from_ps && now < pl.until_ps && pl.lose()
            }
        }
    }
}

impl Sim {
    /// A packet of port `p` lost on the wire by `[[loss]]`: the transport learns of it like of
    /// any drop; counted apart from the engine's drop causes (see [`Sim::loss_results`]).
    pub(crate) fn drop_lost(&mut self, p: u32, pk: &Packet) {
        self.transport.on_drop(pk);
        self.wh_data_dropped(pk);
        if pk.kind == PktKind::Data {
            self.c.data_dropped += 1;
        } else {
            self.c.ctrl_dropped += 1;
        }
        self.ports[p as usize].drops += 1;
        if self.trace.is_some() {
            self.trace_drop(p, pk, "random_loss");
        }
    }

    /// `[[loss]]` runs only: `drops_by_cause.random_loss` (also in `drops`), and the loss
    /// counters `loss_packets` (packets that crossed a lossy port), `loss_drops`,
    /// `loss_rate`, `loss_blocks` and `loss_blocks_1` / `_2` / `_3plus` (blocks that lost
    /// that many packets).
    pub(super) fn loss_results(&self, r: &mut RunResult) {
        let Some(l) = self.loss.as_deref() else {
            return;
        };
        let (mut seen, mut dropped, mut blocks) = (0u64, 0u64, 0u64);
        let mut with = [0u64; 4];
        for (_, pl) in &l.ports {
            seen += pl.seen;
            dropped += pl.dropped;
            blocks += pl.blocks;
            for (w, b) in with.iter_mut().zip(pl.blocks_with) {
                *w += b;
            }
        }
        r.summary.drops += dropped;
        r.summary
            .drops_by_cause
            .insert("random_loss".into(), dropped);
        let x = &mut r.summary.extra;
        x.insert("loss_packets".into(), seen as f64);
        x.insert("loss_drops".into(), dropped as f64);
        x.insert(
            "loss_rate".into(),
            if seen > 0 {
                dropped as f64 / seen as f64
            } else {
                0.0
            },
        );
        x.insert("loss_blocks".into(), blocks as f64);
        x.insert("loss_blocks_1".into(), with[1] as f64);
        x.insert("loss_blocks_2".into(), with[2] as f64);
        x.insert("loss_blocks_3plus".into(), with[3] as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Over many blocks, the share of blocks losing 1, 2 and 3 packets and the mean loss rate
    /// match Uno Table 1 Setup 1 (within the sampling error).
    #[test]
    fn block_model_matches_uno_table1_setup1() {
        let l = Loss {
            model: LossModel::UnoSetup1,
            ..Loss::default()
        };
        let (block, probs) = block_probs(&l);
        let mut pl = PortLoss::new(block, &probs, 42);
        let n_blocks = 4_000_000u64;
        for _ in 0..n_blocks * u64::from(block) {
            pl.lose();
        }
        assert_eq!(pl.blocks, n_blocks);
        for (k, want) in [(1, 3.0e-4), (2, 7.5e-5), (3, 1.6e-5)] {
            let got = pl.blocks_with[k] as f64 / n_blocks as f64;
            // 4M blocks: 1200 / 300 / 64 expected events; 4 standard deviations.
            let sd = (want / n_blocks as f64).sqrt();
            assert!((got - want).abs() < 4.0 * sd, "k = {k}: {got} vs {want}");
        }
        let rate = pl.dropped as f64 / pl.seen as f64;
        assert!((rate / 5.0e-5 - 1.0).abs() < 0.1, "loss rate {rate}");
        // Each block lost exactly as many packets as drawn.
        let lost: u64 = (1..4).map(|k| k as u64 * pl.blocks_with[k]).sum();
        assert_eq!(pl.dropped, lost);
    }

    /// A high-probability block model: counts, positions in range, and the same stream for
    /// the same seed.
    #[test]
    fn block_model_counts_and_determinism() {
        let mut a = PortLoss::new(10, &[0.1, 0.05, 0.02], 7);
        let mut b = PortLoss::new(10, &[0.1, 0.05, 0.02], 7);
        let va: Vec<bool> = (0..200_000).map(|_| a.lose()).collect();
        let vb: Vec<bool> = (0..200_000).map(|_| b.lose()).collect();
        assert_eq!(va, vb);
        let blocks = 20_000.0;
        for (k, want) in [(1, 0.1), (2, 0.05), (3, 0.02)] {
            let got = a.blocks_with[k] as f64 / blocks;
            assert!((got - want).abs() < 0.01, "k = {k}: {got}");
        }
        // Two losses in one block fall in the same 10 packets.
        let pairs = va
            .chunks(10)
            .filter(|c| c.iter().filter(|&&x| x).count() == 2);
        assert!(pairs.count() as u64 == a.blocks_with[2]);
        let mut c = PortLoss::new(1, &[0.01], 3);
        let lost = (0..1_000_000).filter(|_| c.lose()).count();
        assert!((lost as f64 / 1e6 - 0.01).abs() < 0.0005, "{lost}");
    }
}
