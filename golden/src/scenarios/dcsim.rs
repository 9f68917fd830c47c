//! Golden scenarios for the DCSIM blocks (switch arbiter, host engine).
//!
//! * `dcsim_fig14_token_bucket`: the token-bucket example of DCSIM Fig. 14 / proof of
//!   Theorem 1 on two ports: SIMs only (a burst, then one SIM per `(l + L) / C`), and SIMs
//!   with DATAs arriving `RTTmax` later (perfect SIM / DATA alternation at line rate).
//! * `dcsim_fig3_counterexample`: DCSIM Fig. 3 / section 3.1 on the right-side switch of
//!   the figure: with a DATA buffer as small as the SIM buffer (`B` packets), SIM_C passes
//!   while DATA_C is dropped.
//! * `dcsim_host_fig2`: the host engine on the Fig. 2 example (two DATAs, two SIMs, SIM_1
//!   lost, SIM_2 acknowledged, DATA_1 sent on SIM_2's path `RTTmax` after SIM_2, SIM_1
//!   timing out and a new SIM replacing it).

use crate::recorder::Recorder;
use crate::registry::GoldenScenario;
use crate::schema::Trace;
use nic::dcsim::{DcsimHost, DcsimHostConfig, DcsimVariant, FlowSlot};
use rtl_models::{Cycles, Lfsr32};
use serde_json::{json, Value};
use switch::dcsim::{Class, DcsimArbiter, DcsimArbiterConfig, Departure, Enqueue};

/// DCSIM golden scenarios.
pub fn scenarios() -> Vec<GoldenScenario> {
    vec![
        GoldenScenario {
            name: "dcsim_fig14_token_bucket",
            description: "DCSIM Fig. 14 / Theorem 1: SIM token bucket (h = 1, depth 3) with \
                          SIMs only, and with DATAs arriving RTTmax later (alternation)",
            run: fig14_token_bucket,
        },
        GoldenScenario {
            name: "dcsim_fig3_counterexample",
            description: "DCSIM Fig. 3 / 3.1: DATA buffer = SIM buffer = B = 2; SIM_A in, \
                          SIM_B dropped, SIM_C in; DATA_A and DATA_C arrive together, DATA_C \
                          dropped although SIM_C passed",
            run: fig3_counterexample,
        },
        GoldenScenario {
            name: "dcsim_host_fig2",
            description: "DCSIM Fig. 2 on the host engine: 2 DATAs, SIM_1 lost, SIM_2 acked, \
                          DATA_1 released at t_SIM2 + RTTmax with SIM_2's EV, SIM_1 times out",
            run: host_fig2,
        },
    ]
}

type Port = DcsimArbiter<u32, 12, 64>;

fn arbiter_json(c: &DcsimArbiterConfig) -> Value {
    json!({
        "bytes_per_cycle": c.bytes_per_cycle,
        "period_ps": c.clock.period_ps,
        "small_bytes": c.small_bytes,
        "data_bytes": c.data_bytes,
        "h_milli": c.h_milli,
        "bucket_depth": c.bucket_depth,
        "small_queue_pkts": c.small_queue_pkts,
        "port_buffer_bytes": c.port_buffer_bytes,
        "data_buffer_bytes": c.data_buffer_bytes(),
        "sim_token_rate_q32": c.sim_token_rate().0,
    })
}

/// Parameters of `fig14_token_bucket`.
pub mod fig14_params {
    /// Datapath width and small-packet size: a SIM is one cycle.
    pub const W: u32 = 64;
    /// DATA size: 10 cycles (alpha = 10).
    pub const L: u32 = 640;
    /// Bucket depth: 3, so the initial burst is visible.
    pub const DEPTH: u32 = 3;
    /// Cycle at which the first DATA arrives on the second port (RTTmax after SIM 0).
    pub const RTT_MAX: u64 = 40;
    /// Cycles simulated.
    pub const CYCLES: u64 = 120;
}

