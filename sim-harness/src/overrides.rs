//! Loading a scenario: TOML text, then `--set path.to.field=value` overrides, then serde.
//!
//! Overrides are applied to the TOML table tree *before* it is deserialized into a
//! [`Scenario`], so an override is checked exactly like the same line in the file: an
//! unknown path is rejected by serde (`deny_unknown_fields`) with the field named, a wrong
//! type names the field and the expected type. A value is parsed as a TOML value
//! (`4`, `2.5`, `true`, `"x"`, `[1, 2]`, `{ link = "tor0.up0", at_us = 5 }`) and, if that
//! fails, taken as a plain string (`ops`, `8MiB`). A path segment that is a number indexes an
//! array (`failures.0.at_us=10`); `failures[0].at_us` is accepted too.

use crate::error::{Error, Result};
use crate::scenario::Scenario;
use std::path::Path;
use toml::{Table, Value};

/// The built-in scenario `dcfab run` uses without a file (`scenarios/default.toml`).
pub const DEFAULT_SCENARIO_TOML: &str = include_str!("../../scenarios/default.toml");

/// One `path=value` override.
#[derive(Debug, Clone, PartialEq)]
pub struct Override {
    /// The path as the user wrote it (`topology.radix`).
    pub path: String,
    /// Path segments (`["topology", "radix"]`).
    pub segments: Vec<String>,
    /// The value.
    pub value: Value,
    /// The value as the user wrote it.
    pub raw: String,
}

/// Parse a TOML value as written on a command line; a string when it is not TOML.
pub fn parse_value(raw: &str) -> Value {
    let doc = format!("v = {raw}");
    match doc.parse::<Table>() {
        Ok(mut t) => t
            .remove("v")
            .unwrap_or_else(|| Value::String(raw.to_string())),
        Err(_) => Value::String(raw.to_string()),
    }
}

/// Split `a.b[0].c` into `["a", "b", "0", "c"]`; `flag` names the flag for errors.
pub fn parse_path(path: &str, flag: &str) -> Result<Vec<String>> {
    let bad = |why: &str| Error::Cli {
        flag: flag.to_string(),
        problem: format!("'{path}' is not a field path ({why})"),
    };
    let mut out = Vec::new();
    for part in path.split('.') {
        // `name[3][4]` -> name, 3, 4
        let (name, mut rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if !name.is_empty() {
            out.push(name.to_string());
        } else if rest.is_empty() {
            return Err(bad("empty segment"));
        }
        while !rest.is_empty() {
            let close = rest.find(']').ok_or_else(|| bad("unclosed '['"))?;
            let idx = &rest[1..close];
            if idx.is_empty() || !idx.chars().all(|c| c.is_ascii_digit()) {
                return Err(bad("an index must be a number"));
            }
            out.push(idx.to_string());
            rest = &rest[close + 1..];
            if !rest.is_empty() && !rest.starts_with('[') {
                return Err(bad("text after ']'"));
            }
        }
    }
    if out.is_empty() {
        return Err(bad("empty"));
    }
    for seg in &out {
        if !seg
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            return Err(bad("use letters, digits and '_'"));
        }
    }
    Ok(out)
}

impl Override {
    /// Parse `path=value` (the argument of `--set`; `flag` names the flag in errors).
    pub fn parse(arg: &str, flag: &str) -> Result<Override> {
        let (path, raw) = arg.split_once('=').ok_or_else(|| Error::Cli {
            flag: flag.to_string(),
            problem: format!("'{arg}' is not path=value (e.g. transport.lb=ops)"),
        })?;
        let path = path.trim();
        let segments = parse_path(path, flag)?;
        Ok(Override {
            path: path.to_string(),
            segments,
            value: parse_value(raw.trim()),
            raw: raw.trim().to_string(),
        })
    }

    /// Apply to a scenario's table tree, creating missing tables on the way.
    pub fn apply(&self, root: &mut Table) -> Result<()> {
        set_path(root, &self.segments, self.value.clone(), &self.path)
    }
}

