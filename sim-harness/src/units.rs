//! Checked conversions from scenario values (µs, ns, Gb/s, sizes) to the simulator's units
//! (picoseconds, cycles, Q32 serialization times, bytes).
//!
//! Every conversion either returns a value that leaves the downstream arithmetic headroom,
//! or an error naming the field, the value and the allowed range in the user's units. The
//! ranges are the limits README states ("Limits"); [`crate::validate`] calls these on
//! every time, rate and size field, so a value validation accepts can never overflow:
//!
//! | quantity | range | in the simulator |
//! | --- | --- | --- |
//! | times (`*_us`) | 0 to [`MAX_TIME_US`] (10⁹ µs = 1000 s) | ≤ 10¹⁵ ps, 1/18000 of `u64` |
//! | delays (`*_ns`) | 0 to [`MAX_DELAY_NS`] (10⁹ ns = 1 s) | ≤ 10¹² ps |
//! | rates (`*gbps`) | [`MIN_GBPS`] to [`MAX_GBPS`] | Q32 ps/byte; a largest packet's serialization fits `u64` |
//! | sizes | 1 byte to [`MAX_SIZE_BYTES`] (10¹⁵ B), or up to [`MAX_BDP`] BDPs | bytes |

use crate::error::{Error, Result};
use crate::scenario::Size;

/// Picoseconds per nanosecond.
pub const PS_PER_NS: u64 = 1_000;
/// Picoseconds per microsecond.
pub const PS_PER_US: u64 = 1_000_000;
/// Largest time a `*_us` field may hold: 10⁹ µs (1000 s of simulated time).
pub const MAX_TIME_US: f64 = 1e9;
/// Largest delay a `*_ns` field may hold: 10⁹ ns (1 s).
pub const MAX_DELAY_NS: u64 = 1_000_000_000;
/// Smallest link rate, Gb/s (10 Mb/s).
pub const MIN_GBPS: f64 = 0.01;
/// Largest link rate, Gb/s (100 Tb/s).
pub const MAX_GBPS: f64 = 100_000.0;
/// Largest size in bytes (1 PB).
pub const MAX_SIZE_BYTES: u64 = 1_000_000_000_000_000;
/// Largest BDP multiple of a size.
pub const MAX_BDP: f64 = 1e6;
/// Smallest non-zero sampling interval (`output.queue_sample_us`, `selection_bucket_us`), µs.
pub const MIN_SAMPLE_US: f64 = 0.001;

