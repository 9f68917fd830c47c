//! `dcfab budget`: one row per block of every hardware crate, as a table and as JSON.

use std::process::Command;

fn all_rows() -> Vec<rtl_models::BudgetRow> {
    [
        rtl_models::budgets(),
        nic::budgets(),
        switch::budgets(),
        scheduler_asic::budgets(),
    ]
    .concat()
}

fn dcfab(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_dcfab"))
        .args(args)
        .output()
        .expect("dcfab runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn json_lists_every_block() {
    let v: serde_json::Value = serde_json::from_str(&dcfab(&["budget", "--json"])).unwrap();
    let list = v.as_array().unwrap();
    let rows = all_rows();
    assert!(!rows.is_empty());
    assert_eq!(list.len(), rows.len());
    for (j, r) in list.iter().zip(&rows) {
        assert_eq!(j["block"], r.block);
        assert_eq!(j["crate"], r.krate);
        assert_eq!(j["unit"], r.unit);
        assert_eq!(j["bits"], r.bits);
        assert_eq!(j["bytes"], r.bytes);
        assert_eq!(j["bytes"].as_u64().unwrap(), u64::from(r.bits.div_ceil(8)));
        match r.paper_bits {
            Some(b) => assert_eq!(j["paper_bits"], b),
            None => assert!(j["paper_bits"].is_null()),
        }
        assert_eq!(j["paper_ref"], r.paper_ref);
    }
}

#[test]
fn table_has_header_and_a_row_per_block() {
    let text = dcfab(&["budget"]);
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    for col in [
        "block",
        "crate",
        "unit",
        "bits",
        "bytes",
        "paper bits",
        "paper ref",
    ] {
        assert!(header.contains(col), "{header}");
    }
    let body: Vec<&str> = lines.collect();
    let rows = all_rows();
    assert_eq!(body.len(), rows.len());
    for (line, r) in body.iter().zip(&rows) {
        assert!(line.starts_with(r.block), "{line}");
        assert!(
            line.contains(r.krate) && line.contains(&r.bits.to_string()),
            "{line}"
        );
    }
}
