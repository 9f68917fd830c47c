//! Writers for a run's output directory (README "Output format" documents every column).
//!
//! ```text
//! out/<scenario name>/
//!   summary.json    the Summary, plus "interrupted"
//!   flows.csv       one row per flow (FlowRecord)
//!   queues.csv      queue-occupancy samples (QueueSample)
//!   links.csv       per-link counters (LinkRecord)
//!   rates.csv       per-flow rate samples (RateSample), when output.rate_sample_us > 0
//!   fairness.csv    Jain's index per rate interval (FairnessSample), with rates.csv
//!   <table>.csv     one per entry of RunResult.tables
//!   scenario.toml   the fully resolved scenario, seed included
//! ```
//!
//! Every file records the seed, the scenario name and the dcfab version: `summary.json` in
//! its fields, each CSV in a first comment line `# dcfab_version=... scenario=... seed=...`
//! (read with `pandas.read_csv(f, comment="#")`), `scenario.toml` in its header comment and
//! its `name` / `seed` fields. A run is written into a fresh hidden directory beside its
//! target, which is then renamed into place as a whole ([`write_run`]): the directory always
//! holds exactly one run, never a mix of two, and never a half-written file.

use crate::error::{Error, Result};
use crate::results::{
    FairnessSample, FlowRecord, LinkRecord, QueueSample, RateSample, RunResult, Summary, Table,
};
use crate::scenario::Scenario;
use serde::Serialize;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// The dcfab version recorded in every output.
pub const DCFAB_VERSION: &str = env!("CARGO_PKG_VERSION");

