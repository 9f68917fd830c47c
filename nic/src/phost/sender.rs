//! pHost sender: RTS, free tokens for the first BDP, spending and expiring tokens (pHost
//! section 3.1 "sender", DCSIM section 5).
//!
//! ```text
//!   open(flow, size, bdp) --> flows[F]: (flow, remaining, free, rts_pending)
//!   take_rts()            --> RTS(flow, size) for the control queue
//!   on_token(token)       --> tokens[T] (dead on arrival or no room: counted, dropped)
//!   next_packet()         --> a valid token, SRPT over its flows (fewest remaining),
//!                             else a free token (first BDP), SRPT over flows
//!   tick / advance        --> now += n; tokens with expiry <= now are dropped (expired)
//!   add(flow, n)          --> n more packets (the receiver asked again for lost ones)
//!   close(flow)           --> the receiver has every packet: the entry goes
//!   shift(d)              --> (Wormhole, a simulator op) now and held expiries += d
//!   fast_forward(flow, n) --> (Wormhole) n token packets off the entry (not the free
//!                             ones, not the last)
//! ```
//!
//! The NIC calls [`PhostSender::next_packet`] once per MTU transmission time (line rate).
//! Invariant (proptest): no held or spent token is past its expiry. Units: cycles, packets.

use rtl_models::budget::StateBudget;
use rtl_models::{field_bits, Clocked, ConfigError, Cycles};

use super::Token;

/// One flow of the sender.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TxFlow {
    /// Flow identifier.
    pub flow: u32,
    /// Packets not yet sent.
    pub remaining: u32,
    /// Free tokens left (the first BDP needs no token).
    pub free: u32,
    /// The RTS is still to be sent.
    pub rts_pending: bool,
}

impl StateBudget for TxFlow {
    const NAME: &'static str = "pHost sender flow entry";
    const BITS: u32 = 32 + 32 + 32 + 1;
    const UNIT: &'static str = "per flow";
}
const _: () = assert!(
    TxFlow::BITS
        == field_bits!(TxFlow, flow)
            + field_bits!(TxFlow, remaining)
            + field_bits!(TxFlow, free)
            + 1
);

/// A packet the sender transmits now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TxPacket {
    /// Its flow.
    pub flow: u32,
    /// Sent on a free token (first BDP) rather than a receiver's token.
    pub free: bool,
    /// Expiry of the token spent (`None` for a free token).
    pub token_expiry: Option<u64>,
}

/// The pHost sender of one host: `F` flows, `T` held tokens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhostSender<const F: usize, const T: usize> {
    flows: [Option<TxFlow>; F],
    tokens: [Option<Token>; T],
    now: Cycles,
    /// Tokens that expired unused (held or dead on arrival).
    expired: u64,
    /// Tokens dropped for lack of room or for a flow with nothing left to send.
    wasted: u64,
}

impl<const F: usize, const T: usize> Default for PhostSender<F, T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const F: usize, const T: usize> PhostSender<F, T> {
    /// An idle sender at cycle 0.
    pub const fn new() -> Self {
        PhostSender {
            flows: [None; F],
            tokens: [None; T],
            now: 0,
            expired: 0,
            wasted: 0,
        }
    }

    /// Start `flow` of `size_pkts` packets; the first `min(size, bdp_pkts)` use free
    /// tokens. The error names `size_pkts` if zero, `flow` if the flow exists or no entry
    /// is free.
    pub fn open(&mut self, flow: u32, size_pkts: u32, bdp_pkts: u32) -> Result<(), ConfigError> {
        if size_pkts == 0 {
            return Err(ConfigError::new(
                "size_pkts",
                "a flow has at least one packet",
            ));
        }
        if self.find(flow).is_some() {
            return Err(ConfigError::new("flow", "already open"));
        }
        self.insert(TxFlow {
            flow,
            remaining: size_pkts,
            free: size_pkts.min(bdp_pkts),
            rts_pending: true,
        })
    }

