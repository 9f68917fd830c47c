//! `dcfab`: the command-line interface of the dcfab fabric simulator and block models.
//!
//! One module per subcommand under `cli/`; adding a subcommand is a new module plus one
//! variant (and its match arm) in [`cli::Command`]. Run `dcfab --help` for usage.
#![forbid(unsafe_code)]
// The subcommands' doc comments are clap's help text (`[default: out/<scenario name>]`), not HTML.
#![allow(rustdoc::invalid_html_tags)]

mod cli;

/// The binary's allocator: mimalloc (see `sim_harness::memory`: about +15% DATA packets/s at
/// 8192 hosts over the system allocator). Chosen here, not in the library, so library users
/// (benches, co-simulation, other tools) keep their own.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    cli::main()
}
