//! Which cables each `[[failures]]` entry acts on, including the failure modes of REPS
//! 4.3.3 / Figure 8 / Figure 9 that fail many cables at once or fail them partially:
//!
//! * **x % of the cables failing** (Fig. 8 "1 % cables", Fig. 9 up to 50 %): `link` names a
//!   set of cables and `random_fraction` the share of them that fails, `round(fraction x n)`
//!   cables (at least one), drawn from the seed (ChaCha8, its own stream per entry; the
//!   run's other draws do not move). Sets: `tor_uplinks` (every ToR-to-next-tier cable),
//!   `agg_uplinks` (every aggregation-to-spine cable, 3 tiers), `switch_cables` (both). Like
//!   the paper ("we limit our failures to components that would not prevent the workload
//!   from completing"), a cable whose failure would leave two ToRs with no up-down path
//!   between them (given the cables already down by earlier entries) is skipped and the next
//!   one of the shuffled set is taken; fat trees only.
//! * **random packet drops** (Fig. 8 "random drops", a partial failure): `drop_prob = p`
//!   makes the cable (both directions) lose each packet with probability p instead of going
//!   down, by the Bernoulli model of [`super::loss`] (its per-port stream and counters:
//!   `drops_by_cause.random_loss`, `loss_drops`, `links.csv` `drops`).
//!
//! Both combine: `random_fraction` with `drop_prob` (or `gbps`) degrades a random set.
//! Every entry's cables are listed in `failures.csv` when an entry uses either field.

use super::*;
use crate::results::Table;
use crate::scenario::{Failure, Scenario, TopologyKind};
use crate::topology::PortRole;
use crate::units::num;
use rand::seq::SliceRandom;

/// The cable sets `failures[].link` may name with `random_fraction`.
pub const SETS: [&str; 3] = ["tor_uplinks", "agg_uplinks", "switch_cables"];

/// One port per cable of set `name` (the upward one), in port order; `None` for an unknown
/// name, empty if the fabric has no such cable.
pub fn set_cables(fabric: &Fabric, name: &str) -> Option<Vec<u32>> {
    let want: &[PortRole] = match name {
        "tor_uplinks" => &[PortRole::TorUp],
        "agg_uplinks" => &[PortRole::AggUp],
        "switch_cables" => &[PortRole::TorUp, PortRole::AggUp],
        _ => return None,
    };
    Some(
        (0..fabric.ports.len() as u32)
            .filter(|&p| want.contains(&fabric.ports[p as usize].role))
            .collect(),
    )
}

/// Whether `f` takes its cables down (neither a rate change nor random drops).
pub fn takes_down(f: &Failure) -> bool {
    f.gbps.is_none() && f.drop_prob.is_none()
}

/// Whether any entry of `s` uses a field of this module (then `failures.csv` is written).
pub fn listed(s: &Scenario) -> bool {
    s.failures
        .iter()
        .any(|f| f.random_fraction.is_some() || f.drop_prob.is_some())
}

/// Whether every pair of ToRs still has an up-down path when the cables of `dead` (one
/// flag per port, both directions set) are down: the sets of switches each ToR reaches
/// going only up must pairwise intersect (a fat tree's down path from a common ancestor is
/// the reverse of an up path, and a failure takes both directions of a cable).
fn tors_connected(fabric: &Fabric, dead: &[bool]) -> bool {
    let n_sw = fabric.switches.len();
    let words = n_sw.div_ceil(64);
    let tors: Vec<u32> = (0..n_sw as u32)
        .filter(|&i| fabric.switches[i as usize].tier == topology::Tier::Tor)
        .collect();
    let mut reach = vec![0u64; tors.len() * words];
    for (t, &tor) in tors.iter().enumerate() {
        let r = &mut reach[t * words..(t + 1) * words];
        let mut stack = vec![tor];
        while let Some(sw) = stack.pop() {
            let sp = &fabric.switches[sw as usize];
            for p in sp.first_port..sp.first_port + sp.n_ports {
                let port = &fabric.ports[p as usize];
                if dead[p as usize] || !matches!(port.role, PortRole::TorUp | PortRole::AggUp) {
                    continue;
                }
                if let Node::Switch(up) = port.peer {
                    let (w, b) = (up as usize / 64, 1u64 << (up % 64));
                    if r[w] & b == 0 {
                        r[w] |= b;
                        stack.push(up);
                    }
                }
            }
        }
    }
    (0..tors.len()).all(|a| {
        (a + 1..tors.len())
            .all(|b| (0..words).any(|w| reach[a * words + w] & reach[b * words + w] != 0))
    })
}

