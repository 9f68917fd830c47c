//! `skip.nic_bound_exact` (dcfab's extension of `../shared/papers/wormhole.md` 5.3 / 6.2):
//! the NIC-bound model's skips by whole round-robin rounds.
//!
//! Under `skip.nic_bound_samples`' conditions (windows not binding, no loss or ECN mark,
//! empty queues past the host port, no port past it loaded above its line rate: with this
//! field the other flows' ACKs crossing it count too) a host port serving `k` backlogged
//! DCTCP flows (`transport::dctcp::pull`, one packet per ready flow in ring order) is
//! periodic: one **round** is one DATA packet of each flow plus the control packets (ACKs
//! of the flows into the host) the port sends meanwhile. Shifting the partition by a whole
//! number `r` of rounds and advancing each flow by exactly `r` packets (and its window
//! state by `r` ACKs, [`nic::transport::DctcpSender::fast_forward_acks`], with the packets
//! in flight at each ACK from [`nic::transport::DctcpSender::inflight_at_next_ack`]) leaves
//! it in the state the full run has `r` rounds later: the ring order, the packets on the
//! links and the ACK clock all shifted consistently. The plain model skip (5.3's rate x
//! time, whole packets rounded down per flow) resumes each flow up to a packet behind, and
//! the LLM DAG carries that offset on to later flows (`benches/README.md`, Wormhole
//! sessions 16 and 17b).
//!
//! * **The round is measured, not assumed**: over the model's last `m` sampling intervals,
//!   the host port's departures (packets and bytes, [`HistPoint::port_tx`]) less its
//!   flows' DATA packets are its control packets. Those of the partition's own flows into
//!   the host are counted from their senders' rounds (one ACK per packet); those of other
//!   partitions' flows (`data_ports`) at the measured rate, rounded to whole packets (not
//!   exact: those flows are not periodic with this partition), with those of partitions
//!   skipped meanwhile at their phantom rate (`held.rs`) for the part of the window they
//!   were skipped, all at the line's own rate (the phantom lowers the port's; counting both
//!   made the W2 ring flows of `wormhole_gpt_64` 1.5 % slow).
//! * **Several host ports**: their rounds must end together. Host `h` takes `r_h k_h
//!   t_data + (sum of its senders' r_j) t_ctrl`; equal lengths are a linear system solved
//!   over the rationals ([`joint_period`]): a joint period and each host's rounds in it
//!   (two hosts sending to each other, one flow each: `t_data + t_ctrl`, one round each; a
//!   chain `A -> B -> C`: 65 and 64 rounds at 100 Gb/s, 21.6 us). With other partitions'
//!   ACKs on a port there is no joint period.
//! * **Refused, not approximated**: a partition steady by the model but not exactly
//!   periodic (no joint period: `wormhole_exact_refused`), or with no whole period before
//!   its next interrupt (`wormhole_exact_no_round`), is not skipped by the model (Eq. 6
//!   may still find it steady later). Measured: taking those at the model's rate, as
//!   without the field, costs 0.1-0.7 points of mean FCT error at paper size.
//! * **Interrupts foreseen**: besides the plan's (5.3), the end of a running DAG compute
//!   task that starts a flow from or to one of the partition's hosts; the skip stops at the
//!   last whole period before it, and the partial period runs at packet level.
//! * **Tail**: the state at the wake-up is the full run's, so each flow keeps only
//!   [`EXACT_TAIL_PACKETS`] packets for the packet level (`skip.reserve_bdps` is the margin
//!   of skips at an estimated rate).
//! * A host port left running with its DATA lane held (`data_ports`: it carries other
//!   partitions' ACKs) is not shifted, so its DATA lane restarts `delta` after the end of
//!   the packet it was sending at the pause, as a paused port's shifted line would.
//! * A skip-back at `t2` (an interrupt not foreseen) resumes at the whole period nearest to
//!   `t2 - from` (the partition cannot be resumed before the engine's clock, so the phase
//!   within a period is not exact there).

use super::*;

