//! `dcfab`: the command-line interface of the dcfab fabric simulator and block models.
//!
//! One module per subcommand under `cli/`; adding a subcommand is a new module plus one
//! variant (and its match arm) in [`cli::Command`]. Run `dcfab --help` for usage.
#![forbid(unsafe_code)]

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
