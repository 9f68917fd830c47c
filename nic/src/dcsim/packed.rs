//! Packed hardware forms of the DCSIM host state: the per-flow context word, one
//! outstanding-SIM entry, one DATA-window slot and the receiver word. They state the
//! budget ([`rtl_models::StateBudget`] impls) and round-trip with the model's state.
//!
//! ```text
//!  FlowCtx     | collective 8 | total 32 | next_new 32 | base 32 | n_sim 16 | n_retx 16 |
//!              | in_flight 16 | acked 32 |                                    = 184 bits
//!  SimEntry    | state 2 | ev 16 | t_sim 32 |                         = 50 bits (+6 pad)
//!  DataSlot    | state 3 | ev 16 | time 32 |                          = 51 bits (+5 pad)
//!  Receiver    | cum 32 | sack 64 | since_ack 16 | pending 1 | pending_since 32 |
//!              | ack_ready 1 |                                      = 146 bits (+6 pad)
//! ```
//!
//! Timestamps are stored as their low 32 bits (4.3 s at 1 GHz); every stored time is
//! within `MAX_TIMER_CYCLES < 2^31` of the current cycle, so [`widen`] recovers it exactly
//! (serial-number arithmetic, as an RTL comparator does).

// modular-bitfield 0.11 expands documented fields into parenthesised types.
#![allow(unused_parens)]

use modular_bitfield::prelude::*;
use rtl_models::{Cycles, StateBudget};

use super::flow::{DataSlot, DataState, DcsimFlow, SimEntry};

/// Bits of the per-flow context word.
pub const FLOW_CTX_BITS: u32 = 8 + 32 * 3 + 16 * 3 + 32;
/// Bits of one outstanding-SIM entry.
pub const SIM_ENTRY_BITS: u32 = 2 + 16 + 32;
/// Bits of one DATA-window slot.
pub const DATA_SLOT_BITS: u32 = 3 + 16 + 32;
/// Bits of the receiver word.
pub const RECEIVER_BITS: u32 = 32 + 64 + 16 + 1 + 32 + 1;

/// The full time whose low 32 bits are `lo` and which is nearest to `now` (within 2^31).
pub const fn widen(lo: u32, now: Cycles) -> Cycles {
    let diff = lo.wrapping_sub(now as u32) as i32;
    now.wrapping_add_signed(diff as i64)
}

/// The per-flow context (logical view).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FlowCtx {
    /// Local collective index.
    pub collective: u8,
    /// DATAs handed to the flow.
    pub total: u32,
    /// Next never-associated sequence number.
    pub next_new: u32,
    /// Window start (lowest unacked).
    pub base: u32,
    /// Outstanding SIMs.
    pub n_sim: u16,
    /// Timed-out DATAs waiting for a SIM.
    pub n_retx: u16,
    /// DATAs in states (2)-(4).
    pub in_flight: u16,
    /// DATAs acknowledged.
    pub acked: u32,
}

/// The packed per-flow context word (23 bytes).
#[bitfield]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlowCtxPacked {
    collective: B8,
    total: B32,
    next_new: B32,
    base: B32,
    n_sim: B16,
    n_retx: B16,
    in_flight: B16,
    acked: B32,
}

impl FlowCtx {
    /// Pack.
    pub fn pack(&self) -> FlowCtxPacked {
        FlowCtxPacked::new()
            .with_collective(self.collective)
            .with_total(self.total)
            .with_next_new(self.next_new)
            .with_base(self.base)
            .with_n_sim(self.n_sim)
            .with_n_retx(self.n_retx)
            .with_in_flight(self.in_flight)
            .with_acked(self.acked)
    }
    /// Unpack.
    pub fn unpack(p: FlowCtxPacked) -> Self {
        FlowCtx {
            collective: p.collective(),
            total: p.total(),
            next_new: p.next_new(),
            base: p.base(),
            n_sim: p.n_sim(),
            n_retx: p.n_retx(),
            in_flight: p.in_flight(),
            acked: p.acked(),
        }
    }
}

/// A packed outstanding-SIM entry (7 bytes).
#[bitfield]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SimEntryPacked {
    state: B2,
    ev: B16,
    t_sim: B32,
    #[skip]
    __: B6,
}

impl SimEntry {
    /// Pack (`t_sim` keeps its low 32 bits).
    pub fn pack(&self) -> SimEntryPacked {
        let (state, ev, t) = match *self {
            SimEntry::Free => (0, 0, 0),
            SimEntry::Queued { ev } => (1, ev, 0),
            SimEntry::Sent { ev, t_sim } => (2, ev, t_sim as u32),
        };
        SimEntryPacked::new()
            .with_state(state)
            .with_ev(ev)
            .with_t_sim(t)
    }
    /// Unpack, widening `t_sim` around `now`; `None` for the unused state code 3.
    pub fn unpack(p: SimEntryPacked, now: Cycles) -> Option<Self> {
        Some(match p.state() {
            0 => SimEntry::Free,
            1 => SimEntry::Queued { ev: p.ev() },
            2 => SimEntry::Sent {
                ev: p.ev(),
                t_sim: widen(p.t_sim(), now),
            },
            _ => return None,
        })
    }
}

