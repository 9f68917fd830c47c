//! Per-flow steady-state detection (`../shared/papers/wormhole.md` 5.1, Eq. 6/7): the rate
//! samplers, the sampling tick and the steady flows of a partition.
//!
//! * **Steady state** (5.1, Eq. 6/7): every `skip.sample_us` each active flow's sending rate
//!   (payload bytes of the DATA packets it sent in the interval) goes to its
//!   [`SteadyDetector`] (`skip.theta`, `skip.samples`). Any change of a partition (a flow
//!   starting or finishing in it, a resume) resets its flows' detectors (5.3).
//!
//! * **What `R(t_k)` is** (`skip.rate_metric`; 3 / 5.1 "a unified metric -- sending rate",
//!   7.3 / Fig. 13a with Theorem 1: the rate, the in-flight bytes and the queue are
//!   equivalent for steady-state identification): `"packets"` (the default, above), `"cc"`
//!   (the CCA's own rate at the sample instant, DCTCP's `cwnd / srtt` with
//!   [`FlowRt::srtt8`](crate::flow::FlowRt::srtt8) RFC 6298's smoothed RTT: no packet
//!   quantization) or `"inflight"` (bytes in flight / srtt), either capped at the host line
//!   rate (a sender whose window does not bind sends at its NIC's rate, not at
//!   `cwnd / srtt`). Eq. 7's estimate, the rate a
//!   skipped flow is advanced at, must stay what the flow delivers (`skip.rate_estimate`):
//!   `"packets"` (its packets over the window), `"timed"` (its new packets between the
//!   newest sends seen at the window's two ends over the exact time between them) or
//!   `"metric"` (the metric's window mean: cwnd / srtt over-states DCTCP's delivery by
//!   3-20 % at a few packets of window, measured). Under a CC metric a flow is steady only
//!   when, besides Eq. 6 on the metric, its window saw no loss (a sender stalled in an RTO
//!   has a constant window) and its measured rate lies within theta of the metric's mean.
//!   Measured (`benches/README.md`, session 8): on paper-size GPT-13B / 128, `"cc"` with
//!   `partition_by = "data_ports"` gives 73x fewer events at 0.93 % mean FCT error (the
//!   default 57x at 0.42 %), short of the 100x; `"packets"` stays the default.
//!
//! * **A model-based steady test** (`skip.nic_bound_samples`, dcfab's extension of 3 / 6.2,
//!   [`nic_bound_rate`]): a DCTCP flow NIC-bound at its host port's round-robin share is
//!   steady after a few samples instead of Eq. 6's `l`, advanced at that share. Measured
//!   (`benches/README.md`, session 16): on paper-size GPT-13B / 128 on top of W2 107x fewer
//!   events at 1.59 % mean FCT error (W2: 82x at 0.99 %); off by default.
//!
//! * **A DCTCP window on its additive increase is not steady** (dcfab's extension of Eq. 6,
//!   session 25, [`Sampler::window_climbing`]; `uno_drift.rs` does the same for UnoCC):
//!   a window that binds, grows unmarked and has room below its host's line share climbs
//!   one MSS per RTT, less than theta per detector window at loose settings.

use super::*;

/// The congestion controller's own sending rate (bit/s) at a sampling instant, for
/// `skip.rate_metric` `"cc"` (DCTCP: `cwnd / srtt`) or `"inflight"` (bytes in flight /
/// `srtt`), before the caller's cap at the host line rate: Wormhole 3 / 5.1 samples "the sending rate" of the CCA, and 7.3 (Fig. 13a,
/// Theorem 1) takes the rate, the in-flight bytes and the queue as equivalent metrics. A
/// window CCA's rate over its RTT has no packet quantization at the sample instant. 0 before
/// the first RTT sample (`srtt8`, 8 x SRTT in 1 GHz NIC cycles = ns), or for a sender
/// without a window (never skipped: refused at setup).
pub(super) fn cc_rate(cc: &Cc, srtt8: u32, metric: RateMetric) -> u64 {
    // (MPRDMA's window is its DCTCP sender's; `rate_metric` other than `"packets"` is
    // refused for it, so only [`Sampler::window_climbing`] reads it here.)
    let s = match cc {
        Cc::Dctcp(s) => &**s,
        Cc::Mprdma(s) => s.inner(),
    };
    if srtt8 == 0 {
        return 0;
    }
    let bytes = match metric {
        RateMetric::Inflight => s.inflight(),
        _ => s.cwnd(),
    };
    // bytes * 8 bit / (srtt8 / 8 ns) = bytes * 64e9 / srtt8 bit/s.
    (u128::from(bytes) * 64_000_000_000 / u128::from(srtt8)) as u64
}

