//! pHost receiver: the token scheduler (pHost section 3.2 "receiver", DCSIM section 5).
//!
//! ```text
//!   on_rts(flow, size, free) --> flows[F]: (flow, to_grant, pending, silent, downgraded)
//!   on_data(flow)            --> pending -= 1, silent = 0
//!   tick:  per flow: downgraded -= 1, or silent += 1 while tokens are pending;
//!          silent >= downgrade_timeout: pending tokens back to to_grant, downgraded
//!          for downgrade_cycles (pHost: an unresponsive sender is downgraded);
//!          wait -= 1; wait == 0 and the token register free:
//!          token to argmin to_grant over eligible flows (SRPT), wait = token_interval
//!   take_token() <-- the token register (one token per token_interval: line rate)
//!   remove(flow)     --> the host found the flow complete: its entry goes
//!   quiet_cycles()   --> cycles to the next event (a host steps advance(q + 1) to it)
//!   shift(d)         --> (Wormhole, a simulator op) now and the register's expiry += d
//!   fast_forward(flow, n) --> (Wormhole) n packets off to_grant and left (not the last)
//! ```
//!
//! A flow is eligible when it has packets left to grant, is not downgraded and has fewer
//! than `window` tokens pending (the dcPIM simulator's pHost, `capability_window`: a token
//! is answered by its DATA, so a sender whose DATAs queue in the fabric gets tokens more
//! slowly: the reaction to congestion the DCSIM paper, section 4.2, ascribes to pHost;
//! `window = 0`: no window, pHost's paper). A flow kept at its window for `window_timeout`
//! cycles gives one pending token up (`capability_window_timeout`: its DATA is taken as
//! lost, else lost DATAs would close the window for good). A flow
//! leaves the table when nothing is left to grant or pending. With `srpt_received` the
//! SRPT key is the packets not yet received (`on_received`) and ties go to the flow granted
//! or registered last, as the dcPIM simulator's pHost queue orders them. Units: cycles,
//! packets.

use rtl_models::budget::StateBudget;
use rtl_models::{field_bits, Clocked, ConfigError, Cycles};

use super::Token;

/// Receiver timing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PhostReceiverConfig {
    /// Cycles between tokens: one MTU transmission time at line rate (>= 1).
    pub token_interval: u32,
    /// Cycles a token stays valid after the cycle it is sent in (pHost: about 1.5 MTU
    /// times; >= 1).
    pub token_ttl: u32,
    /// Cycles without DATA while tokens are pending before the flow is downgraded (>= 1).
    pub downgrade_timeout: u32,
    /// Cycles a downgraded flow gets no tokens.
    pub downgrade_cycles: u32,
    /// Tokens a flow may have pending (sent, not answered by DATA) before it gets no more
    /// (`capability_window`); 0: no limit.
    pub window: u16,
    /// Cycles a flow may stay at its window before one pending token is given up (>= 1
    /// when `window > 0`).
    pub window_timeout: u32,
    /// SRPT key and tie rule of the dcPIM simulator's pHost (Terabit-Ethernet/dcPIM
    /// `ext/capabilityhost.cpp`, `CapabilityFlowComparatorAtReceiver` and
    /// `CapabilityHost::send_capability` over `ext/custompriorityqueue.h`): the fewest
    /// packets not yet *received* (the host reports each new DATA with
    /// [`PhostReceiver::on_received`]), ties to the flow tried last (its queue's `top()`
    /// takes the last of equal flows, and the flows tried for a token go back to the end,
    /// the one granted last). false: the fewest packets not yet *granted*, ties to the
    /// lowest table slot (pHost's paper, section 3.2; the default).
    pub srpt_received: bool,
}

