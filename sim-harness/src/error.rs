//! Errors a user can cause: each names the field (or file, or flag) and the problem.

use std::path::PathBuf;

/// Everything that can stop a run before or while it starts.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A scenario field (or `--set` override) has a bad value.
    #[error("{field}: {problem}")]
    Field {
        /// Dotted path of the field, e.g. `topology.radix`.
        field: String,
        /// What is wrong with it.
        problem: String,
    },
    /// A scenario file could not be parsed.
    #[error("{path}: {problem}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// What the parser said (with line and column).
        problem: String,
    },
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A command-line argument is wrong.
    #[error("{flag}: {problem}")]
    Cli {
        /// The flag, e.g. `--grid`.
        flag: String,
        /// What is wrong.
        problem: String,
    },
}

impl Error {
    /// A field error.
    pub fn field(field: impl Into<String>, problem: impl Into<String>) -> Self {
        Error::Field {
            field: field.into(),
            problem: problem.into(),
        }
    }
}

/// Result with [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