/// One active flow's rate sampler.
#[derive(Debug, Clone)]
pub(super) struct Sampler {
    pub(super) det: SteadyDetector,
    /// DATA packets sent at the last sample (`None`: no baseline yet).
    pub(super) last: Option<u64>,
    pub(super) steady: bool,
    /// The flow's last rate estimate (bit/s), kept across detector resets: its weight in the
    /// conflict graph of the next unsteady period (4.2: the instantaneous rate; `None`, class
    /// 0, for a flow that has not had one yet).
    pub(super) hint: Option<u64>,
    /// The flow's last rate sample (bit/s), kept across detector resets: its rate in the
    /// start state of an interrupted-transient lookup.
    pub(super) last_rate: u64,
    /// Unless `skip.rate_metric` and `skip.rate_estimate` are both `"packets"`: at each of
    /// the last `l + 1` samples (since the last reset), the flow's DATA packets sent
    /// (cumulative) and its newest PSN sent with that send's NIC cycle stamp, for the
    /// steady estimate and the sent-something check.
    pub(super) hist: std::collections::VecDeque<HistPoint>,
    /// `skip.nic_bound_samples`: the flow's rate if the model-based steady test held at the
    /// last sample ([`nic_bound_rate`]), `None` otherwise.
    pub(super) model: Option<u64>,
    /// A flow on a load balancer that moves its one path (PLB, flowlets:
    /// [`crate::flow::Lb::moving_path`]): its EV at the last sample and the samples since
    /// it last moved (or a move was pending). Kept across detector resets.
    pub(super) path: Option<(u16, u32)>,
    /// A UnoCC flow: bytes its window gained in skips as a window-limited flow
    /// ([`UnoClass::Drift`]) since its last congestion signal (`uno_drift.rs`: taken for
    /// queue at its bottleneck by the next skip's limit, and not for room in its window).
    pub(super) uno_grown: u64,
    /// DATA packets of the flow dropped in the network ([`Sim::wh_data_dropped`]) that its
    /// sender has not yet taken out of flight as lost, as far as what it settled since
    /// tells (each settled packet takes one off: [`crate::transport::skip::SkipView::
    /// settled`]); and its settled count at the last sample. A flow with a loss it has not
    /// seen, with no loss settled over the detector window, is not steady: the skip would
    /// shift its pending timeout past the skipped time, and its retransmission with it
    /// (`Wormhole::loss_aware`). A flow that loses and recovers packets all the time (its
    /// losses settled within every window) is steady with its losses.
    pub(super) undeclared: u32,
    pub(super) settled_seen: u64,
    /// Samples since the sender last settled a loss (`u32::MAX`: never).
    pub(super) since_settled: u32,
    /// The last sample held the flow for such a loss ([`Sampler::loss_pending`]).
    pub(super) loss_held: bool,
}

impl Sampler {
    /// A new flow's sampler: no sample, no history, steady by nothing yet.
    pub(super) fn new(det: SteadyDetector) -> Sampler {
        Sampler {
            det,
            last: None,
            steady: false,
            hint: None,
            last_rate: 0,
            hist: Default::default(),
            model: None,
            path: None,
            uno_grown: 0,
            undeclared: 0,
            settled_seen: 0,
            since_settled: u32::MAX,
            loss_held: false,
        }
    }

    /// At a sample: take the packets the flow's sender settled as lost since the last one
    /// (`settled` cumulative) off its undeclared drops; whether one is still undeclared
    /// while no loss was settled over the last `l` samples (kept in [`Sampler::loss_held`]).
    pub(super) fn loss_pending(&mut self, settled: u64, l: usize) -> bool {
        let declared = settled.saturating_sub(self.settled_seen);
        self.settled_seen = settled;
        self.undeclared = self
            .undeclared
            .saturating_sub(u32::try_from(declared).unwrap_or(u32::MAX));
        self.since_settled = if declared > 0 {
            0
        } else {
            self.since_settled.saturating_add(1)
        };
        self.loss_held = self.undeclared > 0 && self.since_settled as usize >= l;
        self.loss_held
    }

    /// Track the flow's moving path at a sample (`now`: its EV and whether a move is
    /// pending); `None` leaves a flow on a fixed or per-packet path untracked.
    pub(super) fn sample_path(&mut self, now: Option<(u16, bool)>) {
        self.path = now.map(|(ev, pending)| match self.path {
            Some((old, n)) if old == ev && !pending => (ev, n.saturating_add(1)),
            _ => (ev, 0),
        });
    }

    /// Whether the flow's path held over the detector's last `l` samples (always, for a
    /// flow whose load balancer does not move its path).
    pub(super) fn path_held(&self, l: usize) -> bool {
        self.path.is_none_or(|(_, n)| n as usize >= l)
    }

    /// Whether the flow got an ECN-marked ACK or lost a packet within the detector's last
    /// `l` samples (a UnoCC flow's window gained in skips, [`Sampler::uno_grown`], is then
    /// taken to have met its queue: `uno_drift.rs`).
    pub(super) fn signalled(&self, l: usize) -> bool {
        self.window(l)
            .is_some_and(|(a, b)| b.ecn > a.ecn || b.losses > a.losses)
    }

    /// A DCTCP-style window on its additive increase (or its slow start): over the
    /// detector's last `l` samples the window grew with no ECN-marked ACK and no loss, the
    /// window binds (`cwnd / srtt`, `cc_bps`, within half again of the rate the flow sent at
    /// over the window; a sender its NIC holds back has a window far above that, which
    /// grows without moving its rate), and the flow sends below 97 % of its share of its
    /// host's line (`host` flows from it; payload rate): there is room to climb into.
    /// Its rate climbs by one MTU per RTT, under theta per window at loose settings, and a
    /// skip at the window's rate runs late (measured after a link failure's RTO recovery:
    /// four flows 19-27 % late at theta 0.2). dcfab's extension of Eq. 6 (5.1), as
    /// `uno_drift.rs` is for UnoCC.
    pub(super) fn window_climbing(&self, l: usize, cc_bps: u64, host: u32, w: &Wormhole) -> bool {
        let Some((a, b)) = self.window(l) else {
            return false;
        };
        if b.cwnd <= a.cwnd || self.signalled(l) {
            return false;
        }
        let bits = u128::from(b.sent - a.sent) * u128::from(w.mtu) * 8 * 1_000_000_000_000;
        let measured = bits / (u128::from(w.sample_ps) * l as u128);
        let share = u128::from(w.capacity_bps) * u128::from(w.mtu)
            / (u128::from(w.mtu + w.hdr) * u128::from(host.max(1)));
        let room = measured * 100 < share * 97;
        room && u128::from(cc_bps) * 2 <= measured * 3
    }