impl PhostReceiverConfig {
    /// Check the configuration; the error names the bad field.
    pub const fn validate(&self) -> Result<(), ConfigError> {
        if self.token_interval == 0 {
            return Err(ConfigError::new(
                "token_interval",
                "must be at least 1 cycle",
            ));
        }
        if self.token_ttl == 0 {
            return Err(ConfigError::new("token_ttl", "must be at least 1 cycle"));
        }
        if self.window > 0 && self.window_timeout == 0 {
            return Err(ConfigError::new(
                "window_timeout",
                "must be at least 1 cycle with a window",
            ));
        }
        if self.downgrade_timeout == 0 {
            return Err(ConfigError::new(
                "downgrade_timeout",
                "must be at least 1 cycle",
            ));
        }
        Ok(())
    }
}

/// One flow in the receiver's table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RxFlow {
    /// Flow identifier.
    pub flow: u32,
    /// Packets not yet granted a token (SRPT key).
    pub to_grant: u32,
    /// Tokens sent and not yet answered by DATA.
    pub pending: u16,
    /// Cycles since the last DATA while tokens are pending.
    pub silent: u32,
    /// Cycles left in the downgraded state (0: not downgraded).
    pub downgraded: u32,
    /// Cycles at its token window (tokens left to grant, none allowed).
    pub blocked: u32,
    /// Packets not yet received (`srpt_received`'s key; counted down by
    /// [`PhostReceiver::on_received`]).
    pub left: u32,
    /// Queue position for `srpt_received`'s ties: higher = pushed later (wins a tie).
    pub order: u32,
}

impl StateBudget for RxFlow {
    const NAME: &'static str = "pHost receiver flow entry";
    const BITS: u32 = 32 + 32 + 16 + 32 + 32 + 32 + 32 + 32;
    const UNIT: &'static str = "per flow";
}
const _: () = assert!(
    RxFlow::BITS
        == field_bits!(RxFlow, flow)
            + field_bits!(RxFlow, to_grant)
            + field_bits!(RxFlow, pending)
            + field_bits!(RxFlow, silent)
            + field_bits!(RxFlow, downgraded)
            + field_bits!(RxFlow, blocked)
            + field_bits!(RxFlow, left)
            + field_bits!(RxFlow, order)
);

/// Why a flow could not be registered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RtsRejected {
    /// All `F` flow entries are in use (the RTS is dropped; the sender retries).
    TableFull,
}

/// The pHost token scheduler of one receiver, for at most `F` concurrent flows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhostReceiver<const F: usize> {
    cfg: PhostReceiverConfig,
    flows: [Option<RxFlow>; F],
    /// Cycles until the next token may be sent.
    wait: u32,
    /// The token register (taken by the NIC's control-packet queue).
    token: Option<Token>,
    /// Cycle count (token expiry stamps).
    now: Cycles,
    /// Downgrades so far.
    downgrades: u64,
    /// Next queue position (`srpt_received`; wraps after 2^32 pushes).
    stamp: u32,
}

impl<const F: usize> PhostReceiver<F> {
    /// An idle receiver; the error names the bad configuration field.
    pub const fn new(cfg: PhostReceiverConfig) -> Result<Self, ConfigError> {
        if let Err(e) = cfg.validate() {
            return Err(e);
        }
        Ok(PhostReceiver {
            cfg,
            flows: [None; F],
            wait: 0,
            token: None,
            now: 0,
            downgrades: 0,
            stamp: 0,
        })
    }

    /// An RTS for `flow` of `size_pkts` packets, of which the first `free_pkts` come on
    /// free tokens (pHost: the first BDP). A flow already known is left unchanged.
    pub fn on_rts(&mut self, flow: u32, size_pkts: u32, free_pkts: u32) -> Result<(), RtsRejected> {
        let to_grant = size_pkts.saturating_sub(free_pkts);
        if to_grant == 0 || self.find(flow).is_some() {
            return Ok(());
        }
        let slot = self
            .flows
            .iter_mut()
            .find(|f| f.is_none())
            .ok_or(RtsRejected::TableFull)?;
        *slot = Some(RxFlow {
            flow,
            to_grant,
            pending: 0,
            silent: 0,
            downgraded: 0,
            blocked: 0,
            left: size_pkts,
            order: self.stamp,
        });
        self.stamp = self.stamp.wrapping_add(1);
        Ok(())
    }

