//! Pieces the subcommands share: loading a scenario with overrides, Ctrl-C, the progress
//! bar, number formatting.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use sim_harness::overrides::{self, Override, Source};
use sim_harness::{Error, Result};
use std::io::IsTerminal;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, LazyLock, Mutex};
use std::time::{Duration, Instant};

/// Set by the first Ctrl-C or SIGTERM; runs poll it through `RunControl::stop`.
pub static STOP: LazyLock<Arc<AtomicBool>> = LazyLock::new(|| Arc::new(AtomicBool::new(false)));
/// Set by SIGTERM (the exit code is then 143 instead of Ctrl-C's 130).
static TERM: LazyLock<Arc<AtomicBool>> = LazyLock::new(|| Arc::new(AtomicBool::new(false)));
/// The stop flag runs poll.
pub fn stop_flag() -> &'static AtomicBool {
    &STOP
}

/// Install the Ctrl-C and SIGTERM handlers: the first Ctrl-C or SIGTERM asks runs to stop
/// (their results are still written, exit 130 or 143), a second one exits at once (an output
/// directory is only ever replaced as a whole, so the previous run stays intact).
pub fn install_ctrl_c() {
    // Fails only if a handler is already installed; then the existing one stays.
    let _ = ctrlc::set_handler(|| {
        if STOP.swap(true, Ordering::SeqCst) {
            eprintln!("\ninterrupted again: exiting without writing");
            sim_harness::output::remove_staging_dirs();
            std::process::exit(if TERM.load(Ordering::SeqCst) {
                143
            } else {
                130
            });
        }
        eprintln!("\ninterrupt: stopping; results computed so far will be written (Ctrl-C again to abort)");
    });
    use signal_hook::consts::SIGTERM;
    // A second SIGTERM (or one after Ctrl-C) exits at once; the first only sets the flags.
    // Registration order matters: the shutdown check runs before the flag is set.
    let _ = signal_hook::flag::register_conditional_shutdown(SIGTERM, 143, Arc::clone(&STOP));
    let _ = signal_hook::flag::register(SIGTERM, Arc::clone(&TERM));
    let _ = signal_hook::flag::register(SIGTERM, Arc::clone(&STOP));
}

/// Whether Ctrl-C or SIGTERM has asked to stop.
pub fn stopped() -> bool {
    STOP.load(Ordering::SeqCst)
}

/// Whether SIGTERM has asked to stop.
pub fn terminated() -> bool {
    TERM.load(Ordering::SeqCst)
}

/// True when the `CI` environment variable is set (to anything but "", "0" or "false").
pub fn in_ci() -> bool {
    std::env::var_os("CI").is_some_and(|v| !(v.is_empty() || v == "0" || v == "false"))
}

/// A progress bar is drawn only on a terminal, outside CI, and not with `--quiet`.
pub fn progress_enabled(quiet: bool) -> bool {
    !quiet && std::io::stderr().is_terminal() && !in_ci()
}

/// The common scenario options of `run` and `sweep`, resolved into a table and overrides.
pub struct Loaded {
    /// The scenario file's table (or the built-in default's).
    pub table: toml::Table,
    /// `--set` overrides, then `--seed`, then `--no-skip`, in that order.
    pub overrides: Vec<Override>,
}

/// Read the scenario (file or built-in) and parse the overrides; nothing is validated yet.
pub fn load(
    file: Option<&Path>,
    sets: &[String],
    seed: Option<u64>,
    no_skip: bool,
) -> Result<Loaded> {
    if let Some(p) = file {
        missing_scenario_hint(p)?;
    }
    let table = overrides::read_table(match file {
        Some(p) => Source::File(p),
        None => Source::BuiltIn,
    })?;
    let mut list = sets
        .iter()
        .map(|s| Override::parse(s, "--set"))
        .collect::<Result<Vec<_>>>()?;
    if let Some(seed) = seed {
        list.push(Override::parse(&format!("seed={seed}"), "--seed")?);
    }
    if no_skip {
        list.push(Override::parse("skip.enabled=false", "--no-skip")?);
    }
    Ok(Loaded {
        table,
        overrides: list,
    })
}