    /// The samples `l` apart at the end of the history (`None` with fewer).
    pub(super) fn window(&self, l: usize) -> Option<(&HistPoint, &HistPoint)> {
        let n = self.hist.len();
        (n > l).then(|| (&self.hist[n - 1 - l], &self.hist[n - 1]))
    }
}

/// The active flows' samplers ([`Wormhole::active`]): a slot per flow index, the sorted
/// list of the active ones and the (unordered) list of those not frozen in a skipped
/// partition, so the sampling tick walks only the flows it samples (most active flows are
/// frozen) and a lookup is one index, where the `BTreeMap` this replaces walked its nodes
/// and every frozen flow. Same interface and order (by flow index) as the map.
#[derive(Debug, Default)]
pub(super) struct Samplers {
    pub(super) slots: Vec<Option<Box<Sampler>>>,
    pub(super) ids: Vec<u32>,
    /// Active flows not in a paused partition (the ones sampled), in no particular order:
    /// a tick's samples are independent of each other.
    pub(super) live: Vec<u32>,
    /// Per flow index, its place in `live` ([`NOT_LIVE`] if none).
    pub(super) live_at: Vec<u32>,
    /// Bumped whenever a flow joins or leaves (with it the hosts' flow counts change):
    /// [`NicLoads`] over the same flows are reused while it holds.
    pub(super) gen: u64,
}

/// [`Samplers::live_at`] of a flow not in `live`.
pub(super) const NOT_LIVE: u32 = u32::MAX;

impl Samplers {
    pub(super) fn get(&self, f: &u32) -> Option<&Sampler> {
        self.slots.get(*f as usize)?.as_deref()
    }

    pub(super) fn get_mut(&mut self, f: &u32) -> Option<&mut Sampler> {
        self.slots.get_mut(*f as usize)?.as_deref_mut()
    }

    pub(super) fn insert(&mut self, f: u32, s: Sampler) {
        let i = f as usize;
        if self.slots.len() <= i {
            self.slots.resize_with(i + 1, || None);
        }
        if self.slots[i].replace(Box::new(s)).is_none() {
            self.gen += 1;
            let at = self.ids.partition_point(|&x| x < f);
            self.ids.insert(at, f);
            self.put_live(f, true);
        }
    }

    pub(super) fn remove(&mut self, f: &u32) {
        if self
            .slots
            .get_mut(*f as usize)
            .and_then(Option::take)
            .is_some()
        {
            self.gen += 1;
            let at = self.ids.partition_point(|&x| x < *f);
            self.ids.remove(at);
            self.put_live(*f, false);
        }
    }

    /// Whether active flow `f` is in a paused partition.
    pub(super) fn is_frozen(&self, f: u32) -> bool {
        self.get(&f).is_some() && self.live_at[f as usize] == NOT_LIVE
    }

    /// Mark active flow `f` paused or not (nothing for a flow not active).
    pub(super) fn set_frozen(&mut self, f: u32, frozen: bool) {
        if self.get(&f).is_some() {
            self.put_live(f, !frozen);
        }
    }

    /// Add `f` to `live` or take it out (swapping the last one into its place).
    pub(super) fn put_live(&mut self, f: u32, live: bool) {
        let i = f as usize;
        if self.live_at.len() <= i {
            self.live_at.resize(i + 1, NOT_LIVE);
        }
        let at = self.live_at[i];
        if live && at == NOT_LIVE {
            self.live_at[i] = self.live.len() as u32;
            self.live.push(f);
        } else if !live && at != NOT_LIVE {
            self.live.swap_remove(at as usize);
            if let Some(&g) = self.live.get(at as usize) {
                self.live_at[g as usize] = at;
            }
            self.live_at[i] = NOT_LIVE;
        }
    }

    /// The active flows, in index order.
    pub(super) fn keys(&self) -> std::slice::Iter<'_, u32> {
        self.ids.iter()
    }
}

/// A flow's sender at one sampling tick ([`Sampler::hist`]).
#[derive(Debug, Clone, Copy)]
pub(super) struct HistPoint {
    /// DATA packets sent (cumulative).
    pub(super) sent: u64,
    /// The newest PSN sent and its send's NIC cycle stamp.
    pub(super) newest: Option<(u32, u32)>,
    /// Packets declared lost (cumulative).
    pub(super) losses: u64,
    /// ACKs echoing a CE mark (cumulative).
    pub(super) ecn: u64,
    /// The flow's host port's departures (cumulative packets, bytes; DATA and control):
    /// `skip.nic_bound_exact` measures the control packets per round from them.
    pub(super) port_tx: (u64, u64),
    /// A UnoCC flow's bytes in flight and window (0 for any other sender):
    /// `uno_drift.rs`.
    pub(super) inflight: u64,
    pub(super) cwnd: u64,
}

/// The active flows' host shares, summed for [`nic_bound_rate`]
/// (`skip.nic_bound_samples`) at a tick whose active flows changed
/// ([`Samplers::gen`]); kept across ticks ([`Wormhole::nic_loads`]) and updated by the flows
/// whose share changed, joined or left (the sums are exact integers, so they equal a
/// fresh sum).
#[derive(Debug, Default)]
pub(super) struct NicLoads {
    /// Per host: the ACK load (bit/s) its port carries for the active flows into it, one
    /// `hdr`-byte ACK per DATA packet of each at its own host's share.
    ack_in: Vec<u128>,
    /// Per port: the payload rate (bit/s) of the active flows whose path crosses it, each at
    /// its own host's share.
    load: Vec<u128>,
    /// `skip.nic_bound_exact`: per port, the wire rate (bit/s) of the ACKs of the active
    /// flows whose ACK path (`data_ports`) crosses it, one `hdr`-byte ACK per DATA packet of
    /// each at its host's share (empty otherwise).
    ack: Vec<u128>,
    /// Per flow: the (DATA share, ACK rate) it adds along its paths in `load` / `ack` (a
    /// flow's paths are fixed when it starts).
    added: Vec<Option<(u128, u128)>>,
    /// The flows counted in `load` / `ack` (sorted).
    counted: Vec<u32>,
    /// [`Samplers::gen`] at the last refresh: the same flows on the same hosts give the
    /// same loads, so a later tick reuses them.
    gen: Option<u64>,
    /// Per host, this refresh: its flows' DATA share (computed at its first flow).
    host_data: Vec<Option<u128>>,
    /// Per `host_out` value: (host share, its ACK rate), for the run.
    by_k: Vec<Option<(u128, u128)>>,
}

