//! Building a run: the fabric, ports, flows, failures and first events from a scenario
//! (validated by [`crate::validate`]).

use super::*;
use crate::flow::FlowBase;

impl Sim {
    /// Build the run for scenario `s` (already validated).
    pub fn build(s: &Scenario) -> Result<Sim> {
        crate::memory::use_large_pages();
        let fabric = topology::build(s)?;
        let t = &s.topology;
        let hdr = s.transport.header_bytes;
        let mtu = s.transport.mtu;
        let sw_ps = t.switch_latency_ns * 1000;
        let Derived {
            base_rtt_ps,
            bdp_bytes,
            buffer_bytes,
            dc_buffer_bytes,
            rto_cycles,
        } = Derived::new(s, &fabric);
        debug_assert!(buffer_bytes >= u64::from(mtu + hdr), "checked by validate");
        let red = RedConfig::linear(
            (buffer_bytes as f64 * t.ecn_kmin) as u64,
            (buffer_bytes as f64 * t.ecn_kmax) as u64,
        );
        let port_cfg = PortConfig {
            buffer_bytes,
            ecn: Some(red),
            phantom: None,
            trimming: s.transport.trimming,
            header_bytes: hdr,
        };
        let mark_at = match t.ecn_mark {
            crate::scenario::EcnMark::Arrival => switch::output_port::MarkAt::Arrival,
            crate::scenario::EcnMark::Departure => switch::output_port::MarkAt::Departure,
        };
        let phantom_mark_at = match t.phantom_mark_at {
            crate::scenario::EcnMark::Arrival => switch::output_port::MarkAt::Arrival,
            crate::scenario::EcnMark::Departure => switch::output_port::MarkAt::Departure,
        };
        let ctl = OutputPortCtl::new(port_cfg)
            .map_err(|e| cfg_err("topology.buffer", e))?
            .with_mark_at(mark_at);
        // `two_dc`: the ports only inter-DC traffic crosses have their own buffer (and RED
        // thresholds at the same fractions of it).
        let dc_red = RedConfig::linear(
            (dc_buffer_bytes as f64 * t.ecn_kmin) as u64,
            (dc_buffer_bytes as f64 * t.ecn_kmax) as u64,
        );
        // `topology.two_dc.dc_ecn = false`: no physical marker there.
        let dc_port_cfg = PortConfig {
            buffer_bytes: dc_buffer_bytes,
            ecn: t.two_dc.dc_ecn.then_some(dc_red),
            ..port_cfg
        };
        let dc_ctl = OutputPortCtl::new(dc_port_cfg)
            .map_err(|e| cfg_err("topology.two_dc.dc_buffer", e))?
            .with_mark_at(mark_at);

        let init = s
            .transport
            .init_cwnd
            .bytes(bdp_bytes)
            .clamp(mtu as u64, u32::MAX as u64 / 2);
        let cfg = DctcpConfig {
            mtu,
            init_cwnd: init as u32,
            min_cwnd: mtu,
            max_cwnd: u32::MAX / 2,
            rto: rto_cycles,
            g_shift: 4,
            alpha_init: 0,
            slow_start: s.transport.slow_start,
        };
        cfg.check().map_err(|e| {
            let field = match e.field {
                "rto" => "transport.rto_us",
                "init_cwnd" => "transport.init_cwnd",
                _ => "transport.mtu",
            };
            cfg_err(field, e)
        })?;

        // `topology.phantom_size`: one capacity (and RED thresholds on it) for every phantom
        // queue; unset, each phantom queue holds its port's buffer.
        // `phantom_kmin` / `phantom_kmax` (unset: `ecn_kmin` / `ecn_kmax`) place them.
        let phantom_cap = t.phantom_size.map(|z| z.bytes(bdp_bytes));
        let (pk_min, pk_max) = (
            t.phantom_kmin.unwrap_or(t.ecn_kmin),
            t.phantom_kmax.unwrap_or(t.ecn_kmax),
        );
        let phantom_k = t.phantom_kmin.is_some() || t.phantom_kmax.is_some();
        let phantom_red_of =
            |c: u64| RedConfig::linear((c as f64 * pk_min) as u64, (c as f64 * pk_max) as u64);
        let phantom_red = phantom_cap.map_or(red, phantom_red_of);
        let mut rng = ChaCha8Rng::seed_from_u64(s.seed);
        let switches: Vec<(Route, u64)> = fabric
            .switches
            .iter()
            .map(|sw| (sw.route, rng.gen::<u64>()))
            .collect();
        let mut ports = Vec::with_capacity(fabric.ports.len());
        for (i, p) in fabric.ports.iter().enumerate() {
            let (ctl, port_cfg, red, buffer_bytes) = if p.role.inter_dc() {
                (dc_ctl, dc_port_cfg, dc_red, dc_buffer_bytes)
            } else {
                (ctl, port_cfg, red, buffer_bytes)
            };
            let kind = match p.owner {
                Node::Host(h) => PortDriver::Host(h),
                // `topology.phantom_queue`: each port's own phantom queue (at its rate).
                Node::Switch(_) if t.phantom_queue && t.phantom_ports.contains(&p.role) => {
                    let (cap, pred) = match phantom_cap {
                        Some(c) => (c, phantom_red),
                        None if phantom_k => (buffer_bytes, phantom_red_of(buffer_bytes)),
                        None => (buffer_bytes, red),
                    };
                    let phantom = crate::port::phantom_config(
                        p.gbps,
                        t.phantom_drain,
                        cap,
                        pred,
                        t.phantom_mark_on,
                    )
                    .expect("checked by validate");
                    let c = OutputPortCtl::new(PortConfig {
                        phantom: Some(phantom),
                        ..port_cfg
                    })
                    .expect("checked by validate")
                    .with_mark_at(mark_at)
                    .with_phantom_mark_at(phantom_mark_at);
                    PortDriver::Switch(c, NIC_CLOCK)
                }
                Node::Switch(_) => PortDriver::Switch(ctl, NIC_CLOCK),
            };
            let delay_ps = p.prop_ps
                + match p.peer {
                    Node::Switch(_) => sw_ps,
                    Node::Host(_) => 0,
                };
            debug_assert!(i < fabric.hosts as usize || matches!(kind, PortDriver::Switch(..)));
            ports.push(PortRt {
                busy_until: 0,
                txdone_at: NEVER,
                deliver_at: NEVER,
                ser_q32: ser_q32(p.gbps),
                delay_ps,
                peer: p.peer,
                down: 0,
                data_frozen: false,
                virt_bps: 0,
                virt_t0: 0,
                gbps: p.gbps,
                kind,
                ctrl_q: VecDeque::new(),
                data_q: VecDeque::new(),
                link: VecDeque::new(),
                rng: Lfsr32::new(rng.gen()),
                sel_slot: u32::MAX,
                tx_bytes: 0,
                tx_packets: 0,
                drops: 0,
            });
        }

        let (mut specs, llm_dag) =
            workload::generate_with_dag(s, fabric.hosts, bdp_bytes, fabric.host_gbps, &mut rng)?;
        specs.sort_by_key(|f| f.start_ps);
        let max_pkts = specs
            .iter()
            .map(|f| f.bytes.div_ceil(mtu as u64))
            .max()
            .unwrap_or(0);
        if max_pkts >= 1 << 31 {
            return Err(Error::field(
                "workload.message",
                format!("{max_pkts} packets in one message, more than 2^31"),
            ));
        }
        let lb_params = flow::LbParams::new(s, bdp_bytes, NIC_CLOCK.cycle_at(base_rtt_ps));
        let detector = FailureDetector::new(flow::detector_config(
            s,
            NIC_CLOCK.cycle_at(base_rtt_ps),
            rto_cycles,
        ))
        .map_err(|e| cfg_err("transport.rto_us", e))?;
        let intra_base = FlowBase {
            inter: false,
            rtt_ps: base_rtt_ps,
            bdp_bytes,
            rto_cycles,
            init_cwnd: cfg.init_cwnd,
        };
        let background = s.workload.background_ecmp;
        let made = specs.iter().enumerate().map(|(i, f)| {
            if f.src >= fabric.hosts || f.dst >= fabric.hosts {
                return Err(Error::field(
                    "workload.kind",
                    format!(
                        "a flow {} -> {} names a host the topology lacks",
                        f.src, f.dst
                    ),
                ));
            }
            // Each flow's own base RTT and BDP (`FlowBase`): the run's inside a datacenter,
            // its path's across two.
            let (base, flow_lb, detector) = if fabric.is_inter(f.src, f.dst) {
                let p = fabric.path(f.src, f.dst, sw_ps, mtu + hdr, hdr);
                let extra = NIC_CLOCK.cycle_at(p.base_rtt_ps.saturating_sub(base_rtt_ps));
                let rto = (u64::from(rto_cycles) + extra).min(u64::from(u32::MAX >> 1));
                let base = FlowBase {
                    inter: true,
                    rtt_ps: p.base_rtt_ps,
                    bdp_bytes: p.bdp_bytes,
                    rto_cycles: rto as u32,
                    init_cwnd: s
                        .transport
                        .init_cwnd
                        .bytes(p.bdp_bytes)
                        .clamp(mtu as u64, u32::MAX as u64 / 2)
                        as u32,
                };
                let det = FailureDetector::new(flow::detector_config(
                    s,
                    NIC_CLOCK.cycle_at(p.base_rtt_ps),
                    base.rto_cycles,
                ))
                .map_err(|e| cfg_err("topology.two_dc.dc_link_delay_us", e))?;
                let lbp = flow::LbParams::new(s, p.bdp_bytes, NIC_CLOCK.cycle_at(p.base_rtt_ps));
                (base, lbp, det)
            } else {
                (intra_base, lb_params, detector)
            };
            let mut frng = Lfsr32::new(rng.gen());
            // `workload.background_ecmp` (REPS 4.3.2): this flow is background ECMP
            // traffic (a draw of its own, so no other draw moves).
            let kind = if background > 0.0 && flow::background_draw(s.seed, i as u64) < background {
                crate::scenario::LbKind::Ecmp
            } else {
                s.transport.lb
            };
            let lb = Lb::new(kind, &flow_lb, &mut frng).map_err(|e| {
                let field = match e.field {
                    "freezing_timeout_cycles" => "transport.reps.freezing_timeout_us",
                    "ev_bits" => "transport.evs_bits",
                    _ => "transport.lb",
                };
                cfg_err(field, e)
            })?;
            Ok(FlowRt {
                spec: *f,
                cc: None,
                rx: TransportDriver::flow_rx(s.transport.cc),
                lb,
                rng: frng,
                in_ready: false,
                timer_at: NEVER,
                clock: NIC_CLOCK,
                end_ps: 0,
                stats: SenderStats::default(),
                failure_detections: 0,
                detector,
                base,
                conn: flow::NO_CONN,
                conn_lb: flow::NO_CONN,
                srtt8: 0,
                skipped: 0,
            })
        });
        // Sized once: a collect through `Result` has no size hint, and growing by doubling
        // copied the flows (~2 KB each) and faulted in their pages again at every step
        // (at 274 k flows, `wormhole_moe_1024`, most of the build).
        let mut flows = Vec::with_capacity(specs.len());
        for f in made {
            flows.push(f?);
        }
        let conns = connections(s, &mut flows);

        let mut failures = Vec::with_capacity(s.failures.len());
        // A link (its cable, both directions), a switch (every cable of it) or a random set
        // of cables; `drop_prob` entries lose packets through `loss` instead.
        let resolved = failure_sets::resolve(s, &fabric)?;
        for (f, ps) in s.failures.iter().zip(&resolved) {
            if f.drop_prob.is_some() {
                continue;
            }
            let at = (f.at_us * 1e6).round() as Time;
            for &p in ps {
                // `one_direction`: the named port only (the second slot repeats it, and a
                // failure acts on each distinct port once).
                let back = if f.one_direction {
                    p
                } else {
                    fabric.ports[p as usize].reverse
                };
                failures.push(FailureRt {
                    ports: [p, back],
                    gbps: f.gbps,
                    lossy: false,
                    active: false,
                    at,
                    until: f.for_us.map(|d| at + (d * 1e6).round() as Time),
                });
            }
        }

        let hosts = fabric.hosts as usize;
        let sel = SelectionTable::new(&fabric, (s.output.selection_bucket_us * 1e6).round() as u64);
        for (i, port) in ports.iter_mut().enumerate() {
            port.sel_slot = sel.slot(i as u32);
        }
        let mut sim = Sim {
            sel,
            q: EventQueue::new(),
            now: 0,
            ports,
            routing: None,
            switches,
            flows,
            next_arrival: 0,
            failures,
            cfg,
            hdr_bytes: hdr,
            base_rtt_ps,
            bdp_bytes,
            buffer_bytes,
            dc_buffer_bytes,
            loss: loss::LossState::new(s, &fabric, &resolved),
            sample_ps: (s.output.queue_sample_us * 1e6).round() as u64,
            max_time: if s.stop.max_time_us > 0.0 {
                (s.stop.max_time_us * 1e6).round() as Time
            } else {
                NEVER
            },
            stall_ps: STALL_RTOS * NIC_CLOCK.cycles_ps(u64::from(rto_cycles)),
            last_progress: 0,
            flows_done: 0,
            stalled: false,
            interrupted: false,
            c: Counters::default(),
            queues: Vec::new(),
            phantom_samples: Vec::new(),
            wall_s: 0.0,
            transport: TransportDriver::Dctcp(Dctcp::new(hosts)),
            cm: None,
            prefetch: fabric.ports.len() >= PREFETCH_MIN_PORTS,
            hops: [(Comp::new(Kind::Sample, 0), 0); HOPS],
            hop_i: 0,
            fabric,
            rates: None,
            wh: None,
            wh_holding: false,
            wh_shadowing: false,
            tx_hooks: false,
            deliver_hooks: false,
            chain: None,
            trace: None,
            conns,
        };
        // (`llm` flows have no start time: their dependencies start them.)
        if let Some(f) = sim.flows.first().filter(|f| f.spec.start_ps != NEVER) {
            sim.q.push(f.spec.start_ps, Comp::new(Kind::Arrivals, 0));
            sim.last_progress = f.spec.start_ps;
        }
        for (i, f) in sim.failures.iter().enumerate() {
            sim.q.push(f.at, Comp::new(Kind::Failure, 2 * i as u32));
            if let Some(u) = f.until {
                sim.q.push(u, Comp::new(Kind::Failure, 2 * i as u32 + 1));
            }
        }
        if sim.sample_ps > 0 {
            sim.q.push(sim.sample_ps, Comp::new(Kind::Sample, 0));
        }
        if s.transport.lb.switch_adaptive() {
            // Seeded from the scenario seed alone (no draw from the run's generator, so the
            // flows' random sources are those of the same run under ECMP).
            sim.routing = Some(Box::new(topology::SwitchRouting::Adaptive(
                topology::adaptive::AdaptiveSwitches::new(
                    sim.switches.len(),
                    (s.seed ^ (s.seed >> 32)) as u32 ^ 0xada7_1e00,
                ),
            )));
        }
        if s.transport.lb.switch_round_robin() && s.transport.cc != crate::scenario::CcKind::Dcsim {
            // Seeded from the scenario seed alone, like the adaptive switches above.
            sim.routing = Some(Box::new(topology::SwitchRouting::Spray(
                topology::spray_rr::SpraySwitches::new(
                    sim.ports.len(),
                    (s.seed ^ (s.seed >> 32)) as u32 ^ 0x5b7a_4400,
                ),
            )));
        }
        if s.workload.self_clocked {
            sim.chain = chain::Chain::new(&sim.flows, hosts);
        }
        if s.output.trace {
            sim.trace = Some(Box::new(trace::Tracer::new(
                s,
                &sim.fabric,
                sim.flows.len(),
            )?));
            sim.tx_hooks = true;
            sim.deliver_hooks = true;
        }
        let rate_ps = (s.output.rate_sample_us * 1e6).round() as u64;
        if rate_ps > 0 {
            let mut r = sampling::RateSampler::new(rate_ps);
            r.window_intervals = crate::metrics::fairness::window_intervals(s);
            sim.q
                .push(r.first_at(), Comp::new(Kind::Sample, sampling::RATE_SAMPLE));
            sim.rates = Some(Box::new(r));
        }
        sim.metrics_setup(s)?;
        sim.transport_setup(s)?;
        sim.wormhole_setup(s, &resolved, llm_dag)?;
        Ok(sim)
    }
}

