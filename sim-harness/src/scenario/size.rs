//! [`Size`]: a size field's value, plain bytes or a multiple of the path's bandwidth-delay
//! product (`"8MiB"`, `4096`, `"1bdp"`), with error messages in the user's terms.

use serde::{Deserialize, Serialize};

/// A size: plain bytes, or a multiple of the path's bandwidth-delay product.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Size {
    /// Bytes.
    Bytes(u64),
    /// Multiples of the BDP.
    Bdp(f64),
}

impl Size {
    /// Parse "8MiB", "500KB", "9000", "1bdp", "2.5 BDP" (see [`crate::units::parse_size`]).
    pub fn parse(s: &str) -> Result<Size, String> {
        crate::units::parse_size(s)
    }

    /// Bytes, given the BDP in bytes for BDP-relative sizes.
    pub fn bytes(self, bdp_bytes: u64) -> u64 {
        match self {
            Size::Bytes(b) => b,
            Size::Bdp(m) => (m * bdp_bytes as f64).round().max(1.0) as u64,
        }
    }
}

impl Serialize for Size {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Size::Bytes(b) => s.serialize_u64(*b),
            Size::Bdp(m) => s.serialize_str(&format!("{m}bdp")),
        }
    }
}

impl<'de> Deserialize<'de> for Size {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Size, D::Error> {
        d.deserialize_any(SizeVisitor)
    }
}

/// Reads a size from an integer or a string, with messages in the user's terms (a float,
/// a negative number, a bool, a table or an array each say what a size looks like).
struct SizeVisitor;

const SIZE_FORMS: &str = "a size: a whole number of bytes (4096) or a string like \"8MiB\", \
                          \"500KB\", \"2.5bdp\"; 1 byte to 1 PB";

impl serde::de::Visitor<'_> for SizeVisitor {
    type Value = Size;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(SIZE_FORMS)
    }

    fn visit_u64<E: serde::de::Error>(self, b: u64) -> Result<Size, E> {
        if b == 0 {
            return Err(E::custom(format!("got 0; expected {SIZE_FORMS}")));
        }
        if b > crate::units::MAX_SIZE_BYTES {
            return Err(E::custom(format!(
                "{b} bytes is out of range: at most 1 PB (1000000000000000 bytes)"
            )));
        }
        Ok(Size::Bytes(b))
    }

    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Size, E> {
        match u64::try_from(v) {
            Ok(b) => self.visit_u64(b),
            Err(_) => Err(E::custom(format!(
                "got {v} (negative); expected {SIZE_FORMS}"
            ))),
        }
    }

    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Size, E> {
        // `1e6` is a whole number of bytes written as a float: accept it.
        if v.is_finite() && v.fract() == 0.0 && v >= 0.0 && v <= u64::MAX as f64 {
            return self.visit_u64(v as u64);
        }
        let shown = crate::units::num(v);
        if v < 0.0 {
            return Err(E::custom(format!(
                "got {shown} (negative); expected {SIZE_FORMS}"
            )));
        }
        Err(E::custom(format!(
            "got {shown} (not a whole number of bytes); expected {SIZE_FORMS}"
        )))
    }

    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Size, E> {
        crate::units::parse_size(s).map_err(E::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse() {
        assert_eq!(Size::parse("8MiB"), Ok(Size::Bytes(8 << 20)));
        assert_eq!(Size::parse("500KB"), Ok(Size::Bytes(500_000)));
        assert_eq!(Size::parse("1bdp"), Ok(Size::Bdp(1.0)));
        assert!(Size::parse("-1bdp").is_err());
        assert!(Size::parse("12 parsecs").is_err());
    }
}