/// [`NicLoads`] summed at a tick's first [`nic_bound_rate`] that needs them (most ticks
/// none does), over the active flows `ids`.
pub(super) struct LazyLoads<'a> {
    pub(super) nl: NicLoads,
    pub(super) fresh: bool,
    pub(super) ids: &'a [u32],
    /// [`Samplers::gen`] of `ids`.
    pub(super) gen: u64,
}

impl LazyLoads<'_> {
    fn get(&mut self, w: &Wormhole, flows: &[FlowRt], n_ports: usize) -> &NicLoads {
        if !self.fresh {
            if self.nl.gen != Some(self.gen) || self.nl.load.len() != n_ports {
                self.nl.refresh(w, self.ids, flows, n_ports);
                self.nl.gen = Some(self.gen);
            }
            self.fresh = true;
        }
        &self.nl
    }
}

impl NicLoads {
    /// The loads over the active flows `ids` (sorted). The shares depend on a flow's host
    /// alone (its `host_out` and, with `skip.nic_bound_exact`, its ACK load): computed once
    /// per host, the host-share pair once per `host_out` value for the run
    /// ([`NicLoads::by_k`]). Only a flow whose share changed, or that joined or left, moves
    /// the port sums.
    fn refresh(&mut self, w: &Wormhole, ids: &[u32], flows: &[FlowRt], n_ports: usize) {
        let nl = self;
        let hosts = w.host_out.len();
        nl.ack_in.clear();
        nl.ack_in.resize(hosts, 0);
        nl.host_data.clear();
        nl.host_data.resize(hosts, None);
        if nl.load.len() != n_ports {
            nl.load = vec![0; n_ports];
            nl.ack = if w.nic_exact {
                vec![0; n_ports]
            } else {
                Vec::new()
            };
            nl.added.clear();
            nl.counted.clear();
        }
        if nl.added.len() < flows.len() {
            nl.added.resize(flows.len(), None);
        }
        for &g in ids {
            let spec = &flows[g as usize].spec;
            let (_, ack) = nl.by_k(w, w.host_out[spec.src as usize]);
            nl.ack_in[spec.dst as usize] += ack;
        }
        // Flows that left (both lists sorted: one merge pass).
        let mut j = 0;
        for i in 0..nl.counted.len() {
            let g = nl.counted[i];
            while j < ids.len() && ids[j] < g {
                j += 1;
            }
            if ids.get(j) != Some(&g) {
                if let Some(old) = nl.added[g as usize].take() {
                    nl.apply(w, g, old, false);
                }
            }
        }
        for &g in ids {
            let spec = &flows[g as usize].spec;
            let src = spec.src as usize;
            let k = w.host_out[src];
            let (host, ack) = nl.by_k(w, k);
            let share = match nl.host_data[src] {
                Some(s) => s,
                None => {
                    // The DATA rate the model gives it: its host's line less the ACKs its
                    // port sends, shared (without this a host port sending and receiving
                    // looks like a second bottleneck downstream, its own ACKs on top of its
                    // full share).
                    let s = if w.nic_exact {
                        u128::from(w.capacity_bps).saturating_sub(nl.ack_in[src])
                            * u128::from(w.mtu)
                            / (u128::from(w.mtu + w.hdr) * u128::from(u64::from(k).max(1)))
                    } else {
                        host
                    };
                    nl.host_data[src] = Some(s);
                    s
                }
            };
            let new = (share, ack);
            match nl.added[g as usize] {
                Some(old) if old == new => continue,
                Some(old) => nl.apply(w, g, old, false),
                None => {}
            }
            nl.apply(w, g, new, true);
            nl.added[g as usize] = Some(new);
        }
        nl.counted.clear();
        nl.counted.extend_from_slice(ids);
        #[cfg(debug_assertions)]
        nl.check_fresh(w, ids);
    }

    /// Debug builds (the tests): the loads kept equal a fresh sum over `ids`.
    #[cfg(debug_assertions)]
    fn check_fresh(&self, w: &Wormhole, ids: &[u32]) {
        let mut load = vec![0u128; self.load.len()];
        let mut ack = vec![0u128; self.ack.len()];
        for &g in ids {
            let (share, a) = self.added[g as usize].expect("every active flow counted");
            for &p in w.data_path(g) {
                load[p as usize] += share;
            }
            if w.nic_exact {
                for &p in w.ack_path(g) {
                    ack[p as usize] += a;
                }
            }
        }
        assert_eq!(
            load, self.load,
            "NicLoads: DATA loads drifted from a fresh sum"
        );
        assert_eq!(
            ack, self.ack,
            "NicLoads: ACK loads drifted from a fresh sum"
        );
    }

