//! Phase 1, Request: path selection (Algorithm 1 lines 7-13). "For one demand, the scheduler
//! randomly requests the specific idle links needed to form a path, based on the switch and
//! endhost port states provided as input. If it is E2P traffic, the requested Core must have no
//! backpressure signal." Mice E2P demands take the exclusive mice Core when it is idle, and
//! only they may use it (§IV-B2).
//!
//! Each unmatched sender requests for its `requests_per_sender` most urgent demands (the width
//! of the request port; Algorithm 1 lets every demand request, this is the hardware bound).
//! Urgency key, one scale (§IV-B1: "if mice flow size is given, the scheduler will consider
//! the mice flow size instead of the aggregated data size"): the pair's size in cells, which
//! is the mice flow size from the last RTS's top-k entry (its size class `c` read as `2^c`
//! cells, at most the aggregated cells) when the sender reported one, else the aggregated
//! cells; then a bit that puts the mice pair first on a tie; then 16 random bits from the
//! scheduler's LFSR. (Session 5's key ranked every pair with a mice entry ahead of every pair
//! without one, whatever their sizes: a departure from the paper's single scale.)

use heapless::Vec;
use rtl_models::zeropod_cell::TrafficKind;
use rtl_models::RandomSource;

use crate::matrices::{for_each_bit, TrafficMatrices, HOST_WORDS};
use crate::pod::Grant;
use crate::ports::PortStates;
use crate::scheduler::{Matched, SchedulerConfig};

/// Most requests one sender may issue per iteration.
pub const MAX_REQUESTS_PER_SENDER: usize = 16;

/// Bit of an urgency key that is set when the pair has no top-k mice entry.
pub const NOT_MICE: u64 = 1 << 16;

/// The demand-selection key without its random low 16 bits (smaller is more urgent): the
/// size in cells on one scale, the mice flow size (size class `c` of the pair's top-k mice
/// entry, read as `2^c` cells and capped by the aggregated cells) if the sender reported one,
/// else the aggregated cells (§IV-B1); a pair with a mice entry goes first on a tie.
pub fn urgency_key(mice_class: Option<u8>, aggregated: u16) -> u64 {
    match mice_class {
        Some(c) => ((1u64 << c.min(15)).min(aggregated as u64)) << 17,
        None => ((aggregated as u64) << 17) | NOT_MICE,
    }
}

/// Whether a request's key came from a top-k mice entry (the exclusive mice Core, §IV-B2).
pub const fn is_mice_key(key: u64) -> bool {
    key & NOT_MICE == 0
}

/// Keep the `r` smallest (key, demand) pairs (`best` sorted by key, ties in arrival order).
pub fn keep_best(
    best: &mut Vec<(u64, Grant), MAX_REQUESTS_PER_SENDER>,
    r: usize,
    k: u64,
    g: Grant,
) {
    if best.len() == r && best.last().is_some_and(|l| l.0 <= k) {
        return;
    }
    if best.len() == r {
        best.pop();
    }
    let pos = best.iter().position(|b| b.0 > k).unwrap_or(best.len());
    // Capacity is checked above (len < r <= capacity).
    let _ = best.insert(pos, (k, g));
}

/// Pick a uniformly random set bit of `mask` (`None` if empty): one `rng.below` draw.
pub fn random_bit(mask: u64, rng: &mut impl RandomSource) -> Option<u32> {
    let n = mask.count_ones();
    if n == 0 {
        return None;
    }
    let mut i = rng.below(n);
    let mut m = mask;
    loop {
        let b = m.trailing_zeros();
        if i == 0 {
            return Some(b);
        }
        i -= 1;
        m &= m - 1;
    }
}