/// A packed DATA-window slot (7 bytes).
#[bitfield]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DataSlotPacked {
    state: B3,
    ev: B16,
    time: B32,
    #[skip]
    __: B5,
}

impl DataSlot {
    /// Pack (times keep their low 32 bits).
    pub fn pack(&self) -> DataSlotPacked {
        let (state, ev, t) = match *self {
            DataSlot::Empty => (0, 0, 0),
            DataSlot::Live(DataState::WaitingSim) => (1, 0, 0),
            DataSlot::Live(DataState::WaitingGreenLight { ev, release_at }) => {
                (2, ev, release_at as u32)
            }
            DataSlot::Live(DataState::Queued { ev }) => (3, ev, 0),
            DataSlot::Live(DataState::SideBuffer { ev, timeout_at }) => (4, ev, timeout_at as u32),
            DataSlot::Acked => (5, 0, 0),
        };
        DataSlotPacked::new()
            .with_state(state)
            .with_ev(ev)
            .with_time(t)
    }
    /// Unpack, widening times around `now`; `None` for unused state codes 6 and 7.
    pub fn unpack(p: DataSlotPacked, now: Cycles) -> Option<Self> {
        let ev = p.ev();
        let t = widen(p.time(), now);
        Some(match p.state() {
            0 => DataSlot::Empty,
            1 => DataSlot::Live(DataState::WaitingSim),
            2 => DataSlot::Live(DataState::WaitingGreenLight { ev, release_at: t }),
            3 => DataSlot::Live(DataState::Queued { ev }),
            4 => DataSlot::Live(DataState::SideBuffer { ev, timeout_at: t }),
            5 => DataSlot::Acked,
            _ => return None,
        })
    }
}

/// The receiver registers (logical view).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ReceiverRegs {
    /// Cumulative point.
    pub cum: u32,
    /// Selective map above `cum`.
    pub sack: u64,
    /// DATAs since the last DATA-ACK.
    pub since_ack: u16,
    /// Whether DATAs wait for a DATA-ACK.
    pub pending: bool,
    /// Arrival of the oldest of them (meaningful when `pending`).
    pub pending_since: Cycles,
    /// Whether a DATA-ACK waits in the output register.
    pub ack_ready: bool,
}

/// The packed receiver word (19 bytes).
#[bitfield]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReceiverPacked {
    cum: B32,
    sack: B64,
    since_ack: B16,
    pending: bool,
    pending_since: B32,
    ack_ready: bool,
    #[skip]
    __: B6,
}

impl ReceiverRegs {
    /// Pack (`pending_since` keeps its low 32 bits).
    pub fn pack(&self) -> ReceiverPacked {
        ReceiverPacked::new()
            .with_cum(self.cum)
            .with_sack(self.sack)
            .with_since_ack(self.since_ack)
            .with_pending(self.pending)
            .with_pending_since(self.pending_since as u32)
            .with_ack_ready(self.ack_ready)
    }
    /// Unpack, widening `pending_since` around `now`.
    pub fn unpack(p: ReceiverPacked, now: Cycles) -> Self {
        ReceiverRegs {
            cum: p.cum(),
            sack: p.sack(),
            since_ack: p.since_ack(),
            pending: p.pending(),
            pending_since: if p.pending() {
                widen(p.pending_since(), now)
            } else {
                0
            },
            ack_ready: p.ack_ready(),
        }
    }
}

impl Default for FlowCtxPacked {
    fn default() -> Self {
        Self::new()
    }
}

impl Default for SimEntryPacked {
    fn default() -> Self {
        Self::new()
    }
}

impl Default for DataSlotPacked {
    fn default() -> Self {
        Self::new()
    }
}

impl Default for ReceiverPacked {
    fn default() -> Self {
        Self::new()
    }
}

const fn fits(bits: u32, bytes: usize) -> bool {
    bits as usize <= 8 * bytes && 8 * bytes - (bits as usize) < 8
}
const _: () =
    assert!(FLOW_CTX_BITS == 184 && fits(FLOW_CTX_BITS, core::mem::size_of::<FlowCtxPacked>()));
const _: () = assert!(fits(SIM_ENTRY_BITS, core::mem::size_of::<SimEntryPacked>()));
const _: () = assert!(fits(DATA_SLOT_BITS, core::mem::size_of::<DataSlotPacked>()));
const _: () = assert!(fits(RECEIVER_BITS, core::mem::size_of::<ReceiverPacked>()));