    /// Add (`add`) or take away flow `g`'s (DATA share, ACK rate) along its DATA path in
    /// `load` and, with `skip.nic_bound_exact`, its ACK path in `ack`.
    fn apply(&mut self, w: &Wormhole, g: u32, (share, ack): (u128, u128), add: bool) {
        for &p in w.data_path(g) {
            let l = &mut self.load[p as usize];
            *l = if add { *l + share } else { *l - share };
        }
        if w.nic_exact {
            for &p in w.ack_path(g) {
                let a = &mut self.ack[p as usize];
                *a = if add { *a + ack } else { *a - ack };
            }
        }
    }

    /// One of `k` flows' host share ([`Wormhole::host_share`]) and the rate of its ACKs
    /// (one `hdr`-byte ACK per `mtu` of DATA), kept per `k` (the run's constants fix them).
    #[inline]
    fn by_k(&mut self, w: &Wormhole, k: u32) -> (u128, u128) {
        let i = k as usize;
        if let Some(&Some(v)) = self.by_k.get(i) {
            return v;
        }
        let share = w.host_share(u64::from(k));
        let v = (share, share * u128::from(w.hdr) / u128::from(w.mtu));
        if self.by_k.len() <= i {
            self.by_k.resize(i + 1, None);
        }
        self.by_k[i] = Some(v);
        v
    }
}

impl Wormhole {
    /// Active flow `g`'s DATA path for the model's tests: its partition path, but under
    /// `all_ports` (where that is both directions) with `skip.nic_bound_exact` the DATA
    /// direction alone ([`Self::split_paths`]).
    pub(super) fn data_path(&self, g: u32) -> &[u32] {
        match self.split_paths.get(g as usize) {
            Some((d, _)) if self.nic_exact => d,
            _ => self.ports.get(g as usize).map_or(&[][..], Vec::as_slice),
        }
    }

    /// Active flow `g`'s ACK path with `skip.nic_bound_exact` ([`Self::split_paths`]).
    pub(super) fn ack_path(&self, g: u32) -> &[u32] {
        self.split_paths
            .get(g as usize)
            .map_or(&[][..], |(_, a)| a.as_slice())
    }

    /// One of `k` flows' round-robin share of a host port's payload line rate (bit/s),
    /// without ACKs (`skip.nic_bound_samples`).
    fn host_share(&self, k: u64) -> u128 {
        u128::from(self.capacity_bps) * u128::from(self.mtu)
            / (u128::from(self.mtu + self.hdr) * u128::from(k.max(1)))
    }
}

/// `skip.nic_bound_samples` (dcfab's extension of Wormhole 3 / 6.2, whose steady test is
/// Eq. 6 over `l` samples): the model-based steady test of active flow `f` at a sampling
/// tick. A DCTCP sender whose window does not bind is served by its host port's round robin
/// over the host's ready flows (`transport::dctcp::pull`), so with `k` active flows on the
/// host each sends at `C / k` of the payload line rate `C` as long as nothing downstream
/// queues: its rate is known from the model, and Eq. 6's premise (a constant rate until the
/// next interrupt) holds by construction. Steady when, over the last `m =
/// nic_bound_samples` sampling intervals (all since the partition's last change), the flow:
///
/// * sent something, declared no packet lost and got no ECN-marked ACK;
/// * has a window above what its share needs (`cwnd >= C / k x srtt + MTU`): NIC-bound;
/// * has empty DATA queues on every port of its path but its host port, and no port of its
///   path is loaded above its line rate by the flows of its partition crossing it at their
///   own hosts' shares (the host port is the only bottleneck); with `skip.nic_bound_exact`
///   the DATA direction alone (under `all_ports` too), each flow at its host's share less
///   the ACKs its host port sends, plus the wire rate of the ACKs crossing the port
///   ([`NicLoads`]: a port past the host port carrying line-rate DATA and other flows' ACKs
///   is a second bottleneck, measured: flows ~0.8 us early at paper size otherwise);
/// * measured (`Sampler::window_timed` over the `m` intervals) a rate within `theta` of
///   `C / k`.
///
/// The model's rate `C / k` (less the ACKs the host port sends for the flows into the host)
/// is the estimate the flow is advanced at: a measurement over a few samples is quantized
/// and, in a skip run, distorted by other partitions' skips (an incoming flow skipped sends
/// no ACKs). A flow that fails any condition is left to Eq. 6; `Err(Some(_))` says which
/// condition failed first (`extra.wormhole_model_refused_*`), `Err(None)` that the test does
/// not apply (not a DCTCP sender, no RTT sample yet, fewer than `m` intervals since the
/// partition's last change).
pub(super) fn nic_bound_rate(
    w: &Wormhole,
    s: &Sampler,
    f: u32,
    flows: &[FlowRt],
    ports: &[PortRt],
    lazy: &mut LazyLoads,
) -> std::result::Result<u64, Option<ModelRefusal>> {
    let m = w.nic_bound;
    let n = s.hist.len();
    if m == 0 || n <= m {
        return Err(None);
    }
    let (a, b) = (&s.hist[n - 1 - m], &s.hist[n - 1]);
    let flow = &flows[f as usize];
    let Some(Cc::Dctcp(d)) = &flow.cc else {
        return Err(None);
    };
    let src = flow.spec.src;
    let k = u64::from(*w.host_out.get(src as usize).ok_or(None)?);
    if k == 0 || flow.srtt8 == 0 {
        return Err(None);
    }
    if b.sent == a.sent {
        return Err(Some(ModelRefusal::Idle));
    }
    if b.losses != a.losses {
        return Err(Some(ModelRefusal::Loss));
    }
    if b.ecn != a.ecn {
        return Err(Some(ModelRefusal::Ecn));
    }
    let nl = lazy.get(w, flows, ports.len());
    let ack_bps = nl.ack_in[src as usize];
    let model = (u128::from(w.capacity_bps).saturating_sub(ack_bps) * u128::from(w.mtu)
        / (u128::from(w.mtu + w.hdr) * u128::from(k))) as u64;
    // Window above the share's bytes per smoothed RTT (srtt8 = 8 x srtt in ns).
    let need = u128::from(model) * u128::from(flow.srtt8) / 64_000_000_000 + u128::from(w.mtu);
    if u128::from(d.cwnd()) < need {
        return Err(Some(ModelRefusal::Window));
    }
    let path = w.data_path(f);
    if path
        .iter()
        .any(|&p| p != src && !ports[p as usize].data_q.is_empty())
    {
        return Err(Some(ModelRefusal::Queue));
    }
    let measured = s.window_timed(m, w.mtu).ok_or(Some(ModelRefusal::Rate))?;
    if measured.abs_diff(model) as u128 * 1_000_000
        >= u128::from(s.det.theta_ppm()) * u128::from(model)
    {
        return Err(Some(ModelRefusal::Rate));
    }
    // No port of the path is a second bottleneck: the flows crossing it (all of its
    // partition: a shared port joins their partitions), each at its own host's share, fit
    // its line rate (1 ppm of slack for the integer divisions).
    for &p in path {
        let line =
            (ports[p as usize].gbps * 1e9) as u128 * u128::from(w.mtu) / u128::from(w.mtu + w.hdr);
        // `skip.nic_bound_exact`: other flows' ACKs crossing a DATA port past the host port
        // take their share of its line too (the host port's own ACKs are in its round).
        let acks = match nl.ack.get(p as usize) {
            Some(&a) if p != src => a * u128::from(w.mtu) / u128::from(w.mtu + w.hdr),
            _ => 0,
        };
        if (nl.load[p as usize] + acks) * 1_000_000 > line * 1_000_001 {
            return Err(Some(ModelRefusal::Bottleneck));
        }
    }
    Ok(model)
}

