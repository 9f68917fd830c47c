//! A recorder that blocks' test benches and the DES feed, producing a [`Trace`].
//!
//! ```text
//!  block / DES ──record(cycle, signal, value)──► Recorder ──finish()──► Trace ──► JSONL / VCD
//! ```
//!
//! The recorder only appends; callers record in non-decreasing cycle order (a record with
//! an earlier cycle than the previous one is counted in [`Recorder::out_of_order`] and kept,
//! and [`Recorder::finish`] then sorts stably by cycle so the trace stays well-formed).

use crate::schema::{Record, Trace, TraceHeader, SCHEMA_VERSION};
use serde_json::Value;

/// Collects records for one trace.
#[derive(Clone, Debug)]
pub struct Recorder {
    header: TraceHeader,
    records: Vec<Record>,
    last_cycle: u64,
    out_of_order: u64,
}

impl Recorder {
    /// A recorder for `block` with its `config`, `seed` and a one-line `description`.
    pub fn new(block: &str, config: Value, seed: u64, description: &str) -> Self {
        Recorder {
            header: TraceHeader {
                schema_version: SCHEMA_VERSION,
                block: block.to_string(),
                config,
                seed,
                description: description.to_string(),
            },
            records: Vec::new(),
            last_cycle: 0,
            out_of_order: 0,
        }
    }

    /// At `cycle`, `signal` took `value` (bool, integer, float, string, or any JSON value).
    pub fn record(&mut self, cycle: u64, signal: &str, value: impl Into<Value>) {
        if cycle < self.last_cycle {
            self.out_of_order += 1;
        } else {
            self.last_cycle = cycle;
        }
        self.records.push(Record {
            cycle,
            signal: signal.to_string(),
            value: value.into(),
        });
    }

    /// Records so far.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether nothing was recorded yet.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// How many records arrived with a cycle earlier than a previous record.
    pub fn out_of_order(&self) -> u64 {
        self.out_of_order
    }

    /// The finished trace (records stably sorted by cycle).
    pub fn finish(mut self) -> Trace {
        if self.out_of_order > 0 {
            self.records.sort_by_key(|r| r.cycle);
        }
        Trace {
            header: self.header,
            records: self.records,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn records_in_order_and_sorts_late_records() {
        let mut r = Recorder::new("B", json!({"k": 1}), 3, "desc");
        assert!(r.is_empty());
        r.record(0, "a", true);
        r.record(5, "b", 17u32);
        r.record(2, "c", "late");
        r.record(5, "d", 1.5);
        assert_eq!(r.len(), 4);
        assert_eq!(r.out_of_order(), 1);
        let t = r.finish();
        assert_eq!(t.header.block, "B");
        assert_eq!(t.header.seed, 3);
        assert_eq!(t.header.schema_version, SCHEMA_VERSION);
        let order: Vec<(&str, u64)> = t
            .records
            .iter()
            .map(|r| (r.signal.as_str(), r.cycle))
            .collect();
        assert_eq!(order, vec![("a", 0), ("c", 2), ("b", 5), ("d", 5)]);
        assert_eq!(t.records[1].value, json!("late"));
        // A finished trace always parses back.
        assert_eq!(Trace::from_jsonl(&t.to_jsonl()).unwrap(), t);
    }
}