/// The round arithmetic of one host port of an exact model skip ([`Exact`]).
#[derive(Debug, Clone)]
pub(super) struct Rounds {
    /// The host port (its index is the host's).
    pub(super) port: u32,
    /// DATA packets per round: the host's active flows.
    pub(super) k: u64,
    /// Serialization of one DATA packet and one control packet on the port, ps.
    pub(super) t_data: u64,
    pub(super) t_ctrl: u64,
    /// Control packets the port sent over the measurement window for flows of other
    /// partitions (`data_ports`; 0 under `all_ports`), and its DATA packets then.
    pub(super) ctrl: u64,
    pub(super) data: u64,
    /// The partition's flows into this host: for each, its source host's index in
    /// [`Exact::hosts`] (one ACK on this port per packet that host's round gives it).
    pub(super) inc: Vec<usize>,
    /// Most rounds any flow may skip (its skippable packets).
    pub(super) cap: u64,
    /// A running host port (DATA lane held): the end of the packet on its line at the
    /// pause, from which its DATA lane's rounds count.
    pub(super) live_b0: Option<Time>,
}

impl Rounds {
    /// The time `r` rounds take, ps, without the ACKs of the partition's flows into the
    /// host ([`Self::inc`]; [`joint_span`] adds them).
    pub(super) fn span(&self, r: u64) -> u64 {
        let data = r * self.k;
        let ctrl = (data * self.ctrl + self.data / 2) / self.data.max(1);
        data * self.t_data + ctrl * self.t_ctrl
    }

    /// The most rounds (at most `cap`) that fit in `dt` ps.
    pub(super) fn fit(&self, dt: u64) -> u64 {
        let per = u128::from(self.k)
            * (u128::from(self.t_data) * u128::from(self.data.max(1))
                + u128::from(self.ctrl) * u128::from(self.t_ctrl));
        let mut r = ((u128::from(dt) * u128::from(self.data.max(1))) / per.max(1))
            .min(u128::from(self.cap)) as u64;
        while r > 0 && self.span(r) > dt {
            r -= 1;
        }
        while r < self.cap && self.span(r + 1) <= dt {
            r += 1;
        }
        r
    }

    /// The whole rounds nearest to `dt` ps (at most `cap`): a skip-back's.
    pub(super) fn nearest(&self, dt: u64) -> u64 {
        let r = self.fit(dt);
        if r < self.cap && self.span(r + 1) - dt < dt - self.span(r) {
            r + 1
        } else {
            r
        }
    }
}

/// Packets of each flow always left to the packet level after an exact skip (the sender
/// keeps at least one unsent, [`nic::transport::DctcpSender::fast_forward`]): the resumed
/// state is the full run's, so the tail needs no margin (`skip.reserve_bdps` is for skips
/// at an estimated rate).
pub(super) const EXACT_TAIL_PACKETS: u64 = 2;

/// An exact skip's host ports ([`Frozen::exact`]): the lead (the longest round) first.
#[derive(Debug, Clone)]
pub(super) struct Exact {
    pub(super) hosts: Vec<Rounds>,
    /// The planned rounds per host and the time they take: each host's send period.
    pub(super) rs: Vec<u64>,
    pub(super) span: u64,
}

impl Exact {
    /// The time (ps) between two packets of one flow of host `h`: its host's round.
    pub(super) fn period(&self, h: u32) -> u64 {
        self.hosts
            .iter()
            .position(|r| r.port == h)
            .and_then(|i| self.span.checked_div(self.rs[i]))
            .unwrap_or(0)
    }
}

/// The time host `i` of `hosts` takes for `rs[i]` rounds while the partition's flows into
/// it are advanced by their hosts' rounds `rs` (one ACK each per packet), ps.
pub(super) fn joint_span(hosts: &[Rounds], rs: &[u64], i: usize) -> u64 {
    let h = &hosts[i];
    h.span(rs[i]) + h.inc.iter().map(|&j| rs[j]).sum::<u64>() * h.t_ctrl
}