/// File names the standard outputs use (a `RunResult.tables` entry may not take them).
pub const STANDARD_FILES: [&str; 7] = [
    "summary.json",
    "flows.csv",
    "queues.csv",
    "links.csv",
    "scenario.toml",
    "rates.csv",
    "fairness.csv",
];

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Write `path` atomically: `fill` writes into a temporary file beside it, which is flushed,
/// synced and renamed over `path`. On any error the temporary file is removed.
pub fn atomic_write(
    path: &Path,
    fill: impl FnOnce(&mut BufWriter<File>) -> std::io::Result<()>,
) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".into());
    let tmp = dir.join(format!(".{name}.tmp{}", std::process::id()));
    let result = (|| {
        let mut w = BufWriter::new(File::create(&tmp)?);
        fill(&mut w)?;
        let f = w.into_inner().map_err(|e| e.into_error())?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(io_err(path))
}

/// The provenance line at the top of every CSV (without the newline).
pub fn provenance(s: &Scenario) -> String {
    format!(
        "# dcfab_version={DCFAB_VERSION} scenario={} seed={}",
        s.name, s.seed
    )
}

/// The summary with `seed`, `scenario` and `dcfab_version` taken from the run's scenario.
pub fn stamped_summary(s: &Scenario, summary: &Summary) -> Summary {
    let mut out = summary.clone();
    out.seed = s.seed;
    out.scenario = s.name.clone();
    out.dcfab_version = DCFAB_VERSION.to_string();
    out
}

/// `summary.json` content: the summary's fields (in declaration order) plus `"interrupted"`.
#[derive(Serialize)]
pub struct SummaryFile {
    /// The run's summary, with seed, scenario and version stamped.
    #[serde(flatten)]
    pub summary: Summary,
    /// True when Ctrl-C stopped the run before it finished.
    pub interrupted: bool,
}

/// The `summary.json` document of a run.
pub fn summary_file(s: &Scenario, summary: &Summary, interrupted: bool) -> SummaryFile {
    SummaryFile {
        summary: stamped_summary(s, summary),
        interrupted,
    }
}

fn csv_io(e: csv::Error) -> std::io::Error {
    match e.into_kind() {
        csv::ErrorKind::Io(e) => e,
        other => std::io::Error::other(format!("{other:?}")),
    }
}

/// Column names of a record type, as `csv` derives them from its `Serialize` impl.
pub fn header_of<T: Serialize + Default>() -> Vec<String> {
    let mut w = csv::WriterBuilder::new()
        .has_headers(true)
        .from_writer(Vec::new());
    if w.serialize(T::default()).is_err() {
        return Vec::new();
    }
    let bytes = w.into_inner().unwrap_or_default();
    let mut r = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(bytes.as_slice());
    r.records()
        .next()
        .and_then(|rec| rec.ok())
        .map(|rec| rec.iter().map(str::to_string).collect())
        .unwrap_or_default()
}

/// Write records (header first, even with no rows) after the provenance line.
fn write_records<T: Serialize + Default>(
    w: &mut impl Write,
    prov: &str,
    rows: &[T],
) -> std::io::Result<()> {
    writeln!(w, "{prov}")?;
    let mut c = csv::WriterBuilder::new().has_headers(false).from_writer(w);
    c.write_record(header_of::<T>()).map_err(csv_io)?;
    for r in rows {
        c.serialize(r).map_err(csv_io)?;
    }
    c.flush()
}

fn write_table(w: &mut impl Write, prov: &str, t: &Table) -> std::io::Result<()> {
    writeln!(w, "{prov}")?;
    let mut c = csv::WriterBuilder::new().has_headers(false).from_writer(w);
    c.write_record(&t.header).map_err(csv_io)?;
    for (i, row) in t.rows.iter().enumerate() {
        if row.len() != t.header.len() {
            return Err(std::io::Error::other(format!(
                "row {i} has {} fields but the header has {}",
                row.len(),
                t.header.len()
            )));
        }
        c.write_record(row).map_err(csv_io)?;
    }
    c.flush()
}

/// File name for a `RunResult.tables` key (`collectives` or `collectives.csv`).
pub fn table_file_name(key: &str) -> Result<String> {
    let name = if key.ends_with(".csv") {
        key.to_string()
    } else {
        format!("{key}.csv")
    };
    let ok = !key.is_empty()
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if !ok || STANDARD_FILES.contains(&name.as_str()) {
        return Err(Error::field(
            "tables",
            format!("'{key}' cannot be an output file name"),
        ));
    }
    Ok(name)
}

/// The fully resolved scenario as TOML, with a provenance header.
pub fn scenario_toml(s: &Scenario) -> Result<String> {
    let body = toml::to_string(s)
        .map_err(|e| Error::field("scenario", format!("cannot be written as TOML: {e}")))?;
    Ok(format!(
        "# Fully resolved scenario written by dcfab {DCFAB_VERSION} (defaults filled in, \
         --set and --seed applied).\n# Re-run it with: dcfab run scenario.toml\n{body}"
    ))
}

/// Files whose presence marks a directory as a dcfab run or sweep (so `--out` may replace it).
pub const RUN_MARKERS: [&str; 3] = ["summary.json", "scenario.toml", "sweep.csv"];

fn out_err(target: &Path, problem: String) -> Error {
    Error::Cli {
        flag: "--out".into(),
        problem: format!("{}: {problem}", target.display()),
    }
}

/// Check that `target` may receive a run: it does not exist, or is an empty directory, or
/// holds a previous dcfab run or sweep (a file of [`RUN_MARKERS`]). Any other directory
/// (a home directory, a source tree) is refused rather than replaced.
pub fn check_replaceable(target: &Path) -> Result<()> {
    if target.file_name().is_none() {
        return Err(out_err(
            target,
            "must name a directory (not '.', '..' or '/')".into(),
        ));
    }
    let meta = match std::fs::symlink_metadata(target) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(source) => return Err(io_err(target)(source)),
    };
    if !meta.is_dir() {
        return Err(out_err(
            target,
            "exists and is not a directory; choose another --out".into(),
        ));
    }
    let mut other = None;
    for entry in std::fs::read_dir(target).map_err(io_err(target))? {
        let name = entry
            .map_err(io_err(target))?
            .file_name()
            .to_string_lossy()
            .into_owned();
        if RUN_MARKERS.contains(&name.as_str()) {
            return Ok(());
        }
        other.get_or_insert(name);
    }
    match other {
        None => Ok(()),
        Some(name) => Err(out_err(
            target,
            format!(
                "exists and is not a dcfab output directory (it holds '{name}' and no \
                 summary.json, scenario.toml or sweep.csv); a run replaces its whole \
                 directory, so choose another --out or empty this one"
            ),
        )),
    }
}