/// Run the Request phase, pushing every request into `out`.
#[allow(clippy::too_many_arguments)]
pub fn request<const M: usize, const N: usize, const P: usize, const C: usize>(
    cfg: &SchedulerConfig,
    mx: &TrafficMatrices<N, P, C>,
    ports: &PortStates<M>,
    matched: &Matched<N, C>,
    rng: &mut impl RandomSource,
    mut out: impl FnMut(Grant),
) {
    let r = (cfg.requests_per_sender as usize).clamp(1, MAX_REQUESTS_PER_SENDER);
    let slots = cfg.epoch_slots;
    let pod = cfg.pod as usize;
    let cores = cfg.cores as usize;
    let mut best: Vec<(u64, Grant), MAX_REQUESTS_PER_SENDER> = Vec::new();
    let words = N.div_ceil(64);
    // Hosts: E2E and E2P demands of every unmatched sender with demand, in host order; within
    // a sender, destinations in host order then pods (the valid bits of the matrices).
    let mut senders = *mx.active();
    for (w, m) in senders.iter_mut().enumerate() {
        *m &= !matched.host_sent[w];
    }
    let none = [0u64; HOST_WORDS];
    for_each_bit(&senders, &none, words, |s| {
        best.clear();
        let mut skip = matched.host_recv;
        skip[s / 64] |= 1 << (s % 64);
        for_each_bit(mx.e2e_bits(s), &skip, words, |d| {
            let v = mx.e2e()[s][d];
            let k = urgency_key(mx.mice_class(s, d), v);
            let g = Grant {
                traffic: TrafficKind::E2E,
                src: s as u16,
                dst: d as u16,
                volume: v.min(slots),
                ..Grant::default()
            };
            keep_best(&mut best, r, k, g);
        });
        let pods = (cfg.pods as usize).min(P);
        let mut pm = mx.e2p_bits(s) & !(1u32 << (pod % 32));
        while pm != 0 {
            let p = pm.trailing_zeros() as usize;
            pm &= pm - 1;
            if p >= pods {
                break;
            }
            let v = mx.e2p()[s][p];
            let k = urgency_key(mx.mice_class(s, N + p), v);
            let g = Grant {
                traffic: TrafficKind::E2P,
                src: s as u16,
                dst: p as u16,
                volume: v.min(slots),
                ..Grant::default()
            };
            keep_best(&mut best, r, k, g);
        }
        let ts = s / M;
        for &(k, mut g) in best.iter() {
            let rnd = (rng.next_u32() & 0xffff) as u64;
            g.key = k | rnd;
            match g.traffic {
                TrafficKind::E2E => {
                    let td = g.dst as usize / M;
                    let mut free = 0u64;
                    for a in 0..M {
                        if ports.tor_up[ts] >> a & 1 == 0 && ports.agg_down[a] >> td & 1 == 0 {
                            free |= 1 << a;
                        }
                    }
                    if let Some(a) = random_bit(free, rng) {
                        g.agg = a as u8;
                        out(g);
                    }
                }
                _ => {
                    // E2P: a Core without backpressure towards the pod, with idle links.
                    let mice = is_mice_key(k);
                    let mut free = 0u64;
                    for c in 0..cores.min(C).min(64) {
                        let a = c % M;
                        let ok = mx.backpressure[c] >> g.dst & 1 == 0
                            && !matched.core_recv(c)
                            && ports.tor_up[ts] >> a & 1 == 0
                            && ports.agg_up[a] >> (c / M) & 1 == 0;
                        if ok {
                            free |= 1 << c;
                        }
                    }
                    let choice = match cfg.mice_core {
                        Some(mc) if mice && free >> mc & 1 == 1 => Some(mc as u32),
                        Some(mc) if (mc as usize) < 64 => {
                            random_bit(if mice { free } else { free & !(1u64 << mc) }, rng)
                        }
                        _ => random_bit(free, rng),
                    };
                    if let Some(c) = choice {
                        g.core = c as u8;
                        g.agg = (c as usize % M) as u8;
                        out(g);
                    }
                }
            }
        }
    });
    // Cores: C2E demands (the path is fixed by the Core's Agg).
    for c in 0..cores.min(C).min(64) {
        if matched.core_sent(c) || ports.core_down >> c & 1 == 1 {
            continue;
        }
        best.clear();
        for_each_bit(mx.c2e_bits(c), &matched.host_recv, words, |d| {
            let v = mx.c2e()[c][d];
            let g = Grant {
                traffic: TrafficKind::C2E,
                src: c as u16,
                dst: d as u16,
                core: c as u8,
                agg: (c % M) as u8,
                volume: v.min(slots),
                key: 0,
            };
            keep_best(&mut best, r, urgency_key(None, v), g);
        });
        for &(k, mut g) in best.iter() {
            let td = g.dst as usize / M;
            if ports.agg_down[g.agg as usize] >> td & 1 == 0 {
                g.key = k | (rng.next_u32() & 0xffff) as u64;
                out(g);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// §IV-B1 ranks source-destination pairs on one scale: a pair's mice flow size when its
    /// RTS reported one, else its aggregated size. A 3-cell pair without a mice entry goes
    /// ahead of a pair whose mice flow is 128 cells; a mice entry smaller than the aggregate
    /// goes ahead of it; a mice pair wins a tie; the key never exceeds the aggregate.
    #[test]
    fn one_scale_for_mice_and_aggregated_sizes() {
        assert!(urgency_key(None, 3) < urgency_key(Some(7), 400));
        assert!(urgency_key(Some(2), 400) < urgency_key(None, 5));
        assert!(urgency_key(Some(3), 8) < urgency_key(None, 8));
        assert_eq!(urgency_key(Some(7), 10), urgency_key(Some(5), 10));
        assert!(is_mice_key(urgency_key(Some(0), 1) | 0xffff));
        assert!(!is_mice_key(urgency_key(None, 1)));
        // Ordered by size first, whatever the mice bit and the random bits.
        assert!(urgency_key(Some(7), 200) | 0xffff < urgency_key(None, 129));
    }
}