/// Whole rounds of every host port of `hosts` ending together, the partition's flows
/// into a host counted from their senders' rounds (no control packets of other
/// partitions: `ctrl` 0 everywhere). With `g` the gcd of the serialization times, host `h`
/// takes `r_h k_h t_data + (sum of r_j over its flows' senders j) t_ctrl` for `r_h` rounds;
/// all equal to `D` is the linear system `M r = D / g`, solved over the rationals: `r =
/// (D / g) x` with `M x = 1`, whole when `D / g` is a multiple of the lcm `L` of `x`'s
/// denominators. Returns `(L g, x as (numerator, denominator))`: the joint period and
/// rounds per period; `None` when singular, not positive or too large.
pub(super) fn joint_period(hosts: &[Rounds]) -> Option<(u64, Vec<(u64, u64)>)> {
    let n = hosts.len();
    let g = grid(hosts);
    // Augmented rows of (numerator, denominator) fractions: M | 1.
    let mut m: Vec<Vec<(i128, i128)>> = vec![vec![(0, 1); n + 1]; n];
    for (i, h) in hosts.iter().enumerate() {
        m[i][i].0 += i128::from(h.k * (h.t_data / g));
        for &j in &h.inc {
            m[i][j].0 += i128::from(h.t_ctrl / g);
        }
        m[i][n] = (1, 1);
    }
    fn norm((a, b): (i128, i128)) -> Option<(i128, i128)> {
        if b == 0 {
            return None;
        }
        let d = gcd(a.unsigned_abs() as u64, b.unsigned_abs() as u64).max(1) as i128;
        let s = if b < 0 { -1 } else { 1 };
        Some((s * a / d, s * b / d))
    }
    let sub = |x: (i128, i128), f: (i128, i128), y: (i128, i128)| {
        // x - f y
        let num =
            x.0.checked_mul(f.1.checked_mul(y.1)?)?
                .checked_sub(f.0.checked_mul(y.0)?.checked_mul(x.1)?)?;
        norm((num, x.1.checked_mul(f.1)?.checked_mul(y.1)?))
    };
    for c in 0..n {
        let p = (c..n).find(|&r| m[r][c].0 != 0)?;
        m.swap(c, p);
        for r in 0..n {
            if r != c && m[r][c].0 != 0 {
                let f = norm((
                    m[r][c].0.checked_mul(m[c][c].1)?,
                    m[r][c].1.checked_mul(m[c][c].0)?,
                ))?;
                let pivot = m[c].clone();
                for (x, &y) in m[r].iter_mut().zip(&pivot).skip(c) {
                    *x = sub(*x, f, y)?;
                }
            }
        }
    }
    let mut x = Vec::with_capacity(n);
    let mut l: u64 = 1;
    for (c, row) in m.iter().enumerate() {
        let (num, den) = norm((
            row[n].0.checked_mul(row[c].1)?,
            row[n].1.checked_mul(row[c].0)?,
        ))?;
        if num <= 0 {
            return None;
        }
        let (num, den) = (u64::try_from(num).ok()?, u64::try_from(den).ok()?);
        l = (l / gcd(l, den)).checked_mul(den)?;
        x.push((num, den));
    }
    Some((l.checked_mul(g)?, x))
}

/// Whole rounds of every host port of `hosts` (the lead first) ending at the same instant,
/// at most `dt` ps after the start (`nearest`: the joint period count nearest to `dt`, a
/// skip-back's), each within its `cap`; `None` when there is no joint period
/// ([`joint_period`]: control packets of other partitions on a port, or a singular or
/// overflowing system). One host with no ACKs of the partition's own flows: its most (or
/// nearest) whole rounds in `dt`, other partitions' control packets counted at their
/// measured rate.
pub(super) fn joint_rounds(hosts: &[Rounds], dt: u64, nearest: bool) -> Option<Vec<u64>> {
    let lead = hosts.first()?;
    if hosts.len() == 1 && lead.inc.is_empty() {
        let r = if nearest {
            lead.nearest(dt)
        } else {
            lead.fit(dt)
        };
        return Some(vec![r]);
    }
    if hosts.iter().any(|h| h.ctrl > 0) {
        return None;
    }
    let (period, x) = joint_period(hosts)?;
    // Periods: as many as fit (or nearest), then fewer until every host is within its cap.
    let mut j = if nearest {
        (dt + period / 2) / period
    } else {
        dt / period
    };
    // Rounds of host i per period `L g`: `L x_i`.
    let l = period / grid(hosts);
    let per: Vec<u64> = x.iter().map(|&(num, den)| l / den * num).collect();
    for (h, &p) in hosts.iter().zip(&per) {
        j = j.min(h.cap / p.max(1));
    }
    let rs: Vec<u64> = per.iter().map(|&p| p * j).collect();
    debug_assert!((0..hosts.len()).all(|i| joint_span(hosts, &rs, i) == j * period));
    Some(rs)
}

