//! State budgets: the bits of SRAM / flops a block needs in hardware.
//!
//! Every block implements [`StateBudget`] and asserts at compile time that its packed form
//! fits (`const _: () = assert!(...)`). `dcfab budget` prints one [`BudgetRow`] per block.

/// The hardware state a block needs, in bits.
pub trait StateBudget {
    /// Name of the block as printed by `dcfab budget`.
    const NAME: &'static str;
    /// Bits of state the block needs in hardware (per instance: per connection, per port...).
    const BITS: u32;
    /// What one instance is ("per connection", "per port", ...).
    const UNIT: &'static str = "per instance";
    /// The figure the paper gives, if any.
    const PAPER_BITS: Option<u32> = None;
    /// Where the paper gives it (e.g. "REPS Table 1").
    const PAPER_REF: &'static str = "";

    /// Bytes needed to store [`StateBudget::BITS`] (rounded up).
    const BYTES: u32 = Self::BITS.div_ceil(8);
}

/// One row of the `dcfab budget` table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct BudgetRow {
    /// Block name.
    pub block: &'static str,
    /// Crate the block lives in.
    pub krate: &'static str,
    /// What one instance is.
    pub unit: &'static str,
    /// Bits needed.
    pub bits: u32,
    /// Bytes needed (rounded up).
    pub bytes: u32,
    /// The paper's figure, if any.
    pub paper_bits: Option<u32>,
    /// Where the paper gives it.
    pub paper_ref: &'static str,
}

impl BudgetRow {
    /// The row for block type `T`, living in crate `krate`.
    pub const fn of<T: StateBudget>(krate: &'static str) -> Self {
        BudgetRow {
            block: T::NAME,
            krate,
            unit: T::UNIT,
            bits: T::BITS,
            bytes: T::BYTES,
            paper_bits: T::PAPER_BITS,
            paper_ref: T::PAPER_REF,
        }
    }
}

/// Bits needed to hold every value in `0..=max` (0 for `max == 0`): the width of a counter
/// that counts up to `max`, or of an index into `max + 1` slots.
pub const fn bits_for(max: u64) -> u32 {
    u64::BITS - max.leading_zeros()
}

/// Width in bits of field `$field` of type `$ty` as the model stores it (the size of the
/// field's type), usable in `const` assertions. Budget asserts compare
/// [`StateBudget::BITS`] with the fields themselves, so changing a field's type breaks the
/// build: `const _: () = assert!(Ops::BITS == field_bits!(Ops, mask));`.
#[macro_export]
macro_rules! field_bits {
    ($ty:ty, $field:ident) => {{
        const fn bits<S, F>(_: fn(&S) -> &F) -> u32 {
            (::core::mem::size_of::<F>() * 8) as u32
        }
        bits::<$ty, _>(|s: &$ty| &s.$field)
    }};
}

#[cfg(test)]
mod bits_for_tests {
    use super::bits_for;

    #[test]
    fn widths() {
        assert_eq!(bits_for(0), 0);
        assert_eq!(bits_for(1), 1);
        assert_eq!(bits_for(7), 3);
        assert_eq!(bits_for(8), 4);
        assert_eq!(bits_for(u64::MAX), 64);
    }

    #[allow(dead_code)]
    struct Regs {
        a: u16,
        b: Option<u64>,
        c: [u8; 3],
    }
    const _: () = assert!(field_bits!(Regs, a) == 16 && field_bits!(Regs, c) == 24);

    #[test]
    fn field_widths() {
        assert_eq!(field_bits!(Regs, b), 128);
    }
}