/// Two ports with the same bucket (rate 1/11 token per cycle = C / (alpha + 1) with
/// alpha = 10, depth 3, starting full) and a SIM queue kept full from cycle 0.
/// `no_data.*`: only SIMs, a burst of 3 then one SIM every 11 cycles. `with_data.*`: DATAs
/// arrive from cycle `RTT_MAX` on and stay saturated; after the first DATA the output is
/// S D S D ... back to back. Signals per port: `tx` (class and id of the packet starting),
/// `tokens_q` (Q32.32 fill at the start of the cycle), `sim_q`, `data_q` (occupancy, on
/// change).
fn fig14_token_bucket() -> Trace {
    use fig14_params::*;
    let cfg = DcsimArbiterConfig {
        bytes_per_cycle: W,
        small_bytes: W,
        data_bytes: L,
        h_milli: 1000,
        bucket_depth: DEPTH,
        ..DcsimArbiterConfig::default()
    };
    let mut rec = Recorder::new(
        "DcsimArbiter",
        json!({"port": arbiter_json(&cfg), "rtt_max_cycles": RTT_MAX, "cycles": CYCLES}),
        0,
        "DCSIM Fig. 14 / Theorem 1: SIM token bucket (h = 1, depth 3) with SIMs only, and \
         with DATAs arriving RTTmax later (alternation)",
    );
    for (scope, with_data) in [("no_data", false), ("with_data", true)] {
        let mut p = Port::new(cfg).expect("valid Fig. 14 config");
        let (mut sim_id, mut data_id) = (0u32, 0u32);
        let (mut last_sq, mut last_dq) = (usize::MAX, usize::MAX);
        for t in 0..CYCLES {
            while p.queue_len(Class::Sim) < 12 {
                p.enqueue(Class::Sim, sim_id, W);
                sim_id += 1;
            }
            if with_data && t >= RTT_MAX {
                while p.queue_len(Class::Data) < 4 {
                    p.enqueue(Class::Data, data_id, L);
                    data_id += 1;
                }
            }
            rec.record(t, &format!("{scope}.tokens_q"), p.bucket().tokens_q());
            let (sq, dq) = (p.queue_len(Class::Sim), p.queue_len(Class::Data));
            if sq != last_sq {
                rec.record(t, &format!("{scope}.sim_q"), sq as u64);
                last_sq = sq;
            }
            if dq != last_dq {
                rec.record(t, &format!("{scope}.data_q"), dq as u64);
                last_dq = dq;
            }
            if let Some(d) = p.step() {
                rec.record(t, &format!("{scope}.tx"), tx_name(&d));
            }
        }
    }
    rec.finish()
}

fn tx_name(d: &Departure<u32>) -> String {
    format!("{}{}", d.class.name(), d.desc)
}

/// Parameters of `fig3_counterexample`.
pub mod fig3_params {
    /// Datapath width = small-packet size: a SIM is one cycle.
    pub const W: u32 = 64;
    /// DATA size: 10 cycles.
    pub const L: u32 = 640;
    /// B: the SIM buffer, and (counterexample assumption) the DATA buffer, in packets.
    pub const B: u32 = 2;
    /// SIM-to-DATA delay at this switch for SIM_C (RTTmax), cycles.
    pub const RTT_MAX: u64 = 60;
    /// Background saturation before the figure's slot (a), cycles.
    pub const WARMUP: u64 = 30;
}