/// The connections of a run with `transport.reps.per_connection` or
/// `transport.per_connection_cwnd`: one per (src, dst) pair, numbered in flow order. Sets each
/// flow's [`FlowRt::conn`] (cwnd carried) and, for a REPS flow, [`FlowRt::conn_lb`] (the
/// pair's shared REPS word, a fresh one per pair). Empty without the options.
fn connections(s: &Scenario, flows: &mut [FlowRt]) -> flow::Conns {
    let mut conns = flow::Conns::default();
    let share_lb = s.transport.reps.per_connection;
    let carry_cwnd = s.transport.per_connection_cwnd;
    if !share_lb && !carry_cwnd {
        return conns;
    }
    let mut pairs: std::collections::HashMap<(u32, u32), u32> = Default::default();
    let mut lbs: std::collections::HashMap<(u32, u32), u32> = Default::default();
    for f in flows.iter_mut() {
        let key = (f.spec.src, f.spec.dst);
        if carry_cwnd {
            let n = pairs.len() as u32;
            f.conn = *pairs.entry(key).or_insert(n);
            if f.conn == n {
                conns.cwnd.push(0);
            }
        }
        if share_lb && matches!(f.lb, Lb::Reps(_)) {
            let n = conns.lb.len() as u32;
            f.conn_lb = *lbs.entry(key).or_insert(n);
            if f.conn_lb == n {
                conns.lb.push(f.lb.clone());
            }
        }
    }
    conns
}
