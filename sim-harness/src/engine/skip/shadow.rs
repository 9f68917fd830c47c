//! A paused lockstep follower's footprint on its shared ports (`skip.lockstep_shadow`,
//! beyond `../shared/papers/wormhole.md` 6.2): its leader's packets mirrored as
//! placeholders.
//!
//! * `skip.lockstep_shadow` (with `data_ports`, beyond 6.2, [`Sim::wh_mirror`]) gives a
//!   paused follower its leader's footprint on the ports it shares with other partitions:
//!   every packet a leader flow starts sending on a port of its path is mirrored as a placeholder
//!   ([`SHADOW_FLOW`], same size and lane) into the follower counterpart's port at the same
//!   hop when that port is not paused with it (its ACK-only ports; its DATA ports held with
//!   their control lane live, whose line also stays busy as long as the leader's), then
//!   serialized and discarded. A trace of paper-size GPT-13B / 128 showed these are the
//!   only ports that differ from the full run when the second pipeline boundary starts (per
//!   follower lane, the stage-1 host's NIC port without the first boundary's ACKs and the
//!   ToR port down to it without its DATA). Measured (`benches/README.md` session 11):
//!   exact on a small shared-port test; on the shipped sizes it removes most of
//!   `data_ports` lockstep's error (gpt_64 1.22 % to 0.020 %), at paper size 95.0x at
//!   1.56 % instead of 99.7x at 1.77 %: the rest is `data_ports`' own skipping of the
//!   colliding cross-ToR flows (1.35 % without lockstep), hence off.

use super::*;

/// Flow id of a lockstep follower's placeholder packet (`skip.lockstep_shadow`,
/// [`Sim::wh_mirror`]): serialized by its port and discarded, never on a link.
pub(crate) const SHADOW_FLOW: u32 = u32::MAX;

impl Sim {
    /// The output ports flow `f`'s packets cross from `src` to `dst` (its DATA: the
    /// sender's to the receiver's; its ACKs: back), in hop order; `None` without a single
    /// ECMP path (per-packet spraying).
    pub(super) fn hops(&self, f: u32, ack: bool) -> Option<Vec<u32>> {
        let flow = &self.flows[f as usize];
        let Lb::Ecmp(e) = &flow.lb else { return None };
        let (src, dst) = if ack {
            (flow.spec.dst, flow.spec.src)
        } else {
            (flow.spec.src, flow.spec.dst)
        };
        let mut out = vec![src];
        let mut p = src;
        while let Node::Switch(s) = self.ports[p as usize].peer {
            let (route, seed) = self.switches[s as usize];
            p = route.select(src, dst, e.ev(), seed)?;
            out.push(p);
            if out.len() > 64 {
                return None;
            }
        }
        Some(out)
    }

    /// `skip.lockstep_shadow`: follower `id` (just paused) mirrors its leader's packets on
    /// the ports of its paths that are not paused with it: its ACK-only ports (running; they
    /// may carry other partitions' DATA) and its DATA ports held with their control lane
    /// live (they carry other partitions' ACKs). Hop `i` of a follower flow's DATA (ACK)
    /// path mirrors hop `i` of its leader counterpart's, when the two paths are as long.
    /// dcfab's extension beyond Wormhole 6.2, whose frozen queues keep a skipped
    /// partition's occupancy but put none of its traffic on ports it shares: in a
    /// lockstep trajectory the follower's packets cross its shared ports as its leader's
    /// cross the leader's.
    pub(super) fn shadow_map(&mut self, id: PartitionId) {
        let w = self.wh.as_ref().expect("wormhole on");
        let Some(fr) = w.frozen.get(&id) else { return };
        let Some(fo) = fr.follow.as_ref() else { return };
        let mut entries = Vec::new();
        for (f, &lf) in fr.flow_ids.iter().zip(&fo.lead_flows) {
            for ack in [false, true] {
                let (Some(mine), Some(lead)) = (self.hops(*f, ack), self.hops(lf, ack)) else {
                    continue;
                };
                if mine.len() != lead.len() {
                    continue;
                }
                for (&p2, &p) in mine.iter().zip(&lead) {
                    let paused = fr.ports.binary_search(&p2).is_ok();
                    let live = fr.live.binary_search(&p2).is_ok();
                    if live || !paused {
                        entries.push((p, lf, p2));
                    }
                }
            }
        }
        let w = self.wh.as_mut().expect("wormhole on");
        for &(p, lf, p2) in &entries {
            w.shadow[p as usize].push((lf, p2, id));
            w.shadow_lead[lf as usize] += 1;
        }
        // A held DATA lane's line is busy as long as its leader counterpart's (the
        // packet the leader's port is serializing now has its placeholder in progress).
        let now = self.now;
        for &(p, _, p2) in &entries {
            let busy = self.ports[p as usize].busy_until;
            let port = &mut self.ports[p2 as usize];
            if port.data_frozen && busy > now && busy != port.busy_until {
                port.busy_until = busy;
                if port.txdone_at != NEVER {
                    port.txdone_at = busy;
                    self.q.push(busy, Comp::new(Kind::TxDone, p2));
                }
            }
        }
        let w = self.wh.as_mut().expect("wormhole on");
        if let Some(fr) = w.frozen.get_mut(&id) {
            fr.shadow = entries;
        }
        self.wh_shadowing = true;
        self.tx_hooks = true;
    }

