//! VCD (IEEE 1364-2005 §18 value change dump) export of a [`Trace`], for GTKWave or Surfer.
//!
//! Written by hand rather than with the `vcd` crate: the subset we emit is small (header,
//! nested scopes, four variable kinds, value changes), and owning it keeps the bytes
//! deterministic (no `$date`) and lets string variables use the GTKWave/Surfer `s` form.
//! The tests parse the output back with the independent `vcd` crate.
//!
//! ```text
//!  Trace ──► classify each signal by every value it ever takes ──► $var declarations
//!        └─► per timestamp, the last value of each signal in that cycle, if it changed ──► #t / changes
//! ```
//!
//! Mapping of JSON values to VCD variables (a signal's kind is decided by all its values):
//!
//! | values seen                         | VCD variable                    | change      |
//! |-------------------------------------|---------------------------------|-------------|
//! | only bools                          | `wire 1`                        | `1!` / `0!` |
//! | integers (bools count as 0/1), ≥ 0  | `wire N`, N = bits of the max   | `b1010 !`   |
//! | integers, some negative             | `integer N`, two's complement   | `b1110 !`   |
//! | numbers, some non-integer           | `real 64`                       | `r1.5 !`    |
//! | anything with strings/arrays/objects| `string 1` (GTKWave extension)  | `sabc !`    |
//!
//! `null` is the unknown value (`x`, `bx`, `rnan`, `sx`). A per-signal width can be forced
//! with [`VcdOptions::widths`] (values wider than it are truncated to the low bits, as a
//! register of that width would hold them). String values have whitespace replaced by `_`
//! (VCD tokens cannot contain it) and the empty string written as `""`.
//!
//! Time: one cycle is `1 ns` (`$timescale 1ns`, timestamp = cycle), unless the header's
//! `config` has an integer `period_ps`, in which case `$timescale 1ps` and timestamp =
//! `cycle * period_ps` (the DES records picoseconds with `period_ps: 1`).
//!
//! Signal names with dots become nested scopes under a top scope named after the block:
//! `port0.queue_bytes` of block `Switch` is `Switch.port0.queue_bytes`.

use crate::schema::Trace;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::io::{self, Write};

/// Options of [`write_vcd_with`].
#[derive(Clone, Debug, Default)]
pub struct VcdOptions {
    /// Forced bit width per signal name (integers only; bools stay 1 bit unless forced).
    pub widths: BTreeMap<String, u32>,
}

/// The VCD variable kind a signal is written as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarKind {
    /// 1-bit wire (only bools).
    Bit,
    /// Unsigned bit vector of the given width.
    Unsigned(u32),
    /// Signed (two's complement) bit vector of the given width.
    Signed(u32),
    /// 64-bit real.
    Real,
    /// String (GTKWave / Surfer extension).
    Str,
}

/// Bits needed for an unsigned value (at least 1).
fn ubits(v: u64) -> u32 {
    (64 - v.leading_zeros()).max(1)
}

/// Bits needed for a signed value in two's complement (at least 1).
fn sbits(v: i64) -> u32 {
    let m = if v < 0 { !v } else { v } as u64;
    65 - m.leading_zeros()
}

/// A signal's kind built up one value at a time ([`classify`] over a stream of values).
#[derive(Clone, Copy, Debug, Default)]
pub struct KindAcc {
    any_bool: bool,
    any_int: bool,
    any_neg: bool,
    any_float: bool,
    any_str: bool,
    max_u: u64,
    max_s: u32,
}

impl KindAcc {
    /// Take one more value of the signal into account.
    pub fn add(&mut self, v: &Value) {
        match v {
            Value::Null => {}
            Value::Bool(_) => self.any_bool = true,
            Value::Number(n) => {
                if let Some(u) = n.as_u64() {
                    self.any_int = true;
                    self.max_u = self.max_u.max(u);
                    self.max_s = self.max_s.max(ubits(u) + 1);
                } else if let Some(i) = n.as_i64() {
                    self.any_int = true;
                    self.any_neg = true;
                    self.max_s = self.max_s.max(sbits(i));
                } else {
                    self.any_float = true;
                }
            }
            Value::String(_) | Value::Array(_) | Value::Object(_) => self.any_str = true,
        }
    }

