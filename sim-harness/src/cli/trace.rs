//! `dcfab trace <NAME> [--vcd out.vcd] [--jsonl out.jsonl]`: produce one golden scenario's
//! trace (or load a trace file) and export it as JSON Lines and/or VCD (GTKWave, Surfer).
//! `--width SIGNAL=BITS` forces a VCD vector width.

use super::Outcome;
use golden::stream::StreamError;
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

/// Parse the `--width` options against the trace's signals `signals`.
fn vcd_options(signals: &[&str], widths: &[String]) -> Result<VcdOptions> {
    let mut opts = VcdOptions::default();
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
            // A fabric trace has thousands: name the first few.
            const SHOWN: usize = 20;
            let more = signals.len().saturating_sub(SHOWN);
            let tail = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            return Err(bad(format!(
                "'{sig}' is not a signal of this trace; signals: {}{tail}",
                signals[..signals.len().min(SHOWN)].join(", ")
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

/// Resolve NAME: a registered scenario (`Ok(None)` for an existing trace file, which
/// [`execute_file`] reads record by record).
fn load(name: &str) -> Result<Option<Trace>> {
    if let Some(s) = golden::registry::find(name) {
        return Ok(Some((s.run)()));
    }
    if Path::new(name).is_file() {
        return Ok(None);
    }
    Err(Error::Cli {
        flag: "NAME".into(),
        problem: format!(
            "'{name}' is neither a golden scenario nor a trace file; known scenarios: {}",
            golden::registry::names().join(", ")
        ),
    })
}

/// A [`StreamError`] reading trace file `input` or writing `output`.
fn stream_err(input: &Path, output: &Path) -> impl FnOnce(StreamError) -> Error {
    let (input, output) = (input.to_path_buf(), output.to_path_buf());
    move |e| match e {
        StreamError::Read(source) => Error::Io {
            path: input,
            source,
        },
        StreamError::Write(source) => Error::Io {
            path: output,
            source,
        },
        StreamError::Parse(problem) => Error::Parse {
            path: input,
            problem,
        },
    }
}

/// `dcfab trace FILE`: the trace file read record by record, twice for a VCD (its
/// signals, then its changes), so a trace larger than memory converts.
fn execute_file(path: &Path, args: &Args) -> Result<Outcome> {
    // The signals (for a VCD, and to check --width as for a golden scenario).
    let out = args.vcd.as_deref().unwrap_or(Path::new("-"));
    let scan = if args.vcd.is_some() || !args.widths.is_empty() {
        Some(golden::stream::scan(path).map_err(stream_err(path, out))?)
    } else {
        None
    };
    if let Some(scan) = &scan {
        let names: Vec<&str> = scan.signals.names().iter().map(String::as_str).collect();
        let opts = vcd_options(&names, &args.widths)?;
        if let Some(p) = &args.vcd {
            let f = std::fs::File::create(p).map_err(io_err(p))?;
            let mut w = std::io::BufWriter::with_capacity(1 << 20, f);
            golden::stream::write_vcd(path, scan, &opts, &mut w).map_err(stream_err(path, p))?;
            w.flush().map_err(io_err(p))?;
            eprintln!(
                "wrote {} ({} signals, {} records)",
                p.display(),
                names.len(),
                scan.records
            );
        }
    }
    let stdout = Path::new("-");
    match &args.jsonl {
        Some(p) if p.as_os_str() != "-" => {
            let f = std::fs::File::create(p).map_err(io_err(p))?;
            let mut w = std::io::BufWriter::with_capacity(1 << 20, f);
            let n = golden::stream::write_jsonl(path, &mut w).map_err(stream_err(path, p))?;
            w.flush().map_err(io_err(p))?;
            eprintln!("wrote {} ({n} records)", p.display());
        }
        // `--jsonl -`, or nothing asked for: the JSON Lines to stdout.
        Some(_) | None if args.jsonl.is_some() || args.vcd.is_none() => {
            let mut w = std::io::BufWriter::new(std::io::stdout().lock());
            let written = golden::stream::write_jsonl(path, &mut w)
                .and_then(|_| w.flush().map_err(StreamError::Write));
            match written {
                // A reader that stopped early (`| head`) is not an error.
                Err(StreamError::Write(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
                r => {
                    r.map_err(stream_err(path, stdout))?;
                }
            }
        }
        _ => {}
    }
    Ok(Outcome::Done)
}

/// Run `dcfab trace`.
pub fn execute(args: Args) -> Result<Outcome> {
    let Some(trace) = load(&args.name)? else {
        return execute_file(Path::new(&args.name), &args);
    };
    let opts = vcd_options(&trace.signals(), &args.widths)?;
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