/// The right-side switch of Fig. 3, one output port, slot `delta` = one token period
/// (h = 1: 11 cycles). Background SIMs and DATAs saturate the port until slot (a), so the
/// SIM buffer holds B = 2 SIMs and the DATA buffer B = 2 DATAs. (b) one SIM leaves; SIM_A
/// and SIM_B arrive in the next cycle: A enters, B is dropped. (c) the next SIM leaves;
/// SIM_C arrives and enters. (d)-(e) `RTT_MAX` after SIM_C arrived, DATA_A and DATA_C
/// arrive in the same cycle (A's DATA is no longer delayed by the DATAs of SIMs dropped
/// downstream, section 3.1) just after one DATA place freed: DATA_A enters, DATA_C is
/// dropped although SIM_C went through. Background DATAs keep refilling the DATA buffer.
///
/// Signals: `phase` (a..e), `arrive` / `drop` (packet names), `tx` (packet starting),
/// `sim_q`, `data_q` (on change).
fn fig3_counterexample() -> Trace {
    use fig3_params::*;
    let cfg = DcsimArbiterConfig {
        bytes_per_cycle: W,
        small_bytes: W,
        data_bytes: L,
        h_milli: 1000,
        bucket_depth: 2,
        small_queue_pkts: B,
        port_buffer_bytes: 3 * B as u64 * W as u64 + B as u64 * L as u64,
        ..DcsimArbiterConfig::default()
    };
    let mut rec = Recorder::new(
        "DcsimArbiter",
        json!({"port": arbiter_json(&cfg), "rtt_max_cycles": RTT_MAX, "warmup_cycles": WARMUP}),
        0,
        "DCSIM Fig. 3 / 3.1: DATA buffer = SIM buffer = B = 2; SIM_A in, SIM_B dropped, \
         SIM_C in; DATA_A and DATA_C arrive together, DATA_C dropped although SIM_C passed",
    );
    // Descriptor ids: background SIMs 1000+, background DATAs 2000+, A/B/C = 1/2/3.
    let name = |c: Class, id: u32| -> String {
        let who = match id {
            1 => "A".to_string(),
            2 => "B".to_string(),
            3 => "C".to_string(),
            n if n >= 2000 => format!("bg{}", n - 2000),
            n => format!("bg{}", n - 1000),
        };
        format!("{}_{who}", c.name())
    };
    let mut p = Port::new(cfg).expect("valid Fig. 3 config");
    let (mut bg_sim, mut bg_data) = (1000u32, 2000u32);
    let (mut last_sq, mut last_dq) = (usize::MAX, usize::MAX);
    // Script state.
    let mut sims_left_since_a = 0u32;
    let mut data_at: Option<Cycles> = None;
    let mut done_at: Option<Cycles> = None;
    let mut t: Cycles = 0;
    let mut prev_tx_sim = false;
    let mut prev_tx_data = false;
    while !matches!(done_at, Some(d) if t > d) {
        let arrive = |p: &mut Port, rec: &mut Recorder, c: Class, id: u32, bytes: u32| {
            let r = p.enqueue(c, id, bytes);
            let sig = if r == Enqueue::Accepted {
                "arrive"
            } else {
                "drop"
            };
            rec.record(t, sig, name(c, id));
            r
        };
        if t <= WARMUP {
            // Background saturation of the SIM queue until slot (a).
            while p.queue_len(Class::Sim) < B as usize {
                arrive(&mut p, &mut rec, Class::Sim, bg_sim, W);
                bg_sim += 1;
            }
            if t == WARMUP {
                rec.record(t, "phase", "a: SIM buffer full");
            }
        } else if prev_tx_sim {
            // A SIM left in the previous cycle: one SIM place is free.
            sims_left_since_a += 1;
            match sims_left_since_a {
                1 => {
                    rec.record(t, "phase", "b: one place, SIM_A and SIM_B compete");
                    arrive(&mut p, &mut rec, Class::Sim, 1, W);
                    arrive(&mut p, &mut rec, Class::Sim, 2, W);
                }
                2 => {
                    rec.record(t, "phase", "c: one place, SIM_C enters");
                    let r = arrive(&mut p, &mut rec, Class::Sim, 3, W);
                    debug_assert_eq!(r, Enqueue::Accepted);
                    data_at = Some(t + RTT_MAX);
                }
                _ => {}
            }
        }
        // DATA_A and DATA_C arrive together at the first cycle >= RTTmax after SIM_C where
        // exactly one DATA place is free (a DATA left in the previous cycle).
        let mut background_data = true;
        if let Some(at) = data_at {
            if t >= at && prev_tx_data && done_at.is_none() {
                rec.record(t, "phase", "d-e: DATA_A and DATA_C arrive, one place");
                arrive(&mut p, &mut rec, Class::Data, 1, L);
                arrive(&mut p, &mut rec, Class::Data, 3, L);
                done_at = Some(t + 2 * 11);
                background_data = false;
            }
        }
        if background_data {
            while p.queue_len(Class::Data) < B as usize {
                arrive(&mut p, &mut rec, Class::Data, bg_data, L);
                bg_data += 1;
            }
        }
        let (sq, dq) = (p.queue_len(Class::Sim), p.queue_len(Class::Data));
        if sq != last_sq {
            rec.record(t, "sim_q", sq as u64);
            last_sq = sq;
        }
        if dq != last_dq {
            rec.record(t, "data_q", dq as u64);
            last_dq = dq;
        }
        let d = p.step();
        prev_tx_sim = matches!(
            d,
            Some(Departure {
                class: Class::Sim,
                ..
            })
        );
        prev_tx_data = matches!(
            d,
            Some(Departure {
                class: Class::Data,
                ..
            })
        );
        if let Some(d) = d {
            rec.record(t, "tx", name(d.class, d.desc));
        }
        t += 1;
    }
    rec.record(t, "sim_drops", p.stats().dropped[0]);
    rec.record(t, "data_drops", p.stats().dropped[3]);
    rec.finish()
}