    /// `entry` takes the first free flow entry; the error names `flow` when none is free.
    fn insert(&mut self, entry: TxFlow) -> Result<(), ConfigError> {
        let slot = self
            .flows
            .iter_mut()
            .find(|f| f.is_none())
            .ok_or(ConfigError::new(
                "flow",
                "no free flow entry (F flows open)",
            ))?;
        *slot = Some(entry);
        Ok(())
    }

    /// The next RTS to send: `(flow, size_pkts)`.
    pub fn take_rts(&mut self) -> Option<(u32, u32)> {
        let f = self.flows.iter_mut().flatten().find(|f| f.rts_pending)?;
        f.rts_pending = false;
        Some((f.flow, f.remaining))
    }

    /// A token arrived from a receiver.
    pub fn on_token(&mut self, t: Token) {
        if t.expiry <= self.now {
            self.expired += 1;
            return;
        }
        match self.tokens.iter_mut().find(|s| s.is_none()) {
            Some(s) => *s = Some(t),
            None => self.wasted += 1,
        }
    }

    /// The packet to send now, if any: a held token's flow first (fewest remaining
    /// packets; ties: the token expiring first), else a free token (fewest remaining).
    pub fn next_packet(&mut self) -> Option<TxPacket> {
        let mut best: Option<(usize, u32, u64)> = None;
        for (i, t) in self.tokens.iter().enumerate() {
            let Some(t) = t else { continue };
            let rem = match self.find(t.flow).and_then(|j| self.flows[j]) {
                Some(f) if f.remaining > f.free => f.remaining,
                _ => continue,
            };
            if !matches!(best, Some((_, r, e)) if (r, e) <= (rem, t.expiry)) {
                best = Some((i, rem, t.expiry));
            }
        }
        if let Some((i, _, _)) = best {
            let t = self.tokens[i].take()?;
            let j = self.find(t.flow)?;
            self.spend(j);
            return Some(TxPacket {
                flow: t.flow,
                free: false,
                token_expiry: Some(t.expiry),
            });
        }
        let j = self
            .flows
            .iter()
            .enumerate()
            .filter_map(|(j, f)| f.filter(|f| f.free > 0).map(|f| (j, f.remaining)))
            .min_by_key(|&(_, r)| r)?
            .0;
        let flow = self.flows[j]?.flow;
        if let Some(f) = self.flows[j].as_mut() {
            f.free -= 1;
        }
        self.spend(j);
        Some(TxPacket {
            flow,
            free: true,
            token_expiry: None,
        })
    }

    /// `flow` needs `n` more packets (the receiver asked again for packets it lost): its
    /// entry grows, or comes back with no free tokens and no RTS to send. The error names
    /// `flow` when no entry is free.
    pub fn add(&mut self, flow: u32, n: u32) -> Result<(), ConfigError> {
        if let Some(f) = self.find(flow).and_then(|j| self.flows[j].as_mut()) {
            f.remaining = f.remaining.saturating_add(n);
            return Ok(());
        }
        if n == 0 {
            return Ok(());
        }
        self.insert(TxFlow {
            flow,
            remaining: n,
            free: 0,
            rts_pending: false,
        })
    }

    /// `flow` is complete at its receiver: its entry goes (tokens still held for it are
    /// skipped and expire). `false` if it had no entry.
    pub fn close(&mut self, flow: u32) -> bool {
        match self.find(flow) {
            Some(j) => {
                self.flows[j] = None;
                true
            }
            None => false,
        }
    }

    /// Whether [`PhostSender::next_packet`] would send now (a held token of a flow with
    /// packets beyond its free ones, or a free token left).
    pub fn has_work(&self) -> bool {
        self.tokens.iter().flatten().any(|t| {
            matches!(self.find(t.flow).and_then(|j| self.flows[j]), Some(f) if f.remaining > f.free)
        }) || self.flows.iter().flatten().any(|f| f.free > 0)
    }