/// Staging directories of this process not yet committed or removed.
static STAGING: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

fn forget_staging(dir: &Path) {
    STAGING
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|d| d != dir);
}

/// Remove every staging directory this process is still writing (for an abort: a second
/// Ctrl-C), so nothing half-written stays beside the targets.
pub fn remove_staging_dirs() {
    for dir in STAGING.lock().unwrap_or_else(|e| e.into_inner()).drain(..) {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// A fresh hidden directory beside `target` (`.<name>.partial-<pid>-<n>`) to write a run
/// into before [`commit_dir`] moves it into place.
pub fn staging_dir(target: &Path) -> Result<PathBuf> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let name = target
        .file_name()
        .ok_or_else(|| out_err(target, "must name a directory".into()))?
        .to_string_lossy()
        .into_owned();
    let parent = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent)
        .map_err(|e| out_err(target, format!("cannot create its parent directory: {e}")))?;
    remove_abandoned(&parent, &name);
    loop {
        let n = N.fetch_add(1, Ordering::SeqCst);
        let dir = parent.join(format!(".{name}.partial-{}-{n}", std::process::id()));
        match std::fs::create_dir(&dir) {
            Ok(()) => {
                STAGING
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(dir.clone());
                return Ok(dir);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(out_err(
                    target,
                    format!("cannot create a directory beside it to write into: {e}"),
                ))
            }
        }
    }
}

/// Remove `.<name>.partial-<pid>-<n>` and `.<name>.old-<pid>-<n>` directories in `parent`
/// left by a process that no longer runs (killed while writing: SIGKILL, a second SIGTERM).
/// Only where `/proc` tells which processes run; elsewhere nothing is removed.
fn remove_abandoned(parent: &Path, name: &str) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let file = entry.file_name().to_string_lossy().into_owned();
        let Some(rest) = file.strip_prefix(&format!(".{name}.")) else {
            continue;
        };
        let Some(tail) = rest
            .strip_prefix("partial-")
            .or_else(|| rest.strip_prefix("old-"))
        else {
            continue;
        };
        let Some(pid) = tail.split('-').next().and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Move the finished `staging` directory to `target`, replacing whatever run was there as a
/// whole: the old directory is renamed aside, the new one renamed in, the old one removed.
/// `target` therefore always holds one complete run (between the two renames it is briefly
/// absent; a kill there leaves the old run as `.<name>.old-<pid>-<n>` beside it).
pub fn commit_dir(staging: &Path, target: &Path) -> Result<()> {
    forget_staging(staging);
    if std::fs::symlink_metadata(target).is_err() {
        return std::fs::rename(staging, target).map_err(io_err(target));
    }
    let old = {
        let s = staging.to_string_lossy();
        PathBuf::from(s.replacen(".partial-", ".old-", 1))
    };
    std::fs::rename(target, &old).map_err(io_err(target))?;
    if let Err(source) = std::fs::rename(staging, target) {
        // Put the previous run back rather than leave nothing.
        let _ = std::fs::rename(&old, target);
        return Err(io_err(target)(source));
    }
    std::fs::remove_dir_all(&old).map_err(io_err(&old))
}