/// Parameters of `host_fig2`.
pub mod host_fig2_params {
    /// RTTmax, cycles.
    pub const RTT_MAX: u64 = 100;
    /// A SIM-ACK arrives this many cycles after its SIM left (SIM_1 is lost).
    pub const ACK_DELAY: u64 = 37;
    /// A DATA-ACK arrives this many cycles after the DATA left.
    pub const DATA_ACK_DELAY: u64 = 30;
    /// LFSR seed of the EV draws.
    pub const SEED: u32 = 0xD5;
}

/// The Fig. 2 example on one flow of the host engine, times in cycles. At t = 0 two DATAs
/// arrive (`n_data = 2`); two SIMs are created with distinct random EVs and leave at
/// cycles 0 and 1 (`n_sim = 2`). SIM_1 is lost; SIM-ACK_2 arrives `ACK_DELAY` after SIM_2:
/// the first waiting DATA (seq 0) takes SIM_2's EV and is released at
/// `t_SIM2 + RTTmax = 101`. At `t_SIM1 + RTTmax = 100` SIM_1 times out and a new SIM
/// (SIM_3, new EV) replaces it; its SIM-ACK gives DATA seq 1 SIM_3's EV, released at
/// `100 + RTTmax`. Each released DATA leaves at once; its DATA-ACK comes back
/// `DATA_ACK_DELAY` later.
///
/// Signals: `n_sim`, `n_data`, `in_flight`, `acked` (on change), `sim` (EV of a SIM created
/// and sent), `sim_ack` (EV), `release` (`seq@ev`), `sim_timeouts`.
fn host_fig2() -> Trace {
    use host_fig2_params::*;
    let cfg = DcsimHostConfig {
        rtt_max: RTT_MAX,
        sim_timeout: RTT_MAX,
        data_timeout: 10 * RTT_MAX,
        variant: DcsimVariant::Sync,
        ev_bits: 16,
    };
    let mut rec = Recorder::new(
        "DcsimHost",
        json!({"rtt_max": RTT_MAX, "sim_timeout": RTT_MAX, "data_timeout": 10 * RTT_MAX,
               "variant": "sync", "ev_bits": 16, "ack_delay": ACK_DELAY,
               "data_ack_delay": DATA_ACK_DELAY, "flows": 1, "datas": 2}),
        SEED as u64,
        "DCSIM Fig. 2 on the host engine: 2 DATAs, SIM_1 lost, SIM_2 acked, DATA_1 released \
         at t_SIM2 + RTTmax with SIM_2's EV, SIM_1 times out",
    );
    type Host = DcsimHost<1, 1, 8, 16>;
    #[derive(Clone, Copy)]
    enum Ev2 {
        SimAck(u16),
        DataAck(u32),
    }
    let mut h: Host = DcsimHost::new(cfg).expect("valid host config");
    let mut rng = Lfsr32::new(SEED);
    let f: FlowSlot = h.open_flow(7, 2).expect("a free flow slot");
    let mut last = [u32::MAX; 4];
    let sample = |h: &Host, rec: &mut Recorder, last: &mut [u32; 4]| {
        let fl = h.flow(f).expect("open");
        let now = [fl.n_sim(), fl.n_data(), fl.in_flight(), fl.acked()];
        for (i, name) in ["n_sim", "n_data", "in_flight", "acked"].iter().enumerate() {
            if now[i] != last[i] {
                rec.record(h.now(), name, now[i]);
            }
        }
        *last = now;
    };
    sample(&h, &mut rec, &mut last);
    // Released DATAs leave at once; their DATA-ACK comes back DATA_ACK_DELAY later.
    let drain = |h: &mut Host, rec: &mut Recorder, pending: &mut Vec<(Cycles, Ev2)>| {
        while let Some(r) = h.pop_release() {
            rec.record(h.now(), "release", format!("{}@{}", r.seq, r.ev));
            h.on_data_transmitted(r.flow, r.seq);
            pending.push((h.now() + DATA_ACK_DELAY, Ev2::DataAck(r.seq + 1)));
        }
    };
    let mut pending: Vec<(Cycles, Ev2)> = Vec::new();
    let mut sims_sent = 0u32;
    let mut timeouts = 0;
    loop {
        // SIMs go on the line one per cycle (the SIM queue is never the bottleneck here).
        while let Some((ff, e)) = h.next_sim(&mut rng) {
            rec.record(h.now(), "sim", e as u64);
            h.on_sim_transmitted(ff, e);
            sims_sent += 1;
            if sims_sent != 1 {
                pending.push((h.now() + ACK_DELAY, Ev2::SimAck(e))); // SIM_1 is lost
            }
            sample(&h, &mut rec, &mut last);
            h.advance_to(h.now() + 1);
            drain(&mut h, &mut rec, &mut pending);
        }
        let next_ev = pending.iter().map(|p| p.0).min();
        let t = match (h.next_timer(), next_ev) {
            (Some(a), Some(b)) => a.min(b),
            (a, b) => match a.or(b) {
                Some(t) => t,
                None => break,
            },
        };
        h.advance_to(t);
        let to = h.stats().sim_timeouts;
        if to != timeouts {
            rec.record(h.now(), "sim_timeouts", to);
            timeouts = to;
        }
        let (due, later): (Vec<_>, Vec<_>) = pending.into_iter().partition(|p| p.0 <= t);
        pending = later;
        for (_, e) in due {
            match e {
                Ev2::SimAck(ev) => {
                    h.on_sim_ack(f, ev);
                    rec.record(h.now(), "sim_ack", ev as u64);
                }
                Ev2::DataAck(cum) => {
                    h.on_data_ack(f, nic::dcsim::DataAck { cum, sack: 0 });
                }
            }
        }
        drain(&mut h, &mut rec, &mut pending);
        sample(&h, &mut rec, &mut last);
        if h.flow(f).is_some_and(|fl| fl.is_done()) {
            break;
        }
    }
    rec.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(t: &Trace, signal: &str) -> Vec<(u64, Value)> {
        t.records
            .iter()
            .filter(|r| r.signal == signal)
            .map(|r| (r.cycle, r.value.clone()))
            .collect()
    }

    /// Fig. 3: SIM_A and SIM_C pass, SIM_B is dropped; DATA_A passes, DATA_C is dropped.
    #[test]
    fn fig3_sim_passes_data_dropped() {
        let t = fig3_counterexample();
        let arrived: Vec<Value> = values(&t, "arrive").into_iter().map(|v| v.1).collect();
        let dropped: Vec<Value> = values(&t, "drop").into_iter().map(|v| v.1).collect();
        for a in ["sim_A", "sim_C", "data_A"] {
            assert!(arrived.contains(&json!(a)), "{a} should enter");
        }
        assert_eq!(dropped, vec![json!("sim_B"), json!("data_C")]);
        let sent: Vec<Value> = values(&t, "tx").into_iter().map(|v| v.1).collect();
        assert!(sent.contains(&json!("sim_C")) && !sent.contains(&json!("data_C")));
    }

    /// Fig. 14: 3-SIM burst then one SIM per 11 cycles without DATA; strict alternation
    /// with DATA.
    #[test]
    fn fig14_burst_then_period_then_alternation() {
        let t = fig14_token_bucket();
        let tx = |scope: &str| -> Vec<(u64, String)> {
            values(&t, &format!("{scope}.tx"))
                .into_iter()
                .map(|(c, v)| (c, v.as_str().unwrap().to_string()))
                .collect()
        };
        let nd = tx("no_data");
        assert_eq!(
            nd.iter().take(3).map(|x| x.0).collect::<Vec<_>>(),
            vec![0, 1, 2]
        );
        for p in nd[3..].windows(2) {
            assert_eq!(p[1].0 - p[0].0, 11);
        }
        let wd = tx("with_data");
        let first_data = wd.iter().position(|x| x.1.starts_with("data")).unwrap();
        for p in wd[first_data..].windows(2) {
            assert_ne!(p[0].1.starts_with("sim"), p[1].1.starts_with("sim"));
        }
    }

    #[test]
    fn host_fig2_releases_data_on_sim2_path() {
        let t = host_fig2();
        use host_fig2_params::RTT_MAX;
        let sims = values(&t, "sim");
        let rel = values(&t, "release");
        assert_eq!(sims.len(), 3, "SIM_1, SIM_2 and SIM_3 replacing SIM_1");
        let ev = |i: usize| sims[i].1.as_u64().unwrap();
        assert_eq!(sims[2].0, RTT_MAX);
        assert_eq!(values(&t, "sim_timeouts"), vec![(RTT_MAX, json!(1))]);
        assert_eq!(
            rel,
            vec![
                (1 + RTT_MAX, json!(format!("0@{}", ev(1)))),
                (2 * RTT_MAX, json!(format!("1@{}", ev(2)))),
            ]
        );
        assert_eq!(values(&t, "acked").last().unwrap().1, json!(2));
    }
}
