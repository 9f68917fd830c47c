//! The DES-side state of pHost: per host the two `nic::phost` blocks (the token scheduler
//! [`PhostReceiver`] and the sender [`PhostSender`]) with what a NIC keeps beside them, per
//! flow the packet bitmaps at both ends.
//!
//! ```text
//!  HostState: rx  PhostReceiver<FLOWS>       (tokens: SRPT, one per MTU time, downgrade)
//!             tx  PhostSender<FLOWS, TOKENS> (free first BDP, tokens in SRPT order)
//!             held[TOKENS]: (flow, expiry, psn) beside tx's token registers (the PSN a
//!                           token names; the block keeps flow and expiry)
//!             tx_wait / rx_wait: flows waiting for a block entry (more than FLOWS at once)
//!  FlowState: sender: sent bitmap, next free PSN, last news (RTS re-send timer)
//!             receiver: got bitmap, token cursor (the next PSN a token names)
//! ```
//!
//! Units: the blocks run on a 1 ps clock (so one token per MTU time at line rate is exact);
//! picoseconds everywhere else.

use crate::event::{Time, NEVER};
use nic::phost::{PhostReceiver, PhostSender};

/// Flow entries of each block: a host's flows beyond it wait for a free entry (counted).
pub const FLOWS: usize = 128;
/// Tokens a sender holds at once (one more arriving is wasted, counted by the block).
pub const TOKENS: usize = 16;

/// The receiver block of a host.
pub type Rx = PhostReceiver<FLOWS>;
/// The sender block of a host.
pub type Tx = PhostSender<FLOWS, TOKENS>;

/// A token held by a sender: the block's register and the PSN it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Held {
    /// Its flow.
    pub flow: u32,
    /// Its expiry, ps.
    pub expiry: u64,
    /// The PSN the receiver asked for.
    pub psn: u32,
}

/// A flow waiting for a receiver entry: `(flow, packets to grant from, free packets)`.
pub type RxWait = (u32, u32, u32);

/// One host.
#[derive(Debug, Clone)]
pub struct HostState {
    /// The token scheduler.
    pub rx: Box<Rx>,
    /// The sender.
    pub tx: Box<Tx>,
    /// The tokens `tx` holds, with their PSNs.
    pub held: Vec<Held>,
    /// Flows of this host whose sender found no free entry (opened smallest first).
    pub tx_wait: Vec<u32>,
    /// Flows to this host whose RTS found no free receiver entry (registered fewest
    /// packets first).
    pub rx_wait: Vec<RxWait>,
    /// Time of the host's pending `HostTimer` (`NEVER`: none).
    pub timer_at: Time,
}

impl HostState {
    /// A host with the receiver block `rx`.
    pub fn new(rx: Rx) -> HostState {
        HostState {
            rx: Box::new(rx),
            tx: Box::new(Tx::new()),
            held: Vec::with_capacity(TOKENS),
            tx_wait: Vec::new(),
            rx_wait: Vec::new(),
            timer_at: NEVER,
        }
    }

    /// Bring the sender block to `now` (ps): tokens at their expiry go, from the block and
    /// from `held` alike.
    pub fn tx_sync(&mut self, now: Time) {
        let n = now.saturating_sub(self.tx.now());
        if n > 0 {
            rtl_models::Clocked::advance(&mut *self.tx, n);
            self.held.retain(|t| t.expiry > now);
        }
    }
}

/// Where a flow's sender is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxPhase {
    /// Not started.
    Idle,
    /// Waiting for a sender entry.
    Waiting,
    /// Sending (its RTS sent).
    Open,
    /// Its receiver said it has every packet.
    Done,
}

/// One flow at both ends.
#[derive(Debug, Clone)]
pub struct FlowState {
    /// DATA packets (fewer after a Wormhole fast-forward took packets off the end).
    pub pkts: u32,
    /// Payload bytes of the last packet (the message's remainder after full MTUs).
    pub tail: u32,
    /// A DATA named by a token was granted again (regrant): PSNs above the cursor may
    /// have been named before, so a fast-forward takes nothing more.
    pub regranted: bool,
    /// Of them sent on free tokens (the first BDP).
    pub free: u32,
    /// The sender's phase.
    pub tx: TxPhase,
    /// PSNs sent at least once.
    pub sent: Vec<u64>,
    /// One past the highest PSN sent (what a fast-forward leaves alone below it).
    pub hi_sent: u32,
    /// How many.
    pub sent_n: u32,
    /// DATA transmissions (first and repeated).
    pub data_sent: u64,
    /// Repeated transmissions.
    pub resent: u64,
    /// The next PSN a free token sends.
    pub next_free: u32,
    /// Last time the sender heard of the flow or sent for it (RTS re-send timer).
    pub last_news: Time,
    /// The receiver got the RTS.
    pub rts_seen: bool,
    /// The receiver waits for an entry for this flow.
    pub rx_waiting: bool,
    /// PSNs received.
    pub got: Vec<u64>,
    /// How many.
    pub received: u32,
    /// Where the next token's PSN is looked for.
    pub cursor: u32,
    /// Every packet received.
    pub complete: bool,
    /// Tokens the receiver sent for the flow (with a token window).
    pub tok_issued: u32,
    /// The latest token answered by a DATA, as its issue number (1-based; 0: none).
    pub tok_answered: u32,
    /// Per PSN, the issue number of the last token naming it (with a token window).
    pub tok_of: Vec<u32>,
}