/// Write every output of a run to `dir`, replacing any previous run there as a whole: the
/// files go to a fresh [`staging_dir`] which [`commit_dir`] then moves into place, so `dir`
/// never mixes two runs and a file this run does not write does not survive from the last
/// one. Refuses a `dir` that is not a run directory ([`check_replaceable`]). Returns the
/// files written (their final paths).
pub fn write_run(
    dir: &Path,
    s: &Scenario,
    r: &RunResult,
    interrupted: bool,
) -> Result<Vec<PathBuf>> {
    let staging = begin_run(dir)?;
    finish_run(&staging, dir, s, r, interrupted)
}

/// The first half of [`write_run`], before the run: check that `dir` may receive it and
/// make its staging directory, where the run may write `trace.jsonl` as it goes
/// ([`crate::run::RunControl::trace_dir`]). Then [`finish_run`], or [`abandon_run`] if the
/// run fails.
pub fn begin_run(dir: &Path) -> Result<PathBuf> {
    check_replaceable(dir)?;
    staging_dir(dir)
}

/// Remove the staging directory of a run that failed ([`begin_run`]).
pub fn abandon_run(staging: &Path) {
    forget_staging(staging);
    let _ = std::fs::remove_dir_all(staging);
}

/// The second half of [`write_run`]: every output of run `r` into `staging` (from
/// [`begin_run`] for `dir`), then moved into place as `dir`; on an error the staging
/// directory is removed.
pub fn finish_run(
    staging: &Path,
    dir: &Path,
    s: &Scenario,
    r: &RunResult,
    interrupted: bool,
) -> Result<Vec<PathBuf>> {
    let result = write_run_into(staging, s, r, interrupted).and_then(|files| {
        commit_dir(staging, dir)?;
        Ok(files
            .iter()
            .filter_map(|f| f.file_name().map(|n| dir.join(n)))
            .collect())
    });
    if result.is_err() {
        abandon_run(staging);
    }
    result
}

/// Write every output of a run into the existing directory `dir` (no replacement logic).
fn write_run_into(
    dir: &Path,
    s: &Scenario,
    r: &RunResult,
    interrupted: bool,
) -> Result<Vec<PathBuf>> {
    let prov = provenance(s);
    let mut written = Vec::new();
    let mut put = |name: &str,
                   fill: &mut dyn FnMut(&mut BufWriter<File>) -> std::io::Result<()>|
     -> Result<()> {
        let path = dir.join(name);
        atomic_write(&path, fill)?;
        written.push(path);
        Ok(())
    };
    // Check table names before writing anything.
    let tables = r
        .tables
        .iter()
        .map(|(k, t)| Ok((table_file_name(k)?, t)))
        .collect::<Result<Vec<_>>>()?;
    let scenario_text = scenario_toml(s)?;
    let summary = summary_file(s, &r.summary, interrupted);
    put("summary.json", &mut |w| {
        serde_json::to_writer_pretty(&mut *w, &summary)?;
        writeln!(w)
    })?;
    put("flows.csv", &mut |w| {
        write_records::<FlowRecord>(w, &prov, &r.flows)
    })?;
    put("queues.csv", &mut |w| {
        write_records::<QueueSample>(w, &prov, &r.queues)
    })?;
    put("links.csv", &mut |w| {
        write_records::<LinkRecord>(w, &prov, &r.links)
    })?;
    if s.output.rate_sample_us > 0.0 {
        put("rates.csv", &mut |w| {
            write_records::<RateSample>(w, &prov, &r.rates)
        })?;
        put("fairness.csv", &mut |w| {
            write_records::<FairnessSample>(w, &prov, &r.fairness)
        })?;
    }
    for (name, t) in &tables {
        put(name, &mut |w| write_table(w, &prov, t))?;
    }
    if let Some(text) = &r.trace {
        put("trace.jsonl", &mut |w| w.write_all(text.as_bytes()))?;
    }
    put("scenario.toml", &mut |w| {
        w.write_all(scenario_text.as_bytes())
    })?;
    if let Some(file) = &r.trace_file {
        // Written as the run went, normally here already (the CLI's `trace_dir` is this
        // staging directory); from elsewhere it is moved in.
        let path = dir.join("trace.jsonl");
        if *file != path && std::fs::rename(file, &path).is_err() {
            std::fs::copy(file, &path).map_err(io_err(file))?;
            let _ = std::fs::remove_file(file);
        }
        written.push(path);
    }
    Ok(written)
}

