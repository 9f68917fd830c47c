//! The run's end (`../shared/papers/wormhole.md` 5.2, Eq. 11 / 13): the threshold guidance
//! for `skip.theta` / `skip.samples` and its warnings, the summary's `wormhole_*` /
//! `llm_*` counters and `iterations.csv`.

use super::*;

/// Counters of the summary's `wormhole_*` keys.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct WhStats {
    pub(super) ticks: u64,
    pub(super) skips: u64,
    pub(super) skip_backs: u64,
    pub(super) skipped_ps: u64,
    pub(super) skipped_packets: u64,
    pub(super) partitions_max: u64,
    pub(super) steady_entries: u64,
    pub(super) memo_skips: u64,
    pub(super) traj_skips: u64,
    /// `data_ports`: partitions interrupted by a flow start / completion whose ACKs cross
    /// their DATA ports ([`Sim::foreign_ack_interrupt`]).
    pub(super) foreign_ack_interrupts: u64,
    /// `skip.nic_bound_exact`: model skips planned by whole rounds, those of them ended by
    /// a skip-back, partitions steady by the model but not exactly periodic (not skipped),
    /// and those with no whole round before their next interrupt (not skipped).
    pub(super) exact_skips: u64,
    pub(super) exact_skip_backs: u64,
    pub(super) exact_refused: u64,
    pub(super) exact_no_round: u64,
    /// Lockstep followers paused, released into their leader's steady skip, woken before
    /// their skippable bytes ran out.
    pub(super) lock_follows: u64,
    pub(super) lock_steady: u64,
    pub(super) lock_reserve_wakes: u64,
    /// Follower flows completed at their leader flow's completion (`skip.lockstep_complete`)
    /// and their stale packets dropped before reaching their host.
    pub(super) lock_completions: u64,
    pub(super) lock_stale_drops: u64,
    /// Followers kept paused across a leader flow's completion (`skip.lockstep_stay`), and
    /// groups whose leader candidate was refused for a tainted host
    /// (`skip.lockstep_fixed_leader`).
    pub(super) lock_stays: u64,
    pub(super) lock_refollows: u64,
    pub(super) lock_refused_leads: u64,
    /// Placeholders a paused follower's shared ports serialized for its leader's packets
    /// (`skip.lockstep_shadow`).
    pub(super) lock_shadows: u64,
    /// Pauses that took a UnoCC flow whose window grows into queues ([`UnoClass::Drift`]),
    /// each ended before that growth could draw a mark ([`Sim::uno_window_limit`]).
    pub(super) uno_drift_skips: u64,
    /// Steady partitions not skipped because such a flow could be marked within a sampling
    /// interval (or crosses a phantom-marking port).
    pub(super) uno_drift_held: u64,
    /// Transients not stored in the memo under UnoCC: they saw a congestion signal or
    /// ended in a drift (`memoize.rs`, [`Sim::memo_insert`]).
    pub(super) uno_memo_refused: u64,
    /// Samples at which a flow steady by its rate was held unsteady because a DATA of it
    /// was dropped, its sender had not yet settled that loss, and it settled none over the
    /// detector window ([`Sampler::loss_pending`]).
    pub(super) loss_held: u64,
    /// Memo hits not used for the same reason (a flow of the partition had such a loss),
    /// counted as misses: the partition's transient is simulated and may be stored.
    pub(super) loss_memo_refused: u64,
    /// Partitions whose steady state a failure's start or end ended (`failure.rs`).
    pub(super) failure_interrupts: u64,
    /// Memo lookups put off to the next tick: a flow of the partition was still in its
    /// start-up ([`crate::transport::TransportDriver::in_startup`]).
    pub(super) memo_deferred: u64,
    /// Memo lookups and stores not made because a port of the partition was down or
    /// slowed by a failure (`failure.rs`, [`Sim::partition_degraded`]).
    pub(super) failure_memo_refused: u64,
    /// DCTCP windows grown through a steady skip by its unmarked ACKs (`fast_forward.rs`).
    pub(super) windows_grown: u64,
    /// `skip.nic_bound_samples`: flow samples steady by the model, and those refused by
    /// each [`ModelRefusal`] (`steady.rs`, [`nic_bound_rate`]).
    pub(super) model_steady: u64,
    pub(super) model_refused: [u64; ModelRefusal::ALL.len()],
    /// New DATA packets flows sent between consecutive samples of theirs, by the size of
    /// their partition at the later one ([`SIZE_BUCKETS`]): where a skip run's packets go.
    pub(super) sampled_packets: [u64; SIZE_BUCKETS.len()],
}

