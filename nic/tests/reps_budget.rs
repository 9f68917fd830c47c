//! REPS state budgets as `dcfab budget` reports them: Table 1's 193 bits and the compact
//! layouts beside it.

use nic::reps::{Reps, RepsCompact16, RepsCompact5, RepsCompact8, WORD_LEN};
use rtl_models::StateBudget;

#[test]
fn reps_table_1_is_193_bits_in_25_bytes() {
    // REPS Table 1: "Total (8 elements in buffer) 193 ~ 25 bytes" = 8 x (16 + 1) + 8 + 8 +
    // 32 + 1 + 8.
    assert_eq!(8 * (16 + 1) + 8 + 8 + 32 + 1 + 8, 193);
    assert_eq!(<Reps as StateBudget>::BITS, 193);
    assert_eq!(<Reps as StateBudget>::BYTES, 25);
    assert_eq!(<Reps as StateBudget>::PAPER_BITS, Some(193));
    assert_eq!(<Reps as StateBudget>::PAPER_REF, "REPS Table 1");
    assert_eq!(
        Reps::new(Default::default()).unwrap().word().len(),
        WORD_LEN
    );
}

#[test]
fn compact_layouts_beat_table_1() {
    let rows = nic::budgets();
    let find = |name: &str| {
        rows.iter()
            .find(|r| r.block == name)
            .unwrap_or_else(|| panic!("no budget row {name}"))
    };
    let paper = find(<Reps as StateBudget>::NAME);
    assert_eq!(
        (paper.bits, paper.bytes, paper.paper_bits),
        (193, 25, Some(193))
    );
    for (name, bits, bytes) in [
        (<RepsCompact16 as StateBudget>::NAME, 177, 23),
        (<RepsCompact8 as StateBudget>::NAME, 113, 15),
        (<RepsCompact5 as StateBudget>::NAME, 89, 12),
    ] {
        let r = find(name);
        assert_eq!((r.bits, r.bytes), (bits, bytes), "{name}");
        assert_eq!(r.paper_bits, Some(193));
        assert_eq!(r.unit, "per connection");
        assert!(r.bits < paper.bits);
    }
    // Compact 8 x 16 word = 3-bit head + 4-bit numberOfValidEVs + no stored validity bits.
    assert_eq!(193 - 177, (8 - 3) + (8 - 4) + 8 - 1);
}
