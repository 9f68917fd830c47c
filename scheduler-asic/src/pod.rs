//! The pod a scheduler owns (Zeropod §III-A, Fig. 1): `M = k/2` ToRs and `M` Aggs of `k`-port
//! bufferless switches, `M` hosts per ToR (`N = M^2` hosts), and the Cores above the Aggs.
//!
//! ```text
//!            core c  (attached to Agg c % M on its up port M + c / M)
//!              |
//!   Agg a:  ports 0..M down to ToR t = port, ports M..2M up to the Cores
//!              |
//!   ToR t:  ports 0..M down to host t*M + port, ports M..2M up to Agg a = port - M
//!              |
//!   host h  (ToR h / M, port h % M)
//! ```
//!
//! Routes (one output port per hop, `zeropod_cell::route`): E2E `[M+a, t_d, h_d % M]`,
//! E2P `[M+a, M + c/M, pod]` (the last hop is the Core's port towards the destination pod),
//! C2E `[t_d, h_d % M]` (from the Core's port, through Agg `c % M`).
//! [`check_grants`] walks the routes themselves to prove no two grants share an output port.

use rtl_models::zeropod_cell::{Route, TrafficKind};

/// A granted (or requested) transfer for one epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Grant {
    /// E2E, E2P or C2E.
    pub traffic: TrafficKind,
    /// Sender: host index in the pod (E2E, E2P) or Core index (C2E).
    pub src: u16,
    /// Destination: host index in the pod (E2E, C2E) or destination pod (E2P).
    pub dst: u16,
    /// The Agg the path crosses.
    pub agg: u8,
    /// The Core (E2P, C2E; 0 for E2E).
    pub core: u8,
    /// Cells granted (at most the epoch's data slots).
    pub volume: u16,
    /// Scheduling priority key the grant won with (smaller is more urgent).
    pub key: u64,
}

/// Where a route starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// A host of the pod (its ToR is `host / M`).
    Host(u16),
    /// A Core (enters the pod at Agg `core % M`).
    Core(u8),
}

/// A conflict found by [`check_grants`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Conflict {
    /// Two grants leave one switch output port in the same slots.
    Port {
        /// 0 = ToR, 1 = Agg.
        layer: u8,
        /// Switch index in its layer.
        switch: u8,
        /// Output port.
        port: u8,
    },
    /// A sender holds two grants.
    Sender(u16),
    /// A receiver (host, or Core up port) holds two grants.
    Receiver(u16),
    /// A route leaves the pod's port range or does not end where the grant says.
    BadRoute,
}

impl Grant {
    /// The sender's slot in the scheduler's sender space (hosts `0..N`, Cores `N..`).
    pub fn sender_slot(&self, n: usize) -> usize {
        match self.traffic {
            TrafficKind::C2E => n + self.core as usize,
            _ => self.src as usize,
        }
    }
    /// The receiver's slot (hosts `0..N`, Core up ports `N..`).
    pub fn receiver_slot(&self, n: usize) -> usize {
        match self.traffic {
            TrafficKind::E2P => n + self.core as usize,
            _ => self.dst as usize,
        }
    }
    /// Where the granted path starts.
    pub fn origin(&self) -> Origin {
        match self.traffic {
            TrafficKind::C2E => Origin::Core(self.core),
            _ => Origin::Host(self.src),
        }
    }
    /// The source route of the granted path in a pod of half-radix `m`.
    pub fn route(&self, m: usize) -> Route {
        let m8 = m as u8;
        let ports: [u8; 3];
        let n = match self.traffic {
            TrafficKind::E2E => {
                ports = [
                    m8 + self.agg,
                    (self.dst as usize / m) as u8,
                    (self.dst as usize % m) as u8,
                ];
                3
            }
            TrafficKind::E2P => {
                ports = [
                    m8 + self.agg,
                    m8 + (self.core as usize / m) as u8,
                    self.dst as u8,
                ];
                3
            }
            TrafficKind::C2E => {
                ports = [
                    (self.dst as usize / m) as u8,
                    (self.dst as usize % m) as u8,
                    0,
                ];
                2
            }
        };
        Route::new(&ports[..n]).unwrap_or_default()
    }
}

/// Check a set of grants for one epoch: each sender and receiver at most once, and no two
/// routes through the same ToR / Agg output port. Walks each grant's route hop by hop from its
/// origin (so a wrong route is caught, not trusted). `m` is the half-radix, `m <= 32`.
pub fn check_grants(m: usize, grants: &[Grant]) -> Result<(), Conflict> {
    const MAXM: usize = 32;
    if m == 0 || m > MAXM {
        return Err(Conflict::BadRoute);
    }
    let n = m * m;
    // Output-port occupancy: [layer][switch] bitmap of ports (2m <= 64).
    let mut used = [[0u64; MAXM]; 2];
    let mut senders = [0u64; (MAXM * MAXM + 64) / 64];
    let mut receivers = [0u64; (MAXM * MAXM + 64) / 64];
    for g in grants {
        let s = g.sender_slot(n);
        let r = g.receiver_slot(n);
        if s >= senders.len() * 64 || r >= receivers.len() * 64 {
            return Err(Conflict::BadRoute);
        }
        if senders[s / 64] >> (s % 64) & 1 == 1 {
            return Err(Conflict::Sender(s as u16));
        }
        senders[s / 64] |= 1 << (s % 64);
        if receivers[r / 64] >> (r % 64) & 1 == 1 {
            return Err(Conflict::Receiver(r as u16));
        }
        receivers[r / 64] |= 1 << (r % 64);
        let route = g.route(m);
        // (layer, switch) where the route starts.
        let (mut layer, mut sw) = match g.origin() {
            Origin::Host(h) if (h as usize) < n => (0u8, h as usize / m),
            Origin::Core(c) => (1u8, c as usize % m),
            _ => return Err(Conflict::BadRoute),
        };
        let mut r = route;
        let mut end = None;
        while let Some(p) = r.current() {
            let p = p.value() as usize;
            if p >= 2 * m {
                return Err(Conflict::BadRoute);
            }
            let bit = 1u64 << p;
            if used[layer as usize][sw] & bit != 0 {
                return Err(Conflict::Port {
                    layer,
                    switch: sw as u8,
                    port: p as u8,
                });
            }
            used[layer as usize][sw] |= bit;
            r = r.advanced();
            match (layer, p < m) {
                (0, true) => {
                    end = Some(Origin::Host((sw * m + p) as u16));
                    break;
                }
                (0, false) => {
                    layer = 1;
                    sw = p - m;
                }
                (1, true) => {
                    layer = 0;
                    sw = p;
                }
                _ => {
                    end = Some(Origin::Core(((p - m) * m + sw) as u8));
                    break;
                }
            }
        }
        let want = match g.traffic {
            TrafficKind::E2P => Origin::Core(g.core),
            _ => Origin::Host(g.dst),
        };
        if end != Some(want) {
            return Err(Conflict::BadRoute);
        }
    }
    Ok(())
}
