//! The Zeropod data-cell header (§III-B1, §IV-B3, §V-A): 40 B in front of a 512 B payload.
//!
//! ```text
//!  byte    bits   field                                       width
//!  0       1:0    kind (0 = data)                             u2
//!  0       2      scheduled (1) / optimistic (0) (§IV-B3)     u1
//!  0       5:3    priority (PIAS level, 0 = highest) (§IV-B)  u3
//!  0       7:6    reserved (0)
//!  1..6           source route (see `route`)                  36
//!  6..8           src host                                    u16
//!  8..10          dst host                                    u16
//!  10..12         flow id                                     u16
//!  12..16         sequence number (cells of the flow)         u32
//!  16..18  9:0    payload length in bytes (0..=512)           u10
//!  16..18  15:10  reserved (0)
//!  18..40         reserved (0)
//!                                                      used  132 of 320 bits
//! ```

use arbitrary_int::{u10, u3};

use super::route::{Route, ROUTE_BITS};
use super::{bytes, check_len, CellError, CellKind, HEADER_BITS, HEADER_LEN, PAYLOAD_LEN};
use crate::BudgetRow;

/// Byte positions of the data-header fields.
#[allow(missing_docs)]
pub mod field {
    pub const FLAGS: usize = 0;
    pub const ROUTE: core::ops::Range<usize> = 1..6;
    pub const SRC: usize = 6;
    pub const DST: usize = 8;
    pub const FLOW: usize = 10;
    pub const SEQ: usize = 12;
    pub const LEN: usize = 16;
    pub const RESERVED: core::ops::Range<usize> = 18..40;
    pub const SCHEDULED: u8 = 0x04;
    pub const PRIO_SHIFT: u32 = 3;
    pub const PRIO_MASK: u8 = 0x38;
}

/// Bits the data header's fields use.
pub const USED_BITS: u32 = 2 + 1 + 3 + ROUTE_BITS + 16 + 16 + 16 + 32 + 10;
const _: () = assert!(USED_BITS <= HEADER_BITS);
const _: () = assert!(field::RESERVED.start * 8 >= USED_BITS as usize);

pub(crate) const fn field_row(block: &'static str, bits: u32) -> BudgetRow {
    BudgetRow {
        block,
        krate: "rtl-models",
        unit: "per data cell",
        bits,
        bytes: bits.div_ceil(8),
        paper_bits: Some(HEADER_BITS),
        paper_ref: "Zeropod V-A: 40 B header",
    }
}

/// A read/write view of a data-cell header in a byte buffer (smoltcp `Packet` style).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DataHeader<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> DataHeader<T> {
    /// Wrap without checking the length (short buffers read 0 and ignore writes).
    pub const fn new_unchecked(buffer: T) -> Self {
        DataHeader { buffer }
    }
    /// Wrap, checking the buffer holds a whole 40 B header.
    pub fn new_checked(buffer: T) -> Result<Self, CellError> {
        check_len(buffer.as_ref().len())?;
        Ok(DataHeader { buffer })
    }
    /// The underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }
    fn b(&self) -> &[u8] {
        self.buffer.as_ref()
    }
    /// Raw kind bits (0 for a data cell).
    pub fn kind_bits(&self) -> u8 {
        bytes::get(self.b(), field::FLAGS) & 0b11
    }
    /// Scheduled (true) or optimistic (false).
    pub fn scheduled(&self) -> bool {
        bytes::get(self.b(), field::FLAGS) & field::SCHEDULED != 0
    }
    /// PIAS priority level (0 highest).
    pub fn priority(&self) -> u3 {
        u3::new((bytes::get(self.b(), field::FLAGS) & field::PRIO_MASK) >> field::PRIO_SHIFT)
    }
    /// The source route (checked).
    pub fn route(&self) -> Result<Route, CellError> {
        let b = self.b();
        Route::parse(b.get(field::ROUTE).unwrap_or(&[]))
    }
    /// Source host.
    pub fn src(&self) -> u16 {
        bytes::get_le(self.b(), field::SRC, 2) as u16
    }
    /// Destination host.
    pub fn dst(&self) -> u16 {
        bytes::get_le(self.b(), field::DST, 2) as u16
    }
    /// Flow id.
    pub fn flow(&self) -> u16 {
        bytes::get_le(self.b(), field::FLOW, 2) as u16
    }
    /// Sequence number of the cell in its flow.
    pub fn seq(&self) -> u32 {
        bytes::get_le(self.b(), field::SEQ, 4) as u32
    }
    /// Raw 16-bit length word (payload length in bits 9:0).
    pub fn len_word(&self) -> u16 {
        bytes::get_le(self.b(), field::LEN, 2) as u16
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> DataHeader<T> {
    fn bm(&mut self) -> &mut [u8] {
        self.buffer.as_mut()
    }
    /// Write the kind bits.
    pub fn set_kind_bits(&mut self, k: u8) {
        bytes::set(self.bm(), field::FLAGS, 0b11, k);
    }
    /// Write the scheduled flag.
    pub fn set_scheduled(&mut self, s: bool) {
        let v = if s { field::SCHEDULED } else { 0 };
        bytes::set(self.bm(), field::FLAGS, field::SCHEDULED, v);
    }
    /// Write the priority level.
    pub fn set_priority(&mut self, p: u3) {
        bytes::set(
            self.bm(),
            field::FLAGS,
            field::PRIO_MASK,
            p.value() << field::PRIO_SHIFT,
        );
    }
    /// Write the route (a switch rewrites it with the pointer advanced).
    pub fn set_route(&mut self, r: &Route) {
        if let Some(b) = self.bm().get_mut(field::ROUTE) {
            r.emit(b);
        }
    }
    /// Write the source host.
    pub fn set_src(&mut self, v: u16) {
        bytes::set_le(self.bm(), field::SRC, 2, v as u64);
    }
    /// Write the destination host.
    pub fn set_dst(&mut self, v: u16) {
        bytes::set_le(self.bm(), field::DST, 2, v as u64);
    }
    /// Write the flow id.
    pub fn set_flow(&mut self, v: u16) {
        bytes::set_le(self.bm(), field::FLOW, 2, v as u64);
    }
    /// Write the sequence number.
    pub fn set_seq(&mut self, v: u32) {
        bytes::set_le(self.bm(), field::SEQ, 4, v as u64);
    }
    /// Write the payload length.
    pub fn set_len(&mut self, v: u10) {
        bytes::set_le(self.bm(), field::LEN, 2, v.value() as u64);
    }
}

/// The logical data-cell header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct DataHeaderRepr {
    /// Scheduled (true) or optimistic (false) (§IV-B3).
    pub scheduled: bool,
    /// PIAS priority level, 0 highest (§IV-B).
    pub priority: u3,
    /// Source route (§III-B1).
    pub route: Route,
    /// Source host.
    pub src: u16,
    /// Destination host.
    pub dst: u16,
    /// Flow id.
    pub flow: u16,
    /// Cell sequence number within the flow, for reassembly (§III-B1).
    pub seq: u32,
    /// Payload bytes (0..=512).
    pub len: u10,
}