    /// A new DATA of `flow` arrived (free or on a token): one packet less to receive
    /// (`srpt_received`'s key; without it the count is kept and not used).
    pub fn on_received(&mut self, flow: u32) {
        if let Some(i) = self.find(flow) {
            if let Some(f) = self.flows[i].as_mut() {
                f.left = f.left.saturating_sub(1);
            }
        }
    }

    /// A DATA of `flow` sent on a token arrived (free-token DATA needs no call).
    pub fn on_data(&mut self, flow: u32) {
        if let Some(i) = self.find(flow) {
            let done = {
                let Some(f) = self.flows[i].as_mut() else {
                    return;
                };
                f.pending = f.pending.saturating_sub(1);
                f.silent = 0;
                f.blocked = 0;
                f.pending == 0 && f.to_grant == 0
            };
            if done {
                self.flows[i] = None;
            }
        }
    }

    /// At most `gap` of `flow`'s tokens are still unanswered: the host saw a DATA answer a
    /// token issued `gap` tokens before the latest, so the earlier unanswered ones (expired
    /// at the sender, or their DATA lost) are given up (the dcPIM simulator's pHost counts
    /// its window from the latest answered token, `token_count - largest_token_seq_received
    /// - 1`).
    pub fn forgive(&mut self, flow: u32, gap: u32) {
        if let Some(i) = self.find(flow) {
            let done = {
                let Some(f) = self.flows[i].as_mut() else {
                    return;
                };
                let g = gap.min(u32::from(u16::MAX)) as u16;
                if g < f.pending {
                    f.pending = g;
                    f.blocked = 0;
                }
                f.pending == 0 && f.to_grant == 0
            };
            if done {
                self.flows[i] = None;
            }
        }
    }

    /// Wormhole's shift (`../shared/papers/wormhole.md` 6.2; a simulator operation): the
    /// scheduler resumes `delta` cycles later as if nothing had happened in between. The
    /// clock and the token register's expiry move; the counters (`wait`, `silent`,
    /// `downgraded`, `blocked`) are relative and stay.
    pub fn shift(&mut self, delta: Cycles) {
        self.now += delta;
        if let Some(t) = self.token.as_mut() {
            t.expiry = t.expiry.saturating_add(delta);
        }
    }

    /// Wormhole's fast-forward (5.3 / 6.2; a simulator operation): up to `n` of `flow`'s
    /// packets were granted, sent and received while its partition was skipped; they come
    /// off what is left to grant and to receive, never the last one to grant (the entry
    /// stays until the flow's own last token). Returns how many were taken.
    pub fn fast_forward(&mut self, flow: u32, n: u32) -> u32 {
        let Some(f) = self.find(flow).and_then(|i| self.flows[i].as_mut()) else {
            return 0;
        };
        let k = n.min(f.to_grant.saturating_sub(1));
        f.to_grant -= k;
        f.left = f.left.saturating_sub(k);
        k
    }

    /// The token sent this cycle, if any (taken: a second call gives `None`).
    pub fn take_token(&mut self) -> Option<Token> {
        self.token.take()
    }

    /// The flow table entry of `flow`.
    pub fn flow(&self, flow: u32) -> Option<RxFlow> {
        self.find(flow).and_then(|i| self.flows[i])
    }

    /// Active flows.
    pub fn active(&self) -> impl Iterator<Item = &RxFlow> {
        self.flows.iter().flatten()
    }

    /// The configuration.
    pub const fn config(&self) -> PhostReceiverConfig {
        self.cfg
    }

    /// Cycle count.
    pub const fn now(&self) -> Cycles {
        self.now
    }

    /// Downgrades so far.
    pub const fn downgrades(&self) -> u64 {
        self.downgrades
    }

    fn find(&self, flow: u32) -> Option<usize> {
        self.flows
            .iter()
            .position(|f| matches!(f, Some(x) if x.flow == flow))
    }

