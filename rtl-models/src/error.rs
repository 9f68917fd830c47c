//! Configuration errors shared by every block: the bad field and what is wrong with it.
//!
//! Blocks never panic on bad configuration; their constructors return a [`ConfigError`]
//! that names the offending field (dotted path for nested configs, e.g. `"ecn.kmax_bytes"`)
//! and the problem in words. The harness maps it to its own `Error::Field { field, problem }`.

use core::fmt;

/// A rejected configuration field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ConfigError {
    /// The field, as named in the config struct (dotted for nested configs).
    pub field: &'static str,
    /// What is wrong with it.
    pub problem: &'static str,
}

impl ConfigError {
    /// An error on `field`.
    pub const fn new(field: &'static str, problem: &'static str) -> Self {
        ConfigError { field, problem }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.problem)
    }
}

#[cfg(feature = "std")]
impl std::error::Error for ConfigError {}
