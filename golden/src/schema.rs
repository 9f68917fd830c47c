//! The golden-trace schema (JSON Lines).
//!
//! A trace file is UTF-8 text, one JSON object per line:
//!
//! ```text
//! line 1      {"schema_version":1,"block":"TokenBucket","config":{...},"seed":0,"description":"..."}
//! line 2..    {"cycle":0,"signal":"tokens","value":2}
//!             {"cycle":3,"signal":"granted","value":true}
//! ```
//!
//! * The first line is the [`TraceHeader`]: which block produced the trace, its
//!   configuration (free-form JSON), the seed of any randomness, a one-line description and
//!   the schema version.
//! * Every further line is a [`Record`]: at clock `cycle` (in the block's own cycles, u64),
//!   `signal` took `value` (a JSON bool, integer, float or string; VCD export maps them to a
//!   1-bit wire, a bit vector, a real and a string variable respectively).
//! * Records are in non-decreasing `cycle` order; several records may share a cycle.
//!
//! Serialisation is canonical: object keys of `config` and `value` are written in sorted
//! order whatever `serde_json` feature set the build enables, so the same trace always has
//! the same bytes and a checked-in file can be compared line by line.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Version of the line format above. Bump it when a field changes meaning.
pub const SCHEMA_VERSION: u32 = 1;

/// First line of a trace file.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct TraceHeader {
    /// Always [`SCHEMA_VERSION`] for traces this build writes.
    pub schema_version: u32,
    /// The block (or DES component) that produced the trace, e.g. `"TokenBucket"`.
    pub block: String,
    /// The block's configuration (free-form JSON, e.g. `{"rate":"1/4","depth":2}`).
    pub config: Value,
    /// Seed of every random source in the scenario (0 when there is none).
    pub seed: u64,
    /// One line saying what the trace shows.
    pub description: String,
}

/// One observation: at `cycle`, `signal` took `value`.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Record {
    /// Clock cycle of the producing block.
    pub cycle: u64,
    /// Signal name (`[A-Za-z0-9_.]`; dots make VCD scopes, e.g. `port0.queue_bytes`).
    pub signal: String,
    /// Bool, integer, float or string.
    pub value: Value,
}

/// A whole trace: header plus records in non-decreasing cycle order.
#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    /// Provenance of the trace.
    pub header: TraceHeader,
    /// The observations.
    pub records: Vec<Record>,
}

/// `v` with every object's keys in sorted order (independent of `preserve_order`).
pub(crate) fn canonical(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let mut out = serde_json::Map::new();
            for k in keys {
                out.insert(k.clone(), canonical(&m[k]));
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

impl Trace {
    /// The JSON Lines text of the trace: header line, then one line per record, each line
    /// terminated by `\n`.
    pub fn to_jsonl(&self) -> String {
        let mut header = self.header.clone();
        header.config = canonical(&header.config);
        let mut out = String::new();
        // Serialising these plain structs cannot fail (string keys, finite JSON values).
        out.push_str(&serde_json::to_string(&header).expect("header serialises"));
        out.push('\n');
        for r in &self.records {
            let r = Record {
                cycle: r.cycle,
                signal: r.signal.clone(),
                value: canonical(&r.value),
            };
            out.push_str(&serde_json::to_string(&r).expect("record serialises"));
            out.push('\n');
        }
        out
    }

    /// Parse JSON Lines text: the first non-empty line is the header, every further
    /// non-empty line a record. Errors name the 1-based line and the problem; a header
    /// whose `schema_version` is not [`SCHEMA_VERSION`] is an error.
    pub fn from_jsonl(s: &str) -> Result<Trace, String> {
        let mut lines = s.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
        let (hn, hline) = lines
            .next()
            .ok_or_else(|| "empty trace: no header line".to_string())?;
        let header: TraceHeader =
            serde_json::from_str(hline).map_err(|e| format!("line {}: bad header: {e}", hn + 1))?;
        if header.schema_version != SCHEMA_VERSION {
            return Err(format!(
                "line {}: schema_version {} is not supported (this build reads {})",
                hn + 1,
                header.schema_version,
                SCHEMA_VERSION
            ));
        }
        let mut records = Vec::new();
        let mut last_cycle = 0u64;
        for (n, line) in lines {
            let r: Record = serde_json::from_str(line)
                .map_err(|e| format!("line {}: bad record: {e}", n + 1))?;
            if r.cycle < last_cycle {
                return Err(format!(
                    "line {}: cycle {} goes back in time (previous record at cycle {})",
                    n + 1,
                    r.cycle,
                    last_cycle
                ));
            }
            last_cycle = r.cycle;
            records.push(r);
        }
        Ok(Trace { header, records })
    }

    /// Names of the signals in order of first appearance.
    pub fn signals(&self) -> Vec<&str> {
        // A hash set, not a search of the list: linear in the records for any signal count.
        let mut set = std::collections::HashSet::new();
        let mut seen: Vec<&str> = Vec::new();
        for r in &self.records {
            if set.insert(r.signal.as_str()) {
                seen.push(&r.signal);
            }
        }
        seen
    }

    /// Every `(cycle, value)` recorded for `signal`, in trace order.
    pub fn series(&self, signal: &str) -> Vec<(u64, &serde_json::Value)> {
        self.records
            .iter()
            .filter(|r| r.signal == signal)
            .map(|r| (r.cycle, &r.value))
            .collect()
    }

    /// Every value recorded for `signal`, in trace order ([`Trace::series`] without cycles).
    pub fn values(&self, signal: &str) -> Vec<&Value> {
        self.records
            .iter()
            .filter(|r| r.signal == signal)
            .map(|r| &r.value)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sample() -> Trace {
        Trace {
            header: TraceHeader {
                schema_version: SCHEMA_VERSION,
                block: "X".into(),
                config: json!({"b": 1, "a": {"z": true, "y": "s"}}),
                seed: 7,
                description: "d".into(),
            },
            records: vec![
                Record {
                    cycle: 0,
                    signal: "s".into(),
                    value: json!(3),
                },
                Record {
                    cycle: 2,
                    signal: "t".into(),
                    value: json!("hi"),
                },
            ],
        }
    }

    #[test]
    fn round_trip_and_canonical_keys() {
        let t = sample();
        let text = t.to_jsonl();
        let first = text.lines().next().unwrap();
        assert_eq!(
            first,
            r#"{"schema_version":1,"block":"X","config":{"a":{"y":"s","z":true},"b":1},"seed":7,"description":"d"}"#
        );
        assert_eq!(text.lines().count(), 3);
        assert_eq!(Trace::from_jsonl(&text).unwrap(), t);
    }

    #[test]
    fn rejects_bad_input_with_line_numbers() {
        assert!(Trace::from_jsonl("").unwrap_err().contains("empty"));
        let mut text = sample().to_jsonl();
        text.push_str("{\"cycle\":1,\"signal\":\"s\",\"value\":0}\n");
        let e = Trace::from_jsonl(&text).unwrap_err();
        assert!(
            e.starts_with("line 4:") && e.contains("back in time"),
            "{e}"
        );
        let e = Trace::from_jsonl(&text.replace("\"schema_version\":1", "\"schema_version\":9"))
            .unwrap_err();
        assert!(e.contains("schema_version 9"), "{e}");
        let e = Trace::from_jsonl(&sample().to_jsonl().replace("\"cycle\":2", "\"cycle\":-2"))
            .unwrap_err();
        assert!(e.starts_with("line 3: bad record"), "{e}");
    }
}