    /// Whether `f` has tokens to grant and its window full.
    fn at_window(&self, f: &RxFlow) -> bool {
        self.cfg.window > 0 && f.to_grant > 0 && f.pending >= self.cfg.window
    }

    /// SRPT: the eligible flow with the fewest packets left to grant (ties: lowest slot),
    /// or with `srpt_received` the fewest packets left to receive (ties: latest `order`).
    fn srpt(&self) -> Option<usize> {
        if self.cfg.srpt_received {
            let mut best: Option<(usize, RxFlow)> = None;
            for (i, f) in self.flows.iter().enumerate() {
                if let Some(f) = f {
                    if self.eligible(f) && !matches!(best, Some((_, b)) if Self::ahead(&b, f)) {
                        best = Some((i, *f));
                    }
                }
            }
            return best.map(|(i, _)| i);
        }
        let mut best: Option<(usize, u32)> = None;
        for (i, f) in self.flows.iter().enumerate() {
            if let Some(f) = f {
                if f.to_grant > 0
                    && f.downgraded == 0
                    && (self.cfg.window == 0 || f.pending < self.cfg.window)
                    && !matches!(best, Some((_, b)) if b <= f.to_grant)
                {
                    best = Some((i, f.to_grant));
                }
            }
        }
        best.map(|(i, _)| i)
    }

    /// Whether `f` may get a token now.
    fn eligible(&self, f: &RxFlow) -> bool {
        f.to_grant > 0 && f.downgraded == 0 && (self.cfg.window == 0 || f.pending < self.cfg.window)
    }

    /// `srpt_received`'s order: `a` comes before `b` (fewer packets left to receive, ties:
    /// pushed later; the wrapping distance keeps the order across a wrap of the stamps).
    fn ahead(a: &RxFlow, b: &RxFlow) -> bool {
        a.left < b.left || (a.left == b.left && (b.order.wrapping_sub(a.order) as i32) < 0)
    }

    /// `srpt_received`: the flow at slot `chosen` got a token; it and every flow ahead of
    /// it (tried first and passed over: window, downgrade, nothing left to grant) go back
    /// to the end of the queue in the order they were tried, so the granted flow is last
    /// (the simulator's `flows_tried` pushed back after `send_capability`).
    fn requeue(&mut self, chosen: usize) {
        let Some(c) = self.flows[chosen] else { return };
        let mut ahead = [false; F];
        for (i, f) in self.flows.iter().enumerate() {
            ahead[i] = i != chosen && matches!(f, Some(f) if Self::ahead(f, &c));
        }
        // In the order they were tried (best first), each to the end of the queue.
        loop {
            let mut next: Option<(usize, RxFlow)> = None;
            for (i, f) in self.flows.iter().enumerate() {
                if let (true, Some(f)) = (ahead[i], f) {
                    if !matches!(next, Some((_, b)) if Self::ahead(&b, f)) {
                        next = Some((i, *f));
                    }
                }
            }
            let Some((i, _)) = next else { break };
            ahead[i] = false;
            if let Some(f) = self.flows[i].as_mut() {
                f.order = self.stamp;
            }
            self.stamp = self.stamp.wrapping_add(1);
        }
        if let Some(f) = self.flows[chosen].as_mut() {
            f.order = self.stamp;
        }
        self.stamp = self.stamp.wrapping_add(1);
    }

    /// Take `flow` out of the table whatever it still has to grant or has pending (the
    /// host found it complete); `false` if it was not there.
    pub fn remove(&mut self, flow: u32) -> bool {
        match self.find(flow) {
            Some(i) => {
                self.flows[i] = None;
                true
            }
            None => false,
        }
    }

