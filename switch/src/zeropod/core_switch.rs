//! [`CoreSwitch`]: a buffered Zeropod Core (§III-C, §IV-A2) as `P` [`CorePort`]s, one per pod.
//!
//! ```text
//!  E2P cell from any pod --enqueue(dst host)--> port[dst / N] (VOQ of host dst % N)
//!  rts(pod)  = port[pod].rts(backpressure_mask())      every epoch of that pod's clock
//!  backpressure_mask() bit p = port p above its threshold ("broadcast to schedulers in
//!                              all pods", §IV-A2)
//! ```
//!
//! Each port runs on the clock of the pod it faces (its own offset and epoch length), so the
//! Core tracks one clock per connected pod; `tick_pod(p)` clocks port `p` one slot.

use rtl_models::zeropod_cell::{RtsRepr, SchdRepr};
use rtl_models::{Clocked, ConfigError, StateBudget};

use super::core_port::{CoreDeparture, CorePort, CorePortConfig};

/// A Core switch of `P` ports (pods), `N` hosts per pod, `V` cells per VOQ.
#[derive(Debug, Clone)]
pub struct CoreSwitch<const P: usize, const N: usize, const V: usize> {
    ports: [CorePort<N, V>; P],
}

impl<const P: usize, const N: usize, const V: usize> CoreSwitch<P, N, V> {
    /// A Core; `port_cfg(p)` configures the port facing pod `p` (its `pod` field is forced
    /// to `p`, its `core` to `core`).
    pub fn new(
        core: u8,
        mut port_cfg: impl FnMut(usize) -> CorePortConfig,
    ) -> Result<Self, ConfigError> {
        if P == 0 || P > 32 {
            return Err(ConfigError::new("P", "1..=32 pods (RTS backpressure bits)"));
        }
        let mut err = None;
        let ports = core::array::from_fn(|p| {
            let cfg = CorePortConfig {
                core,
                pod: p as u8,
                ..port_cfg(p)
            };
            CorePort::new(cfg).unwrap_or_else(|e| {
                err.get_or_insert(e);
                // A placeholder; the error is returned below and the switch discarded.
                CorePort::placeholder(cfg)
            })
        });
        match err {
            Some(e) => Err(e),
            None => Ok(CoreSwitch { ports }),
        }
    }

    /// Port `p` (facing pod `p`).
    pub fn port(&self, p: usize) -> Option<&CorePort<N, V>> {
        self.ports.get(p)
    }

    /// An E2P cell for global host `dst` arrives; false (counted at the port) if dropped or
    /// `dst` names no pod of this Core.
    pub fn enqueue(&mut self, dst: u16, tag: u32) -> bool {
        let (p, h) = (dst as usize / N, (dst as usize % N) as u16);
        match self.ports.get_mut(p) {
            Some(port) => port.enqueue(h, tag),
            None => false,
        }
    }

    /// Bit `p` set: port `p` is above its backpressure threshold.
    pub fn backpressure_mask(&self) -> u32 {
        self.ports
            .iter()
            .enumerate()
            .filter(|(_, q)| q.backpressure())
            .fold(0, |m, (p, _)| m | 1 << p)
    }

    /// This epoch's RTS to pod `pod`'s scheduler (its port's arrivals + the Core's mask).
    pub fn rts(&mut self, pod: usize) -> Option<RtsRepr> {
        let mask = self.backpressure_mask();
        self.ports.get_mut(pod).map(|q| q.rts(mask))
    }

    /// A C2E SCHD from pod `pod`'s scheduler.
    pub fn on_schd(&mut self, pod: usize, s: &SchdRepr) -> bool {
        self.ports.get_mut(pod).is_some_and(|q| q.on_schd(s))
    }

    /// Clock port `pod` one slot of its pod's clock; the cell it sent, if any.
    pub fn tick_pod(&mut self, pod: usize) -> Option<CoreDeparture> {
        let q = self.ports.get_mut(pod)?;
        q.tick();
        q.departure()
    }
}

/// `P` ports' state.
impl<const P: usize, const N: usize, const V: usize> StateBudget for CoreSwitch<P, N, V> {
    const NAME: &'static str = "Zeropod Core switch (one Core port per pod)";
    const UNIT: &'static str = "per Core";
    const BITS: u32 = P as u32 * <CorePort<N, V> as StateBudget>::BITS;
}
