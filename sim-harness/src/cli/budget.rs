//! `dcfab budget [--json]`: the hardware state budget of every block, one row each.

use super::Outcome;
use rtl_models::BudgetRow;
use serde::Serialize;
use sim_harness::Result;

/// Print the state budget of every block.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Print a JSON array instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Every block's row: rtl-models, nic, switch, scheduler-asic, in that order.
pub fn rows() -> Vec<BudgetRow> {
    [
        rtl_models::budgets(),
        nic::budgets(),
        switch::budgets(),
        scheduler_asic::budgets(),
    ]
    .concat()
}

/// One row as printed with `--json`.
#[derive(Serialize)]
struct JsonRow<'a> {
    block: &'a str,
    #[serde(rename = "crate")]
    krate: &'a str,
    unit: &'a str,
    bits: u32,
    bytes: u32,
    paper_bits: Option<u32>,
    paper_ref: &'a str,
}

/// The table (or JSON) as text.
pub fn render(rows: &[BudgetRow], json: bool) -> String {
    if json {
        let list: Vec<JsonRow> = rows
            .iter()
            .map(|r| JsonRow {
                block: r.block,
                krate: r.krate,
                unit: r.unit,
                bits: r.bits,
                bytes: r.bytes,
                paper_bits: r.paper_bits,
                paper_ref: r.paper_ref,
            })
            .collect();
        return serde_json::to_string_pretty(&list).unwrap_or_else(|_| "[]".into()) + "\n";
    }
    let header = [
        "block",
        "crate",
        "unit",
        "bits",
        "bytes",
        "paper bits",
        "paper ref",
    ];
    let cells: Vec<[String; 7]> = rows
        .iter()
        .map(|r| {
            [
                r.block.to_string(),
                r.krate.to_string(),
                r.unit.to_string(),
                r.bits.to_string(),
                r.bytes.to_string(),
                r.paper_bits.map_or("-".into(), |b| b.to_string()),
                if r.paper_ref.is_empty() {
                    "-".into()
                } else {
                    r.paper_ref.to_string()
                },
            ]
        })
        .collect();
    let mut width = header.map(str::len);
    for row in &cells {
        for (w, c) in width.iter_mut().zip(row) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |row: &[String]| -> String {
        let mut s = String::new();
        for (i, (c, w)) in row.iter().zip(width).enumerate() {
            // Numbers right-aligned, text left-aligned; no trailing spaces.
            let numeric = (3..=5).contains(&i);
            let last = i + 1 == row.len();
            if numeric {
                s.push_str(&format!("{c:>w$}"));
            } else if last {
                s.push_str(c);
            } else {
                s.push_str(&format!("{c:<w$}"));
            }
            if !last {
                s.push_str("  ");
            }
        }
        s.trim_end().to_string() + "\n"
    };
    let mut out = line(&header.map(String::from));
    for row in &cells {
        out.push_str(&line(row));
    }
    out
}

/// Print the budget table.
pub fn execute(args: Args) -> Result<Outcome> {
    print!("{}", render(&rows(), args.json));
    Ok(Outcome::Done)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_has_a_line_per_block() {
        let rows = rows();
        let text = render(&rows, false);
        assert_eq!(text.lines().count(), rows.len() + 1);
        assert!(text.starts_with("block"));
        for r in &rows {
            assert!(text.contains(r.block));
        }
    }
}
