//! Golden scenarios, one file per block family. Each exposes
//! `pub fn scenarios() -> Vec<GoldenScenario>`; [`crate::registry::all`] concatenates them.

pub mod dcsim;
pub mod reps;
pub mod rtl;
pub mod switch;
pub mod transport;
pub mod zeropod;
