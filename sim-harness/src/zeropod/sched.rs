//! The pod's scheduler behind one small interface ([`PodScheduler`]: add RTS, run a round,
//! read SCHDs), so the region holds any of the `scheduler-asic` instances (their sizes are
//! const generics: one per supported radix) without knowing which.

use crate::error::{Error, Result};
use rtl_models::zeropod_cell::{RtsRepr, SchdRepr};
use scheduler_asic::scheduler::{SchedulerConfig, SchedulerStats};
use scheduler_asic::IterativeScheduler;

/// One pod's `IterativeScheduler` (Algorithm 1).
pub trait PodScheduler: Send {
    /// Apply an RTS from a host or a Core port (§IV-A1).
    fn on_rts(&mut self, rts: &RtsRepr);
    /// Run a whole round (I iterations, clocked to completion) for `epoch`; append the SCHD
    /// of every grant to `out`.
    fn round(&mut self, epoch: u16, out: &mut Vec<SchdRepr>);
    /// Counters.
    fn stats(&self) -> SchedulerStats;
    /// Request / grant list entries refused for lack of capacity (should stay 0).
    fn overflow(&self) -> u32;
}

impl<const M: usize, const N: usize, const P: usize, const C: usize, const Q: usize> PodScheduler
    for IterativeScheduler<M, N, P, C, Q>
{
    fn on_rts(&mut self, rts: &RtsRepr) {
        IterativeScheduler::on_rts(self, rts);
    }
    fn round(&mut self, epoch: u16, out: &mut Vec<SchdRepr>) {
        if self.run_round(epoch).is_ok() {
            for g in self.grants() {
                out.push(self.schd(g));
            }
        }
    }
    fn stats(&self) -> SchedulerStats {
        IterativeScheduler::stats(self)
    }
    fn overflow(&self) -> u32 {
        IterativeScheduler::overflow(self)
    }
}

/// The scheduler instance for radix `k` (4, 8, 16, 32; several pods only at 8).
pub fn new_scheduler(k: u32, cfg: SchedulerConfig) -> Result<Box<dyn PodScheduler>> {
    let err = |e: rtl_models::ConfigError| {
        Error::field(
            "transport.zeropod",
            format!("scheduler configuration refused: {e}"),
        )
    };
    Ok(match k {
        4 => Box::new(IterativeScheduler::<2, 4, 1, 1, 64>::new(cfg).map_err(err)?),
        8 => Box::new(scheduler_asic::K8Scheduler::new(cfg).map_err(err)?),
        16 => Box::new(IterativeScheduler::<8, 64, 1, 1, 256>::new(cfg).map_err(err)?),
        32 => Box::new(scheduler_asic::K32Scheduler::new(cfg).map_err(err)?),
        _ => {
            return Err(Error::field(
                "topology.radix",
                format!("no Zeropod scheduler instance for radix {k}"),
            ))
        }
    })
}