    /// Take follower `id`'s mirror entries out (it resumes).
    pub(super) fn shadow_unmap(&mut self, id: PartitionId, entries: &[(u32, u32, u32)]) {
        let Some(w) = self.wh.as_mut() else { return };
        for &(p, lf, p2) in entries {
            let v = &mut w.shadow[p as usize];
            if let Some(i) = v.iter().position(|&x| x == (lf, p2, id)) {
                v.remove(i);
                w.shadow_lead[lf as usize] -= 1;
            }
        }
    }

    /// Packet `pk` starts its transmission on port `p` now (`skip.lockstep_shadow`): if it
    /// is a leader flow's and the port is on its path, each paused follower mirroring it
    /// gets a placeholder of the same size in the same lane of its port at that hop (a
    /// control packet in the control lane; a DATA, where the follower's DATA lane is held,
    /// in [`Wormhole::shadow_q`], served only while that lane is held), served by the
    /// port's usual rules and discarded once serialized ([`SHADOW_FLOW`]): in lockstep the
    /// follower's port takes its line when the leader's does. A DATA placeholder for a
    /// running port (its DATA lane not held) is not made: only the follower's own (paused)
    /// DATA would be there.
    #[cold]
    #[inline(never)]
    pub(crate) fn wh_mirror(&mut self, p: u32, pk: &Packet) {
        let Some(w) = self.wh.as_mut() else { return };
        if w.shadow_lead.get(pk.flow as usize).is_none_or(|&n| n == 0) {
            return;
        }
        let Some(targets) = w.shadow.get(p as usize) else {
            return;
        };
        let sh = Packet {
            flow: SHADOW_FLOW,
            ..*pk
        };
        let mut kick = Vec::new();
        for &(_, p2, _) in targets.iter().filter(|t| t.0 == pk.flow) {
            let port = &mut self.ports[p2 as usize];
            if pk.kind.is_control() {
                port.ctrl_q.push_back(sh);
            } else if port.data_frozen {
                w.shadow_q.entry(p2).or_default().push_back(sh);
            } else {
                continue;
            }
            kick.push(p2);
        }
        w.st.lock_shadows += kick.len() as u64;
        for p2 in kick {
            self.kick(p2);
        }
    }

    /// The next DATA placeholder of port `p` (its DATA lane held), if any.
    #[cold]
    #[inline(never)]
    pub(crate) fn wh_shadow_pop(&mut self, p: u32) -> Option<Packet> {
        let w = self.wh.as_mut()?;
        let q = w.shadow_q.get_mut(&p)?;
        let x = q.pop_front();
        if q.is_empty() {
            w.shadow_q.remove(&p);
        }
        x
    }

    /// Port `p` has DATA placeholders waiting.
    #[cold]
    #[inline(never)]
    pub(crate) fn wh_shadow_pending(&self, p: u32) -> bool {
        self.wh
            .as_ref()
            .is_some_and(|w| w.shadow_q.contains_key(&p))
    }
}
