//! Cycles per second of the Rust models alone, on the same LFSR stimulus as the Verilator
//! testbenches (`cosim/verilator/tb_*.sv`), both with direct Rust calls and through the C
//! ABI (the per-call cost a DPI-C caller pays, without the simulator).
//!
//! `cargo run --release -p dcfab-cosim --bin model_speed -- [cycles]` (run by
//! `cosim/verilator/run.sh`).

use std::hint::black_box;
use std::time::Instant;

use dcfab_cosim::*;
use nic::reps::{Reps, RepsConfig};
use rtl_models::{Clocked, Lfsr32, RandomSource, Rate, TokenBucket};
use switch::dcsim::{Class, DcsimArbiterConfig, DefaultDcsimArbiter};

/// The three bucket configurations of `tb_token_bucket.sv`: (rate_q32, depth, start_full).
const TB_CFG: [(u64, u32, bool); 3] = [
    (0x0000_0000_4CCC_CCCC, 3, true),
    (0x0000_0002_8000_0000, 7, false),
    (u64::MAX, u32::MAX, true),
];

/// One cycle's stimulus of one bucket from one LFSR draw (as in the testbench).
fn stim(r: u32) -> (bool, u32) {
    let n = if (r >> 4) & 0xF == 0 {
        r >> 8
    } else {
        (r >> 2) & 3
    };
    (r & 1 == 1, n)
}

fn token_bucket_direct(cycles: u64) -> f64 {
    let mut b: Vec<TokenBucket> = TB_CFG
        .iter()
        .map(|&(r, d, f)| {
            if f {
                TokenBucket::new(Rate(r), d).unwrap()
            } else {
                TokenBucket::new_empty(Rate(r), d).unwrap()
            }
        })
        .collect();
    let mut lfsr = Lfsr32::new(0xACE1);
    let mut stims = [(false, 0u32); 3];
    let t0 = Instant::now();
    for _ in 0..cycles {
        for (i, b) in b.iter_mut().enumerate() {
            black_box(b.tokens_q());
            let (v, n) = stims[i];
            if v {
                black_box(b.try_take(n));
            }
            b.tick();
        }
        for s in stims.iter_mut() {
            *s = stim(lfsr.next_u32());
        }
    }
    cycles as f64 / t0.elapsed().as_secs_f64()
}

fn token_bucket_ffi(cycles: u64) -> f64 {
    let h: Vec<*mut DcfabTokenBucket> = TB_CFG
        .iter()
        .map(|&(r, d, f)| dcfab_tb_new_flat(r, d, f as u8))
        .collect();
    assert!(h.iter().all(|p| !p.is_null()));
    let mut lfsr = Lfsr32::new(0xACE1);
    let mut stims = [(false, 0u32); 3];
    let (mut q, mut g) = (0u64, 0u8);
    let t0 = Instant::now();
    for _ in 0..cycles {
        for (i, &h) in h.iter().enumerate() {
            let mut st = unsafe { dcfab_tb_tokens_q32(h, &mut q) };
            let (v, n) = stims[i];
            if v {
                st |= unsafe { dcfab_tb_try_take(h, n, &mut g) };
            }
            st |= dcfab_tb_tick(h);
            assert_eq!(st, DCFAB_OK);
            black_box((q, g));
        }
        for s in stims.iter_mut() {
            *s = stim(lfsr.next_u32());
        }
    }
    let rate = cycles as f64 / t0.elapsed().as_secs_f64();
    for h in h {
        assert_eq!(dcfab_tb_free(h), DCFAB_OK);
    }
    rate
}

/// The two ports of `tb_dcsim.sv`: (L, h_milli, B, port buffer, period).
const DCSIM_CFG: [(u32, u32, u32, u64, u64); 2] = [
    (9000, 2100, 12, 500_000, 640),
    (1500, 1000, 4, 3 * 4 * 64 + 13 * 1500, 1000),
];

/// One cycle's arrivals of one port (as `tb_dcsim.sv`): (valid, bytes) per class.
fn dcsim_stim(lfsr: &mut Lfsr32, cycle: u64, l: u32) -> [(bool, u32); 4] {
    let (r1, r2) = (lfsr.next_u32(), lfsr.next_u32());
    let thr = [1u32, 2, 4, 0][((cycle >> 13) & 3) as usize];
    let small = if (r1 >> 12) & 0xF == 0 { r1 >> 20 } else { 64 };
    let small_bytes = if r2 >> 24 == 0 { r1 } else { small };
    let data = if (r2 >> 6) & 0xF == 0 {
        if (r2 >> 10) & 1 == 1 {
            r1
        } else {
            r1 & 0xFFF
        }
    } else {
        l
    };
    [
        (r1 & 0xF < thr, small_bytes),
        ((r1 >> 4) & 0xF < thr && (r1 >> 17) & 1 == 1, small_bytes),
        ((r1 >> 8) & 0xF < thr && (r1 >> 16) & 1 == 1, small_bytes),
        (r2 & 0x3F < thr, data),
    ]
}

