//! The rail-optimized fat tree (Wormhole section 2.2 and 7 setup, after NVIDIA's rail-optimized
//! design, reference 57 of the paper): each GPU is a host with its own NIC; GPU `k` of every server ("rail `k`")
//! connects to rail-ToR `k` of its block of servers, so one ToR serves the same rail of
//! `servers_per_tor` servers, and a block of servers has `gpus_per_server` ToRs. Above the
//! ToRs the tree is an ordinary fat tree (spines, or aggs and spines).
//!
//! Host ids are GPU ranks: `host = server x gpus_per_server + rail`. A rail-ToR is
//! `tor = (server / servers_per_tor) x gpus_per_server + rail`.
//!
//! dcfab's fat tree ([`crate::topology`]) numbers hosts ToR by ToR (`d` hosts per ToR). A
//! rail-optimized fabric is the same tree with `d = servers_per_tor` and the hosts renamed by
//! [`RailLayout::fat_tree_host`]: `tor x servers_per_tor + server mod servers_per_tor`. The
//! engine can therefore build the existing fat tree and map each workload host through that
//! function.

use crate::error::{Error, Result};

/// Which hosts share which rail-ToR.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RailLayout {
    /// GPUs (NICs, rails) per server, e.g. 8.
    pub gpus_per_server: u32,
    /// Servers whose rail `k` shares one ToR (the ToR's host ports).
    pub servers_per_tor: u32,
}

impl RailLayout {
    /// A layout; both counts must be at least 1.
    pub fn new(gpus_per_server: u32, servers_per_tor: u32) -> Result<Self> {
        if gpus_per_server == 0 {
            return Err(Error::field(
                "workload.llm.gpus_per_server",
                "must be at least 1",
            ));
        }
        if servers_per_tor == 0 {
            return Err(Error::field(
                "topology.servers_per_tor",
                "must be at least 1",
            ));
        }
        Ok(Self {
            gpus_per_server,
            servers_per_tor,
        })
    }

    /// The server of a host.
    pub fn server(&self, host: u32) -> u32 {
        host / self.gpus_per_server
    }

    /// The rail (GPU index in its server) of a host.
    pub fn rail(&self, host: u32) -> u32 {
        host % self.gpus_per_server
    }

    /// The rail-ToR of a host.
    pub fn tor(&self, host: u32) -> u32 {
        (self.server(host) / self.servers_per_tor) * self.gpus_per_server + self.rail(host)
    }

    /// Rail-ToRs needed for `hosts` hosts (a partial last block still has a ToR per rail it
    /// uses).
    pub fn tors(&self, hosts: u32) -> u32 {
        if hosts == 0 {
            return 0;
        }
        let last = hosts - 1;
        let block = self.server(last) / self.servers_per_tor;
        let rails = if self.server(last) > block * self.servers_per_tor {
            self.gpus_per_server
        } else {
            self.rail(last) + 1
        };
        block * self.gpus_per_server + rails
    }

    /// The hosts (among `0..hosts`) on rail-ToR `tor`, ascending.
    pub fn hosts_of_tor(&self, tor: u32, hosts: u32) -> Vec<u32> {
        let block = tor / self.gpus_per_server;
        let rail = tor % self.gpus_per_server;
        (0..self.servers_per_tor)
            .map(|i| (block * self.servers_per_tor + i) * self.gpus_per_server + rail)
            .filter(|&h| h < hosts)
            .collect()
    }

    /// True when two hosts share a rail-ToR (their traffic stays below the spines).
    pub fn same_tor(&self, a: u32, b: u32) -> bool {
        self.tor(a) == self.tor(b)
    }

    /// The host index in dcfab's fat tree with `servers_per_tor` hosts per ToR that sits on
    /// this host's rail-ToR.
    pub fn fat_tree_host(&self, host: u32) -> u32 {
        self.tor(host) * self.servers_per_tor + self.server(host) % self.servers_per_tor
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_by_hand() {
        // 8 GPUs per server, 4 servers per rail-ToR, 64 hosts = 8 servers = 2 blocks, 16 ToRs.
        let r = RailLayout::new(8, 4).unwrap();
        assert_eq!((r.server(19), r.rail(19)), (2, 3));
        assert_eq!(r.tor(19), 3); // block 0, rail 3
        assert_eq!(r.tor(35), 11); // server 4 -> block 1, rail 3
        assert_eq!(r.hosts_of_tor(3, 64), vec![3, 11, 19, 27]);
        assert_eq!(r.hosts_of_tor(11, 64), vec![35, 43, 51, 59]);
        assert_eq!(r.hosts_of_tor(11, 40), vec![35]);
        assert!(r.same_tor(3, 27) && !r.same_tor(3, 35) && !r.same_tor(3, 4));
        assert_eq!(r.tors(64), 16);
        assert_eq!(r.tors(8), 8);
        assert_eq!(r.tors(3), 3);
        // Fat-tree host: ToR 3 holds fat-tree hosts 12..16, in server order.
        assert_eq!(r.fat_tree_host(3), 12);
        assert_eq!(r.fat_tree_host(27), 15);
        assert!(RailLayout::new(0, 4)
            .unwrap_err()
            .to_string()
            .starts_with("workload.llm.gpus_per_server"));
    }

    #[test]
    fn fat_tree_host_is_a_bijection_that_keeps_tors() {
        for (g, s, hosts) in [(8, 4, 64), (8, 16, 1024), (4, 3, 48)] {
            let r = RailLayout::new(g, s).unwrap();
            let mut seen = vec![false; hosts as usize];
            for h in 0..hosts {
                let f = r.fat_tree_host(h);
                assert!(f < hosts && !seen[f as usize], "{g} {s} {h} -> {f}");
                seen[f as usize] = true;
                assert_eq!(f / s, r.tor(h), "fat-tree ToR = rail-ToR");
                assert!(r.hosts_of_tor(r.tor(h), hosts).contains(&h));
            }
            assert_eq!(r.tors(hosts), hosts / s);
        }
    }
}