/// The output ports of every `[[failures]]` entry of `s` on `fabric` (a named cable: its
/// port; a switch: every port of it; a random set: one port per chosen cable, sorted). The
/// caller adds each port's reverse. Errors name `failures[i].<field>`.
pub fn resolve(s: &Scenario, fabric: &Fabric) -> Result<Vec<Vec<u32>>> {
    let mut dead = vec![false; fabric.ports.len()];
    let kill = |dead: &mut Vec<bool>, p: u32| {
        dead[p as usize] = true;
        dead[fabric.ports[p as usize].reverse as usize] = true;
    };
    let mut out = Vec::with_capacity(s.failures.len());
    for (i, f) in s.failures.iter().enumerate() {
        let name = f.link.trim();
        // A name this topology lacks altogether is `link`'s error (below); one_direction's is
        // a switch where it needs one cable.
        if f.one_direction
            && f.random_fraction.is_none()
            && fabric.port_by_name(name).is_none()
            && fabric.failure_ports(name).is_some()
        {
            return Err(Error::field(
                format!("failures[{i}].one_direction"),
                format!(
                    "needs one link's name (a port from links.csv, e.g. tor0.up1), got the \
                     switch '{}'",
                    f.link
                ),
            ));
        }
        let ports = match f.random_fraction {
            None => fabric.failure_ports(name).ok_or_else(|| {
                Error::field(
                    format!("failures[{i}].link"),
                    format!(
                        "no link or switch named '{}' in this topology (names look like \
                         host5, tor0.up3, tor0.down1, agg2.up1, agg2.down0, spine3.down7, and \
                         in two_dc spine3.up0, border0.down5, border0.wan3, or a switch: tor0, \
                         agg2, spine3; see links.csv; a set of cables ({}) needs \
                         random_fraction)",
                        f.link,
                        SETS.join(", ")
                    ),
                )
            })?,
            Some(frac) => {
                if s.topology.kind != TopologyKind::FatTree {
                    return Err(Error::field(
                        format!("failures[{i}].random_fraction"),
                        "random cable failures need topology.kind = \"fat_tree\"",
                    ));
                }
                let set = set_cables(fabric, name).ok_or_else(|| {
                    Error::field(
                        format!("failures[{i}].link"),
                        format!(
                            "with random_fraction, link names a set of cables: one of {}, \
                             got '{}'",
                            SETS.join(", "),
                            f.link
                        ),
                    )
                })?;
                if set.is_empty() {
                    return Err(Error::field(
                        format!("failures[{i}].link"),
                        format!("this topology has no {name} (agg_uplinks need 3 tiers)"),
                    ));
                }
                let want = ((frac * set.len() as f64).round() as usize).clamp(1, set.len());
                let mut order = set;
                let seed = s.seed ^ 0xfa11_5e75_0000_0000 ^ ((i as u64) << 16);
                order.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
                let mut chosen = Vec::with_capacity(want);
                for p in order {
                    if chosen.len() == want {
                        break;
                    }
                    if takes_down(f) {
                        let mut trial = dead.clone();
                        kill(&mut trial, p);
                        if !tors_connected(fabric, &trial) {
                            continue;
                        }
                        dead = trial;
                    }
                    chosen.push(p);
                }
                if chosen.len() < want {
                    return Err(Error::field(
                        format!("failures[{i}].random_fraction"),
                        format!(
                            "{frac} of the {name} is {want} cables, but only {} can fail \
                             without cutting two ToRs apart",
                            chosen.len()
                        ),
                    ));
                }
                chosen.sort_unstable();
                chosen
            }
        };
        if f.random_fraction.is_none() && takes_down(f) {
            for &p in &ports {
                kill(&mut dead, p);
            }
        }
        out.push(ports);
    }
    Ok(out)
}