fn set_path(root: &mut Table, segs: &[String], value: Value, path: &str) -> Result<()> {
    let mut tree = Value::Table(std::mem::take(root));
    let r = set_value(&mut tree, segs, 0, value, path);
    if let Value::Table(t) = tree {
        *root = t;
    }
    r
}

fn set_value(
    node: &mut Value,
    segs: &[String],
    depth: usize,
    value: Value,
    path: &str,
) -> Result<()> {
    let seg = &segs[depth];
    let last = depth + 1 == segs.len();
    let here = segs[..depth].join(".");
    let child: &mut Value = match node {
        Value::Table(t) => {
            if last {
                t.insert(seg.clone(), value);
                return Ok(());
            }
            let next_is_index = segs[depth + 1].chars().all(|c| c.is_ascii_digit());
            t.entry(seg.clone()).or_insert_with(|| {
                if next_is_index {
                    Value::Array(Vec::new())
                } else {
                    Value::Table(Table::new())
                }
            })
        }
        Value::Array(a) => {
            let idx: usize = seg.parse().map_err(|_| {
                let problem = if !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_digit()) {
                    let len = a.len();
                    format!("has {len} entries, so [{seg}] does not exist")
                } else {
                    format!("is an array: index it with a number (e.g. {here}.0), not '{seg}'")
                };
                Error::field(here.clone(), problem)
            })?;
            // Index `len` appends, so `failures.0.link=...` works on an empty list.
            if idx == a.len() {
                a.push(if last {
                    value.clone()
                } else {
                    Value::Table(Table::new())
                });
                if last {
                    return Ok(());
                }
            }
            let len = a.len();
            let slot = a.get_mut(idx).ok_or_else(|| {
                Error::field(
                    here.clone(),
                    format!("has {len} entries, so [{idx}] does not exist"),
                )
            })?;
            if last {
                *slot = value;
                return Ok(());
            }
            slot
        }
        _ => {
            return Err(Error::field(
                here,
                format!("is a value, not a table: cannot set '{path}'"),
            ))
        }
    };
    set_value(child, segs, depth + 1, value, path)
}

/// Parse scenario TOML text into a table; `origin` names the file in errors.
pub fn parse_table(text: &str, origin: &Path) -> Result<Table> {
    text.parse::<Table>().map_err(|e| Error::Parse {
        path: origin.to_path_buf(),
        problem: describe_toml_error(&e, text),
    })
}