/// Budget of one flow at the sender: the context word, `S` SIM entries and `N` window
/// slots. The model's timer queues are an index over these timestamps (hardware uses a
/// comparator tree) and are not counted.
impl<const S: usize, const N: usize> StateBudget for DcsimFlow<S, N> {
    const NAME: &'static str = "DCSIM host flow (ctx + S SIM entries + N DATA slots)";
    const BITS: u32 = FLOW_CTX_BITS + S as u32 * SIM_ENTRY_BITS + N as u32 * DATA_SLOT_BITS;
    const UNIT: &'static str = "per flow";
    const PAPER_REF: &'static str = "DCSIM 2.4 (no figure given)";
}

/// Budget of one outstanding-SIM entry.
impl StateBudget for SimEntry {
    const NAME: &'static str = "DCSIM outstanding SIM entry (state, EV, t_SIM)";
    const BITS: u32 = SIM_ENTRY_BITS;
    const UNIT: &'static str = "per outstanding SIM";
}

/// Budget of one DATA-window slot.
impl StateBudget for DataSlot {
    const NAME: &'static str = "DCSIM DATA window slot (state, EV, time)";
    const BITS: u32 = DATA_SLOT_BITS;
    const UNIT: &'static str = "per DATA in flight";
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn widths() {
        assert_eq!(core::mem::size_of::<FlowCtxPacked>(), 23);
        assert_eq!(core::mem::size_of::<SimEntryPacked>(), 7);
        assert_eq!(core::mem::size_of::<DataSlotPacked>(), 7);
        assert_eq!(core::mem::size_of::<ReceiverPacked>(), 19);
        // One 800 Gb/s flow at RTT_max ~ 22 us: 256 SIMs, 512 DATAs.
        assert_eq!(
            <DcsimFlow<256, 512> as StateBudget>::BITS,
            184 + 256 * 50 + 512 * 51
        );
    }

    #[test]
    fn golden_sim_entry_bytes() {
        let e = SimEntry::Sent {
            ev: 0xBEEF,
            t_sim: 0x1_2345_6789,
        };
        // state 2 in bits 0-1, ev in bits 2-17, t_sim low 32 bits in bits 18-49.
        let b = e.pack().into_bytes();
        let v = u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], 0]);
        assert_eq!(v & 3, 2);
        assert_eq!((v >> 2) & 0xFFFF, 0xBEEF);
        assert_eq!((v >> 18) & 0xFFFF_FFFF, 0x2345_6789);
        assert_eq!(SimEntry::unpack(e.pack(), 0x1_2345_0000), Some(e));
    }

    fn data_slot() -> impl Strategy<Value = (DataSlot, u64)> {
        (
            0u8..6,
            any::<u16>(),
            (1u64 << 32)..(1u64 << 40),
            -(1i64 << 30)..(1i64 << 30),
        )
            .prop_map(|(k, ev, now, d)| {
                let t = now.wrapping_add_signed(d);
                let s = match k {
                    0 => DataSlot::Empty,
                    1 => DataSlot::Live(DataState::WaitingSim),
                    2 => DataSlot::Live(DataState::WaitingGreenLight { ev, release_at: t }),
                    3 => DataSlot::Live(DataState::Queued { ev }),
                    4 => DataSlot::Live(DataState::SideBuffer { ev, timeout_at: t }),
                    _ => DataSlot::Acked,
                };
                (s, now)
            })
    }

    proptest! {
        #[test]
        fn data_slot_round_trip((s, now) in data_slot()) {
            let p = DataSlotPacked::from_bytes(s.pack().into_bytes());
            prop_assert_eq!(DataSlot::unpack(p, now), Some(s));
        }

        #[test]
        fn sim_entry_round_trip(k in 0u8..3, ev: u16, now in (1u64 << 32)..(1u64 << 40),
                               d in -(1i64 << 30)..(1i64 << 30)) {
            let e = match k {
                0 => SimEntry::Free,
                1 => SimEntry::Queued { ev },
                _ => SimEntry::Sent { ev, t_sim: now.wrapping_add_signed(d) },
            };
            let p = SimEntryPacked::from_bytes(e.pack().into_bytes());
            prop_assert_eq!(SimEntry::unpack(p, now), Some(e));
        }

        #[test]
        fn flow_ctx_round_trip(collective: u8, total: u32, next_new: u32, base: u32,
                               n_sim: u16, n_retx: u16, in_flight: u16, acked: u32) {
            let c = FlowCtx { collective, total, next_new, base, n_sim, n_retx, in_flight, acked };
            prop_assert_eq!(FlowCtx::unpack(FlowCtxPacked::from_bytes(c.pack().into_bytes())), c);
        }

        #[test]
        fn receiver_round_trip(cum: u32, sack: u64, since_ack: u16, pending: bool,
                               now in (1u64 << 32)..(1u64 << 40), d in -(1i64 << 30)..=0,
                               ack_ready: bool) {
            let r = ReceiverRegs { cum, sack, since_ack, pending,
                                   pending_since: if pending { now.wrapping_add_signed(d) } else { 0 },
                                   ack_ready };
            let p = ReceiverPacked::from_bytes(r.pack().into_bytes());
            prop_assert_eq!(ReceiverRegs::unpack(p, now), r);
        }
    }
}