/// Counters as `summary.json` `extra` keys.
pub(super) fn insert_counts(
    x: &mut std::collections::BTreeMap<String, f64>,
    counts: &[(&str, u64)],
) {
    for &(k, v) in counts {
        x.insert(k.into(), v as f64);
    }
}

impl Sim {
    /// The guidance of Eq. 11 / 13 (section 5.2) for this run's `C` (the host link rate),
    /// base `RTT` and `N`, and its warnings for `skip.theta` / `skip.samples`; `None` unless
    /// skipping. `N` is the most flows that were active at one time on one host port (sending
    /// from, or sending to, one host): the paper's derivation is DCTCP's fluid model of `N`
    /// long flows sharing one bottleneck, and on the fabrics and workloads here (collectives,
    /// one GPU per host port, full-bisection or oversubscribed trees) the host port is where
    /// concurrent flows meet for sure; a fabric link shared by more flows than any host port
    /// (hashing collisions, oversubscription) is not counted. Known at the run's end (flows
    /// start on their dependencies), so the warnings are printed then; at least 1.
    pub(super) fn wh_guidance(&self) -> Option<(Guidance, Vec<String>)> {
        let w = self.wh.as_ref()?;
        let gin = GuidanceInput {
            flows: w.flows_per_port_max.max(1),
            ..w.guidance?
        };
        let g = Guidance::new(&gin).expect("checked at setup; N >= 1");
        // Eq. 11 / 13 depend on N, so their warnings name it; the packet quantization's
        // does not.
        let mut warn: Vec<String> = g
            .eq_warnings(w.theta, w.samples as u64)
            .into_iter()
            .map(|m| {
                format!(
                    "skip: {m} (N = {}: the most flows at once on one host port)",
                    gin.flows
                )
            })
            .collect();
        warn.extend(
            g.quantization_warning(w.theta, w.samples as u64)
                .map(|m| format!("skip: {m}")),
        );
        Some((g, warn))
    }

    /// Wormhole's setup warnings as printed on stderr (a refusal names `skip.enabled` and
    /// why the transport cannot be fast-forwarded; a detector window shorter than some
    /// flow's RTT names `skip.samples` / `skip.sample_us`); empty without Wormhole. The
    /// Eq. 11 / 13 guidance warnings (5.2) come at the run's end and are not in it.
    pub fn wormhole_warnings(&self) -> &[String] {
        self.wh.as_ref().map_or(&[], |w| w.warnings.as_slice())
    }