    /// The kind of the values seen, with an optional forced width.
    pub fn kind(&self, forced: Option<u32>) -> VarKind {
        let width = |natural: u32| forced.unwrap_or(natural).clamp(1, 64);
        if self.any_str {
            VarKind::Str
        } else if self.any_float {
            VarKind::Real
        } else if self.any_neg {
            VarKind::Signed(width(self.max_s.clamp(1, 64)))
        } else if self.any_int || (self.any_bool && forced.is_some()) {
            VarKind::Unsigned(width(ubits(self.max_u)))
        } else {
            VarKind::Bit
        }
    }
}

/// The kind of a signal given every value it takes, and an optional forced width.
pub fn classify<'a>(values: impl IntoIterator<Item = &'a Value>, forced: Option<u32>) -> VarKind {
    let mut acc = KindAcc::default();
    for v in values {
        acc.add(v);
    }
    acc.kind(forced)
}

/// VCD identifier code number `i` (printable ASCII 33..=126, base 94).
fn id_code(mut i: usize) -> String {
    let mut s = String::new();
    loop {
        s.push((33 + (i % 94)) as u8 as char);
        i /= 94;
        if i == 0 {
            break;
        }
        i -= 1;
    }
    s
}

/// A VCD-safe identifier (scope or variable name).
fn ident(s: &str) -> String {
    let t: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '[' || c == ']' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if t.is_empty() {
        "_".into()
    } else {
        t
    }
}

