//! Golden scenarios, one file per block family. Each exposes
//! `pub fn scenarios() -> Vec<GoldenScenario>`; [`crate::registry::all`] concatenates them.

pub mod baselines;
pub mod dcsim;
pub mod lb;
pub mod reps;
pub mod rtl;
pub mod switch;
pub mod transport;
pub mod uno;
pub mod zeropod;
