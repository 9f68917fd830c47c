//! The registry of golden scenarios: every block-level scenario that has a checked-in trace
//! under `golden/traces/<name>.jsonl`.

use crate::schema::Trace;

/// A named, deterministic scenario that produces one golden trace.
#[derive(Clone, Copy, Debug)]
pub struct GoldenScenario {
    /// File stem of the trace (`golden/traces/<name>.jsonl`); unique, `[a-z0-9_]`.
    pub name: &'static str,
    /// One line saying what it shows.
    pub description: &'static str,
    /// Runs the scenario from scratch; must be deterministic.
    pub run: fn() -> Trace,
}

/// Every registered scenario: `scenarios::<family>::scenarios()` concatenated, in family
/// order (rtl, reps, dcsim, switch, transport, lb, baselines).
pub fn all() -> Vec<GoldenScenario> {
    let mut v = Vec::new();
    v.extend(crate::scenarios::rtl::scenarios());
    v.extend(crate::scenarios::reps::scenarios());
    v.extend(crate::scenarios::dcsim::scenarios());
    v.extend(crate::scenarios::switch::scenarios());
    v.extend(crate::scenarios::transport::scenarios());
    v.extend(crate::scenarios::lb::scenarios());
    v.extend(crate::scenarios::baselines::scenarios());
    v.extend(crate::scenarios::uno::scenarios());
    v.extend(crate::scenarios::zeropod::scenarios());
    v
}

/// The scenario called `name`.
pub fn find(name: &str) -> Option<GoldenScenario> {
    all().into_iter().find(|s| s.name == name)
}

/// Names of every registered scenario, in registry order.
pub fn names() -> Vec<&'static str> {
    all().iter().map(|s| s.name).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_file_safe() {
        let names = names();
        assert!(!names.is_empty());
        for (i, n) in names.iter().enumerate() {
            assert!(
                n.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
                "{n}"
            );
            assert!(!names[..i].contains(n), "duplicate scenario name {n}");
        }
        assert!(find(names[0]).is_some());
        assert!(find("no_such_scenario").is_none());
    }

    /// The one determinism test for every registered scenario (all families): two runs from
    /// scratch give equal traces, and the trace header carries the registry's description.
    #[test]
    fn every_scenario_is_deterministic_and_self_describing() {
        for s in all() {
            let t = (s.run)();
            assert_eq!(t, (s.run)(), "{} is not deterministic", s.name);
            assert_eq!(t.header.description, s.description, "{}", s.name);
        }
    }
}
