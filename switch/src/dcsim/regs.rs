//! Packed control registers of the DCSIM port arbiter: the block's hardware state budget.
//!
//! ```text
//!  bit 0                                                                           bit 199
//!  | tokens_q 64 | busy 16 | sim 4 | sim_ack 4 | data_ack 4 | data_len 16 | data_bytes 24 |
//!  | sim_drops 32 | data_drops 32 | pad 4 |
//! ```
//!
//! * `tokens_q`: SIM token-bucket fill, Q32.32 tokens (as [`rtl_models::TokenBucket`]).
//! * `busy`: cycles the line stays busy with the packet in transmission (<= 65535).
//! * `sim`, `sim_ack`, `data_ack`: small-queue occupancies, packets (`B <= 15`).
//! * `data_len`: DATA descriptors queued; `data_bytes`: DATA bytes queued (< 16 MiB).
//! * `sim_drops`, `data_drops`: saturating drop counters.
//!
//! 196 bits of state (25 bytes with 4 pad bits). Rate, depth, `B` and buffer sizes are
//! configuration (wired or CSR), not state.

// modular-bitfield 0.11 expands documented fields into parenthesised types.
#![allow(unused_parens)]

use modular_bitfield::prelude::*;

/// Bits of state in the packed form (without padding).
pub const ARBITER_REGS_BITS: u32 = 64 + 16 + 3 * 4 + 16 + 24 + 32 + 32;

/// The packed register word (25 bytes).
#[bitfield]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArbiterRegsPacked {
    /// Token fill, Q32.32.
    pub tokens_q: B64,
    /// Remaining busy cycles of the line.
    pub busy_remaining: B16,
    /// SIM queue occupancy.
    pub sim_len: B4,
    /// SIM-ACK queue occupancy.
    pub sim_ack_len: B4,
    /// DATA-ACK queue occupancy.
    pub data_ack_len: B4,
    /// DATA descriptors queued.
    pub data_len: B16,
    /// DATA bytes queued.
    pub data_bytes: B24,
    /// SIMs dropped (saturating).
    pub sim_drops: B32,
    /// DATAs dropped (saturating).
    pub data_drops: B32,
    #[skip]
    __: B4,
}

impl Default for ArbiterRegsPacked {
    fn default() -> Self {
        Self::new()
    }
}

const _: () = assert!(
    ARBITER_REGS_BITS as usize <= 8 * core::mem::size_of::<ArbiterRegsPacked>()
        && 8 * core::mem::size_of::<ArbiterRegsPacked>() - (ARBITER_REGS_BITS as usize) < 8
);

/// The logical view of the registers (what [`super::DcsimArbiter::regs`] reports).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ArbiterRegs {
    /// Token fill, Q32.32.
    pub tokens_q: u64,
    /// Remaining busy cycles of the line.
    pub busy_remaining: u16,
    /// SIM queue occupancy (< 16).
    pub sim_len: u8,
    /// SIM-ACK queue occupancy (< 16).
    pub sim_ack_len: u8,
    /// DATA-ACK queue occupancy (< 16).
    pub data_ack_len: u8,
    /// DATA descriptors queued.
    pub data_len: u16,
    /// DATA bytes queued (< 2^24).
    pub data_bytes: u32,
    /// SIMs dropped (saturating).
    pub sim_drops: u32,
    /// DATAs dropped (saturating).
    pub data_drops: u32,
}

impl ArbiterRegs {
    /// Pack; `None` if a field exceeds its width (occupancy >= 16, bytes >= 2^24).
    pub fn pack(&self) -> Option<ArbiterRegsPacked> {
        if self.sim_len > 15
            || self.sim_ack_len > 15
            || self.data_ack_len > 15
            || self.data_bytes >= 1 << 24
        {
            return None;
        }
        Some(
            ArbiterRegsPacked::new()
                .with_tokens_q(self.tokens_q)
                .with_busy_remaining(self.busy_remaining)
                .with_sim_len(self.sim_len)
                .with_sim_ack_len(self.sim_ack_len)
                .with_data_ack_len(self.data_ack_len)
                .with_data_len(self.data_len)
                .with_data_bytes(self.data_bytes)
                .with_sim_drops(self.sim_drops)
                .with_data_drops(self.data_drops),
        )
    }

    /// Unpack.
    pub fn unpack(p: ArbiterRegsPacked) -> Self {
        ArbiterRegs {
            tokens_q: p.tokens_q(),
            busy_remaining: p.busy_remaining(),
            sim_len: p.sim_len(),
            sim_ack_len: p.sim_ack_len(),
            data_ack_len: p.data_ack_len(),
            data_len: p.data_len(),
            data_bytes: p.data_bytes(),
            sim_drops: p.sim_drops(),
            data_drops: p.data_drops(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn packed_size_is_25_bytes() {
        assert_eq!(core::mem::size_of::<ArbiterRegsPacked>(), 25);
        assert_eq!(ARBITER_REGS_BITS, 196);
    }

    #[test]
    fn golden_bytes() {
        let r = ArbiterRegs {
            tokens_q: 1 << 32,
            busy_remaining: 0x0102,
            sim_len: 3,
            sim_ack_len: 1,
            data_ack_len: 0xF,
            data_len: 2,
            data_bytes: 0x00AB_CDEF,
            sim_drops: 7,
            data_drops: 0,
        };
        let b = r.pack().unwrap().into_bytes();
        // Little-endian bit order: tokens_q occupies bytes 0..8, busy bytes 8..10, then
        // nibbles sim (low) / sim_ack (high) in byte 10, data_ack in the low nibble of 11.
        assert_eq!(&b[0..8], &[0, 0, 0, 0, 1, 0, 0, 0]);
        assert_eq!(&b[8..10], &[0x02, 0x01]);
        assert_eq!(b[10], 0x13);
        assert_eq!(b[11] & 0x0F, 0x0F);
    }

    proptest! {
        #[test]
        fn pack_unpack_round_trip(tokens_q: u64, busy_remaining: u16, sim_len in 0u8..16,
                                  sim_ack_len in 0u8..16, data_ack_len in 0u8..16, data_len: u16,
                                  data_bytes in 0u32..(1 << 24), sim_drops: u32, data_drops: u32) {
            let r = ArbiterRegs { tokens_q, busy_remaining, sim_len, sim_ack_len, data_ack_len,
                                  data_len, data_bytes, sim_drops, data_drops };
            let p = r.pack().unwrap();
            prop_assert_eq!(ArbiterRegs::unpack(ArbiterRegsPacked::from_bytes(p.into_bytes())), r);
        }

        #[test]
        fn too_wide_fields_refuse_to_pack(sim_len in 16u8..=255) {
            let r = ArbiterRegs { sim_len, ..Default::default() };
            prop_assert!(r.pack().is_none());
        }
    }
}