/// A number as the user would read it: `1e300`, not 301 digits; `0.5` as is.
pub fn num(v: f64) -> String {
    let a = v.abs();
    if a != 0.0 && a.is_finite() && !(1e-3..1e6).contains(&a) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

fn out_of_range(field: &str, value: impl std::fmt::Display, range: &str) -> Error {
    Error::field(field, format!("{value} is out of range: allowed {range}"))
}

/// `us` microseconds (0 to [`MAX_TIME_US`]) in picoseconds, rounded to the nearest ps.
pub fn us_to_ps(field: &str, us: f64) -> Result<u64> {
    if !us.is_finite() {
        return Err(Error::field(
            field,
            format!("must be a finite number of µs, got {}", num(us)),
        ));
    }
    if !(0.0..=MAX_TIME_US).contains(&us) {
        return Err(out_of_range(
            field,
            format!("{} us", num(us)),
            "0 to 1e9 us (1000 s of simulated time)",
        ));
    }
    // us <= 1e9, so us * 1e6 <= 1e15 < 2^53: exact enough and far below u64::MAX.
    Ok((us * PS_PER_US as f64).round() as u64)
}

/// `ns` nanoseconds (0 to [`MAX_DELAY_NS`]) in picoseconds.
pub fn ns_to_ps(field: &str, ns: u64) -> Result<u64> {
    if ns > MAX_DELAY_NS {
        return Err(out_of_range(
            field,
            format!("{ns} ns"),
            "0 to 1000000000 ns (1 s)",
        ));
    }
    ns.checked_mul(PS_PER_NS)
        .ok_or_else(|| out_of_range(field, format!("{ns} ns"), "0 to 1000000000 ns (1 s)"))
}

/// Check a link rate: finite, within [`MIN_GBPS`]..=[`MAX_GBPS`].
pub fn check_gbps(field: &str, gbps: f64) -> Result<f64> {
    if !gbps.is_finite() || !(MIN_GBPS..=MAX_GBPS).contains(&gbps) {
        return Err(out_of_range(
            field,
            format!("{} Gb/s", num(gbps)),
            "0.01 to 100000 Gb/s",
        ));
    }
    Ok(gbps)
}

/// The serialization time of one byte at `gbps` in Q32 picoseconds (`8000 / gbps * 2^32`),
/// checked so that a packet of `max_packet_bytes` serializes in `u64`
/// (`max_packet_bytes * ser_q32 < 2^64`): the simulator computes
/// `bytes * ser_q32 >> 32` per packet.
pub fn gbps_to_ser_q32(field: &str, gbps: f64, max_packet_bytes: u32) -> Result<u64> {
    let gbps = check_gbps(field, gbps)?;
    // gbps >= 0.01: at most 8e5 * 2^32 ~ 3.4e15, finite and below u64::MAX.
    let q = (8000.0 / gbps * 4_294_967_296.0).round() as u64;
    if q.checked_mul(u64::from(max_packet_bytes.max(1))).is_none() {
        // Smallest rate at which the packet's serialization fits.
        let min = 8000.0 * 4_294_967_296.0 * f64::from(max_packet_bytes) / u64::MAX as f64;
        return Err(Error::field(
            field,
            format!(
                "{} Gb/s is too slow for {max_packet_bytes}-byte packets \
                 (transport.mtu + transport.header_bytes): at least {:.4} Gb/s \
                 (or smaller packets)",
                num(gbps),
                (min * 1e4).ceil() / 1e4
            ),
        ));
    }
    Ok(q)
}

/// Serialization time of `bytes` at `gbps`, ps (rounded up); `gbps` already checked.
pub fn ser_ps(bytes: u64, gbps: f64) -> u64 {
    (bytes as f64 * 8000.0 / gbps).ceil() as u64
}

/// Check a parsed [`Size`] against the allowed range.
pub fn check_size(field: &str, s: Size) -> Result<Size> {
    match s {
        Size::Bytes(b) if (1..=MAX_SIZE_BYTES).contains(&b) => Ok(s),
        Size::Bytes(b) => Err(out_of_range(
            field,
            format!("{b} bytes"),
            "1 byte to 1000000000000000 bytes (1 PB)",
        )),
        Size::Bdp(m) if m.is_finite() && m > 0.0 && m <= MAX_BDP => Ok(s),
        Size::Bdp(m) => Err(out_of_range(
            field,
            format!("{}bdp", num(m)),
            "more than 0 and at most 1000000 BDPs",
        )),
    }
}

/// A size in bytes given the BDP in bytes, checked against [`MAX_SIZE_BYTES`].
pub fn size_bytes(field: &str, s: Size, bdp_bytes: u64) -> Result<u64> {
    let b = s.bytes(bdp_bytes);
    if b > MAX_SIZE_BYTES {
        return Err(Error::field(
            field,
            format!(
                "{} is {b} bytes, more than the limit of 1000000000000000 bytes (1 PB)",
                describe_size(s)
            ),
        ));
    }
    Ok(b)
}

/// A size as the user would write it.
pub fn describe_size(s: Size) -> String {
    match s {
        Size::Bytes(b) => format!("{b} bytes"),
        Size::Bdp(m) => format!("{}bdp", num(m)),
    }
}

/// Parse a size string: `"8MiB"`, `"500KB"`, `"9000"`, `"1bdp"`, `"2.5 BDP"`. The error
/// (without the field name) says what is wrong and what is allowed.
pub fn parse_size(s: &str) -> std::result::Result<Size, String> {
    let t = s.trim();
    let lower = t.to_ascii_lowercase();
    const FORMS: &str = "a size is a number of bytes (4096) or a string like \"8MiB\", \
                         \"500KB\", \"2.5bdp\"";
    if let Some(n) = lower.strip_suffix("bdp") {
        let v: f64 = n
            .trim()
            .parse()
            .map_err(|_| format!("'{s}' is not a number of BDPs (e.g. \"1bdp\")"))?;
        if !(v.is_finite() && v > 0.0 && v <= MAX_BDP) {
            return Err(format!(
                "'{s}' is out of range: a BDP multiple must be more than 0 and at most 1000000"
            ));
        }
        return Ok(Size::Bdp(v));
    }
    if lower.starts_with('-') {
        return Err(format!(
            "'{s}' is negative; sizes are 1 byte to 1 PB ({FORMS})"
        ));
    }
    // A plain number, also in scientific notation ("1e6"), is bytes.
    let (v, unit): (f64, &str) = match lower.parse::<f64>() {
        Ok(v) => (v, ""),
        Err(_) => {
            let split = lower
                .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                .unwrap_or(lower.len());
            let (number, unit) = lower.split_at(split);
            let v = number
                .parse()
                .map_err(|_| format!("'{s}' is not a size ({FORMS})"))?;
            (v, unit)
        }
    };
    let mult: f64 = match unit.trim() {
        "" | "b" => 1.0,
        "kb" => 1e3,
        "mb" => 1e6,
        "gb" => 1e9,
        "tb" => 1e12,
        "pb" => 1e15,
        "kib" | "k" => 1024.0,
        "mib" | "m" => 1024.0 * 1024.0,
        "gib" | "g" => 1024.0 * 1024.0 * 1024.0,
        "tib" | "t" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        u => {
            return Err(format!(
                "'{s}': unknown unit '{u}' (use B, KB, MB, GB, TB, PB, KiB, MiB, GiB, TiB or bdp)"
            ))
        }
    };
    let bytes = v * mult;
    if !bytes.is_finite() || bytes > MAX_SIZE_BYTES as f64 {
        return Err(format!(
            "'{s}' is out of range: at most 1 PB (1000000000000000 bytes)"
        ));
    }
    if bytes.round() < 1.0 {
        return Err(format!(
            "'{s}' is less than 1 byte; sizes are at least 1 byte"
        ));
    }
    Ok(Size::Bytes(bytes.round() as u64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn boundaries() {
        assert_eq!(us_to_ps("f", 0.0).unwrap(), 0);
        assert_eq!(us_to_ps("f", 1.5).unwrap(), 1_500_000);
        assert_eq!(us_to_ps("f", MAX_TIME_US).unwrap(), 1_000_000_000_000_000);
        for bad in [-1.0, MAX_TIME_US * 1.0001, f64::NAN, f64::INFINITY, 1e300] {
            let e = us_to_ps("stop.max_time_us", bad).unwrap_err().to_string();
            assert!(e.starts_with("stop.max_time_us: "), "{e}");
        }
        assert_eq!(ns_to_ps("f", 1000).unwrap(), 1_000_000);
        let e = ns_to_ps("topology.link_delay_ns", 18_446_744_073_709_552)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("18446744073709552 ns") && e.contains("1 s"),
            "{e}"
        );
        assert!(check_gbps("g", 0.005).is_err());
        assert!(check_gbps("g", 1e-300).is_err());
        assert!(check_gbps("g", 1e6).is_err());
        assert!(check_gbps("g", 0.01).is_ok());
        // 0.01 Gb/s is fine for default packets, too slow for 128 KiB ones.
        assert!(gbps_to_ser_q32("g", 0.01, 4160).is_ok());
        let e = gbps_to_ser_q32("g", 0.01, 131_072).unwrap_err().to_string();
        assert!(e.contains("too slow") && e.contains("at least"), "{e}");
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("8MiB"), Ok(Size::Bytes(8 << 20)));
        assert_eq!(parse_size("1TB"), Ok(Size::Bytes(1_000_000_000_000)));
        assert_eq!(parse_size("1PB"), Ok(Size::Bytes(MAX_SIZE_BYTES)));
        assert_eq!(parse_size("1e6"), Ok(Size::Bytes(1_000_000)));
        assert!(parse_size("1e400").unwrap_err().contains("out of range"));
        assert!(parse_size("nan").is_err() && parse_size("inf").is_err());
        let e = parse_size("20000000000GB").unwrap_err();
        assert!(e.contains("out of range") && e.contains("1 PB"), "{e}");
        let e = parse_size("-1").unwrap_err();
        assert!(e.contains("negative"), "{e}");
        let e = parse_size("0.1").unwrap_err();
        assert!(e.contains("at least 1 byte"), "{e}");
        assert!(parse_size("1e7bdp").is_err());
        assert!(check_size("f", Size::Bytes(0)).is_err());
        assert!(check_size("f", Size::Bytes(MAX_SIZE_BYTES + 1)).is_err());
        assert!(check_size("f", Size::Bdp(f64::NAN)).is_err());
    }

    proptest! {
        /// Over the whole range validation allows, µs -> ps never overflows, stays below
        /// 1/1000 of u64 (headroom for sums of times) and is monotone.
        #[test]
        fn us_to_ps_is_bounded_and_monotone(a in 0.0..=MAX_TIME_US, b in 0.0..=MAX_TIME_US) {
            let (pa, pb) = (us_to_ps("f", a).unwrap(), us_to_ps("f", b).unwrap());
            prop_assert!(pa <= u64::MAX / 1000 && pb <= u64::MAX / 1000);
            if a <= b { prop_assert!(pa <= pb); } else { prop_assert!(pa >= pb); }
            // Two times of the range add without overflow (failure at_us + for_us).
            prop_assert!(pa.checked_add(pb).is_some());
        }

        #[test]
        fn ns_to_ps_is_bounded_and_monotone(a in 0..=MAX_DELAY_NS, b in 0..=MAX_DELAY_NS) {
            let (pa, pb) = (ns_to_ps("f", a).unwrap(), ns_to_ps("f", b).unwrap());
            prop_assert_eq!(pa, a * 1000);
            prop_assert_eq!(a <= b, pa <= pb);
            // A path of 64 links and switches each way stays far below u64.
            prop_assert!(pa.checked_mul(256).is_some());
        }

        /// For any rate and packet size validation accepts, serialization of the packet in
        /// Q32 fits u64, and a slower link never serializes faster.
        #[test]
        fn ser_q32_fits_and_is_monotone(
            a in MIN_GBPS..=MAX_GBPS,
            b in MIN_GBPS..=MAX_GBPS,
            bytes in 1u32..=131_072,
        ) {
            let qa = gbps_to_ser_q32("f", a, bytes);
            let qb = gbps_to_ser_q32("f", b, bytes);
            if let (Ok(qa), Ok(qb)) = (qa, qb) {
                let sa = u64::from(bytes).checked_mul(qa);
                let sb = u64::from(bytes).checked_mul(qb);
                prop_assert!(sa.is_some() && sb.is_some());
                if a <= b { prop_assert!(qa >= qb); } else { prop_assert!(qa <= qb); }
            } else {
                // Refused only when the largest packet would not fit.
                let slow = a.min(b);
                prop_assert!(8000.0 / slow * 4_294_967_296.0 * f64::from(bytes) > 1.8e19 * 0.99);
            }
        }

        /// Sizes parse without overflow and in order of their value.
        #[test]
        fn size_strings_are_bounded_and_monotone(x in 0.0f64..2e6, y in 0.0f64..2e6, unit in 0usize..4) {
            let u = ["B", "KiB", "MB", "GiB"][unit];
            let (a, b) = (parse_size(&format!("{x}{u}")), parse_size(&format!("{y}{u}")));
            if let (Ok(Size::Bytes(a)), Ok(Size::Bytes(b))) = (&a, &b) {
                prop_assert!(*a >= 1 && *a <= MAX_SIZE_BYTES);
                if x <= y { prop_assert!(a <= b); }
            }
            for s in [a, b].into_iter().flatten() {
                prop_assert!(check_size("f", s).is_ok());
            }
        }
    }
}