/// Why [`nic_bound_rate`] found a flow not steady by the model: the first of its conditions
/// that failed, in the order it tests them (`extra.wormhole_model_refused_*`, counted per
/// flow and sampling tick).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ModelRefusal {
    /// Sent no new packet over the model's window.
    Idle,
    /// Declared a packet lost.
    Loss,
    /// Got an ECN-marked ACK.
    Ecn,
    /// Its window is below what its share needs (window-bound, not NIC-bound).
    Window,
    /// A DATA queue past its host port on its path is not empty.
    Queue,
    /// Its measured rate is missing or not within `theta` of the model's.
    Rate,
    /// A port of its path is loaded above its line rate (a second bottleneck).
    Bottleneck,
}

impl ModelRefusal {
    /// Every reason with its summary key suffix, in [`WhStats::model_refused`] order.
    pub(super) const ALL: [(ModelRefusal, &'static str); 7] = [
        (ModelRefusal::Idle, "idle"),
        (ModelRefusal::Loss, "loss"),
        (ModelRefusal::Ecn, "ecn"),
        (ModelRefusal::Window, "window"),
        (ModelRefusal::Queue, "queue"),
        (ModelRefusal::Rate, "rate"),
        (ModelRefusal::Bottleneck, "bottleneck"),
    ];
}

/// Upper bounds (flows) of the partition sizes `extra.wormhole_sampled_packets_*` sorts a
/// flow's packets by (the last bucket takes every larger partition), with the key suffixes.
pub(super) const SIZE_BUCKETS: [(usize, &str); 8] = [
    (1, "1"),
    (2, "2"),
    (4, "3_4"),
    (8, "5_8"),
    (16, "9_16"),
    (32, "17_32"),
    (64, "33_64"),
    (usize::MAX, "65_up"),
];

impl Sampler {
    /// Packets sent over the detector's window (its last `l` intervals), once it is full.
    pub(super) fn window_packets(&self, l: usize) -> Option<u64> {
        let n = self.hist.len();
        (n > l).then(|| self.hist[n - 1].sent - self.hist[n - 1 - l].sent)
    }

    /// Packets the flow's sender declared lost (NACK or RTO) over the detector's window.
    pub(super) fn window_losses(&self, l: usize) -> Option<u64> {
        let n = self.hist.len();
        (n > l).then(|| self.hist[n - 1].losses - self.hist[n - 1 - l].losses)
    }

    /// The new packets sent between the newest sends seen at the window's first and last
    /// samples, over the exact time between those sends (bit/s); `None` if none.
    pub(super) fn window_timed(&self, l: usize, mtu: u64) -> Option<u64> {
        let n = self.hist.len();
        if n <= l {
            return None;
        }
        let ((p0, t0), (p1, t1)) = (self.hist[n - 1 - l].newest?, self.hist[n - 1].newest?);
        let (pk, dt) = (p1.wrapping_sub(p0), t1.wrapping_sub(t0));
        if pk == 0 || dt == 0 || pk >= 1 << 31 {
            return None;
        }
        // NIC cycles are ns: bytes * 8 / (dt ns).
        Some((u128::from(pk) * u128::from(mtu) * 8_000_000_000 / u128::from(dt)) as u64)
    }

    /// Eq. 7's estimate `R^` (bit/s) of a steady flow, `None` when not steady. Under
    /// `rate_metric = "packets"` the detector's window mean (as always). Under another
    /// metric the flow must also have sent a packet in the window (a stalled sender's window
    /// is "steady" too), and the estimate is the measured rate (`rate_estimate =
    /// "packets"`: the window's packets over its length, what the flow really delivered) or
    /// the metric's window mean (`"metric"`, at most the host line rate).
    pub(super) fn estimate(&self, w: &Wormhole) -> Option<u64> {
        self.eq6_estimate(w).or(self.model)
    }