    /// The `wormhole_*` and `llm_*` summary keys and `iterations.csv`.
    pub(in crate::engine) fn wh_results(&self, r: &mut RunResult) {
        let Some(w) = self.wh.as_ref() else { return };
        let x = &mut r.summary.extra;
        let mut warnings = w.warnings.len();
        // Where UnoCC's window growth bounded or stopped a skip (`uno_drift.rs`).
        if w.slow_ramp {
            insert_counts(
                x,
                &[
                    ("wormhole_uno_drift_skips", w.st.uno_drift_skips),
                    ("wormhole_uno_drift_held", w.st.uno_drift_held),
                    ("wormhole_uno_memo_refused", w.st.uno_memo_refused),
                ],
            );
        }
        // Flows held by a loss their senders had not settled yet (`steady.rs`), a failure's
        // interrupts (`failure.rs`) and memo lookups put off by a DCSIM start-up
        // (`memoize.rs`); absent from runs that never met one.
        for (k, v) in [
            ("wormhole_loss_held", w.st.loss_held),
            ("wormhole_loss_memo_refused", w.st.loss_memo_refused),
            ("wormhole_failure_interrupts", w.st.failure_interrupts),
            ("wormhole_memo_deferred", w.st.memo_deferred),
            ("wormhole_failure_memo_refused", w.st.failure_memo_refused),
            ("wormhole_windows_grown", w.st.windows_grown),
        ] {
            if v > 0 {
                x.insert(k.into(), v as f64);
            }
        }
        if let Some((g, warn)) = self.wh_guidance() {
            for m in &warn {
                eprintln!("warning: {m}");
            }
            warnings += warn.len();
            for (k, v) in [
                ("wormhole_guidance_n", w.flows_per_port_max.max(1) as f64),
                ("wormhole_guidance_bdp_packets", g.bdp_packets),
                ("wormhole_guidance_theta_min", g.theta_min),
                ("wormhole_guidance_tc_rtts", g.period_rtts),
                ("wormhole_guidance_samples_min", g.samples_min as f64),
            ] {
                x.insert(k.into(), v);
            }
        }
        if !w.all_ports {
            insert_counts(
                x,
                &[(
                    "wormhole_foreign_ack_interrupts",
                    w.st.foreign_ack_interrupts,
                )],
            );
        }
        for (&n, (_, name)) in w.st.sampled_packets.iter().zip(SIZE_BUCKETS) {
            if n > 0 {
                x.insert(format!("wormhole_sampled_packets_{name}"), n as f64);
            }
        }
        if w.nic_bound > 0 {
            x.insert("wormhole_model_steady".into(), w.st.model_steady as f64);
            for (&n, (_, name)) in w.st.model_refused.iter().zip(ModelRefusal::ALL) {
                x.insert(format!("wormhole_model_refused_{name}"), n as f64);
            }
        }
        if w.nic_exact {
            insert_counts(
                x,
                &[
                    ("wormhole_exact_skips", w.st.exact_skips),
                    ("wormhole_exact_skip_backs", w.st.exact_skip_backs),
                    ("wormhole_exact_refused", w.st.exact_refused),
                    ("wormhole_exact_no_round", w.st.exact_no_round),
                ],
            );
        }
        if let Some(db) = &w.traj {
            let ts = db.stats();
            insert_counts(
                x,
                &[
                    ("wormhole_memo_traj_hits", ts.hits),
                    ("wormhole_memo_traj_misses", ts.misses),
                    ("wormhole_memo_traj_size", ts.entries),
                    ("wormhole_memo_traj_skips", w.st.traj_skips),
                ],
            );
        }
        if w.lockstep {
            insert_counts(
                x,
                &[
                    ("wormhole_lockstep_follows", w.st.lock_follows),
                    ("wormhole_lockstep_steady", w.st.lock_steady),
                    ("wormhole_lockstep_reserve_wakes", w.st.lock_reserve_wakes),
                ],
            );
        }
        if w.lockstep_complete {
            insert_counts(
                x,
                &[
                    ("wormhole_lockstep_completions", w.st.lock_completions),
                    ("wormhole_lockstep_stale_drops", w.st.lock_stale_drops),
                ],
            );
        }
        if w.lockstep_stay {
            insert_counts(
                x,
                &[
                    ("wormhole_lockstep_stays", w.st.lock_stays),
                    ("wormhole_lockstep_refollows", w.st.lock_refollows),
                ],
            );
        }
        if w.fixed_leader {
            insert_counts(
                x,
                &[("wormhole_lockstep_refused_leads", w.st.lock_refused_leads)],
            );
        }
        if w.shadow_on {
            insert_counts(x, &[("wormhole_lockstep_shadows", w.st.lock_shadows)]);
        }
        let st = w.st;
        let ms = w.memo.stats();
        let events_per_pkt = if self.c.data_sent > 0 {
            self.c.simulated_events() as f64 / self.c.data_sent as f64
        } else {
            0.0
        };
        let started = w.started.max(1) as f64;
        for (k, v) in [
            ("wormhole_skip", w.skip as u8 as f64),
            ("wormhole_skip_refused", w.refused as u8 as f64),
            ("wormhole_ticks", st.ticks as f64),
            ("wormhole_skips", st.skips as f64),
            ("wormhole_skip_backs", st.skip_backs as f64),
            ("wormhole_skipped_ps", st.skipped_ps as f64),
            ("wormhole_skipped_packets", st.skipped_packets as f64),
            (
                "wormhole_skipped_events",
                (st.skipped_packets as f64 * events_per_pkt).round(),
            ),
            ("wormhole_partitions", w.parts.stats().created as f64),
            ("wormhole_partitions_max", st.partitions_max as f64),
            (
                "wormhole_steady_entries_per_flow",
                st.steady_entries as f64 / started,
            ),
            ("wormhole_memo_hits", ms.hits as f64),
            ("wormhole_memo_misses", ms.misses as f64),
            ("wormhole_memo_size", ms.entries as f64),
            ("wormhole_memo_skips", st.memo_skips as f64),
            ("wormhole_warnings", warnings as f64),
        ] {
            x.insert(k.into(), v);
        }
        let Some(d) = w.dag.as_ref() else { return };
        let times: Vec<(u64, u64)> = d
            .times
            .iter()
            .map(|&(a, b)| {
                if a == NEVER || b == NEVER {
                    (0, 0)
                } else {
                    (a, b)
                }
            })
            .collect();
        let complete = d.done == d.dag.tasks.len();
        x.insert("llm_tasks".into(), d.dag.tasks.len() as f64);
        x.insert("llm_tasks_done".into(), d.done as f64);
        let Ok(it) = d.dag.iteration_times(&times) else {
            return;
        };
        x.insert(
            "llm_iteration_ps".into(),
            if complete {
                it.iteration_ps as f64
            } else {
                0.0
            },
        );
        let mut rows = Vec::new();
        for p in &it.phases {
            let name = format!("{:?}", p.phase).to_lowercase();
            x.insert(
                format!("llm_{name}_span_ps"),
                p.last_finish_ps.saturating_sub(p.first_start_ps) as f64,
            );
            x.insert(format!("llm_{name}_mean_ps"), p.mean_fct_ps as f64);
            rows.push(vec![
                "0".into(),
                name,
                p.tasks.to_string(),
                p.first_start_ps.to_string(),
                p.last_finish_ps.to_string(),
                p.mean_fct_ps.to_string(),
                p.max_fct_ps.to_string(),
            ]);
        }
        rows.push(vec![
            "0".into(),
            "iteration".into(),
            d.dag.tasks.len().to_string(),
            "0".into(),
            if complete { it.iteration_ps } else { 0 }.to_string(),
            String::new(),
            String::new(),
        ]);
        r.tables.insert(
            "iterations".into(),
            crate::results::Table {
                header: [
                    "iteration",
                    "phase",
                    "tasks",
                    "first_start_ps",
                    "last_finish_ps",
                    "mean_task_ps",
                    "max_task_ps",
                ]
                .map(String::from)
                .to_vec(),
                rows,
            },
        );
    }
}