    /// Cycles that can be skipped with no downgrade, no downgrade expiry and no token
    /// (`u64::MAX`: none is coming). The tick after them is the next event: a host that
    /// takes the token register after each event steps `advance(quiet_cycles() + 1)`.
    pub fn quiet_cycles(&self) -> u64 {
        let mut m = u64::MAX;
        for f in self.flows.iter().flatten() {
            if f.downgraded > 0 {
                m = m.min(f.downgraded as u64 - 1);
            } else if f.pending > 0 {
                // The timeout fires on the tick where silent + 1 reaches it.
                m = m.min(self.cfg.downgrade_timeout.saturating_sub(f.silent + 1) as u64);
                if self.at_window(f) {
                    m = m.min(self.cfg.window_timeout.saturating_sub(f.blocked + 1) as u64);
                }
            }
        }
        if self.token.is_none() && self.srpt().is_some() {
            m = m.min(self.wait.saturating_sub(1) as u64);
        }
        m
    }
}

impl<const F: usize> Clocked for PhostReceiver<F> {
    fn tick(&mut self) {
        let (window, window_timeout) = (self.cfg.window, self.cfg.window_timeout);
        for f in self.flows.iter_mut().flatten() {
            if f.downgraded > 0 {
                f.downgraded -= 1;
            } else if f.pending > 0 {
                f.silent += 1;
                if f.silent >= self.cfg.downgrade_timeout {
                    f.to_grant += f.pending as u32;
                    f.pending = 0;
                    f.silent = 0;
                    f.blocked = 0;
                    f.downgraded = self.cfg.downgrade_cycles;
                    self.downgrades += 1;
                } else if window > 0 && f.to_grant > 0 && f.pending >= window {
                    f.blocked += 1;
                    if f.blocked >= window_timeout {
                        // capability_window_timeout: one pending token given up.
                        f.pending -= 1;
                        f.blocked = 0;
                    }
                }
            }
        }
        self.wait = self.wait.saturating_sub(1);
        if self.wait == 0 && self.token.is_none() {
            if let Some(i) = self.srpt() {
                if self.cfg.srpt_received {
                    self.requeue(i);
                }
                if let Some(f) = self.flows[i].as_mut() {
                    f.to_grant -= 1;
                    f.pending = f.pending.saturating_add(1);
                    self.token = Some(Token {
                        flow: f.flow,
                        expiry: self.now + 1 + self.cfg.token_ttl as u64,
                    });
                    self.wait = self.cfg.token_interval;
                }
            }
        }
        self.now += 1;
    }

    /// Jumps over stretches with no event (no downgrade, expiry or token), ticks through
    /// the events: O(events), not O(cycles).
    fn advance(&mut self, cycles: Cycles) {
        let mut n = cycles;
        while n > 0 {
            let m = self.quiet_cycles().min(n);
            if m == 0 {
                self.tick();
                n -= 1;
                continue;
            }
            let window = self.cfg.window;
            for f in self.flows.iter_mut().flatten() {
                if f.downgraded > 0 {
                    f.downgraded -= m as u32;
                } else if f.pending > 0 {
                    f.silent += m as u32;
                    if window > 0 && f.to_grant > 0 && f.pending >= window {
                        f.blocked += m as u32;
                    }
                }
            }
            self.wait = self.wait.saturating_sub(m.min(u32::MAX as u64) as u32);
            self.now += m;
            n -= m;
        }
    }
}

impl<const F: usize> StateBudget for PhostReceiver<F> {
    const NAME: &'static str = "pHost receiver token scheduler";
    /// `F` flow entries with valid bits + token-interval counter + token register (flow,
    /// expiry, valid) + cycle counter + downgrade counter + queue stamp. Timing is
    /// configuration.
    const BITS: u32 = F as u32 * (RxFlow::BITS + 1) + 32 + (32 + 64 + 1) + 64 + 64 + 32;
    const UNIT: &'static str = "per host";
}
const _: () = assert!(
    PhostReceiver::<32>::BITS
        == 32 * (RxFlow::BITS + 1)
            + field_bits!(PhostReceiver<32>, wait)
            + field_bits!(Token, flow)
            + field_bits!(Token, expiry)
            + 1
            + field_bits!(PhostReceiver<32>, now)
            + field_bits!(PhostReceiver<32>, downgrades)
            + field_bits!(PhostReceiver<32>, stamp)
);