/// The gcd of the host ports' serialization times (ps): every joint length is a multiple.
fn grid(hosts: &[Rounds]) -> u64 {
    hosts
        .iter()
        .flat_map(|h| [h.t_data, h.t_ctrl])
        .filter(|&t| t > 0)
        .fold(0, gcd)
        .max(1)
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// What [`Sim::exact_plan`] makes of a model skip.
pub(super) enum ExactPlan {
    /// Not a partition of one host port's model-steady flows: the plain plan stands.
    NotApplicable,
    /// No whole round fits before the interrupt (or in a sampling interval): no skip.
    NoSkip,
    /// The plan by whole rounds, and its arithmetic.
    Rounds(SkipPlan, Exact),
}

impl Sim {
    /// `skip.nic_bound_exact`: partition `id`'s model skip `plan` (its `flows` at their
    /// steady rates) by whole rounds of their host port, if every flow of it is NIC-bound
    /// by the model (`skip.nic_bound_samples`) and leaves the same host.
    pub(super) fn exact_plan(
        &self,
        id: PartitionId,
        flows: &[SteadyFlow],
        plan: &SkipPlan,
    ) -> ExactPlan {
        let Some(w) = self.wh.as_ref().filter(|w| w.nic_exact) else {
            return ExactPlan::NotApplicable;
        };
        let m = w.nic_bound;
        // Per source host: its flows' DATA packets and its port's departures over the
        // model's window, and the fewest packets one of its flows may skip.
        let mut per: BTreeMap<u32, (u64, u64, (u64, u64), u64)> = BTreeMap::new();
        for f in flows {
            let Some(s) = w.active.get(&f.flow) else {
                return ExactPlan::NotApplicable;
            };
            let n = s.hist.len();
            if s.model.is_none() || n <= m {
                return ExactPlan::NotApplicable;
            }
            let (a, b) = (&s.hist[n - 1 - m], &s.hist[n - 1]);
            let h = self.flows[f.flow as usize].spec.src;
            let e = per.entry(h).or_insert((0, 0, (0, 0), u64::MAX));
            e.0 += 1;
            e.1 += b.sent - a.sent;
            e.2 = (b.port_tx.0 - a.port_tx.0, b.port_tx.1 - a.port_tx.1);
            let cap = (f.remaining_bytes / w.mtu).saturating_sub(EXACT_TAIL_PACKETS);
            e.3 = e.3.min(cap);
        }
        let live = w.parts.foreign_ack_ports(id);
        let wire = w.mtu + w.hdr;
        // The partition's flows into each host, with their DATA packets over the window.
        let mut inc: BTreeMap<u32, (Vec<u32>, u64)> = BTreeMap::new();
        for f in flows {
            let spec = &self.flows[f.flow as usize].spec;
            let s = w.active.get(&f.flow).expect("checked above");
            let n = s.hist.len();
            let e = inc.entry(spec.dst).or_default();
            e.0.push(spec.src);
            e.1 += s.hist[n - 1].sent - s.hist[n - 1 - m].sent;
        }
        let mut hosts: Vec<Rounds> = Vec::with_capacity(per.len());
        for (&h, &(k, data, (pkts, bytes), cap)) in &per {
            if u64::from(w.host_out[h as usize]) != k || data == 0 {
                return ExactPlan::NotApplicable;
            }
            let port = &self.ports[h as usize];
            // The line's own rate: a skipped partition's ACKs stand in on it as a lower rate
            // (`held.rs`' phantom load), counted below as the ACKs they are.
            let q32 = ser_q32(port.gbps);
            let all_ctrl = pkts.saturating_sub(data);
            let own = inc.get(&h).map_or(0, |x| x.1);
            let t_ctrl = match bytes.saturating_sub(data * wire).checked_div(all_ctrl) {
                Some(b) if b > 0 => ser_ps(u32::try_from(b).unwrap_or(u32::MAX), q32),
                _ => ser_ps(u32::try_from(w.hdr).unwrap_or(u32::MAX), q32),
            };
            // Under `all_ports` every flow into the host is in the partition (its ACK port
            // is this one); under `data_ports` the rest are other partitions': measured,
            // plus those of partitions skipped in the window, at their phantom rate over the
            // part of the window they were skipped (their ACKs before it were measured).
            let ctrl = if w.all_ports {
                0
            } else {
                let start = self.now.saturating_sub(w.sample_ps * m as u64);
                let bits = u128::from(w.hdr) * 8 * 1_000_000_000_000;
                // (`w.phantom` sums the skipped partitions' phantom loads per port: without
                // an entry for `h`, none of them has one there, and the pass is skipped.)
                let phantom: u64 = if w.phantom.contains_key(&h) {
                    w.frozen
                        .values()
                        .flat_map(|fr| {
                            let skipped = self.now - fr.plan.from_ps.clamp(start, self.now);
                            fr.phantom.iter().filter(move |&&(p, _)| p == h).map(
                                move |&(_, bps)| {
                                    (u128::from(bps) * u128::from(skipped) / bits) as u64
                                },
                            )
                        })
                        .sum()
                } else {
                    0
                };
                all_ctrl.saturating_sub(own) + phantom
            };
            hosts.push(Rounds {
                port: h,
                k,
                t_data: ser_ps(u32::try_from(wire).unwrap_or(u32::MAX), q32),
                t_ctrl,
                ctrl,
                data,
                inc: Vec::new(),
                cap,
                live_b0: (live.binary_search(&h).is_ok()).then(|| port.busy_until.max(self.now)),
            });
        }
        // The lead: the host with the longest round (most packets per round).
        let lead = (0..hosts.len())
            .max_by_key(|&i| (hosts[i].span(1), std::cmp::Reverse(hosts[i].port)))
            .unwrap_or(0);
        hosts.swap(0, lead);
        // A flow into a host that sends none of the partition's flows: its ACKs leave a
        // port with no round of its own (an ACK-only port), periodic with its sender's.
        let at = |h: u32, hosts: &[Rounds]| hosts.iter().position(|r| r.port == h);
        for i in 0..hosts.len() {
            if let Some((srcs, _)) = inc.get(&hosts[i].port) {
                let v: Option<Vec<usize>> = srcs.iter().map(|&s| at(s, &hosts)).collect();
                let Some(v) = v else {
                    return ExactPlan::NotApplicable;
                };
                hosts[i].inc = v;
            }
        }
        // The next flow a DAG compute task starts at its (known) end on one of the
        // partition's hosts is an interrupt foreseen (5.3): stop at the last round before it.
        let mut touched: Vec<u32> = flows
            .iter()
            .flat_map(|f| {
                let spec = &self.flows[f.flow as usize].spec;
                [spec.src, spec.dst]
            })
            .collect();
        touched.sort_unstable();
        touched.dedup();
        // A completion is its flow's `cap` rounds away (the plan's was at the run's reserve).
        let until = match plan.cause {
            skip::Interrupt::Completion(_) => self
                .next_known_ps()
                .min(self.now.saturating_add(HORIZON_PS)),
            _ => plan.until_ps,
        }
        .min(self.dag_next_start(&touched));
        let Some(rs) = joint_rounds(&hosts, until.saturating_sub(self.now), false) else {
            return ExactPlan::NotApplicable;
        };
        let span = joint_span(&hosts, &rs, 0);
        if rs.contains(&0) || span < w.sample_ps {
            return ExactPlan::NoSkip;
        }
        let advance = flows
            .iter()
            .map(|f| {
                let h = self.flows[f.flow as usize].spec.src;
                let i = hosts.iter().position(|r| r.port == h).unwrap_or(0);
                (f.flow, rs[i] * w.mtu)
            })
            .collect();
        ExactPlan::Rounds(
            SkipPlan {
                from_ps: self.now,
                until_ps: self.now + span,
                cause: plan.cause,
                advance,
            },
            Exact { hosts, rs, span },
        )
    }

    /// Keep flow `f`'s DATA path and ACK path apart ([`Wormhole::split_paths`]) for the
    /// model's load test: `ports` / `acks` of its partition path under `data_ports`, walked
    /// apart under `all_ports` (where `ports` is both).
    pub(super) fn exact_split(&mut self, f: u32, ports: &[u32], acks: &[u32]) {
        let all = self.wh.as_ref().is_some_and(|w| w.all_ports);
        let paths = if all {
            let flow = &self.flows[f as usize];
            let ev = match &flow.lb {
                Lb::Ecmp(e) => Some(e.ev()),
                _ => None,
            };
            let (src, dst) = (flow.spec.src, flow.spec.dst);
            let (mut data, mut back) = (Default::default(), Default::default());
            self.walk(src, dst, ev, &mut data);
            self.walk(dst, src, ev, &mut back);
            (data.into_iter().collect(), back.into_iter().collect())
        } else {
            (ports.to_vec(), acks.to_vec())
        };
        let w = self.wh.as_mut().expect("wormhole on");
        let i = f as usize;
        if w.split_paths.len() <= i {
            w.split_paths.resize(i + 1, Default::default());
        }
        w.split_paths[i] = paths;
    }

    /// The earliest end of a running DAG compute task that starts a flow from or to one of
    /// `hosts` (sorted) then (its last dependency), or `NEVER`.
    pub(super) fn dag_next_start(&self, hosts: &[u32]) -> Time {
        let Some(d) = self.wh.as_ref().and_then(|w| w.dag.as_ref()) else {
            return NEVER;
        };
        let mut next = NEVER;
        // (The minimum over the running compute tasks: their order does not matter.)
        for &t in &d.running {
            let t = t as usize;
            let TaskKind::Compute { duration_ps, .. } = d.dag.tasks[t].kind else {
                continue;
            };
            // (Started and not finished: in `running`.)
            let at = d.times[t].0.saturating_add(duration_ps);
            if at >= next {
                continue;
            }
            // (The DAG's `src` / `dst` are GPU ranks: the flow's spec has its hosts.)
            let starts_here = d.succ[t].iter().any(|&s| {
                let f = d.task_flow[s as usize];
                d.waiting[s as usize] == 1
                    && f != u32::MAX
                    && self.flows.get(f as usize).is_some_and(|x| {
                        hosts.binary_search(&x.spec.src).is_ok()
                            || hosts.binary_search(&x.spec.dst).is_ok()
                    })
            });
            if starts_here {
                next = at;
            }
        }
        next
    }

    /// The running host ports of an exact skip (`data_ports`, DATA lane held) resume their
    /// DATA lane `delta` after the end of the packet on their line at the pause, as a
    /// paused port's shifted line would (the control lane may serve ACKs until then).
    pub(super) fn exact_release(&mut self, x: &Exact, delta: Time) {
        for r in &x.hosts {
            let Some(b0) = r.live_b0 else { continue };
            let at = b0.saturating_add(delta);
            let port = &mut self.ports[r.port as usize];
            if at <= self.now {
                continue;
            }
            port.busy_until = port.busy_until.max(at);
            if port.txdone_at == NEVER || port.txdone_at < at {
                port.txdone_at = port.busy_until;
                self.q
                    .push(port.busy_until, Comp::new(Kind::TxDone, r.port));
            }
        }
    }
}

/// The packets each of `flows` (of exact skip `x`) advances by when it is resumed `dt` ps
/// after its start, before its target (a skip-back): its host's whole rounds nearest to
/// `dt` (6.3's rollback, by rounds).
pub(super) fn exact_back(x: &Exact, all: &[FlowRt], flows: &[u32], dt: u64) -> Vec<(u32, u64)> {
    let rs = joint_rounds(&x.hosts, dt, true)
        .unwrap_or_else(|| x.hosts.iter().map(|h| h.nearest(dt)).collect());
    flows
        .iter()
        .map(|&f| {
            let h = all[f as usize].spec.src;
            let i = x.hosts.iter().position(|r| r.port == h).unwrap_or(0);
            (f, rs[i])
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A host port at 100 Gb/s: 4160-byte DATA, 64-byte ACKs (65 : 1).
    fn host(port: u32, k: u64, inc: Vec<usize>) -> Rounds {
        Rounds {
            port,
            k,
            t_data: 332_800,
            t_ctrl: 5_120,
            ctrl: 0,
            data: 10,
            inc,
            cap: 1_000_000,
            live_b0: None,
        }
    }

    /// The joint periods worked out by hand: two hosts sending one flow to each other take
    /// `t_data + t_ctrl` per round; a chain `A -> B -> C` 65 rounds of A in 64 of B; and
    /// every host's whole rounds then take the same time.
    #[test]
    fn joint_periods_by_hand() {
        let pair = [host(0, 1, vec![1]), host(1, 1, vec![0])];
        let (period, x) = joint_period(&pair).unwrap();
        assert_eq!(period, 332_800 + 5_120);
        assert_eq!(x, vec![(1, 66), (1, 66)]);
        let chain = [host(0, 1, vec![]), host(1, 1, vec![0])];
        let (period, _) = joint_period(&chain).unwrap();
        assert_eq!(period, 65 * 332_800);
        let rs = joint_rounds(&chain, 3 * period + 7, false).unwrap();
        assert_eq!(rs, vec![3 * 65, 3 * 64]);
        for hosts in [&pair[..], &chain[..]] {
            let rs = joint_rounds(hosts, 50_000_000, false).unwrap();
            let d = joint_span(hosts, &rs, 0);
            assert!(d <= 50_000_000 && rs[0] > 0);
            assert!((0..hosts.len()).all(|i| joint_span(hosts, &rs, i) == d));
        }
        // Two flows from host 0, one of them to host 1, which sends one back: 2 x 65 r_0
        // + r_1 = 65 r_1 + r_0.
        let two = [host(0, 2, vec![1]), host(1, 1, vec![0])];
        let rs = joint_rounds(&two, 100_000_000, false).unwrap();
        let d = joint_span(&two, &rs, 0);
        assert_eq!(d, joint_span(&two, &rs, 1));
        assert!(rs[1] > rs[0], "{rs:?}");
        // Other partitions' control packets on a port: no joint period.
        let mut foreign = pair.clone();
        foreign[1].ctrl = 3;
        assert_eq!(joint_rounds(&foreign, 5_000_000, false), None);
    }

    /// One host: its most whole rounds in the time (its measured control packets rounded
    /// to whole ones), or the nearest for a skip-back.
    #[test]
    fn one_host_rounds() {
        let mut h = host(0, 3, vec![]);
        assert_eq!(
            joint_rounds(&[h.clone()], 10 * 3 * 332_800 - 1, false),
            Some(vec![9])
        );
        assert_eq!(
            joint_rounds(&[h.clone()], 10 * 3 * 332_800 - 1, true),
            Some(vec![10])
        );
        h.ctrl = 10; // one control packet per DATA packet
        assert_eq!(h.span(4), 12 * (332_800 + 5_120));
        assert_eq!(h.fit(12 * (332_800 + 5_120)), 4);
        h.cap = 2;
        assert_eq!(h.fit(u64::MAX / 4), 2);
    }
}
