//! A flow of the Uno transports opens: its congestion control configured from
//! `[transport.uno]` (UnoCC, Uno 4.1 / Algorithm 1 with Table 2's parameters; or a 5.1
//! baseline: Gemini, MPRDMA intra-DC / BBR inter-DC), its sender timeout, and its sender
//! (UnoTx: packets, or erasure-coded blocks of UnoRC 4.2) and receiver (UnoRx).

use super::rx::UnoRx;
use super::send::after_change;
use super::state::uno;
use super::tx::{self, TxParams, UnoTx};
use crate::scenario::CcKind;
use crate::transport::ctx::Cx;
use nic::uno::UnoCcConfig;

/// Flow `f` starts now: its sender and receiver.
pub(crate) fn open(cx: &mut Cx, f: u32) {
    let p = cx.parts();
    let now = p.now;
    let flow = &p.flows[f as usize];
    let now_c = flow.clock.cycle_at(now);
    let bytes = flow.spec.bytes;
    let clock = crate::clock::NIC_CLOCK;
    let st = uno(p.transport);
    let fi = f as usize;
    let fp = st.params[fi];
    let ec = st.ec_for(fi);
    let sec = &st.sec;
    let (x, y) = if ec {
        (sec.ec_data, sec.ec_parity)
    } else {
        (1, 0)
    };
    let base_rtt = clock.cycle_at(fp.base_rtt_ps).max(1);
    let bdp = fp.bdp_bytes.clamp(u64::from(st.mtu), (1 << 31) - 1);
    let block_ps = (sec.block_timeout_us * 1e6).round() as u64;
    let mut cfg = UnoCcConfig::uno(
        st.mtu,
        bdp,
        st.intra_bdp,
        base_rtt,
        st.intra_rtt,
        st.line_rate,
    );
    cfg.alpha_q8 = ((bdp as f64 * sec.alpha * 256.0) as u64).min((1 << 40) - 1);
    cfg.beta_q15 = (sec.beta * 32768.0).round() as u32;
    cfg.gentle_q15 = (sec.gentle * 32768.0).round() as u32;
    cfg.k_bytes = ((st.intra_bdp as f64 * sec.k) as u64).clamp(1, (1 << 32) - 1);
    cfg.delay_thresh = match sec.gentle_delay {
        Some(d) => (base_rtt as f64 * d) as u64,
        None => st.delay_thresh,
    };
    cfg.ewma_shift = sec.ewma_shift as u8;
    cfg.trend_ai = sec.trend_ai;
    cfg.gentle_fixed = sec.gentle_fixed;
    cfg.qa_hold_sent = sec.qa_hold == "sent";
    cfg.md_fine = sec.md_precision == "q30";
    cfg.ewma_gain_q16 = sec.ewma_gain.map_or(0, |g| (g * 65536.0).round() as u32);
    cfg.gentle_epoch_end = sec.gentle_test == "epoch_end";
    if sec.epoch_period == "measured_rtt" {
        // x 1 intra-DC, x BDP_intra / BDP inter-DC (Q2.30, at most 1.0).
        cfg.epoch_rtt_q30 = if fp.inter_dc {
            ((u128::from(st.intra_bdp) << 30) / u128::from(bdp.max(1))).min(1 << 30) as u32
        } else {
            1 << 30
        };
    }
    if st.cc == CcKind::Uno {
        // `transport.uno.max_cwnd`: UnoCC's cap only (the baselines keep two BDPs).
        cfg.max_cwnd_bytes =
            ((bdp as f64 * sec.max_cwnd) as u64).clamp(u64::from(st.mtu), (1 << 32) - 1);
    }
    // `transport.uno.baseline_max_cwnd`: Gemini's and MPRDMA's cap, and BBR's (below).
    let baseline_cap = match sec.baseline_max_cwnd {
        Some(m) if st.cc != CcKind::Uno => {
            let cap = ((bdp as f64 * m) as u64).clamp(u64::from(st.mtu), (1 << 32) - 1);
            cfg.max_cwnd_bytes = cap;
            cap
        }
        _ => u64::MAX,
    };
    // `transport.uno.init_cwnd_intra`: the intra-DC flows' own start (BDPs of their BDP).
    let init = match sec.init_cwnd_intra {
        Some(w) if !fp.inter_dc => (bdp as f64 * w) as u64,
        _ => st.init_cwnd.bytes(bdp),
    }
    .clamp(u64::from(st.mtu), cfg.max_cwnd_bytes);
    let rto_ps = match st.authors_rto_ps {
        Some((intra, inter)) => {
            fp.base_rtt_ps + if fp.inter_dc { inter } else { intra } + if ec { block_ps } else { 0 }
        }
        None => fp.base_rtt_ps + st.rto_ps + block_ps,
    };
    let mut cc = tx::flow_cc(st.cc, fp.inter_dc, cfg, init, now_c)
        .expect("UnoCC configuration from checked fields");
    if let tx::FlowCc::Bbr(b, _) = &mut cc {
        // `transport.uno.bbr_startup_rate_hold`: BBR's Startup pacing never falls.
        if sec.bbr_startup_rate_hold {
            let mut bc = *b.config();
            bc.startup_rate_hold = true;
            **b = nic::uno::bbr::Bbr::new(bc).expect("BBR configuration from checked fields");
        }
    }
    if let tx::FlowCc::Gemini(g) = &mut cc {
        // `transport.uno.gemini_*`: the authors' Gemini rules (spcl/Uno_SC25 `GeminiSrc`).
        let mut gc = *g.config();
        gc.timeout_slow_start = sec.gemini_timeout_slow_start;
        gc.timeout_hold = clock.cycle_at(rto_ps);
        if let Some(d) = sec.gemini_delay_us {
            gc.delay_thresh = clock.cycle_at((d * 1e6).round() as u64);
        }
        if let Some(b) = sec.gemini_beta {
            gc.beta_delay_q15 = (b * 32768.0).round() as u32;
        }
        if let Some(h) = sec.gemini_h {
            gc.alpha_q8 = ((st.inter_bdp as f64 * h * 256.0) as u64).min((1 << 40) - 1);
        }
        if let Some(e) = sec.gemini_ewma_shift {
            gc.ewma_shift = e as u8;
        }
        if gc != *g.config() {
            *g = nic::uno::gemini::GeminiCc::new(gc)
                .expect("Gemini configuration from checked fields");
        }
    }
    let params = TxParams {
        bytes,
        mtu: st.mtu,
        x,
        y,
        ec,
        // The block timer is the estimate of the largest queueing delay: a unit is
        // declared lost only after it too (a 1 MiB queue at 100 Gb/s alone is 84 us).
        rto_ps,
        base_rtt,
        pacing: sec.pacing,
        cwnd_cap: baseline_cap,
        timeout_cut: sec.baseline_timeout_cut,
        window_pacing: sec.baseline_pacing,
        bbr_timeout_reset: sec.bbr_timeout_reset,
        resend_unacked: sec.resend_unacked,
    };
    let sender = UnoTx::new(params, cc).expect("message size checked at build");
    st.rx[fi] = Some(Box::new(UnoRx::new(bytes, st.mtu, ec, x, y, block_ps)));
    st.tx[fi] = Some(Box::new(sender));
    cx.progress();
    after_change(cx, f);
}