    /// Wormhole's shift (`../shared/papers/wormhole.md` 6.2; a simulator operation, not a
    /// NIC one): the sender resumes `delta` cycles later as if nothing had happened in
    /// between. The clock and every held token's expiry move `delta` later, so no token
    /// expires for the skipped time.
    pub fn shift(&mut self, delta: Cycles) {
        self.now += delta;
        for t in self.tokens.iter_mut().flatten() {
            t.expiry = t.expiry.saturating_add(delta);
        }
    }

    /// Wormhole's fast-forward (5.3 / 6.2; a simulator operation): up to `n` of `flow`'s
    /// packets were sent on tokens while its partition was skipped and come off its
    /// entry: never its free ones (still owed to its free tokens) nor its last one on a
    /// token (the entry stays until the flow's own last packet is sent), nothing before
    /// its RTS went. Returns how many were taken.
    pub fn fast_forward(&mut self, flow: u32, n: u32) -> u32 {
        let Some(f) = self.find(flow).and_then(|j| self.flows[j].as_mut()) else {
            return 0;
        };
        if f.rts_pending {
            return 0;
        }
        let k = n.min(f.remaining.saturating_sub(f.free).saturating_sub(1));
        f.remaining -= k;
        k
    }

    /// Tokens held now.
    pub fn held(&self) -> impl Iterator<Item = &Token> {
        self.tokens.iter().flatten()
    }

    /// The flow entry of `flow`.
    pub fn flow(&self, flow: u32) -> Option<TxFlow> {
        self.find(flow).and_then(|i| self.flows[i])
    }

    /// Cycle count.
    pub const fn now(&self) -> Cycles {
        self.now
    }

    /// Tokens that expired unused.
    pub const fn expired(&self) -> u64 {
        self.expired
    }

    /// Tokens dropped for lack of room.
    pub const fn wasted(&self) -> u64 {
        self.wasted
    }

    fn spend(&mut self, j: usize) {
        let done = match self.flows[j].as_mut() {
            Some(f) => {
                f.remaining -= 1;
                f.remaining == 0 && !f.rts_pending
            }
            None => false,
        };
        if done {
            self.flows[j] = None;
        }
    }

    fn find(&self, flow: u32) -> Option<usize> {
        self.flows
            .iter()
            .position(|f| matches!(f, Some(x) if x.flow == flow))
    }

    fn expire(&mut self) {
        for s in self.tokens.iter_mut() {
            if matches!(s, Some(t) if t.expiry <= self.now) {
                *s = None;
                self.expired += 1;
            }
        }
    }
}

/// The edge moves time; tokens at their expiry are dropped.
impl<const F: usize, const T: usize> Clocked for PhostSender<F, T> {
    fn tick(&mut self) {
        self.now += 1;
        self.expire();
    }

    fn advance(&mut self, cycles: Cycles) {
        self.now += cycles;
        self.expire();
    }
}

impl<const F: usize, const T: usize> StateBudget for PhostSender<F, T> {
    const NAME: &'static str = "pHost sender (flows + held tokens)";
    /// `F` flow entries with valid bits + `T` token registers (flow, expiry, valid) + cycle
    /// counter + expired and wasted counters.
    const BITS: u32 = F as u32 * (TxFlow::BITS + 1) + T as u32 * (32 + 64 + 1) + 64 + 2 * 64;
    const UNIT: &'static str = "per host";
}
const _: () = assert!(
    PhostSender::<32, 8>::BITS
        == 32 * (TxFlow::BITS + 1)
            + 8 * (field_bits!(Token, flow) + field_bits!(Token, expiry) + 1)
            + field_bits!(PhostSender<32, 8>, now)
            + field_bits!(PhostSender<32, 8>, expired)
            + field_bits!(PhostSender<32, 8>, wasted)
);