impl DataHeaderRepr {
    /// Parse a header: checks length, kind, reserved bits, route and payload length.
    pub fn parse<T: AsRef<[u8]>>(h: &DataHeader<T>) -> Result<Self, CellError> {
        check_len(h.b().len())?;
        if CellKind::from_bits(h.kind_bits())? != CellKind::Data {
            return Err(CellError::Field {
                field: "kind",
                problem: "not a data cell",
            });
        }
        if bytes::get(h.b(), field::FLAGS) & 0xc0 != 0 {
            return Err(CellError::Field {
                field: "flags.reserved",
                problem: "bits 7:6 of byte 0 must be zero",
            });
        }
        let lw = h.len_word();
        if lw > PAYLOAD_LEN as u16 {
            return Err(CellError::Field {
                field: "len",
                problem: "payload length above 512 bytes",
            });
        }
        if h.b()[field::RESERVED].iter().any(|&x| x != 0) {
            return Err(CellError::Field {
                field: "reserved",
                problem: "bytes 18..40 must be zero",
            });
        }
        Ok(DataHeaderRepr {
            scheduled: h.scheduled(),
            priority: h.priority(),
            route: h.route()?,
            src: h.src(),
            dst: h.dst(),
            flow: h.flow(),
            seq: h.seq(),
            len: u10::new(lw),
        })
    }

    /// Write every field (reserved bytes zeroed).
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, h: &mut DataHeader<T>) {
        let n = h.b().len().min(HEADER_LEN);
        h.bm()[..n].fill(0);
        h.set_kind_bits(CellKind::Data as u8);
        h.set_scheduled(self.scheduled);
        h.set_priority(self.priority);
        h.set_route(&self.route);
        h.set_src(self.src);
        h.set_dst(self.dst);
        h.set_flow(self.flow);
        h.set_seq(self.seq);
        h.set_len(self.len);
    }

    /// The packed 40 bytes.
    pub fn to_bytes(&self) -> [u8; HEADER_LEN] {
        let mut h = DataHeader::new_unchecked([0u8; HEADER_LEN]);
        self.emit(&mut h);
        h.into_inner()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> DataHeaderRepr {
        DataHeaderRepr {
            scheduled: true,
            priority: u3::new(2),
            route: Route::new(&[5, 2, 3]).unwrap(),
            src: 0x0102,
            dst: 0x0304,
            flow: 0xbeef,
            seq: 0x0a0b_0c0d,
            len: u10::new(512),
        }
    }

    #[test]
    fn golden_bytes() {
        let b = sample().to_bytes();
        let mut want = [0u8; HEADER_LEN];
        want[..18].copy_from_slice(&[
            0x14, // kind 0 | scheduled 0x04 | prio 2 << 3
            0x03, 0x85, 0x30, 0x00, 0x00, // route
            0x02, 0x01, 0x04, 0x03, 0xef, 0xbe, // src, dst, flow
            0x0d, 0x0c, 0x0b, 0x0a, // seq
            0x00, 0x02, // len 512
        ]);
        assert_eq!(b, want);
        assert_eq!(
            DataHeaderRepr::parse(&DataHeader::new_checked(&b[..]).unwrap()).unwrap(),
            sample()
        );
    }

    #[test]
    fn bad_input_names_the_field() {
        let b = sample().to_bytes();
        assert!(matches!(
            DataHeader::new_checked(&b[..39]),
            Err(CellError::Truncated { len: 39, need: 40 })
        ));
        let mut c = b;
        c[16] = 0x01;
        c[17] = 0x02; // 513
        let e = DataHeaderRepr::parse(&DataHeader::new_unchecked(&c[..])).unwrap_err();
        assert!(matches!(e, CellError::Field { field: "len", .. }));
        let mut c = b;
        c[0] |= 1; // RTS kind
        let e = DataHeaderRepr::parse(&DataHeader::new_unchecked(&c[..])).unwrap_err();
        assert!(matches!(e, CellError::Field { field: "kind", .. }));
        let mut c = b;
        c[39] = 1;
        let e = DataHeaderRepr::parse(&DataHeader::new_unchecked(&c[..])).unwrap_err();
        assert!(matches!(
            e,
            CellError::Field {
                field: "reserved",
                ..
            }
        ));
    }
}