impl Sim {
    /// Payload bytes each flow of a skipped partition has sent since the partition was
    /// paused, at the pace of its skip (the plan's advance over `[from, until]`, Wormhole
    /// 5.3 / 6.3), whole packets, at most what a fast-forward may take now; credited for
    /// good only when the partition resumes ([`Sim::fast_forward_flow`]). Read by the
    /// output-only samplers (`rates.csv`, the progress report), so a skipped flow's rate
    /// series reads as the full run's instead of 0 followed by the whole skip in one
    /// interval. A lockstep follower's and an interrupted transient's advances are not
    /// known before they resume: none. Empty unless some partition is skipped.
    pub(crate) fn wh_in_skip_bytes(&self) -> BTreeMap<u32, u64> {
        let mut out = BTreeMap::new();
        let Some(w) = self.wh.as_ref() else {
            return out;
        };
        for fr in w.frozen.values() {
            if fr.follow.is_some() || fr.traj.is_some() {
                continue;
            }
            let (from, until) = (fr.plan.from_ps, fr.plan.until_ps);
            let (done, all) = (
                self.now.saturating_sub(from).min(until - from),
                until - from,
            );
            for &(f, adv) in &fr.plan.advance {
                let bytes = (u128::from(adv) * u128::from(done) / u128::from(all.max(1))) as u64;
                // Data packets (Uno: whole blocks' data, parity aside), as the resume takes.
                let data = self
                    .transport
                    .fast_forward_data(&self.flows, f, bytes / w.mtu);
                out.insert(f, u64::from(data) * w.mtu);
            }
        }
        out
    }
}
