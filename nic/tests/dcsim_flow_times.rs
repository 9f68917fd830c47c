//! The flow's stored times are 32-bit offsets from a per-flow epoch (`DcsimFlow`'s
//! "Stored times"): a flow driven across many 2^32-cycle boundaries behaves exactly as the
//! same flow driven near cycle 0, and a span that cannot fit is flagged, never silent.

use std::collections::HashMap;

use nic::dcsim::{DataAck, DataState, DcsimFlow, DcsimHostConfig, Release, SimEntry};
use rtl_models::{Cycles, Lfsr32};

const RTT: Cycles = 500_000_000; // timeouts fit the config checks (< 2^31 cycles).

/// Drive one flow from `t0` with a fixed schedule; every event's time relative to `t0`.
fn drive(t0: Cycles) -> (Vec<(u32, u16, Cycles)>, bool) {
    let cfg = DcsimHostConfig::with_rtt(RTT, RTT / 4);
    let mut fl = DcsimFlow::<4, 8>::new(0, 40);
    let mut rng = Lfsr32::new(5);
    let mut log = Vec::new();
    let mut now = t0;
    // The full 64-bit times the flow must report back (SIMs by EV, DATAs by sequence).
    let mut t_sim: HashMap<u16, Cycles> = HashMap::new();
    let mut t_tx: HashMap<u32, Cycles> = HashMap::new();
    for round in 0..40u64 {
        while let Some(ev) = fl.new_sim(&mut rng, 0xff) {
            assert!(fl.on_sim_transmitted(ev, now, &cfg));
            t_sim.insert(ev, now);
            now += 7;
        }
        now += RTT / 3 + round * 11;
        for e in fl.sims() {
            if let Some(ev) = e.ev() {
                // Every other SIM is acknowledged; the rest time out.
                if (ev + round as u16).is_multiple_of(2) {
                    fl.on_sim_ack(ev, now, &cfg);
                }
            }
        }
        now += RTT;
        let mut out = Vec::new();
        fl.fire(now, &cfg, true, &mut |r: Release| {
            out.push(r);
            true
        });
        for r in out {
            log.push((r.seq, r.ev, r.at - t0));
            assert!(fl.on_data_transmitted(r.seq, now, &cfg));
            t_tx.insert(r.seq, now);
        }
        // Every stored time reads back exactly, across the epoch moves.
        for e in fl.sims() {
            if let SimEntry::Sent { ev, t_sim: t } = e {
                assert_eq!(t, t_sim[&ev]);
            }
        }
        for seq in fl.base()..fl.next_new() {
            if let Some(DataState::SideBuffer { timeout_at, .. }) = fl.data_state(seq) {
                assert_eq!(timeout_at, t_tx[&seq] + cfg.data_timeout);
            }
        }
        if round.is_multiple_of(3) {
            fl.on_data_ack(
                DataAck {
                    cum: fl.base() + 1,
                    sack: 0b101,
                },
                &cfg,
            );
        }
        log.push((
            fl.acked(),
            fl.n_sim() as u16,
            fl.next_deadline().map_or(0, |d| d - t0),
        ));
    }
    (log, fl.time_overflow())
}

#[test]
fn times_across_many_epochs_match_times_near_zero() {
    let (near, o1) = drive(0);
    let (far, o2) = drive((1 << 40) - 12_345);
    assert!(!o1 && !o2);
    assert!(
        near.iter().any(|e| e.2 > 1 << 33),
        "the run spans several epochs"
    );
    assert_eq!(near, far);
}

#[test]
fn a_span_beyond_32_bits_is_flagged() {
    let cfg = DcsimHostConfig::with_rtt(RTT, RTT / 4);
    let mut fl = DcsimFlow::<4, 8>::new(0, 10);
    let mut rng = Lfsr32::new(1);
    let ev = fl.new_sim(&mut rng, 0xff).unwrap();
    assert!(fl.on_sim_transmitted(ev, 10, &cfg));
    assert!(!fl.time_overflow());
    // The first SIM's timer never fires (no `fire` call): its time stays stored.
    let ev2 = fl.new_sim(&mut rng, 0xff).unwrap();
    assert!(fl.on_sim_transmitted(ev2, 3 << 32, &cfg));
    assert!(fl.time_overflow());
}

#[test]
fn a_flow_is_about_half_its_former_size() {
    // 33,936 bytes with 64-bit cycles in every entry (session 14).
    let n = core::mem::size_of::<DcsimFlow<256, 512>>();
    assert!(n <= 17_600, "DcsimFlow<256, 512> is {n} bytes");
}