    /// Steady by `skip.nic_bound_samples`' model ([`nic_bound_rate`]) and not by Eq. 6.
    pub(super) fn model_only(&self, w: &Wormhole) -> bool {
        self.model.is_some() && self.eq6_estimate(w).is_none()
    }

    /// [`Self::estimate`] by Eq. 6 / 7 alone (without `skip.nic_bound_samples`' model).
    fn eq6_estimate(&self, w: &Wormhole) -> Option<u64> {
        if w.metric == RateMetric::Packets && w.estimate != RateEstimate::Timed {
            return self.det.estimate();
        }
        let est = self.det.estimate()?;
        let pk = self.window_packets(w.samples).filter(|&p| p > 0)?;
        // A sender recovering from a loss (an RTO stall above all) keeps a constant window
        // over a constant srtt, "steady" by cwnd / srtt while it sends next to nothing: a
        // window with a loss in it is not steady under a CC metric.
        if w.metric != RateMetric::Packets && self.window_losses(w.samples) != Some(0) {
            return None;
        }
        Some(match w.estimate {
            RateEstimate::Metric => est.min(w.capacity_bps),
            RateEstimate::Packets | RateEstimate::Timed => {
                let measured = if w.estimate == RateEstimate::Timed {
                    self.window_timed(w.samples, w.mtu)?
                } else {
                    let bits = u128::from(pk) * u128::from(w.mtu) * 8 * 1_000_000_000_000;
                    (bits / (u128::from(w.sample_ps) * w.samples as u128)) as u64
                };
                // Calibration: the metric must describe what the flow delivered over the
                // window (a burst at the start of a window, a ramp the metric does not show,
                // a stalled sender). The measured rate has to lie within theta of the
                // metric's mean, the same relative bound Eq. 6 puts on the samples.
                if measured.abs_diff(est) as u128 * 1_000_000
                    >= u128::from(self.det.theta_ppm()) * u128::from(est)
                {
                    return None;
                }
                measured
            }
        })
    }
}

impl Sim {
    /// Packet `pk` was dropped (a full buffer, a link down, random loss): a DATA is one
    /// more loss its flow's sender has not declared yet ([`Sampler::undeclared`]).
    pub(in crate::engine) fn wh_data_dropped(&mut self, pk: &Packet) {
        if pk.kind != PktKind::Data {
            return;
        }
        let Some(w) = self.wh.as_mut() else {
            return;
        };
        if let Some(s) = w.active.get_mut(&pk.flow) {
            s.undeclared = s.undeclared.saturating_add(1);
        }
    }

    /// DATA packets flow `f` has sent (first transmissions and retransmissions), as its
    /// transport counts them ([`crate::transport::TransportDriver::skip_view`]).
    pub(super) fn packets_sent(&self, f: u32) -> Option<u64> {
        self.transport.skip_view(&self.flows, f).map(|v| v.sent)
    }

