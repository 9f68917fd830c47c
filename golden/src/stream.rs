//! A trace file read record by record rather than whole, for traces larger than memory (a
//! fabric run's `trace.jsonl` can hold ten million records): [`scan`] reads it once for its
//! header and signals, [`write_vcd`] reads it again to write the value changes, and
//! [`write_jsonl`] rewrites it canonically. Memory is per signal, not per record, and the
//! bytes are those of [`crate::vcd::write_vcd_with`] and [`Trace::to_jsonl`] on the whole
//! trace (`tests/vcd.rs` checks both); a bad line is refused with the message
//! [`Trace::from_jsonl`] gives.
//!
//! [`Trace::from_jsonl`]: crate::schema::Trace::from_jsonl
//! [`Trace::to_jsonl`]: crate::schema::Trace::to_jsonl

use crate::schema::{canonical, Record, TraceHeader, SCHEMA_VERSION};
use crate::vcd::{write_parts, Signals, VcdOptions};
use std::io::{self, BufRead, BufReader, Write};
use std::path::Path;

/// What goes wrong reading or writing a trace file.
#[derive(Debug)]
pub enum StreamError {
    /// The trace file could not be opened or read.
    Read(io::Error),
    /// The output could not be written.
    Write(io::Error),
    /// A line is not what the schema says (`line N: ...`, as [`crate::Trace::from_jsonl`]).
    Parse(String),
}

impl std::fmt::Display for StreamError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StreamError::Read(e) | StreamError::Write(e) => write!(f, "{e}"),
            StreamError::Parse(p) => f.write_str(p),
        }
    }
}

impl std::error::Error for StreamError {}

/// A trace file's header, signals (with their values' kinds) and record count.
#[derive(Debug)]
pub struct Scan {
    /// The header line.
    pub header: TraceHeader,
    /// Every signal, in order of first appearance.
    pub signals: Signals,
    /// Records (lines after the header).
    pub records: u64,
}

/// The records of a trace file after its header, checked as [`crate::Trace::from_jsonl`]
/// checks them.
struct Records<R> {
    lines: io::Lines<R>,
    line: usize,
    last_cycle: u64,
}

impl<R: BufRead> Records<R> {
    /// Read the header of `r` and return it with the records after it.
    fn open(r: R) -> Result<(TraceHeader, Records<R>), StreamError> {
        let mut it = Records {
            lines: r.lines(),
            line: 0,
            last_cycle: 0,
        };
        let Some((hn, hline)) = it.next_line()? else {
            return Err(StreamError::Parse("empty trace: no header line".into()));
        };
        let header: TraceHeader = serde_json::from_str(&hline)
            .map_err(|e| StreamError::Parse(format!("line {hn}: bad header: {e}")))?;
        if header.schema_version != SCHEMA_VERSION {
            return Err(StreamError::Parse(format!(
                "line {hn}: schema_version {} is not supported (this build reads {})",
                header.schema_version, SCHEMA_VERSION
            )));
        }
        Ok((header, it))
    }

    /// The next non-empty line and its 1-based number.
    fn next_line(&mut self) -> Result<Option<(usize, String)>, StreamError> {
        for l in self.lines.by_ref() {
            self.line += 1;
            let l = l.map_err(StreamError::Read)?;
            if !l.trim().is_empty() {
                return Ok(Some((self.line, l)));
            }
        }
        Ok(None)
    }

    fn next_record(&mut self) -> Result<Option<Record>, StreamError> {
        let Some((n, line)) = self.next_line()? else {
            return Ok(None);
        };
        let r: Record = serde_json::from_str(&line)
            .map_err(|e| StreamError::Parse(format!("line {n}: bad record: {e}")))?;
        if r.cycle < self.last_cycle {
            return Err(StreamError::Parse(format!(
                "line {n}: cycle {} goes back in time (previous record at cycle {})",
                r.cycle, self.last_cycle
            )));
        }
        self.last_cycle = r.cycle;
        Ok(Some(r))
    }
}

fn open(path: &Path) -> Result<(TraceHeader, Records<BufReader<std::fs::File>>), StreamError> {
    let file = std::fs::File::open(path).map_err(StreamError::Read)?;
    Records::open(BufReader::with_capacity(1 << 20, file))
}

/// Read the trace file at `path` once: its header, signals and record count.
pub fn scan(path: &Path) -> Result<Scan, StreamError> {
    let (header, mut recs) = open(path)?;
    let mut signals = Signals::default();
    let mut records = 0;
    while let Some(r) = recs.next_record()? {
        signals.add(&r.signal, &r.value);
        records += 1;
    }
    Ok(Scan {
        header,
        signals,
        records,
    })
}

/// Write the trace file at `path`, [`scan`]ned as `scan`, as VCD with `opts`.
pub fn write_vcd(
    path: &Path,
    scan: &Scan,
    opts: &VcdOptions,
    out: &mut impl Write,
) -> Result<(), StreamError> {
    let (_, mut recs) = open(path)?;
    // The parse error of the second pass (the file changed since the scan) is kept here
    // and reported instead of the I/O error that stops the writer.
    let mut failed = None;
    let records = std::iter::from_fn(|| match recs.next_record() {
        Ok(Some(r)) => match scan.signals.get(&r.signal) {
            Some(k) => Some(Ok((r.cycle, k, r.value))),
            None => {
                failed = Some(StreamError::Parse(format!(
                    "signal {} was not in the file when it was scanned",
                    r.signal
                )));
                Some(Err(io::Error::other("changed")))
            }
        },
        Ok(None) => None,
        Err(e) => {
            failed = Some(e);
            Some(Err(io::Error::other("unreadable")))
        }
    });
    let written = write_parts(&scan.header, &scan.signals, opts, records, out);
    match (failed, written) {
        (Some(e), _) => Err(e),
        (None, r) => r.map_err(StreamError::Write),
    }
}

/// Rewrite the trace file at `path` canonically (object keys sorted, as
/// [`crate::Trace::to_jsonl`]), returning the records written.
pub fn write_jsonl(path: &Path, out: &mut impl Write) -> Result<u64, StreamError> {
    let (mut header, mut recs) = open(path)?;
    header.config = canonical(&header.config);
    let json = |e: serde_json::Error| StreamError::Write(io::Error::other(e));
    serde_json::to_writer(&mut *out, &header).map_err(json)?;
    out.write_all(b"\n").map_err(StreamError::Write)?;
    let mut n = 0;
    while let Some(mut r) = recs.next_record()? {
        r.value = canonical(&r.value);
        serde_json::to_writer(&mut *out, &r).map_err(json)?;
        out.write_all(b"\n").map_err(StreamError::Write)?;
        n += 1;
    }
    Ok(n)
}
