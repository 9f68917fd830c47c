//! The run loop: pops events in (time, sequence) order and dispatches them; the stop
//! conditions (all flows done, `stop.max_time_us`, the stall deadline, the caller's stop flag).

use super::*;

impl Sim {
    /// Run the event loop to the end (see the module doc for the stop conditions).
    pub fn run(&mut self, ctl: &RunControl) {
        self.prefetch_for_ports();
        // One branch per run: the loop without Wormhole is compiled without its hooks.
        if self.wh.is_some() {
            self.run_loop::<true>(ctl)
        } else {
            self.run_loop::<false>(ctl)
        }
    }

    /// The event loop; `WH`: with Wormhole's hooks ([`super::skip`]).
    fn run_loop<const WH: bool>(&mut self, ctl: &RunControl) {
        let wall = std::time::Instant::now();
        let mut last_report = wall;
        if ctl.stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
            self.interrupted = true;
        }
        while !self.interrupted && !(self.all_done() && (!WH || self.wh_finished())) {
            let Some(t) = self.q.peek_time() else { break };
            // The stall deadline is a simulated time, so when a run stalls does not depend on
            // how many events (e.g. output-only queue samples) happened before it. Whether
            // the run may stall is asked only once `t` is past the deadline (rare): before
            // it, neither limit can stop the run.
            let deadline = self.last_progress.saturating_add(self.stall_ps);
            if t > self.max_time.min(deadline) {
                let may_stall = if WH {
                    self.wh_may_stall()
                } else {
                    self.next_arrival + self.chain.as_ref().map_or(0, |c| c.opened)
                        > self.flows_done
                };
                let stall_at = if may_stall { deadline } else { NEVER };
                if t > self.max_time.min(stall_at) {
                    if stall_at < self.max_time {
                        self.now = stall_at;
                        self.stalled = true;
                    } else {
                        self.now = self.max_time;
                    }
                    break;
                }
            }
            let (t, c) = self.q.pop_peeked();
            self.prefetch_ahead();
            self.now = t;
            // Wormhole's own events are bookkeeping, not simulated events.
            if !WH || c.kind() != Kind::Wormhole {
                self.c.events += 1;
            }
            match c.kind() {
                Kind::Deliver => self.on_deliver(c.index()),
                Kind::TxDone => self.on_txdone(c.index()),
                Kind::FlowTimer | Kind::HostTimer => self.transport_timer(c.kind(), c.index()),
                Kind::Arrivals if c.index() == chain::CHAIN_ARRIVALS => self.chain_arrivals(),
                Kind::Arrivals => self.on_arrivals(),
                Kind::Failure => self.on_failure(c.index()),
                Kind::Sample => self.on_sample(c.index()),
                Kind::Wormhole => self.on_wormhole(c.index()),
            }
            if WH {
                self.wh_after_event();
            }
            if self.c.events & (CHECK_EVERY - 1) == 0 {
                if ctl.stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
                    self.interrupted = true;
                    break;
                }
                if let Some(p) = ctl.progress {
                    let w = std::time::Instant::now();
                    if w.duration_since(last_report).as_secs_f64() >= 0.25 {
                        last_report = w;
                        p(self.progress());
                    }
                }
            }
        }
        self.wall_s = wall.elapsed().as_secs_f64();
        if let Some(p) = ctl.progress {
            p(self.progress());
        }
    }

    /// Flows whose start time has come open their transport.
    pub(super) fn on_arrivals(&mut self) {
        while let Some(flow) = self.flows.get(self.next_arrival) {
            if flow.spec.start_ps > self.now {
                self.q
                    .push(flow.spec.start_ps, Comp::new(Kind::Arrivals, 0));
                break;
            }
            let f = self.next_arrival as u32;
            self.next_arrival += 1;
            if self.wh.is_some() {
                self.wh_flow_start(f);
                self.transport_open(f);
                self.wh_flow_opened(f);
            } else {
                self.transport_open(f);
            }
        }
    }
}
