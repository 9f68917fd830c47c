//! `dcfab golden verify|bless|list [--dir DIR]`: hold every block to its checked-in golden
//! trace (`golden/traces/<name>.jsonl`), or rewrite the traces on purpose.

use super::Outcome;
use sim_harness::{Error, Result};
use std::path::{Path, PathBuf};

/// Check or re-bless the golden traces.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// What to do.
    #[command(subcommand)]
    pub action: Action,
}

/// `dcfab golden` actions.
#[derive(clap::Subcommand, Debug)]
pub enum Action {
    /// Re-run every golden scenario and compare with its trace file; exit 1 on any mismatch.
    Verify(DirArg),
    /// Rewrite every trace file from a fresh run (review the diff before committing).
    Bless(DirArg),
    /// List the golden scenarios.
    List,
}

/// The trace directory option.
#[derive(clap::Args, Debug)]
pub struct DirArg {
    /// Trace directory [default: the golden crate's traces/].
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

fn dir_of(a: &DirArg) -> PathBuf {
    a.dir.clone().unwrap_or_else(golden::traces_dir)
}

/// Run `dcfab golden`.
pub fn execute(args: Args) -> Result<Outcome> {
    match args.action {
        Action::Verify(d) => verify(&dir_of(&d)),
        Action::Bless(d) => bless(&dir_of(&d)),
        Action::List => {
            for s in golden::registry::all() {
                println!("{:<32} {}", s.name, s.description);
            }
            Ok(Outcome::Done)
        }
    }
}

/// A trace directory `verify` can read: an existing directory holding at least one
/// registered scenario's trace (`--dir /nonexistent` is a wrong path, not 15 mismatches).
fn check_trace_dir(dir: &Path) -> Result<()> {
    let bad = |problem: String| Error::Cli {
        flag: "--dir".into(),
        problem: format!("{}: {problem}", dir.display()),
    };
    match std::fs::metadata(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(bad(
                "does not exist (the checked-in traces are in golden/traces/; \
                 `dcfab golden bless --dir DIR` writes a new set)"
                    .into(),
            ))
        }
        Err(source) => {
            return Err(Error::Io {
                path: dir.to_path_buf(),
                source,
            })
        }
        Ok(m) if !m.is_dir() => return Err(bad("is not a directory".into())),
        Ok(_) => {}
    }
    let any = golden::registry::names()
        .iter()
        .any(|n| golden::trace_path(dir, n).is_file());
    if !any {
        return Err(bad(format!(
            "holds none of the {} golden traces (<name>.jsonl); is it the right directory?",
            golden::registry::names().len()
        )));
    }
    Ok(())
}

fn verify(dir: &Path) -> Result<Outcome> {
    check_trace_dir(dir)?;
    let outcomes = golden::verify_all(dir);
    let mut failed = 0;
    let mut missing = 0;
    for o in &outcomes {
        if o.matched {
            println!("ok        {}", o.name);
        } else if !golden::trace_path(dir, &o.name).is_file() {
            missing += 1;
            println!("MISSING   {}", o.name);
            if let Some(d) = &o.first_difference {
                println!("          {d}");
            }
        } else {
            failed += 1;
            println!("MISMATCH  {}", o.name);
            if let Some(d) = &o.first_difference {
                println!("          {d}");
            }
        }
    }
    if let Ok(orphans) = golden::orphans(dir) {
        for o in orphans {
            eprintln!(
                "warning: {}: no golden scenario produces this trace",
                golden::trace_path(dir, &o).display()
            );
        }
    }
    println!(
        "{} of {} golden traces match ({})",
        outcomes.len() - failed,
        outcomes.len(),
        dir.display()
    );
    if failed > 0 || missing > 0 {
        if missing > 0 {
            eprintln!(
                "error: {missing} golden trace(s) missing from {}; run `dcfab golden bless` to write them",
                dir.display()
            );
        }
        if failed > 0 {
            eprintln!("error: {failed} golden trace(s) differ; run `dcfab golden bless` if the change is intended");
        }
        Ok(Outcome::Failed)
    } else {
        Ok(Outcome::Done)
    }
}

fn bless(dir: &Path) -> Result<Outcome> {
    let changed = golden::bless_all(dir).map_err(|source| Error::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    for name in &changed {
        println!("wrote     {}", golden::trace_path(dir, name).display());
    }
    println!(
        "{} of {} golden traces rewritten ({} unchanged)",
        changed.len(),
        golden::registry::all().len(),
        golden::registry::all().len() - changed.len()
    );
    Ok(Outcome::Done)
}