fn dcsim_direct(cycles: u64) -> f64 {
    let mut ports: Vec<DefaultDcsimArbiter> = DCSIM_CFG
        .iter()
        .map(|&(l, h, b, buf, ps)| {
            DefaultDcsimArbiter::new(DcsimArbiterConfig {
                bytes_per_cycle: 64,
                clock: rtl_models::Clock { period_ps: ps },
                small_bytes: 64,
                data_bytes: l,
                h_milli: h,
                bucket_depth: 2,
                small_queue_pkts: b,
                port_buffer_bytes: buf,
            })
            .unwrap()
        })
        .collect();
    let mut lfsr = Lfsr32::new(0xACE1);
    let mut stims = [[(false, 0u32); 4]; 2];
    let mut desc = 0u32;
    let t0 = Instant::now();
    for cycle in 0..cycles {
        for (p, a) in ports.iter_mut().enumerate() {
            black_box(a.regs());
            for (c, &(v, bytes)) in stims[p].iter().enumerate() {
                if v {
                    black_box(a.enqueue(Class::ALL[c], desc + c as u32, bytes));
                }
            }
            a.step();
            black_box(a.last_started());
        }
        for (p, s) in stims.iter_mut().enumerate() {
            *s = dcsim_stim(&mut lfsr, cycle, DCSIM_CFG[p].0);
            desc = desc.wrapping_add(4);
        }
    }
    cycles as f64 / t0.elapsed().as_secs_f64()
}

fn dcsim_ffi(cycles: u64) -> f64 {
    let h: Vec<*mut DcfabDcsimArbiter> = DCSIM_CFG
        .iter()
        .map(|&(l, hm, b, buf, ps)| dcfab_dcsim_new_flat(64, 64, l, hm, 2, b, ps, buf))
        .collect();
    assert!(h.iter().all(|p| !p.is_null()));
    let mut lfsr = Lfsr32::new(0xACE1);
    let mut stims = [[(false, 0u32); 4]; 2];
    let mut desc = 0u32;
    let (mut tq, mut r, mut res, mut v) = (0u64, [0u32; 13], 0u32, 0u8);
    let t0 = Instant::now();
    for cycle in 0..cycles {
        for (p, &h) in h.iter().enumerate() {
            let [a, b, c, d, e, f, g, i, j, k, l, m, n] = &mut r;
            let mut st = unsafe { dcfab_dcsim_regs(h, &mut tq, a, b, c, d, e, f, g, i) };
            for (cl, &(valid, bytes)) in stims[p].iter().enumerate() {
                if valid {
                    st |= unsafe { dcfab_dcsim_enqueue(h, cl as u32, desc, bytes, &mut res) };
                }
            }
            st |= dcfab_dcsim_tick(h);
            st |= unsafe { dcfab_dcsim_last_started(h, &mut v, j, k, l, m) };
            assert_eq!(st, DCFAB_OK);
            black_box((tq, n, res, v));
        }
        for (p, s) in stims.iter_mut().enumerate() {
            *s = dcsim_stim(&mut lfsr, cycle, DCSIM_CFG[p].0);
            desc = desc.wrapping_add(4);
        }
    }
    let rate = cycles as f64 / t0.elapsed().as_secs_f64();
    for h in h {
        assert_eq!(dcfab_dcsim_free(h), DCFAB_OK);
    }
    rate
}

const REPS_CFG: RepsConfig = RepsConfig {
    ev_bits: 16,
    num_pkts_cwnd: 86,
    freezing_timeout_cycles: 500,
    freezing: true,
    reuse: 1,
    timed_exit: false,
};

