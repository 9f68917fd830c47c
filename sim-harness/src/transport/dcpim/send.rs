//! Sending in dcPIM: a flow opens (under `unscheduled_bdp` x BDP: sent at once, as DCSIM
//! 4.2 describes dcPIM's small flows; else demand for the matching), the host NIC's pull
//! (unscheduled ring first, then the current matches' flows, SRPT, paced at l / k of the
//! rate and clocked by the token window), and each flow's retransmission timer.

use super::arrive::{answered, resend_ready};
use super::matching::PeerTx;
use super::rounds::arm_host;
use super::state::pim;
use crate::event::{Kind, Time, NEVER};
use crate::packet::Packet;
use crate::transport::ctx::Cx;
use nic::lb::LoadBalancer;

/// Flow `f` starts now.
pub(crate) fn open(cx: &mut Cx, f: u32) {
    let p = cx.parts();
    let h = p.flows[f as usize].spec.src;
    let st = pim(p.transport);
    let fl = &mut st.flows[f as usize];
    fl.open = true;
    if fl.scheduled {
        st.hosts[h as usize].sched.push(f);
        cx.progress();
        arm_host(cx, h, true);
    } else {
        fl.in_ring = true;
        st.k.unscheduled_flows += 1;
        st.hosts[h as usize].unsched.push_back(f);
        cx.progress();
        cx.kick(h);
    }
}

/// The next DATA packet host `h` sends: its unscheduled flows first (round robin), then
/// the scheduled flows (smallest remaining first) of the current match whose channels'
/// rate and token window let a DATA go soonest; none ready: a wake-up at the earliest
/// time one will be.
pub(crate) fn pull(cx: &mut Cx, h: u32) -> Option<Packet> {
    let p = cx.parts();
    let now = p.now;
    let st = pim(p.transport);
    let (k, win, win_to, ser) = (st.chans, st.window_pkts, st.window_timeout_ps, st.ser_ps);
    let hd = &mut st.hosts[h as usize];
    let mut pick = None;
    while let Some(f) = hd.unsched.pop_front() {
        let fl = &mut st.flows[f as usize];
        if !fl.open || fl.unsent() == 0 {
            fl.in_ring = false;
            continue;
        }
        pick = Some(f);
        break;
    }
    let mut wake = NEVER;
    let mut chan_pick: Option<(Time, u32, u32)> = None;
    if pick.is_none() {
        let (mut stalled, mut open) = (0u32, 0u32);
        for c in &hd.cur_tx {
            let Some(f) = hd
                .sched
                .iter()
                .copied()
                .filter(|&f| p.flows[f as usize].spec.dst == c.peer)
                .map(|f| (st.flows[f as usize].unsent(), f))
                .filter(|&(u, _)| u > 0)
                .min()
                .map(|(_, f)| f)
            else {
                continue;
            };
            open += 1;
            let pt = hd.peers.entry(c.peer).or_insert(PeerTx {
                inflight: 0,
                last_ps: 0,
                next_ps: 0,
            });
            if win > 0.0 {
                let limit = ((win * f64::from(c.links) / f64::from(k)).floor() as u32).max(1);
                if pt.inflight >= limit {
                    let due = pt.last_ps.saturating_add(win_to);
                    if now < due {
                        stalled += 1;
                        wake = wake.min(due);
                        continue;
                    }
                    // dcPIM's `relax_token_gap`: the window's tokens are given up.
                    pt.inflight = limit - 1;
                    st.k.window_relaxes += 1;
                }
            }
            let at = if c.links < k {
                pt.next_ps.max(now)
            } else {
                now
            };
            if at > now {
                wake = wake.min(at);
                continue;
            }
            if chan_pick.is_none_or(|(t, _, _)| pt.next_ps < t) {
                chan_pick = Some((pt.next_ps, f, c.links));
            }
        }
        if open > 0 && stalled == open {
            st.k.window_stalls += 1;
        }
        if let Some((_, f, l)) = chan_pick {
            pick = Some(f);
            let dst = p.flows[f as usize].spec.dst;
            let pt = hd.peers.get_mut(&dst).expect("a matched peer's clock");
            pt.inflight += 1;
            pt.last_ps = now;
            pt.next_ps = pt.next_ps.max(now) + ser * u64::from(k) / u64::from(l);
        }
    }
    let Some(f) = pick else {
        if wake != NEVER && (wake < hd.wake_at || hd.wake_at < now) {
            hd.wake_at = wake;
            cx.arm(wake, Kind::HostTimer, h);
        }
        return None;
    };
    let flow = &mut p.flows[f as usize];
    let fl = &mut st.flows[f as usize];
    let was_idle = fl.outstanding() == 0;
    let resend = fl.tx >= u64::from(fl.pkts);
    let psn = fl.take_next().expect("a flow with unsent packets");
    if !fl.scheduled {
        if fl.unsent() > 0 {
            st.hosts[h as usize].unsched.push_back(f);
        } else {
            fl.in_ring = false;
        }
    }
    if was_idle {
        fl.progress_ps = now;
    }
    let (scheduled, bytes) = (fl.scheduled, flow.spec.bytes);
    let payload = st.payload(bytes, psn);
    if scheduled {
        st.k.scheduled_bytes += u64::from(payload);
    } else {
        st.k.unscheduled_bytes += u64::from(payload);
    }
    if resend {
        st.k.retransmits += 1;
    }
    let now_c = flow.clock.cycle_at(now);
    let ev = flow.lb.on_send(now_c, &mut flow.rng);
    let pk = Packet::data(f, h, flow.spec.dst, psn, payload + p.hdr_bytes, ev);
    let at = now + st.rto_ps;
    if flow.timer_at == NEVER {
        flow.timer_at = at;
        cx.arm(at, Kind::FlowTimer, f);
    }
    cx.counters().data_sent += 1;
    Some(pk)
}

/// Flow `f`'s retransmission timer.
pub(crate) fn flow_timer(cx: &mut Cx, f: u32) {
    let p = cx.parts();
    let now = p.now;
    let flow = &mut p.flows[f as usize];
    if !flow.take_timer(now) {
        return;
    }
    let h = flow.spec.src;
    let st = pim(p.transport);
    let rto = st.rto_ps;
    let fl = &mut st.flows[f as usize];
    if !fl.open || fl.outstanding() == 0 {
        return;
    }
    let due = fl.progress_ps.saturating_add(rto);
    if now < due {
        flow.timer_at = due;
        cx.arm(due, Kind::FlowTimer, f);
        return;
    }
    let n = fl.on_timeout();
    if fl.scheduled {
        let dst = flow.spec.dst;
        answered(st, h, dst, n);
    }
    st.k.timeouts += 1;
    p.c.timeouts += 1;
    resend_ready(cx, h, f);
}
