//! Reading a run's output files back for plotting: the CSVs of README "Output format" (a
//! `# dcfab_version=...` provenance line, a header, rows) and `summary.json`.
//!
//! Columns are found by name, so a column added later (e.g. `class` in `flows.csv`,
//! `phantom_bytes` in `queues.csv`) is picked up where present and ignored where absent.
//! Errors name the file, the line and the column.

use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// One CSV file of an output directory.
#[derive(Debug, Clone)]
pub struct Csv {
    /// The file.
    pub path: PathBuf,
    /// The `# ...` provenance line, without the `# `.
    pub provenance: String,
    /// Column names.
    pub header: Vec<String>,
    /// Rows (every one as long as the header).
    pub rows: Vec<Vec<String>>,
}

fn bad(path: &Path, problem: String) -> Error {
    Error::Parse {
        path: path.to_path_buf(),
        problem,
    }
}

impl Csv {
    /// Read `dir/name`; `Ok(None)` when the file does not exist.
    pub fn read(dir: &Path, name: &str) -> Result<Option<Csv>> {
        let path = dir.join(name);
        match std::fs::read_to_string(&path) {
            Ok(text) => Csv::parse(&path, &text).map(Some),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(Error::Io { path, source }),
        }
    }

    /// Parse CSV text: leading `#` lines (the provenance), a header, rows.
    pub fn parse(path: &Path, text: &str) -> Result<Csv> {
        let mut provenance = String::new();
        let mut body = text;
        while let Some(rest) = body.strip_prefix('#') {
            let (line, next) = rest.split_once('\n').unwrap_or((rest, ""));
            if provenance.is_empty() {
                provenance = line.trim().to_string();
            }
            body = next;
        }
        let mut r = csv::ReaderBuilder::new()
            .has_headers(true)
            .flexible(false)
            .from_reader(body.as_bytes());
        let header: Vec<String> = r
            .headers()
            .map_err(|e| bad(path, format!("header: {e}")))?
            .iter()
            .map(str::to_string)
            .collect();
        if header.is_empty() || header.iter().all(String::is_empty) {
            return Err(bad(path, "no header line".into()));
        }
        let mut rows = Vec::new();
        for rec in r.records() {
            let rec = rec.map_err(|e| bad(path, e.to_string()))?;
            rows.push(rec.iter().map(str::to_string).collect());
        }
        Ok(Csv {
            path: path.to_path_buf(),
            provenance,
            header,
            rows,
        })
    }

    /// Index of a column, if present.
    pub fn col(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }

    /// Index of a column the figure needs; an error naming the file and column otherwise.
    pub fn need(&self, name: &str) -> Result<usize> {
        self.col(name)
            .ok_or_else(|| bad(&self.path, format!("no column '{name}'")))
    }

    /// The number in row `row`, column `col`; an error naming the line and column otherwise.
    pub fn num(&self, row: usize, col: usize) -> Result<f64> {
        let v = self.rows[row][col].trim();
        v.parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
            .ok_or_else(|| {
                bad(
                    &self.path,
                    format!(
                        "row {} column '{}': '{v}' is not a number",
                        row + 1,
                        self.header[col]
                    ),
                )
            })
    }

    /// A `key=value` field of the provenance line (`scenario`, `seed`, `grid`).
    pub fn provenance_field(&self, key: &str) -> Option<String> {
        self.provenance.split_whitespace().find_map(|kv| {
            kv.split_once('=')
                .filter(|(k, _)| *k == key)
                .map(|(_, v)| v.to_string())
        })
    }
}

/// What a figure title says about the run: scenario name and seed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunLabel {
    /// Scenario name.
    pub scenario: String,
    /// Seed (as written in the outputs).
    pub seed: String,
}

impl RunLabel {
    /// From `summary.json`, else from the provenance line of `flows.csv`.
    pub fn of_dir(dir: &Path) -> Result<RunLabel> {
        let path = dir.join("summary.json");
        if let Ok(text) = std::fs::read_to_string(&path) {
            let v: serde_json::Value =
                serde_json::from_str(&text).map_err(|e| bad(&path, e.to_string()))?;
            let scenario = v["scenario"].as_str().unwrap_or("?").to_string();
            let seed = match &v["seed"] {
                serde_json::Value::Null => "?".to_string(),
                s => s.to_string(),
            };
            return Ok(RunLabel { scenario, seed });
        }
        if let Some(c) = Csv::read(dir, "flows.csv")? {
            return Ok(RunLabel {
                scenario: c.provenance_field("scenario").unwrap_or_else(|| "?".into()),
                seed: c.provenance_field("seed").unwrap_or_else(|| "?".into()),
            });
        }
        Err(bad(
            dir,
            "not a dcfab output directory (no summary.json, flows.csv or sweep.csv)".into(),
        ))
    }

    /// ", scenario NAME, seed N" for a title.
    pub fn suffix(&self) -> String {
        format!(" (scenario {}, seed {})", self.scenario, self.seed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_provenance_header_and_rows() {
        let c = Csv::parse(
            Path::new("x.csv"),
            "# dcfab_version=0.1.0 scenario=tiny seed=3\na,b\n1,2\n3,x\n",
        )
        .unwrap();
        assert_eq!(c.provenance_field("scenario").as_deref(), Some("tiny"));
        assert_eq!(c.provenance_field("seed").as_deref(), Some("3"));
        assert_eq!(c.header, ["a", "b"]);
        assert_eq!(c.num(0, 1).unwrap(), 2.0);
        let e = c.num(1, 1).unwrap_err().to_string();
        assert!(e.contains("x.csv") && e.contains("column 'b'"), "{e}");
        assert!(c.need("c").unwrap_err().to_string().contains("'c'"));
        assert!(Csv::parse(Path::new("y.csv"), "a,b\n1\n").is_err());
    }
}
