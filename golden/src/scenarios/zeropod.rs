//! Golden scenarios for the Zeropod blocks (`scheduler_asic`, `switch::zeropod`).
//!
//! * `zeropod_fig2_round`: one scheduling round of the k = 8 pod of Fig. 2 (4 ToRs, 4 Aggs,
//!   16 hosts, N = 3 data-cell epochs, 7 Cores): intra-pod E2E traffic with a receiver
//!   conflict, E2P traffic up to a Core (one Core backpressured) and C2E traffic down from a
//!   Core, clocked phase by phase through Request, Grant-1, Grant-2 and Accept.
//! * `zeropod_bufferless_collision`: the bufferless crossbar's collision rule, scripted.
//!
//! Signals of `zeropod_fig2_round` (cycle = scheduler cycle):
//!
//! ```text
//!  rts                string  packed RTS, 40 bytes hex                        (input)
//!  stage              string  "<iteration>.<phase>" when a phase starts
//!  req, g1, g2, acc   int     list sizes after a phase evaluates
//!  grant.<i>          string  "E2E 0->5 agg 1 core 0 cells 2" (output)
//!  schd.<i>           string  the grant's packed SCHD, hex                       (output)
//!  conflicts          string  "none" or the checker's finding
//!  matrix.e2e/e2p/c2e int     cells left after the round
//! ```
//!
//! Signals of `zeropod_bufferless_collision` (cycle = switch phase; 4 phases per cell):
//!
//! ```text
//!  offer.<in>         string  "<tag> -> port <p> <sched|opt>"                  (input)
//!  out.<port>         int     tag of the cell whose head leaves                  (output)
//!  forwarded, optimistic_dropped, scheduled_collisions   int  counters
//! ```

use crate::recorder::Recorder;
use crate::registry::GoldenScenario;
use crate::schema::Trace;
use rtl_models::zeropod_cell::{MiceEntry, Route, RtsArrival, RtsRepr};
use rtl_models::Clocked;
use scheduler_asic::scheduler::{SchedulerConfig, Stage, StageLatency};
use scheduler_asic::{check_grants, K8Scheduler};
use serde_json::json;
use switch::zeropod::{BufferlessConfig, BufferlessSwitch, Cell};