/// Per-entry checks that need no fabric; errors name `failures[i].<field>`.
pub fn check_entry(i: usize, f: &Failure) -> Result<()> {
    let p = |n: &str| format!("failures[{i}].{n}");
    if let Some(d) = f.drop_prob {
        if !(d.is_finite() && d > 0.0 && d <= 1.0) {
            return Err(Error::field(
                p("drop_prob"),
                format!(
                    "must be a probability above 0 and at most 1, got {}",
                    num(d)
                ),
            ));
        }
        if f.gbps.is_some() {
            return Err(Error::field(
                p("drop_prob"),
                "a failure either changes the rate (gbps) or drops packets (drop_prob), not both",
            ));
        }
    }
    if let Some(x) = f.random_fraction {
        if !(x.is_finite() && x > 0.0 && x <= 1.0) {
            return Err(Error::field(
                p("random_fraction"),
                format!("must be a fraction above 0 and at most 1, got {}", num(x)),
            ));
        }
    }
    Ok(())
}

/// `failures.csv`: one row per cable of every entry (`failure` its index, `link` the named
/// port, `peer` the reverse port, `kind` down / rate / drops, `at_ps`, `until_ps` (empty:
/// to the end), `gbps`, `drop_prob`, `random`: 1 if drawn by `random_fraction`).
pub fn table(s: &Scenario, fabric: &Fabric, resolved: &[Vec<u32>]) -> Table {
    let mut rows = Vec::new();
    for (i, (f, ports)) in s.failures.iter().zip(resolved).enumerate() {
        let at = (f.at_us * 1e6).round() as u64;
        let kind = match (f.gbps, f.drop_prob) {
            (Some(_), _) => "rate",
            (None, Some(_)) => "drops",
            (None, None) => "down",
        };
        for &p in ports {
            let port = &fabric.ports[p as usize];
            rows.push(vec![
                i.to_string(),
                port.name.clone(),
                fabric.ports[port.reverse as usize].name.clone(),
                kind.to_string(),
                at.to_string(),
                f.for_us
                    .map(|d| (at + (d * 1e6).round() as u64).to_string())
                    .unwrap_or_default(),
                f.gbps.map(|g| g.to_string()).unwrap_or_default(),
                f.drop_prob.map(|d| d.to_string()).unwrap_or_default(),
                u8::from(f.random_fraction.is_some()).to_string(),
            ]);
        }
    }
    Table {
        header: [
            "failure",
            "link",
            "peer",
            "kind",
            "at_ps",
            "until_ps",
            "gbps",
            "drop_prob",
            "random",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    }
}

impl Sim {
    /// `failures.csv` and the summary keys `failed_cables` (cables of down entries) and
    /// `random_failed_cables` (of which drawn by `random_fraction`), when an entry uses
    /// `random_fraction` or `drop_prob`.
    pub(super) fn failure_results(&self, s: &Scenario, r: &mut RunResult) {
        if !listed(s) {
            return;
        }
        let Ok(resolved) = resolve(s, &self.fabric) else {
            return; // checked by validation
        };
        let (mut down, mut random) = (0u64, 0u64);
        for (f, ports) in s.failures.iter().zip(&resolved) {
            if takes_down(f) {
                down += ports.len() as u64;
                if f.random_fraction.is_some() {
                    random += ports.len() as u64;
                }
            }
        }
        r.summary.extra.insert("failed_cables".into(), down as f64);
        r.summary
            .extra
            .insert("random_failed_cables".into(), random as f64);
        r.tables
            .insert("failures".into(), table(s, &self.fabric, &resolved));
    }
}