/// Named summary metrics, flattened for one row of `sweep.csv`: the scalar fields of
/// [`Summary`] in declaration order, then `drops.<cause>` and `extra.<name>`.
pub fn summary_columns(s: &Scenario, summary: &Summary) -> Vec<(String, String)> {
    let v = serde_json::to_value(stamped_summary(s, summary)).unwrap_or_default();
    let mut out = Vec::new();
    let Some(map) = v.as_object() else {
        return out;
    };
    let scalar = |v: &serde_json::Value| match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    // serde_json's map is sorted by key: put the known fields back in declaration order,
    // then any field added later (sorted), so new Summary fields still reach sweep.csv.
    const ORDER: [&str; 21] = [
        "seed",
        "scenario",
        "dcfab_version",
        "flows",
        "flows_completed",
        "max_fct_ps",
        "mean_fct_ps",
        "p99_fct_ps",
        "end_time_ps",
        "drops",
        "trims",
        "ecn_marks",
        "data_packets",
        "retransmits",
        "out_of_order",
        "events",
        "wall_s",
        "events_per_s",
        "data_packets_per_s",
        "drops_by_cause",
        "extra",
    ];
    let mut keys: Vec<&str> = ORDER
        .iter()
        .copied()
        .filter(|k| map.contains_key(*k))
        .collect();
    keys.extend(
        map.keys()
            .map(String::as_str)
            .filter(|k| !ORDER.contains(k)),
    );
    for k in keys {
        match &map[k] {
            serde_json::Value::Object(inner) => {
                let prefix = if k == "drops_by_cause" { "drops" } else { k };
                for (ik, iv) in inner {
                    out.push((format!("{prefix}.{ik}"), scalar(iv)));
                }
            }
            other => out.push((k.to_string(), scalar(other))),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::FlowRecord;

    fn result() -> RunResult {
        let mut r = RunResult::default();
        r.summary.flows = 2;
        r.summary.drops_by_cause.insert("buffer_full".into(), 3);
        r.summary.extra.insert("mean_cct_ps".into(), 12.5);
        r.flows = vec![
            FlowRecord {
                id: 0,
                src: 1,
                dst: 2,
                bytes: 100,
                ..Default::default()
            },
            FlowRecord {
                id: 1,
                src: 2,
                dst: 1,
                bytes: 200,
                ..Default::default()
            },
        ];
        r.tables.insert(
            "collectives".into(),
            Table {
                header: vec!["id".into(), "cct_ps".into()],
                rows: vec![vec!["0".into(), "77".into()]],
            },
        );
        r
    }

    #[test]
    fn headers_come_from_the_structs() {
        let h = header_of::<FlowRecord>();
        assert_eq!(h[0], "id");
        assert_eq!(h.len(), 11);
        assert_eq!(header_of::<QueueSample>(), ["time_ps", "port", "bytes"]);
    }

    #[test]
    fn writes_every_file_with_provenance() {
        let dir = tempfile::tempdir().unwrap();
        let s = Scenario {
            seed: 42,
            ..Scenario::default()
        };
        let files = write_run(dir.path(), &s, &result(), true).unwrap();
        assert_eq!(files.len(), 6);
        let flows = std::fs::read_to_string(dir.path().join("flows.csv")).unwrap();
        let mut lines = flows.lines();
        assert_eq!(
            lines.next().unwrap(),
            format!("# dcfab_version={DCFAB_VERSION} scenario=default seed=42")
        );
        assert!(lines.next().unwrap().starts_with("id,src,dst,bytes,"));
        assert!(lines.next().unwrap().starts_with("0,1,2,100,"));
        let queues = std::fs::read_to_string(dir.path().join("queues.csv")).unwrap();
        assert_eq!(queues.lines().nth(1), Some("time_ps,port,bytes"));
        let coll = std::fs::read_to_string(dir.path().join("collectives.csv")).unwrap();
        assert_eq!(coll.lines().nth(2), Some("0,77"));
        let sum: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.path().join("summary.json")).unwrap())
                .unwrap();
        assert_eq!(sum["seed"], 42);
        assert_eq!(sum["scenario"], "default");
        assert_eq!(sum["dcfab_version"], DCFAB_VERSION);
        assert_eq!(sum["interrupted"], true);
        let back: Scenario =
            toml::from_str(&std::fs::read_to_string(dir.path().join("scenario.toml")).unwrap())
                .unwrap();
        assert_eq!(back, s);
        // No temporary files are left behind.
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert!(names.iter().all(|n| !n.starts_with('.')), "{names:?}");
    }

    #[test]
    fn a_second_run_replaces_the_whole_directory() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("run");
        let s = Scenario::default();
        write_run(&dir, &s, &result(), false).unwrap();
        assert!(dir.join("collectives.csv").exists());
        let mut r = result();
        r.tables.clear();
        let files = write_run(&dir, &s, &r, false).unwrap();
        assert_eq!(files.len(), 5);
        assert!(
            !dir.join("collectives.csv").exists(),
            "stale table survived"
        );
        // Nothing but the run is left beside it.
        let names: Vec<_> = std::fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names, ["run"]);
    }

    #[test]
    fn abandoned_staging_directories_are_removed() {
        let tmp = tempfile::tempdir().unwrap();
        // A pid that cannot run (above the kernel's pid_max limit of 2^22).
        let dead = tmp.path().join(".run.partial-4294967-0");
        let other = tmp.path().join(".other.partial-4294967-0");
        std::fs::create_dir_all(&dead).unwrap();
        std::fs::create_dir_all(&other).unwrap();
        write_run(
            &tmp.path().join("run"),
            &Scenario::default(),
            &result(),
            false,
        )
        .unwrap();
        if Path::new("/proc/self").exists() {
            assert!(
                !dead.exists(),
                "the dead process's staging directory is removed"
            );
        }
        assert!(
            other.exists(),
            "another target's directories are left alone"
        );
    }

    #[test]
    fn other_directories_are_not_replaced() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("notes.txt"), "mine").unwrap();
        let e = write_run(tmp.path(), &Scenario::default(), &result(), false).unwrap_err();
        assert!(
            e.to_string().contains("not a dcfab output directory"),
            "{e}"
        );
        assert!(tmp.path().join("notes.txt").exists());
        let file = tmp.path().join("notes.txt");
        assert!(check_replaceable(&file).is_err());
        assert!(check_replaceable(Path::new(".")).is_err());
        assert!(check_replaceable(&tmp.path().join("absent")).is_ok());
    }

    #[test]
    fn bad_tables_are_refused() {
        assert!(table_file_name("../x").is_err());
        assert!(table_file_name("flows").is_err());
        assert_eq!(table_file_name("reps_evs").unwrap(), "reps_evs.csv");
        let mut r = result();
        r.tables.get_mut("collectives").unwrap().rows[0].pop();
        let dir = tempfile::tempdir().unwrap();
        assert!(write_run(dir.path(), &Scenario::default(), &r, false).is_err());
    }

    #[test]
    fn summary_columns_flatten_maps() {
        let cols = summary_columns(&Scenario::default(), &result().summary);
        let names: Vec<_> = cols.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(names[0], "seed");
        assert!(names.contains(&"drops.buffer_full"));
        assert!(names.contains(&"extra.mean_cct_ps"));
        let flows = cols.iter().find(|(k, _)| k == "flows").unwrap();
        assert_eq!(flows.1, "2");
    }
}