/// The value-change text of `v` for a variable of `kind` with id `id`, e.g. `b101 !`.
fn change(kind: VarKind, v: &Value, id: &str) -> String {
    match kind {
        VarKind::Bit => match v {
            Value::Bool(true) => format!("1{id}"),
            Value::Bool(false) => format!("0{id}"),
            _ => format!("x{id}"),
        },
        VarKind::Unsigned(w) | VarKind::Signed(w) => {
            let raw: Option<u64> = match v {
                Value::Bool(b) => Some(*b as u64),
                Value::Number(n) => n.as_u64().or_else(|| n.as_i64().map(|i| i as u64)),
                _ => None,
            };
            match raw {
                Some(r) => {
                    let r = if w >= 64 { r } else { r & ((1u64 << w) - 1) };
                    format!("b{:b} {id}", r)
                }
                None => format!("bx {id}"),
            }
        }
        VarKind::Real => match v.as_f64() {
            Some(f) => format!("r{f:?} {id}"),
            None => format!("rnan {id}"),
        },
        VarKind::Str => {
            let text = match v {
                Value::Null => "x".to_string(),
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            let text: String = text
                .chars()
                .map(|c| if c.is_whitespace() { '_' } else { c })
                .collect();
            let text = if text.is_empty() { "\"\"".into() } else { text };
            format!("s{text} {id}")
        }
    }
}

/// Scope tree of variables: child scopes (in first-appearance order, found by a hash
/// index so a scope of many children is built in linear time) and variables.
#[derive(Default)]
struct Scope {
    children: Vec<(String, Scope)>,
    index: HashMap<String, usize>,
    vars: Vec<usize>,
}

impl Scope {
    fn insert(&mut self, path: &[&str], var: usize) {
        match path.split_first() {
            None => self.vars.push(var),
            Some((head, rest)) => {
                let pos = match self.index.get(*head) {
                    Some(&p) => p,
                    None => {
                        self.children.push((head.to_string(), Scope::default()));
                        self.index.insert(head.to_string(), self.children.len() - 1);
                        self.children.len() - 1
                    }
                };
                self.children[pos].1.insert(rest, var);
            }
        }
    }
}

struct Var {
    name: String,
    leaf: String,
    kind: VarKind,
    id: String,
}

fn write_scope(
    out: &mut impl Write,
    name: &str,
    scope: &Scope,
    vars: &[Var],
    depth: usize,
) -> io::Result<()> {
    let pad = "  ".repeat(depth);
    writeln!(out, "{pad}$scope module {} $end", ident(name))?;
    for &i in &scope.vars {
        let v = &vars[i];
        let (ty, w) = match v.kind {
            VarKind::Bit => ("wire", 1),
            VarKind::Unsigned(w) => ("wire", w),
            VarKind::Signed(w) => ("integer", w),
            VarKind::Real => ("real", 64),
            VarKind::Str => ("string", 1),
        };
        let range = match v.kind {
            VarKind::Unsigned(w) | VarKind::Signed(w) if w > 1 => format!(" [{}:0]", w - 1),
            _ => String::new(),
        };
        writeln!(
            out,
            "{pad}  $var {ty} {w} {} {}{range} $end",
            v.id,
            ident(&v.leaf)
        )?;
    }
    for (n, s) in &scope.children {
        write_scope(out, n, s, vars, depth + 1)?;
    }
    writeln!(out, "{pad}$upscope $end")
}

/// Write `trace` as VCD with inferred widths. See the module doc for the mapping.
pub fn write_vcd(trace: &Trace, out: &mut impl Write) -> io::Result<()> {
    write_vcd_with(trace, out, &VcdOptions::default())
}

/// Write `trace` as VCD with `opts` (forced widths).
pub fn write_vcd_with(trace: &Trace, out: &mut impl Write, opts: &VcdOptions) -> io::Result<()> {
    // One pass over the records: each record's variable index (variables in order of first
    // appearance, found by hash) and each variable's kind, so the export is linear in
    // records + signals (it used to filter every record once per signal).
    let mut sig = Signals::default();
    let rec_var: Vec<usize> = trace
        .records
        .iter()
        .map(|r| sig.add(&r.signal, &r.value))
        .collect();
    let records = trace
        .records
        .iter()
        .zip(rec_var)
        .map(|(r, k)| Ok((r.cycle, k, &r.value)));
    write_parts(&trace.header, &sig, opts, records, out)
}

/// The signals of a trace in order of first appearance, each with its values' kind so far.
#[derive(Debug, Default)]
pub struct Signals {
    index: HashMap<String, usize>,
    names: Vec<String>,
    kinds: Vec<KindAcc>,
}

impl Signals {
    /// A record of `signal` with `value`: its variable index.
    pub fn add(&mut self, signal: &str, value: &Value) -> usize {
        let k = match self.index.get(signal) {
            Some(&k) => k,
            None => {
                self.index.insert(signal.to_string(), self.names.len());
                self.names.push(signal.to_string());
                self.kinds.push(KindAcc::default());
                self.names.len() - 1
            }
        };
        self.kinds[k].add(value);
        k
    }

    /// Variable index of `signal`, if it has a record.
    pub fn get(&self, signal: &str) -> Option<usize> {
        self.index.get(signal).copied()
    }

    /// The names, in order of first appearance.
    pub fn names(&self) -> &[String] {
        &self.names
    }
}

/// The VCD of a trace with header `h` whose signals are `sig` (every record seen) and whose
/// records are `records` again, in trace order: `(cycle, variable index, value)`.
pub fn write_parts<V: std::borrow::Borrow<Value>>(
    h: &crate::schema::TraceHeader,
    sig: &Signals,
    opts: &VcdOptions,
    records: impl Iterator<Item = io::Result<(u64, usize, V)>>,
    out: &mut impl Write,
) -> io::Result<()> {
    let vars: Vec<Var> = sig
        .names
        .iter()
        .zip(&sig.kinds)
        .enumerate()
        .map(|(i, (name, acc))| Var {
            name: name.clone(),
            leaf: name.rsplit('.').next().unwrap_or(name).to_string(),
            kind: acc.kind(opts.widths.get(name.as_str()).copied()),
            id: id_code(i),
        })
        .collect();

    let period_ps = h.config.get("period_ps").and_then(Value::as_u64);
    let (timescale, mult) = match period_ps {
        Some(p) if p > 0 => ("1ps", p),
        _ => ("1ns", 1),
    };

    writeln!(
        out,
        "$version dcfab golden {} $end",
        env!("CARGO_PKG_VERSION")
    )?;
    let comment = format!(
        "block={} schema_version={} seed={} config={} description={}",
        h.block,
        h.schema_version,
        h.seed,
        crate::schema::canonical(&h.config),
        h.description
    )
    .replace("$end", "$ end");
    writeln!(out, "$comment {comment} $end")?;
    writeln!(out, "$timescale {timescale} $end")?;
    let mut root = Scope::default();
    for (i, v) in vars.iter().enumerate() {
        let parts: Vec<&str> = v.name.split('.').collect();
        root.insert(&parts[..parts.len() - 1], i);
    }
    write_scope(out, &h.block, &root, &vars, 0)?;
    writeln!(out, "$enddefinitions $end")?;

    // Last value of each signal per cycle (stable order: records are sorted by cycle).
    let mut current: Vec<Option<Value>> = vec![None; vars.len()];
    let mut records = records.peekable();
    let mut first = true;
    loop {
        let cycle = match records.peek() {
            Some(Ok((c, _, _))) => *c,
            Some(Err(_)) => return Err(records.next().and_then(Result::err).expect("peeked")),
            None if first => 0,
            None => break,
        };
        let mut latest: BTreeMap<usize, V> = BTreeMap::new();
        while let Some(Ok((c, _, _))) = records.peek() {
            if *c != cycle {
                break;
            }
            if let Some(Ok((_, k, v))) = records.next() {
                latest.insert(k, v);
            }
        }
        writeln!(out, "#{}", cycle.saturating_mul(mult))?;
        if first {
            // Initial values of every variable (x where the first cycle says nothing).
            writeln!(out, "$dumpvars")?;
            for (k, v) in vars.iter().enumerate() {
                let val = latest.get(&k).map_or(&Value::Null, |v| v.borrow());
                writeln!(out, "{}", change(v.kind, val, &v.id))?;
                current[k] = Some(val.clone());
            }
            writeln!(out, "$end")?;
            first = false;
        } else {
            for (k, val) in latest {
                let val = val.borrow();
                if current[k].as_ref() != Some(val) {
                    writeln!(out, "{}", change(vars[k].kind, val, &vars[k].id))?;
                    current[k] = Some(val.clone());
                }
            }
        }
    }
    Ok(())
}

/// [`write_vcd`] into a `String`.
pub fn to_vcd_string(trace: &Trace) -> String {
    let mut buf = Vec::new();
    write_vcd(trace, &mut buf).expect("writing to a Vec cannot fail");
    String::from_utf8(buf).expect("VCD output is UTF-8")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn id_codes_are_unique_and_printable() {
        let codes: Vec<String> = (0..20_000).map(id_code).collect();
        let mut sorted = codes.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), codes.len());
        assert_eq!(codes[0], "!");
        assert_eq!(codes[93], "~");
        assert_eq!(codes[94].len(), 2);
        assert!(codes
            .iter()
            .all(|c| c.bytes().all(|b| (33..=126).contains(&b))));
    }

    /// 200k signals, half of them in 100k sibling scopes: the export is linear (a per-signal
    /// scan of the records or of a scope's children would take minutes here, not a second).
    #[test]
    fn many_signals_export() {
        use crate::schema::{Record, TraceHeader, SCHEMA_VERSION};
        let n = 100_000u64;
        let records = (0..n)
            .flat_map(|i| {
                [
                    Record {
                        cycle: i / 1000,
                        signal: format!("s{i}"),
                        value: json!(i),
                    },
                    Record {
                        cycle: i / 1000,
                        signal: format!("port{i}.q"),
                        value: json!(i % 2 == 0),
                    },
                ]
            })
            .collect();
        let trace = Trace {
            header: TraceHeader {
                schema_version: SCHEMA_VERSION,
                block: "Big".into(),
                config: json!({}),
                seed: 0,
                description: "many signals".into(),
            },
            records,
        };
        assert_eq!(trace.signals().len(), 2 * n as usize);
        let text = to_vcd_string(&trace);
        assert_eq!(text.matches("$var ").count(), 2 * n as usize);
        assert_eq!(text.matches("$scope module port").count(), n as usize);
        assert!(
            text.contains("$var wire 17 "),
            "widths come from each signal's own values"
        );
    }

    #[test]
    fn classify_widths() {
        let vals = [json!(0), json!(5), json!(255)];
        assert_eq!(classify(&vals, None), VarKind::Unsigned(8));
        assert_eq!(classify(&vals, Some(16)), VarKind::Unsigned(16));
        assert_eq!(classify(&[json!(true), json!(null)], None), VarKind::Bit);
        assert_eq!(
            classify(&[json!(true), json!(2)], None),
            VarKind::Unsigned(2)
        );
        assert_eq!(classify(&[json!(-1), json!(3)], None), VarKind::Signed(3));
        assert_eq!(classify(&[json!(-128)], None), VarKind::Signed(8));
        assert_eq!(classify(&[json!(1), json!(0.5)], None), VarKind::Real);
        assert_eq!(classify(&[json!(1), json!("a")], None), VarKind::Str);
        assert_eq!(classify(&[json!(u64::MAX)], None), VarKind::Unsigned(64));
        assert_eq!(change(VarKind::Signed(4), &json!(-2), "!"), "b1110 !");
        assert_eq!(change(VarKind::Unsigned(4), &json!(5), "!"), "b101 !");
        assert_eq!(change(VarKind::Str, &json!("a b"), "#"), "sa_b #");
        assert_eq!(change(VarKind::Real, &json!(1.5), "#"), "r1.5 #");
    }
}