/// One cycle of `tb_reps.sv` on two connections, with direct Rust calls.
fn reps_direct(cycles: u64) -> f64 {
    let mut c = [Reps::new(REPS_CFG).unwrap(), Reps::new(REPS_CFG).unwrap()];
    let mut lfsr = Lfsr32::new(0xACE1);
    let t0 = Instant::now();
    for now in 0..cycles {
        let (r, r2) = (lfsr.next_u32(), lfsr.next_u32());
        black_box(c[0].word());
        for reps in c.iter_mut() {
            if r & 3 == 0 {
                black_box(reps.observe_ack(now, (r >> 16) as u16, (r >> 2) & 7 == 0));
            }
            if (r >> 8) & 0xFF == 0 {
                black_box(reps.observe_failure(now));
            }
            if (r >> 5) & 3 == 0 {
                struct Given(u32);
                impl RandomSource for Given {
                    fn next_u32(&mut self) -> u32 {
                        self.0
                    }
                }
                black_box(reps.choose_ev(&mut Given(r2)));
            }
        }
        let w = c[0].word();
        black_box((
            c[0].explore_counter(),
            c[0].head(),
            c[0].number_of_valid_evs(),
        ));
        for k in 0..8 {
            black_box((c[0].cached_ev(k), c[0].is_valid(k)));
        }
        assert_eq!(c[1].word(), w);
        if now % 4096 == 0 {
            c[1].set_word(w).unwrap();
        }
    }
    cycles as f64 / t0.elapsed().as_secs_f64()
}

/// The same through the C ABI, with the calls `tb_reps.sv` makes.
fn reps_ffi(cycles: u64) -> f64 {
    let h: Vec<*mut DcfabReps> = (0..2)
        .map(|_| dcfab_reps_new_flat(16, 86, 500, 1, 7, 1))
        .collect();
    assert!(h.iter().all(|p| !p.is_null()));
    let mut lfsr = Lfsr32::new(0xACE1);
    let (mut w, mut w2) = ([0u32; 7], [0u32; 7]);
    let (mut a, mut b, mut c, mut d) = (0u8, 0u32, 0u8, 0u32);
    let (mut e, mut f, mut g, mut i) = (0u32, 0u32, 0u32, 0u32);
    let t0 = Instant::now();
    for now in 0..cycles {
        let (r, r2) = (lfsr.next_u32(), lfsr.next_u32());
        let mut st = unsafe { dcfab_reps_get_word193(h[0], w.as_mut_ptr()) };
        for &h in &h {
            unsafe {
                if r & 3 == 0 {
                    st |= dcfab_reps_on_ack(
                        h,
                        r >> 16,
                        ((r >> 2) & 7 == 0) as u8,
                        &mut a,
                        &mut b,
                        &mut c,
                    );
                }
                if (r >> 8) & 0xFF == 0 {
                    st |= dcfab_reps_on_failure(h, &mut a);
                }
                if (r >> 5) & 3 == 0 {
                    st |= dcfab_reps_on_send_with(h, r2, &mut b, &mut d, &mut e);
                }
            }
            st |= dcfab_reps_tick(h);
        }
        unsafe {
            st |= dcfab_reps_get_word193(h[0], w.as_mut_ptr());
            st |= dcfab_reps_fields(h[0], &mut b, &mut a, &mut d, &mut e, &mut f, &mut c);
            for k in 0..8 {
                st |= dcfab_reps_slot(h[0], k, &mut g, &mut a, &mut i);
            }
            st |= dcfab_reps_get_word193(h[1], w2.as_mut_ptr());
            assert_eq!(w, w2);
            if now % 4096 == 0 {
                st |= dcfab_reps_set_word193(h[1], w.as_ptr());
            }
        }
        assert_eq!(st, DCFAB_OK);
        black_box((a, b, c, d, e, f, g, i));
    }
    let rate = cycles as f64 / t0.elapsed().as_secs_f64();
    for h in h {
        assert_eq!(dcfab_reps_free(h), DCFAB_OK);
    }
    rate
}

fn report(name: &str, direct: f64, ffi: f64) {
    println!(
        "model_speed: {name}: rust_direct_cycles_per_s={direct:.0} c_abi_cycles_per_s={ffi:.0}"
    );
}

fn main() {
    let cycles: u64 = std::env::args()
        .nth(1)
        .map(|s| s.parse().expect("cycles must be an integer"))
        .unwrap_or(1_000_000);
    report(
        "tb_token_bucket (3 buckets)",
        token_bucket_direct(cycles),
        token_bucket_ffi(cycles),
    );
    report(
        "tb_dcsim (2 ports)",
        dcsim_direct(cycles),
        dcsim_ffi(cycles),
    );
    report(
        "tb_reps (2 connections)",
        reps_direct(cycles),
        reps_ffi(cycles),
    );
}