    /// The rate-sampling tick: one sample per active flow not skipped, then every partition
    /// whose flows are all steady is fast-forwarded.
    pub(super) fn wh_tick(&mut self) {
        let w = self.wh.as_mut().expect("wormhole on");
        for id in std::mem::take(&mut w.lookups) {
            self.memo_lookup(id);
        }
        let w = self.wh.as_mut().expect("wormhole on");
        w.st.ticks += 1;
        let (mtu, sample_ps, metric, l) = (w.mtu, w.sample_ps, w.metric, w.samples);
        let keep_hist = metric != RateMetric::Packets
            || w.estimate == RateEstimate::Timed
            || w.nic_bound > 0
            || w.slow_ramp
            || w.window_climb;
        // Partitions with a steady flow: the only ones that may be all steady.
        let mut ready: Vec<PartitionId> = Vec::new();
        // Out of `w` while sampling, so a sampler can read `w`'s settings.
        let mut active = std::mem::take(&mut w.active);
        let mut lazy = (w.nic_bound > 0).then(|| LazyLoads {
            nl: std::mem::take(&mut w.nic_loads),
            fresh: false,
            ids: &active.ids,
            gen: active.gen,
        });
        for &f in &active.live {
            let Some(s) = active.slots[f as usize].as_deref_mut() else {
                continue;
            };
            let flow = &self.flows[f as usize];
            let Some(view) = self.transport.skip_view(&self.flows, f) else {
                continue;
            };
            let sent = view.sent;
            let loss_pending = w.loss_aware && s.loss_pending(view.settled, l);
            // (Only a run whose transport ramps slowly reads its windows.)
            let uno = if w.slow_ramp {
                self.transport.uno_window(f)
            } else {
                None
            };
            if keep_hist {
                s.hist.push_back(HistPoint {
                    sent,
                    newest: view.newest,
                    losses: view.losses,
                    ecn: view.ecn,
                    port_tx: self
                        .ports
                        .get(flow.spec.src as usize)
                        .map_or((0, 0), |p| (p.tx_packets, p.tx_bytes)),
                    inflight: uno.map_or(0, |u| u.inflight),
                    cwnd: uno.map_or_else(
                        || flow.cc.as_ref().map_or(0, |cc| u64::from(cc.cwnd())),
                        |u| u.cwnd,
                    ),
                });
                if s.hist.len() > l + 1 {
                    s.hist.pop_front();
                }
            }
            if let Some(last) = s.last {
                let bits = u128::from(sent - last) * u128::from(mtu) * 8;
                let rate = (bits * 1_000_000_000_000 / u128::from(sample_ps)) as u64;
                s.det.push(match metric {
                    RateMetric::Packets => rate,
                    RateMetric::Cc | RateMetric::Inflight => flow
                        .cc
                        .as_ref()
                        .map_or(0, |cc| cc_rate(cc, flow.srtt8, metric))
                        .min(w.capacity_bps),
                });
                s.last_rate = rate;
                if let Some(lazy) = &mut lazy {
                    let r = nic_bound_rate(w, s, f, &self.flows, &self.ports, lazy);
                    match r {
                        Ok(_) => w.st.model_steady += 1,
                        Err(Some(why)) => w.st.model_refused[why as usize] += 1,
                        Err(None) => {}
                    }
                    s.model = r.ok();
                }
                // Where a skip run's packets go: this flow's new packets since its last
                // sample, by the size of its partition now.
                let size = w
                    .parts
                    .partition_of_flow(f)
                    .and_then(|id| w.parts.flows(id));
                let size = size.map_or(1, |fl| fl.len());
                let b = SIZE_BUCKETS.iter().position(|&(top, _)| size <= top);
                w.st.sampled_packets[b.unwrap_or(SIZE_BUCKETS.len() - 1)] += sent - last;
                // A reroute is an interrupt (5.3): a flow whose load balancer moved its
                // path within the window is not steady, whatever its rate did.
                s.sample_path(flow.lb.moving_path());
                // A congestion signal: the window's growth met the queue it made.
                if w.slow_ramp && s.signalled(1) {
                    s.uno_grown = 0;
                }
                // A UnoCC window on its slow additive increase: steady only when MDs hold
                // it, or when it grows with no queue growing behind it ([`uno_class`]).
                let est = s.estimate(w);
                if loss_pending && est.is_some() {
                    w.st.loss_held += 1;
                }
                let est = est
                    .filter(|_| !loss_pending)
                    .filter(|_| s.path_held(l))
                    .filter(|_| uno.is_none_or(|u| uno_class(u, s, l) != UnoClass::Climbing))
                    .filter(|_| {
                        !w.window_climb
                            || !flow.cc.as_ref().is_some_and(|cc| {
                                let cc_bps = cc_rate(cc, flow.srtt8, RateMetric::Cc);
                                let host = w.host_out[flow.spec.src as usize];
                                s.window_climbing(l, cc_bps, host, w)
                            })
                    });
                let steady = est.is_some();
                if steady {
                    s.hint = est;
                }
                if steady && !s.steady {
                    w.st.steady_entries += 1;
                }
                s.steady = steady;
            }
            s.last = Some(sent);
            if s.steady {
                ready.extend(w.parts.partition_of_flow(f));
            }
        }
        if let Some(lazy) = lazy {
            w.nic_loads = lazy.nl;
        }
        w.active = active;
        ready.sort_unstable();
        ready.dedup();
        // After the samples: an interrupted-transient lookup sees each flow's latest.
        self.traj_record();
        self.lockstep_check();
        let w = self.wh.as_ref().expect("wormhole on");
        ready.retain(|&id| {
            !w.frozen.contains_key(&id)
                && w.parts
                    .flows(id)
                    .is_some_and(|fl| fl.iter().all(|f| w.active.get(f).is_some_and(|s| s.steady)))
        });
        for id in ready {
            self.try_skip(id);
        }
        self.q
            .push(self.now + sample_ps, Comp::new(Kind::Wormhole, TICK));
    }

    /// The flows of partition `id` as [`SteadyFlow`]s at their steady rates `rate(f)`, if
    /// every one has a sender its transport can fast-forward (its skippable bytes: the
    /// packets [`crate::transport::TransportDriver::skip_view`] says a skip may take) and
    /// a detector window (`samples x sample_us`) at least its own base RTT: a shorter
    /// window can see a sender at its initial window's pace before any feedback came back
    /// (an inter-DC flow, RTT 2 ms, sampled over 400 us: skipped at its first RTT's rate,
    /// measured 59 % FCT error), while Eq. 13 asks for `T_C` RTTs.
    pub(super) fn steady_flows(
        &self,
        id: PartitionId,
        rate: impl Fn(u32) -> Option<u64>,
    ) -> Option<Vec<SteadyFlow>> {
        let w = self.wh.as_ref()?;
        let mut v = Vec::new();
        for &f in w.parts.flows(id)? {
            if self
                .transport
                .feedback_ps(self.flows[f as usize].base.rtt_ps)
                > w.window_ps()
            {
                return None;
            }
            let view = self.transport.skip_view(&self.flows, f)?;
            v.push(SteadyFlow {
                flow: f,
                remaining_bytes: view.skippable * w.mtu,
                rate_bps: rate(f)?,
                reserve_bytes: w.reserve_bytes,
            });
        }
        Some(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Drops count up, what the sender settles counts them down (never below 0, so a
    /// timeout declaring packets that were only late does not hide a later drop); a drop
    /// holds the flow while no loss was settled over the window (`l` samples).
    #[test]
    fn a_drop_stays_pending_until_its_sender_settles_it() {
        let l = 3;
        let mut s = Sampler::new(SteadyDetector::new(0.1, 10).unwrap());
        assert!(!s.loss_pending(0, l));
        // Settled without a drop (a late packet declared lost): nothing to hide.
        assert!(!s.loss_pending(2, l));
        s.undeclared += 3;
        // A loss was settled 1, then 2 samples ago: losses recovered within the window.
        assert!(!s.loss_pending(2, l));
        assert!(!s.loss_pending(2, l));
        assert!(
            s.loss_pending(2, l),
            "three drops, none settled for 3 samples"
        );
        assert!(!s.loss_pending(4, l), "two settled now, one left");
        assert_eq!(s.undeclared, 1);
        assert!(!s.loss_pending(4, l));
        assert!(!s.loss_pending(4, l));
        assert!(
            s.loss_pending(4, l),
            "the last one, unsettled for 3 samples"
        );
        assert!(!s.loss_pending(5, l));
        assert!(!s.loss_pending(5, l));
        assert_eq!(s.undeclared, 0);
    }
}
