//! `[transport.zeropod]`: the knobs of Zeropod (`transport.cc = "zeropod"`, Zeropod §IV, §V-A).
//!
//! **Run path.** Zeropod is not a transport over the packet engine: inside a pod there are no
//! buffers, no packets and no per-packet events, only cells on the scheduler's slot clock. So
//! `cc = "zeropod"` is not a [`super::TransportDriver`] variant; `run::simulate` hands the
//! scenario to [`crate::zeropod::simulate`], the slotted region (pods of `ZeropodNic`s,
//! `BufferlessSwitch`es and an `IterativeScheduler`, joined by buffered `CoreSwitch`es). The
//! baselines run on the packet engine: `topology.kind = "zeropod_pods"` with `cc = "dctcp"` is
//! the same pods as a buffered fat tree ([`crate::topology::zeropod`]), and the Ideal of §V-A
//! is computed for every Zeropod run ([`crate::zeropod::ideal`]).

use crate::error::{Error, Result};
use crate::scenario::Size;
use crate::units::num;
use serde::{Deserialize, Serialize};

/// Which hosts a non-websearch workload runs over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Participants {
    /// Every host.
    All,
    /// Host 0 of every rack (ToR) of the first pod (§V-B: "AlltoAll ... 16 endhosts (1 from
    /// each rack)").
    OnePerRack,
}

/// `[transport.zeropod]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ZeropodSection {
    /// Data-cell slots per epoch N (an epoch also has N + 1 control slots); default 16 for a
    /// single pod, 32 for several (§V-A).
    pub epoch_cells: Option<u32>,
    /// Iterations I of Algorithm 1 per round (§V-A: 6).
    pub iterations: u32,
    /// Mice destinations a host reports in its RTS (§IV-B1, top-k; 1..=16).
    pub top_k: u32,
    /// RTS-to-SCHD scheduling delay in us; default 15 with 256 hosts per pod, 5 below (§V-A).
    pub scheduling_delay_us: Option<f64>,
    /// Guard band added to every epoch for synchronisation error, ns (§IV-E; 0 = perfect sync).
    pub guard_band_ns: f64,
    /// Flows shorter than this many cells send optimistic cells (§V-A: 5; 0 = off).
    pub optimistic_max_cells: u32,
    /// Core switches that carry any inter-pod traffic (§V-C: 6).
    pub cores: u32,
    /// Extra Cores used only by mice traffic (§IV-B2: 1).
    pub mice_cores: u32,
    /// Buffer of each Core switch (§V-A: 32 MB), shared evenly by its ports.
    pub core_buffer: Size,
    /// Core port backpressure threshold in data cells (§V-A: 320).
    pub backpressure_cells: u32,
    /// Websearch: fraction of flows that stay inside their source pod (§V-A: 0.8 in
    /// multi-pod runs); unset = destinations uniform over all hosts.
    pub intra_pod_fraction: Option<f64>,
    /// Which hosts take part in a non-websearch workload.
    pub participants: Participants,
    /// Compute the Ideal of §V-A (global SRPT with preemption) for the same flows.
    pub ideal: bool,
}

impl Default for ZeropodSection {
    fn default() -> Self {
        ZeropodSection {
            epoch_cells: None,
            iterations: 6,
            top_k: 16,
            scheduling_delay_us: None,
            guard_band_ns: 0.0,
            optimistic_max_cells: 5,
            cores: 6,
            mice_cores: 1,
            core_buffer: Size::Bytes(32_000_000),
            backpressure_cells: 320,
            intra_pod_fraction: None,
            participants: Participants::All,
            ideal: true,
        }
    }
}

impl ZeropodSection {
    /// True when every field has its default (the section is then not written out).
    pub fn is_default(&self) -> bool {
        *self == ZeropodSection::default()
    }

    /// Check the section on its own (whatever `cc` is, like every field); errors name
    /// `transport.zeropod.<field>`.
    pub fn check(&self) -> Result<()> {
        const P: &str = "transport.zeropod.";
        let f = |n: &str| format!("{P}{n}");
        if let Some(e) = self.epoch_cells {
            if !(1..=255).contains(&e) {
                return Err(Error::field(
                    f("epoch_cells"),
                    format!("must be 1..=255 data slots (the SCHD slot field is 8 bits), got {e}"),
                ));
            }
        }
        if !(1..=32).contains(&self.iterations) {
            return Err(Error::field(
                f("iterations"),
                format!("must be 1..=32, got {}", self.iterations),
            ));
        }
        if !(1..=16).contains(&self.top_k) {
            return Err(Error::field(
                f("top_k"),
                format!(
                    "must be 1..=16 (the RTS carries 16 mice entries), got {}",
                    self.top_k
                ),
            ));
        }
        if let Some(d) = self.scheduling_delay_us {
            if !d.is_finite() || !(0.0..=10_000.0).contains(&d) {
                return Err(Error::field(
                    f("scheduling_delay_us"),
                    format!("must be 0..=10000 us, got {}", num(d)),
                ));
            }
        }
        let g = self.guard_band_ns;
        if !g.is_finite() || !(0.0..=1_000_000.0).contains(&g) {
            return Err(Error::field(
                f("guard_band_ns"),
                format!("must be 0..=1000000 ns, got {}", num(g)),
            ));
        }
        if self.optimistic_max_cells > 1_000_000 {
            return Err(Error::field(
                f("optimistic_max_cells"),
                format!("must be at most 1000000, got {}", self.optimistic_max_cells),
            ));
        }
        if self.cores + self.mice_cores > 7 {
            return Err(Error::field(
                f("cores"),
                format!(
                    "cores + mice_cores must be at most 7 (the k = 8 scheduler's Core ports), got {} + {}",
                    self.cores, self.mice_cores
                ),
            ));
        }
        if self.mice_cores > 1 {
            return Err(Error::field(
                f("mice_cores"),
                format!(
                    "must be 0 or 1 (the scheduler has one mice Core), got {}",
                    self.mice_cores
                ),
            ));
        }
        crate::units::check_size(&f("core_buffer"), self.core_buffer)?;
        if matches!(self.core_buffer, Size::Bdp(_)) {
            return Err(Error::field(
                f("core_buffer"),
                "must be in bytes (e.g. \"32MB\"), not BDPs",
            ));
        }
        if self.backpressure_cells == 0 {
            return Err(Error::field(f("backpressure_cells"), "must be at least 1"));
        }
        if let Some(x) = self.intra_pod_fraction {
            if !x.is_finite() || !(0.0..=1.0).contains(&x) {
                return Err(Error::field(
                    f("intra_pod_fraction"),
                    format!("must be in [0, 1], got {}", num(x)),
                ));
            }
        }
        Ok(())
    }
}