/// "line L, column C: message" from a TOML error.
fn describe_toml_error(e: &toml::de::Error, text: &str) -> String {
    let msg = e
        .message()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ");
    match e.span() {
        Some(span) => {
            let before = &text[..span.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
            format!("line {line}, column {col}: {msg}")
        }
        None => msg,
    }
}

/// The sections of a scenario, each a table.
const SECTIONS: [&str; 6] = [
    "topology",
    "transport",
    "workload",
    "output",
    "skip",
    "stop",
];

/// A value's kind and text as the user wrote it, e.g. "an array ([1, 2])".
fn describe_value(v: &Value) -> String {
    let kind = match v {
        Value::String(_) => "a string",
        Value::Integer(_) => "an integer",
        Value::Float(_) => "a number",
        Value::Boolean(_) => "a boolean",
        Value::Datetime(_) => "a date",
        Value::Array(_) => "an array",
        Value::Table(_) => "a table",
    };
    let mut text = v.to_string();
    if text.len() > 60 {
        text.truncate(57);
        text.push_str("...");
    }
    format!("{kind} ({text})")
}

/// Check the shape of the tree before serde reads it: every section is a table and
/// `failures` is an array of tables, so `topology = [1, 2]` says so instead of serde's
/// "invalid type: unit variant".
fn check_shape(table: &Table) -> Result<()> {
    for name in SECTIONS {
        if let Some(v) = table.get(name) {
            if !v.is_table() {
                return Err(Error::field(
                    name,
                    format!(
                        "got {}; expected a table: a [{name}] section, or {name}.FIELD = VALUE",
                        describe_value(v)
                    ),
                ));
            }
        }
    }
    for name in ["failures", "loss"] {
        let Some(v) = table.get(name) else {
            continue;
        };
        let Some(list) = v.as_array() else {
            return Err(Error::field(
                name,
                format!(
                    "got {}; expected an array of tables ([[{name}]] sections)",
                    describe_value(v)
                ),
            ));
        };
        for (i, entry) in list.iter().enumerate() {
            if !entry.is_table() {
                return Err(Error::field(
                    format!("{name}[{i}]"),
                    format!(
                        "got {}; expected a table like {{ link = \"tor0.up0\", at_us = 10 }}",
                        describe_value(entry)
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Deserialize a table into a [`Scenario`]; errors name the field (`topology.radix: ...`).
pub fn scenario_from_table(table: Table) -> Result<Scenario> {
    check_shape(&table)?;
    // Array entries first, one by one, so an error names the entry (`failures[2].at_us`,
    // `loss[0].place`).
    check_entries::<crate::scenario::Failure>(&table, "failures")?;
    check_entries::<crate::scenario::Loss>(&table, "loss")?;
    Value::Table(table)
        .try_into::<Scenario>()
        .map_err(|e| field_error(&e))
}

/// Deserialize each entry of array `name` on its own, so an error names the entry
/// (`name[i].field`) rather than the array.
fn check_entries<T: serde::de::DeserializeOwned>(table: &Table, name: &str) -> Result<()> {
    if let Some(Value::Array(list)) = table.get(name) {
        for (i, entry) in list.iter().enumerate() {
            entry
                .clone()
                .try_into::<T>()
                .map_err(|e| match field_error(&e) {
                    Error::Field { field, problem } => {
                        let field = if field == "scenario" {
                            format!("{name}[{i}]")
                        } else {
                            format!("{name}[{i}].{field}")
                        };
                        Error::Field { field, problem }
                    }
                    other => other,
                })?;
        }
    }
    Ok(())
}

/// Turn a serde error from `toml` into `field: problem`.
fn field_error(e: &toml::de::Error) -> Error {
    // toml renders the key path of a value error as a last line "in `a.b`".
    let text = e.to_string();
    let msg = e.message().trim();
    let parent = text
        .lines()
        .rev()
        .find_map(|l| {
            l.trim()
                .strip_prefix("in `")
                .and_then(|r| r.strip_suffix('`'))
        })
        .map(str::to_string);
    let join = |p: &Option<String>, k: &str| match p {
        Some(p) if !p.is_empty() => format!("{p}.{k}"),
        _ => k.to_string(),
    };
    // Unknown or missing fields: serde names the field in the message, the path is the parent.
    for (prefix, problem) in [
        ("unknown field `", "unknown field"),
        ("missing field `", "missing field"),
    ] {
        if let Some(rest) = msg.strip_prefix(prefix) {
            if let Some((name, tail)) = rest.split_once('`') {
                let tail = tail.trim_start_matches(',').trim();
                let problem = if tail.is_empty() {
                    problem.to_string()
                } else {
                    format!("{problem}, {tail}")
                };
                return Error::field(join(&parent, name), problem);
            }
        }
    }
    let msg = too_large_integer(msg)
        .or_else(|| short_float(msg))
        .unwrap_or_else(|| msg.to_string());
    match parent {
        Some(p) => Error::field(p, msg),
        None => Error::field("scenario", msg),
    }
}

/// serde's `invalid type: string "18446744073709551616", expected u64` for a number too
/// large for a TOML integer (a `--set` value that is not TOML becomes a string): say so.
fn too_large_integer(msg: &str) -> Option<String> {
    let rest = msg.strip_prefix("invalid type: string \"")?;
    let (digits, expected) = rest.split_once("\", expected ")?;
    let body = digits.strip_prefix('-').unwrap_or(digits);
    // Digits that fit were a quoted string (`"0"`), not a number too large.
    if body.is_empty() || !body.bytes().all(|b| b.is_ascii_digit()) || digits.parse::<i64>().is_ok()
    {
        return None;
    }
    Some(format!(
        "{digits} is too large for an integer (TOML integers are -9223372036854775808 to \
         9223372036854775807); expected {expected}"
    ))
}

/// serde's `invalid type: floating point `1000...0`, expected u32` prints a float in full
/// (301 digits for `1e300`): print it as the user wrote it ([`crate::units::num`]).
fn short_float(msg: &str) -> Option<String> {
    let (head, rest) = msg.split_once("floating point `")?;
    let (number, tail) = rest.split_once('`')?;
    let v: f64 = number.parse().ok()?;
    Some(format!(
        "{head}floating point `{}`{tail}",
        crate::units::num(v)
    ))
}

/// Where a scenario comes from.
#[derive(Debug, Clone, Copy)]
pub enum Source<'a> {
    /// The built-in default ([`DEFAULT_SCENARIO_TOML`]).
    BuiltIn,
    /// A file.
    File(&'a Path),
}

/// Read the scenario's TOML table (not yet deserialized).
pub fn read_table(src: Source) -> Result<Table> {
    match src {
        Source::BuiltIn => parse_table(DEFAULT_SCENARIO_TOML, Path::new("scenarios/default.toml")),
        Source::File(p) => {
            let text = std::fs::read_to_string(p).map_err(|source| Error::Io {
                path: p.to_path_buf(),
                source,
            })?;
            parse_table(&text, p)
        }
    }
}

/// Apply overrides in order to a table and deserialize and validate the result.
pub fn resolve(mut table: Table, overrides: &[Override]) -> Result<Scenario> {
    for o in overrides {
        o.apply(&mut table)?;
    }
    let s = scenario_from_table(table)?;
    crate::validate::validate(&s)?;
    Ok(s)
}

/// Load a scenario: read `src`, apply `sets` (`path=value` strings, in order), validate.
pub fn load(src: Source, sets: &[String]) -> Result<Scenario> {
    let table = read_table(src)?;
    let overrides = sets
        .iter()
        .map(|s| Override::parse(s, "--set"))
        .collect::<Result<Vec<_>>>()?;
    resolve(table, &overrides)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{LbKind, Size};

    fn field(e: Error) -> (String, String) {
        match e {
            Error::Field { field, problem } => (field, problem),
            other => panic!("expected a field error, got {other:?}"),
        }
    }

    #[test]
    fn values_parse_as_toml_or_string() {
        assert_eq!(parse_value("4"), Value::Integer(4));
        assert_eq!(parse_value("2.5"), Value::Float(2.5));
        assert_eq!(parse_value("true"), Value::Boolean(true));
        assert_eq!(parse_value("ops"), Value::String("ops".into()));
        assert_eq!(parse_value("\"a b\""), Value::String("a b".into()));
        assert_eq!(parse_value("8MiB"), Value::String("8MiB".into()));
    }

    #[test]
    fn paths_parse() {
        assert_eq!(parse_path("a.b", "--set").unwrap(), ["a", "b"]);
        assert_eq!(
            parse_path("failures[0].at_us", "--set").unwrap(),
            ["failures", "0", "at_us"]
        );
        assert!(parse_path("a..b", "--set").is_err());
        assert!(parse_path("a[x]", "--set").is_err());
        assert!(parse_path("", "--set").is_err());
    }

    #[test]
    fn overrides_apply_and_are_checked() {
        let sets = [
            "transport.lb=reps".to_string(),
            "topology.radix=4".into(),
            "topology.link_gbps=100".into(),
            "workload.message=64KiB".into(),
            "seed=7".into(),
        ];
        let s = load(Source::BuiltIn, &sets).unwrap();
        assert_eq!(s.transport.lb, LbKind::Reps);
        assert_eq!(s.topology.radix, 4);
        assert_eq!(s.topology.link_gbps, 100.0);
        assert_eq!(s.workload.message, Size::Bytes(64 << 10));
        assert_eq!(s.seed, 7);

        let (f, p) = field(load(Source::BuiltIn, &["topology.radixx=4".into()]).unwrap_err());
        assert_eq!(f, "topology.radixx");
        assert!(p.contains("unknown field"), "{p}");
        let (f, _) = field(load(Source::BuiltIn, &["nosuch.x=4".into()]).unwrap_err());
        assert_eq!(f, "nosuch");
        let (f, p) = field(load(Source::BuiltIn, &["topology.radix=abc".into()]).unwrap_err());
        assert_eq!(f, "topology.radix");
        assert!(p.contains("u32"), "{p}");
        let (f, _) = field(load(Source::BuiltIn, &["seed.x=1".into()]).unwrap_err());
        assert_eq!(f, "seed");
        let (f, _) = field(load(Source::BuiltIn, &["topology.radix=7".into()]).unwrap_err());
        assert_eq!(f, "topology.radix");
        assert!(matches!(
            load(Source::BuiltIn, &["novalue".into()]),
            Err(Error::Cli { .. })
        ));
    }

    #[test]
    fn failures_via_set() {
        let s = load(
            Source::BuiltIn,
            &[
                "failures=[{link = \"tor0.up0\", at_us = 5}]".into(),
                "failures[0].for_us=20".into(),
            ],
        )
        .unwrap();
        assert_eq!(s.failures.len(), 1);
        assert_eq!(s.failures[0].for_us, Some(20.0));
        let (f, _) = field(
            load(
                Source::BuiltIn,
                &["failures=[{link = \"tor0.up0\"}]".into()],
            )
            .unwrap_err(),
        );
        assert_eq!(f, "failures[0].at_us");
        let (f, p) = field(load(Source::BuiltIn, &["failures.3.at_us=1".into()]).unwrap_err());
        assert_eq!(f, "failures");
        assert!(p.contains("0 entries"), "{p}");
    }

    #[test]
    fn too_large_integers_say_so() {
        let (f, p) = field(
            load(
                Source::BuiltIn,
                &["topology.link_delay_ns=18446744073709551616".into()],
            )
            .unwrap_err(),
        );
        assert_eq!(f, "topology.link_delay_ns");
        assert!(
            p.contains("too large for an integer") && p.contains("u64"),
            "{p}"
        );
    }

    #[test]
    fn wrong_shapes_name_the_section() {
        let (f, p) = field(load(Source::BuiltIn, &["topology=[1, 2]".into()]).unwrap_err());
        assert_eq!(f, "topology");
        assert!(
            p.contains("an array ([1, 2])") && p.contains("table"),
            "{p}"
        );
        let (f, _) = field(load(Source::BuiltIn, &["stop=3".into()]).unwrap_err());
        assert_eq!(f, "stop");
        let (f, p) = field(load(Source::BuiltIn, &["failures=5".into()]).unwrap_err());
        assert_eq!(f, "failures");
        assert!(p.contains("array of tables"), "{p}");
        let (f, _) = field(load(Source::BuiltIn, &["failures=[1]".into()]).unwrap_err());
        assert_eq!(f, "failures[0]");
        let (f, p) = field(load(Source::BuiltIn, &["topology.buffer=2.5".into()]).unwrap_err());
        assert_eq!(f, "topology.buffer");
        assert!(p.contains("got 2.5 (not a whole number of bytes)"), "{p}");
        let (f, p) = field(load(Source::BuiltIn, &["workload.message=-1".into()]).unwrap_err());
        assert_eq!(f, "workload.message");
        assert!(p.contains("got -1 (negative)"), "{p}");
    }

    #[test]
    fn parse_errors_give_line_and_column() {
        let e = parse_table("name = \"x\"\n[topology\n", Path::new("f.toml")).unwrap_err();
        let text = e.to_string();
        assert!(text.starts_with("f.toml: line 2, column"), "{text}");
    }

    #[test]
    fn default_file_is_the_default_scenario() {
        let s = load(Source::BuiltIn, &[]).unwrap();
        assert_eq!(s, Scenario::default());
    }
}
