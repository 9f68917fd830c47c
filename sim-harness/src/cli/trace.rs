//! `dcfab trace <NAME> [--vcd out.vcd] [--jsonl out.jsonl]`: produce one golden scenario's
//! trace (or load a trace file) and export it as JSON Lines and/or VCD (GTKWave, Surfer).
//! `--width SIGNAL=BITS` forces a VCD vector width.

use super::Outcome;
use golden::vcd::VcdOptions;
use golden::Trace;
use sim_harness::{Error, Result};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Produce a trace and export it.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// A golden scenario name (see `dcfab golden list`) or a path to a `.jsonl` trace file.
    #[arg(value_name = "NAME")]
    pub name: String,
    /// Write the trace as VCD to this file.
    #[arg(long, value_name = "FILE")]
    pub vcd: Option<PathBuf>,
    /// Write the trace as JSON Lines to this file (`-` for stdout).
    #[arg(long, value_name = "FILE")]
    pub jsonl: Option<PathBuf>,
    /// Force a signal's VCD bit width, e.g. `--width queue_bytes=32` (repeatable; the
    /// default is the width of the largest value seen).
    #[arg(long = "width", value_name = "SIGNAL=BITS")]
    pub widths: Vec<String>,
}

/// Parse the `--width` options against the trace's signals.
fn vcd_options(trace: &Trace, widths: &[String]) -> Result<VcdOptions> {
    let mut opts = VcdOptions::default();
    let signals = trace.signals();
    for w in widths {
        let bad = |problem: String| Error::Cli {
            flag: "--width".into(),
            problem,
        };
        let (sig, bits) = w
            .split_once('=')
            .ok_or_else(|| bad(format!("'{w}' is not SIGNAL=BITS (e.g. queue_bytes=32)")))?;
        let bits: u32 = bits
            .trim()
            .parse()
            .ok()
            .filter(|b| (1..=64).contains(b))
            .ok_or_else(|| bad(format!("'{w}': BITS must be an integer from 1 to 64")))?;
        let sig = sig.trim();
        if !signals.contains(&sig) {
            return Err(bad(format!(
                "'{sig}' is not a signal of this trace; signals: {}",
                signals.join(", ")
            )));
        }
        opts.widths.insert(sig.to_string(), bits);
    }
    Ok(opts)
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Resolve NAME: a registered scenario, else an existing trace file.
fn load(name: &str) -> Result<Trace> {
    if let Some(s) = golden::registry::find(name) {
        return Ok((s.run)());
    }
    let path = Path::new(name);
    if path.is_file() {
        let text = std::fs::read_to_string(path).map_err(io_err(path))?;
        return Trace::from_jsonl(&text).map_err(|problem| Error::Parse {
            path: path.to_path_buf(),
            problem,
        });
    }
    Err(Error::Cli {
        flag: "NAME".into(),
        problem: format!(
            "'{name}' is neither a golden scenario nor a trace file; known scenarios: {}",
            golden::registry::names().join(", ")
        ),
    })
}

/// Run `dcfab trace`.
pub fn execute(args: Args) -> Result<Outcome> {
    let trace = load(&args.name)?;
    let opts = vcd_options(&trace, &args.widths)?;
    let mut wrote = false;
    if let Some(p) = &args.jsonl {
        let text = trace.to_jsonl();
        if p.as_os_str() == "-" {
            std::io::stdout()
                .write_all(text.as_bytes())
                .map_err(io_err(p))?;
        } else {
            std::fs::write(p, text).map_err(io_err(p))?;
            eprintln!("wrote {} ({} records)", p.display(), trace.records.len());
        }
        wrote = true;
    }
    if let Some(p) = &args.vcd {
        let f = std::fs::File::create(p).map_err(io_err(p))?;
        let mut w = std::io::BufWriter::new(f);
        golden::vcd::write_vcd_with(&trace, &mut w, &opts)
            .and_then(|_| w.flush())
            .map_err(io_err(p))?;
        eprintln!(
            "wrote {} ({} signals, {} records)",
            p.display(),
            trace.signals().len(),
            trace.records.len()
        );
        wrote = true;
    }
    if !wrote {
        // Nothing asked for: print the JSON Lines to stdout.
        print!("{}", trace.to_jsonl());
    }
    Ok(Outcome::Done)
}