/// `dcfab run uno_failures`: a scenario given by its name, not its file. When `path` does not
/// exist but a shipped scenario of that name does (`scenarios/<name>.toml` under the current
/// directory), say so; any other missing file is left to the reader's own error.
fn missing_scenario_hint(path: &Path) -> Result<()> {
    if path.exists() {
        return Ok(());
    }
    let name = path.to_string_lossy();
    let stem = name.strip_suffix(".toml").unwrap_or(&name);
    let shipped = Path::new("scenarios").join(format!("{stem}.toml"));
    if shipped.is_file() {
        return Err(Error::Cli {
            flag: name.into_owned(),
            problem: format!(
                "no such file; did you mean the shipped scenario {}?",
                shipped.display()
            ),
        });
    }
    Ok(())
}

/// A progress bar that appears only once the work has taken more than a second.
pub struct LazyBar {
    start: Instant,
    enabled: bool,
    unit: &'static str,
    bar: Mutex<Option<ProgressBar>>,
}

impl LazyBar {
    /// A bar counting `unit`s (e.g. "flows"; "": the message says what is counted); draws
    /// nothing unless `enabled`.
    pub fn new(enabled: bool, unit: &'static str) -> Self {
        LazyBar {
            start: Instant::now(),
            enabled,
            unit,
            bar: Mutex::new(None),
        }
    }

    /// Report `pos` of `len` done, with a message.
    pub fn update(&self, pos: u64, len: u64, msg: impl FnOnce() -> String) {
        if !self.enabled || self.start.elapsed() < Duration::from_secs(1) {
            return;
        }
        let mut guard = self.bar.lock().unwrap_or_else(|e| e.into_inner());
        let bar = guard.get_or_insert_with(|| {
            let counter = if self.unit.is_empty() {
                String::new()
            } else {
                format!("{{pos}}/{{len}} {}  ", self.unit)
            };
            let style = ProgressStyle::with_template(&format!(
                "[{{elapsed_precise}}] {{bar:30.cyan/blue}} {counter}{{msg}}"
            ))
            .unwrap_or_else(|_| ProgressStyle::default_bar());
            ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr())
                .with_style(style)
                .with_elapsed(self.start.elapsed())
        });
        bar.set_length(len);
        bar.set_position(pos);
        bar.set_message(msg());
    }

    /// Remove the bar from the terminal.
    pub fn finish(&self) {
        let mut guard = self.bar.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(b) = guard.take() {
            b.finish_and_clear();
        }
    }
}

/// Picoseconds in a human unit: "812 ps", "3.20 ns", "45.1 us", "1.25 ms", "2.00 s".
pub fn fmt_ps(ps: u64) -> String {
    let v = ps as f64;
    if ps < 1_000 {
        format!("{ps} ps")
    } else if ps < 1_000_000 {
        format!("{:.3} ns", v / 1e3)
    } else if ps < 1_000_000_000 {
        format!("{:.3} us", v / 1e6)
    } else if ps < 1_000_000_000_000 {
        format!("{:.3} ms", v / 1e9)
    } else {
        format!("{:.3} s", v / 1e12)
    }
}

/// A rate in a human unit: "950", "12.3 k", "4.56 M".
pub fn fmt_rate(v: f64) -> String {
    if !v.is_finite() {
        "-".into()
    } else if v >= 1e6 {
        format!("{:.2} M", v / 1e6)
    } else if v >= 1e3 {
        format!("{:.1} k", v / 1e3)
    } else {
        format!("{v:.0}")
    }
}

/// Attach a note to a field error's problem (other errors are returned unchanged).
pub fn with_context(e: Error, note: &str) -> Error {
    match e {
        Error::Field { field, problem } => Error::Field {
            field,
            problem: format!("{problem} ({note})"),
        },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picoseconds_format() {
        assert_eq!(fmt_ps(812), "812 ps");
        assert_eq!(fmt_ps(3_200), "3.200 ns");
        assert_eq!(fmt_ps(45_100_000), "45.100 us");
        assert_eq!(fmt_ps(2_000_000_000_000), "2.000 s");
    }
}