/// Zeropod golden scenarios.
pub fn scenarios() -> Vec<GoldenScenario> {
    vec![
        GoldenScenario {
            name: "zeropod_fig2_round",
            description: "Zeropod Fig. 2 (k = 8, N = 3): one scheduling round, E2E + E2P + C2E",
            run: zeropod_fig2_round,
        },
        GoldenScenario {
            name: "zeropod_bufferless_collision",
            description: "Zeropod bufferless crossbar collision rule",
            run: zeropod_bufferless_collision,
        },
    ]
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn rts(from_core: bool, src: u16, arr: &[(u16, u16)], bp: u32) -> RtsRepr {
    let mut r = RtsRepr {
        from_core,
        src,
        backpressure: bp,
        n_arrivals: arr.len() as u8,
        ..RtsRepr::default()
    };
    for (i, &(dst, cells)) in arr.iter().enumerate() {
        r.arrivals[i] = RtsArrival { dst, cells };
    }
    r
}

fn zeropod_fig2_round() -> Trace {
    let cfg = SchedulerConfig {
        pod: 0,
        pods: 8,
        cores: 7,
        mice_core: Some(6),
        iterations: 2,
        epoch_slots: 3,
        requests_per_sender: 4,
        latency: StageLatency {
            request: 2,
            grant1: 2,
            grant2: 1,
            accept: 1,
        },
        seed: 8,
    };
    let mut rec = Recorder::new(
        "IterativeScheduler",
        json!({"k": 8, "hosts": 16, "pods": 8, "cores": 7, "mice_core": 6, "iterations": 2,
               "epoch_slots": 3, "latency": [2, 2, 1, 1]}),
        cfg.seed as u64,
        "Zeropod Fig. 2 (k = 8, N = 3): one scheduling round, E2E + E2P + C2E",
    );
    let mut s = Box::new(K8Scheduler::new(cfg).expect("valid config"));
    let mut inputs = vec![
        // (1)-(5) intra-pod: hosts 0 and 4 both want host 5 (a receiver conflict); host 0's
        // is a mouse; host 8 -> host 13 is an elephant.
        rts(false, 0, &[(5, 2)], 0),
        rts(false, 4, &[(5, 3)], 0),
        rts(false, 8, &[(13, 9)], 0),
        // (6)-(9) inter-pod up: host 1 -> pod 3 (E2P); Core 0 refuses pod 3.
        rts(false, 1, &[(3 * 16 + 2, 3)], 0),
        rts(true, 0, &[], 1 << 3),
        // (10)-(11) inter-pod down: Core 2 holds 3 cells for host 6 (C2E).
        rts(true, 2, &[(6, 3)], 0),
    ];
    inputs[0].n_mice = 1;
    inputs[0].mice[0] = MiceEntry::new(5, 1).expect("in range");
    for r in &inputs {
        rec.record(0, "rts", hex(&r.to_bytes()));
        s.on_rts(r);
    }
    s.start_round(1).expect("idle");
    let mut cycle = 0u64;
    let mut last = None;
    while s.busy() {
        if let Some((it, st)) = s.stage() {
            if last != Some((it, st)) {
                rec.record(cycle, "stage", format!("{it}.{st:?}"));
                last = Some((it, st));
            }
        }
        s.tick();
        cycle += 1;
        let st = s.stage();
        if st != last {
            let c = s.phase_counts();
            let (name, v) = match last.map(|l| l.1) {
                Some(Stage::Request) => ("req", c[0]),
                Some(Stage::Grant1) => ("g1", c[1]),
                Some(Stage::Grant2) => ("g2", c[2]),
                _ => ("acc", c[3]),
            };
            rec.record(cycle, name, v as u64);
        }
    }
    let grants = s.grants().to_vec();
    for (i, g) in grants.iter().enumerate() {
        rec.record(
            cycle,
            &format!("grant.{i}"),
            format!(
                "{:?} {}->{} agg {} core {} cells {}",
                g.traffic, g.src, g.dst, g.agg, g.core, g.volume
            ),
        );
        rec.record(cycle, &format!("schd.{i}"), hex(&s.schd(g).to_bytes()));
    }
    let c = match check_grants(4, &grants) {
        Ok(()) => "none".to_string(),
        Err(e) => format!("{e:?}"),
    };
    rec.record(cycle, "conflicts", c);
    let m = &s.matrices;
    let e2e: u64 = m.e2e().iter().flatten().map(|&x| x as u64).sum();
    let e2p: u64 = m.e2p().iter().flatten().map(|&x| x as u64).sum();
    let c2e: u64 = m.c2e().iter().flatten().map(|&x| x as u64).sum();
    rec.record(cycle, "matrix.e2e", e2e);
    rec.record(cycle, "matrix.e2p", e2p);
    rec.record(cycle, "matrix.c2e", c2e);
    rec.finish()
}

fn zeropod_bufferless_collision() -> Trace {
    let cfg = BufferlessConfig {
        phases_per_cell: 4,
        latency: 4,
        forward_garbled: false,
    };
    let mut rec = Recorder::new(
        "BufferlessSwitch",
        json!({"ports": 8, "phases_per_cell": 4, "latency": 4, "forward_garbled": false}),
        0,
        "Zeropod bufferless crossbar collision rule",
    );
    let mut sw = BufferlessSwitch::<8, 16>::new(cfg).expect("valid config");
    // (phase, input, output, scheduled, tag)
    let script: &[(u64, u8, u8, bool, u32)] = &[
        (0, 0, 1, true, 1),   // alone: forwarded
        (8, 0, 2, true, 2),   // scheduled ...
        (8, 1, 2, false, 3),  // ... beats optimistic in the same phase
        (16, 2, 3, false, 4), // two optimistic in one phase: both lost
        (16, 3, 3, false, 5),
        (24, 0, 4, false, 6), // optimistic, then another 2 phases later: both lost
        (26, 1, 4, false, 7),
        (32, 0, 5, false, 8), // optimistic, then another exactly a cell later: both pass
        (36, 1, 5, false, 9),
        (40, 2, 6, false, 10), // optimistic, then scheduled 3 phases later: optimistic lost
        (43, 3, 6, true, 11),
        (48, 0, 7, true, 12), // two scheduled: a scheduler bug, counted; first kept
        (48, 1, 7, true, 13),
    ];
    let mut i = 0;
    let mut last = sw.stats();
    for phase in 0..60u64 {
        while i < script.len() && script[i].0 == phase {
            let (_, inp, out, sched, tag) = script[i];
            rec.record(
                phase,
                &format!("offer.{inp}"),
                format!(
                    "{tag} -> port {out} {}",
                    if sched { "sched" } else { "opt" }
                ),
            );
            let route = Route::new(&[out]).expect("port < 64");
            sw.offer(
                inp,
                Cell {
                    route,
                    scheduled: sched,
                    tag,
                    garbled: false,
                },
            );
            i += 1;
        }
        sw.tick();
        for d in sw.departures().iter().flatten() {
            rec.record(sw.now(), &format!("out.{}", d.port), d.cell.tag as u64);
        }
        let st = sw.stats();
        if st != last {
            rec.record(sw.now(), "forwarded", st.forwarded);
            rec.record(sw.now(), "optimistic_dropped", st.optimistic_dropped);
            rec.record(sw.now(), "scheduled_collisions", st.scheduled_collisions);
            last = st;
        }
    }
    rec.finish()
}
