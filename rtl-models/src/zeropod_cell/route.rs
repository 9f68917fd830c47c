//! The Zeropod source route (§III-B1): "source routing information in cell headers, which
//! indicate the hop-by-hop forwarding port of switches along the path. At each hop, the
//! switch parses the routing information and forwards the cell to the corresponding port."
//!
//! ```text
//!  byte  bits   field                          width
//!  0     2:0    hops   (route length, 0..=5)   u3
//!  0     5:3    ptr    (next hop to use)       u3
//!  0     7:6    reserved (0)
//!  1..5  29:0   port[h] at bits 6h..6h+6       5 x u6   (k <= 64 port switches)
//!  1..5  31:30  reserved (0)
//!                                       total  36 bits in 5 bytes
//! ```
//!
//! Five hops cover the longest Zeropod path: source ToR up, source Agg up, Core out,
//! destination Agg down, destination ToR down (E2E uses 3: ToR up, Agg down, ToR down).

use arbitrary_int::{u3, u6};

use super::bytes;
use super::CellError;

/// Longest route: ToR, Agg, Core, Agg, ToR.
pub const MAX_HOPS: usize = 5;
/// Bytes of the packed route.
pub const ROUTE_LEN: usize = 5;
/// Bits the route uses: `hops` u3 + `ptr` u3 + 5 x u6.
pub const ROUTE_BITS: u32 = 3 + 3 + 6 * MAX_HOPS as u32;
const _: () = assert!(ROUTE_BITS.div_ceil(8) as usize <= ROUTE_LEN);

/// A logical source route: the output port at each hop and the pointer to the next hop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Route {
    /// Output port per hop; entries at and above `hops` are 0.
    pub ports: [u6; MAX_HOPS],
    /// Route length (0..=5).
    pub hops: u3,
    /// Index of the next hop to use; a switch forwards on `ports[ptr]` and increments it.
    pub ptr: u3,
}

impl Route {
    /// A route over `ports` (at most [`MAX_HOPS`], each `< 64`), pointer at hop 0.
    pub fn new(ports: &[u8]) -> Result<Self, CellError> {
        if ports.len() > MAX_HOPS {
            return Err(CellError::Field {
                field: "route.hops",
                problem: "more than 5 hops",
            });
        }
        let mut r = Route::default();
        for (h, &p) in ports.iter().enumerate() {
            r.ports[h] = u6::try_new(p).map_err(|_| CellError::Field {
                field: "route.port",
                problem: "port does not fit 6 bits (k <= 64)",
            })?;
        }
        r.hops = u3::new(ports.len() as u8);
        Ok(r)
    }

    /// The output port of the current hop, `None` once the route is used up.
    pub fn current(&self) -> Option<u6> {
        let p = self.ptr.value() as usize;
        (p < self.hops.value() as usize).then(|| self.ports[p])
    }

    /// The route after one switch has forwarded on it (pointer + 1, saturating at `hops`).
    pub fn advanced(mut self) -> Self {
        if self.ptr < self.hops {
            self.ptr = u3::new(self.ptr.value() + 1);
        }
        self
    }

    /// Read a packed route from the first [`ROUTE_LEN`] bytes of `b`.
    pub fn parse(b: &[u8]) -> Result<Self, CellError> {
        let b0 = bytes::get(b, 0);
        if b0 & 0xc0 != 0 {
            return Err(CellError::Field {
                field: "route.reserved",
                problem: "bits 7:6 of the route byte must be zero",
            });
        }
        let hops = b0 & 0x7;
        let ptr = (b0 >> 3) & 0x7;
        if hops as usize > MAX_HOPS {
            return Err(CellError::Field {
                field: "route.hops",
                problem: "more than 5 hops",
            });
        }
        if ptr > hops {
            return Err(CellError::Field {
                field: "route.ptr",
                problem: "hop pointer beyond the route length",
            });
        }
        let w = bytes::get_le(b, 1, 4) as u32;
        if w >> 30 != 0 {
            return Err(CellError::Field {
                field: "route.reserved",
                problem: "bits 31:30 of the port word must be zero",
            });
        }
        let mut r = Route {
            hops: u3::new(hops),
            ptr: u3::new(ptr),
            ..Route::default()
        };
        for h in 0..MAX_HOPS {
            let p = ((w >> (6 * h)) & 0x3f) as u8;
            if h >= hops as usize && p != 0 {
                return Err(CellError::Field {
                    field: "route.port",
                    problem: "port field set beyond the route length",
                });
            }
            r.ports[h] = u6::new(p);
        }
        Ok(r)
    }

    /// Write the packed route into the first [`ROUTE_LEN`] bytes of `b`.
    pub fn emit(&self, b: &mut [u8]) {
        bytes::set(b, 0, 0xff, self.hops.value() | (self.ptr.value() << 3));
        let mut w = 0u32;
        for h in 0..MAX_HOPS {
            w |= (self.ports[h].value() as u32) << (6 * h);
        }
        bytes::set_le(b, 1, 4, w as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn golden_bytes() {
        // ToR up 5, Agg down 2, ToR down 3; pointer at hop 1.
        let r = Route::new(&[5, 2, 3]).unwrap().advanced();
        let mut b = [0u8; ROUTE_LEN];
        r.emit(&mut b);
        // byte 0: hops 3 | ptr 1 << 3 = 0x0b; word = 5 | 2 << 6 | 3 << 12 = 0x3085
        assert_eq!(b, [0x0b, 0x85, 0x30, 0x00, 0x00]);
        assert_eq!(Route::parse(&b).unwrap(), r);
        assert_eq!(r.current(), Some(u6::new(2)));
    }

    #[test]
    fn rejects_bad_fields() {
        assert!(Route::new(&[64]).is_err());
        assert!(Route::new(&[1; 6]).is_err());
        let e = Route::parse(&[0x06, 0, 0, 0, 0]).unwrap_err();
        assert!(matches!(
            e,
            CellError::Field {
                field: "route.hops",
                ..
            }
        ));
        let e = Route::parse(&[0x0a | 0x10, 0, 0, 0, 0]).unwrap_err();
        assert!(matches!(
            e,
            CellError::Field {
                field: "route.ptr",
                ..
            }
        ));
        let e = Route::parse(&[0x01, 0, 0x10, 0, 0]).unwrap_err();
        assert!(matches!(
            e,
            CellError::Field {
                field: "route.port",
                ..
            }
        ));
    }

    #[test]
    fn pointer_walks_then_stops() {
        let mut r = Route::new(&[1, 2]).unwrap();
        assert_eq!(r.current(), Some(u6::new(1)));
        r = r.advanced();
        assert_eq!(r.current(), Some(u6::new(2)));
        r = r.advanced().advanced();
        assert_eq!(r.current(), None);
        assert_eq!(r.ptr.value(), 2);
    }
}