impl FlowState {
    /// A flow of `pkts` packets, the first `free` on free tokens, the last carrying `tail`
    /// payload bytes.
    pub fn new(pkts: u32, free: u32, tail: u32) -> FlowState {
        FlowState {
            pkts,
            tail,
            regranted: false,
            free,
            tx: TxPhase::Idle,
            sent: Vec::new(),
            hi_sent: 0,
            sent_n: 0,
            data_sent: 0,
            resent: 0,
            next_free: 0,
            last_news: 0,
            rts_seen: false,
            rx_waiting: false,
            got: Vec::new(),
            received: 0,
            cursor: free,
            complete: false,
            tok_issued: 0,
            tok_answered: 0,
            tok_of: Vec::new(),
        }
    }

    /// The PSN a free token sends: the next unsent one below `free`, else the lowest
    /// unsent one.
    pub fn next_free_psn(&mut self) -> Option<u32> {
        let p = next_clear(&self.sent, self.next_free, self.free)
            .or_else(|| next_clear(&self.sent, 0, self.pkts))?;
        self.next_free = p + 1;
        Some(p)
    }

    /// The PSN the next token names: the first one not received from the cursor on,
    /// wrapping to the lowest missing one.
    pub fn next_token_psn(&mut self) -> Option<u32> {
        let p = next_clear(&self.got, self.cursor, self.pkts)
            .or_else(|| next_clear(&self.got, 0, self.pkts))?;
        self.cursor = p + 1;
        Some(p)
    }
}

/// A bitmap of `n` bits, clear.
pub fn bits(n: u32) -> Vec<u64> {
    vec![0; (n as usize).div_ceil(64)]
}

/// Set bit `i`; whether it was clear.
pub fn set(b: &mut [u64], i: u32) -> bool {
    let (w, m) = ((i / 64) as usize, 1u64 << (i % 64));
    match b.get_mut(w) {
        Some(x) if *x & m == 0 => {
            *x |= m;
            true
        }
        _ => false,
    }
}

/// Whether bit `i` is set.
pub fn get(b: &[u64], i: u32) -> bool {
    b.get((i / 64) as usize)
        .is_some_and(|x| x & (1 << (i % 64)) != 0)
}

/// The first clear bit in `from..to`.
pub fn next_clear(b: &[u64], from: u32, to: u32) -> Option<u32> {
    let mut i = from;
    while i < to {
        let w = (i / 64) as usize;
        let word = !b.get(w).copied().unwrap_or(0) & (u64::MAX << (i % 64));
        if word != 0 {
            let p = w as u32 * 64 + word.trailing_zeros();
            return (p < to).then_some(p);
        }
        i = (w as u32 + 1) * 64;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bitmaps_find_clear_bits_and_psns_wrap() {
        let mut b = bits(130);
        assert_eq!(next_clear(&b, 0, 130), Some(0));
        for i in 0..129 {
            assert!(set(&mut b, i));
        }
        assert!(!set(&mut b, 5) && get(&b, 5) && !get(&b, 129));
        assert_eq!(next_clear(&b, 3, 130), Some(129));
        assert_eq!(next_clear(&b, 3, 129), None);
        let mut f = FlowState::new(10, 4, 100);
        f.got = bits(10);
        for p in [4, 5, 7] {
            set(&mut f.got, p);
        }
        // Tokens start past the free packets, skip what arrived, then wrap.
        let named: Vec<u32> = (0..6).filter_map(|_| f.next_token_psn()).collect();
        assert_eq!(named, [6, 8, 9, 0, 1, 2]);
        f.sent = bits(10);
        set(&mut f.sent, 1);
        // Free sends go below `free` (skipping what was sent), then to the lowest unsent
        // PSN; the host marks each one sent.
        let mut free = Vec::new();
        for _ in 0..4 {
            let p = f.next_free_psn().unwrap();
            set(&mut f.sent, p);
            free.push(p);
        }
        assert_eq!(free, [0, 2, 3, 4]);
    }
}
