//! The erasure code of UnoRC: a systematic Reed-Solomon (MDS) code over GF(2^8), the
//! `reed-solomon-erasure` crate, applied to a small per-packet payload model (Uno 3.3, 4.2).
//!
//! Each data packet carries [`PAYLOAD_BYTES`] bytes derived from `(flow, psn)`
//! ([`payload`]); a block's `y` parity packets carry the Reed-Solomon parity of its `x`
//! data payloads. The receiver really reconstructs the data payloads from any `x` of the
//! `x + y` packets and checks them against the model. Systematic: data packets carry their
//! payload unchanged.
//!
//! Behind the `ec` feature because the crate needs `alloc` (its matrices and shard
//! lists are `Vec`s): the block state machines ([`super::rc`]) stay alloc-free; the codec is
//! what a software shim at the NIC would run (Uno 6: "UnoRC is deployable as software shim
//! layers").

extern crate alloc;

use alloc::vec::Vec;
use reed_solomon_erasure::galois_8::ReedSolomon;
use rtl_models::ConfigError;

/// Bytes of the payload model per packet.
pub const PAYLOAD_BYTES: usize = 8;

/// A packet's payload.
pub type Payload = [u8; PAYLOAD_BYTES];

/// The payload of data packet `psn` of flow `flow`: a 64-bit mix of both (splitmix64).
pub fn payload(flow: u32, psn: u32) -> Payload {
    let mut z = ((flow as u64) << 32 | psn as u64).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (z ^ (z >> 31)).to_le_bytes()
}

/// Why a block did not decode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecodeError {
    /// Fewer than `x` packets: the receiver must NACK the block.
    TooFewPackets {
        /// Packets present.
        have: usize,
        /// Packets needed (x).
        need: usize,
    },
    /// The slice did not have `x + y` slots.
    WrongLength,
    /// The reconstructed data do not match the payload model (cannot happen with correct
    /// packets; reported, never a panic).
    Mismatch,
}

/// An `(x, y)` block codec.
#[derive(Debug)]
pub struct BlockCodec {
    rs: ReedSolomon,
    x: usize,
    y: usize,
}

impl BlockCodec {
    /// A codec of `x` data and `y` parity packets (`y >= 1`, `x + y <= 256`).
    pub fn new(x: u8, y: u8) -> Result<Self, ConfigError> {
        if x == 0 {
            return Err(ConfigError::new("data", "must be above zero"));
        }
        if y == 0 {
            return Err(ConfigError::new("parity", "must be above zero to code"));
        }
        let rs = ReedSolomon::new(x as usize, y as usize)
            .map_err(|_| ConfigError::new("parity", "x + y must be at most 256"))?;
        Ok(BlockCodec {
            rs,
            x: x as usize,
            y: y as usize,
        })
    }

    /// Data packets per block.
    pub fn data(&self) -> usize {
        self.x
    }

    /// Parity packets per block.
    pub fn parity(&self) -> usize {
        self.y
    }

    /// The `x + y` payloads of block `block` of flow `flow` (data of psns
    /// `block * x ..`, then parity).
    pub fn encode(&self, flow: u32, block: u32) -> Vec<Payload> {
        let mut shards: Vec<Payload> = (0..self.x as u32)
            .map(|i| payload(flow, block * self.x as u32 + i))
            .chain((0..self.y).map(|_| [0; PAYLOAD_BYTES]))
            .collect();
        // Cannot fail: x + y shards of equal length.
        let _ = self.rs.encode(&mut shards);
        shards
    }

    /// Reconstruct the `x` data payloads of a block from the received slots (`None` = lost)
    /// and check them against the model for `flow`, `block`.
    pub fn decode(
        &self,
        flow: u32,
        block: u32,
        received: &[Option<Payload>],
    ) -> Result<Vec<Payload>, DecodeError> {
        if received.len() != self.x + self.y {
            return Err(DecodeError::WrongLength);
        }
        let have = received.iter().filter(|s| s.is_some()).count();
        if have < self.x {
            return Err(DecodeError::TooFewPackets { have, need: self.x });
        }
        let mut shards: Vec<Option<Vec<u8>>> =
            received.iter().map(|s| s.map(|p| p.to_vec())).collect();
        self.rs
            .reconstruct_data(&mut shards)
            .map_err(|_| DecodeError::Mismatch)?;
        let mut out = Vec::with_capacity(self.x);
        for (i, s) in shards.into_iter().take(self.x).enumerate() {
            let s = s.ok_or(DecodeError::Mismatch)?;
            let p: Payload = s.as_slice().try_into().map_err(|_| DecodeError::Mismatch)?;
            if p != payload(flow, block * self.x as u32 + i as u32) {
                return Err(DecodeError::Mismatch);
            }
            out.push(p);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn systematic_and_real() {
        let c = BlockCodec::new(8, 2).unwrap();
        let b = c.encode(3, 4);
        for (i, p) in b.iter().take(8).enumerate() {
            assert_eq!(*p, payload(3, 32 + i as u32));
        }
        // Parity is not trivially zero and depends on the data.
        assert_ne!(b[8], [0; 8]);
        assert_ne!(c.encode(3, 5)[8], b[8]);
        // A corrupted packet (not an erasure) is caught by the model check.
        let mut rx: Vec<Option<Payload>> = b.iter().map(|p| Some(*p)).collect();
        rx[0] = None;
        rx[1] = Some([0xAA; 8]);
        rx[2] = None;
        assert_eq!(c.decode(3, 4, &rx), Err(DecodeError::Mismatch));
        assert_eq!(BlockCodec::new(0, 2).unwrap_err().field, "data");
        assert_eq!(BlockCodec::new(8, 0).unwrap_err().field, "parity");
    }

    proptest! {
        #[test]
        fn any_x_of_x_plus_y_decode_fewer_do_not(lost in proptest::collection::btree_set(0usize..10, 0..=5),
                                                 flow: u32, block in 0u32..1000) {
            let c = BlockCodec::new(8, 2).unwrap();
            let sent = c.encode(flow, block);
            let rx: Vec<Option<Payload>> = sent.iter().enumerate()
                .map(|(i, p)| (!lost.contains(&i)).then_some(*p)).collect();
            match c.decode(flow, block, &rx) {
                Ok(data) => {
                    prop_assert!(lost.len() <= 2);
                    prop_assert_eq!(&data[..], &sent[..8]);
                }
                Err(e) => {
                    prop_assert!(lost.len() > 2);
                    prop_assert_eq!(e, DecodeError::TooFewPackets { have: 10 - lost.len(), need: 8 });
                }
            }
        }
    }
}
