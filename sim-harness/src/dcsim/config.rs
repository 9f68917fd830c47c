//! DCSIM parameters of a run, resolved from the scenario and the built fabric (DCSIM 2.3,
//! 2.5, 4.1).
//!
//! ```text
//!  [transport.dcsim] + topology (rate C, delays, longest path H)  ->  DcsimParams
//!     B = small_queue_pkts, l = small_bytes, L = mtu + header_bytes
//!     DATA buffer = data_buffer | data_buffer_ratio * B * L
//!                   | topology.buffer - 3 B l                         (bytes per port)
//!     RTT_p   = 2 (H link_delay + (H - 1) switch_latency)             (ps)
//!     RTT_max = RTT_p + 2H l / C ((B + 1) alpha + h B + 1)            (Eq. 5, ps)
//!     host engine: t_DATA = t_SIM + RTT_max (or variant), SIM timeout RTT_max,
//!                  DATA timeout 2 RTT_max + DATA-ACK interval         (host cycles)
//!     receiver:    DATA-ACK every ack_every DATAs or ack_interval_rtts RTT_p
//!     per flow:    sims_needed = RTT_max / token, window_needed = (RTT_max + RTT_p) / token
//!                  + ack_every, token = (L + h l) / C     (sizes the host engines)
//!     port:        arbiter on an 8-byte datapath, period 64000 / gbps ps, token rate
//!                  C / (alpha + h), depth bucket_depth          (per link rate)
//! ```
//!
//! Units: bytes, picoseconds; host cycles are `host_period_ps` picoseconds (1 ps unless the
//! DATA timeout would not fit the engine's 31-bit timers).

use super::section::DcsimVariantKind;
use crate::error::{Error, Result};
use crate::scenario::Scenario;
use nic::dcsim::{rtt_max_ps, DcsimHostConfig, DcsimReceiverConfig, DcsimVariant, RttMaxInputs};
use rtl_models::{Clock, ConfigError, Cycles};
use switch::dcsim::DcsimArbiterConfig;

/// Bytes per cycle of the modelled port datapath (a 64-bit beat).
pub const DATAPATH_BYTES: u32 = 8;

/// Largest relative error of a port clock (`64000 / gbps` rounded to whole ps) accepted.
pub const MAX_CLOCK_ERROR: f64 = 0.005;

/// Everything the DCSIM blocks of one run are configured with.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DcsimParams {
    /// `B`, packets per small queue.
    pub small_queue_pkts: u32,
    /// `l`, bytes of a SIM / SIM-ACK / DATA-ACK on the wire.
    pub small_bytes: u32,
    /// `L`, bytes of a full DATA on the wire (`mtu + header_bytes`).
    pub data_bytes: u32,
    /// Payload bytes of a full DATA (`mtu`).
    pub mtu: u32,
    /// Header bytes added to a DATA's payload.
    pub header_bytes: u32,
    /// `h` of Eq. 2, thousandths.
    pub h_milli: u32,
    /// Token-bucket depth.
    pub bucket_depth: u32,
    /// DATA buffer of every port, bytes.
    pub data_buffer_bytes: u64,
    /// The field that set it, for errors: `transport.dcsim.data_buffer`,
    /// `transport.dcsim.data_buffer_ratio`, or `topology.buffer` (less the small buffers).
    pub data_buffer_field: &'static str,
    /// `RTT_p`, ps.
    pub rtt_p_ps: u64,
    /// `RTT_max` (Eq. 5), ps.
    pub rtt_max_ps: u64,
    /// Host-engine clock period, ps.
    pub host_period_ps: u64,
    /// Host-engine configuration (host cycles).
    pub host: DcsimHostConfig,
    /// Receiver configuration (host cycles).
    pub rx: DcsimReceiverConfig,
    /// Outstanding SIMs one flow at line rate needs: `RTT_max` over the time of one SIM
    /// token, `(L + h l) / C` (section 2.3: one token per DATA and its `h` small packets).
    pub sims_needed: u32,
    /// DATA window one flow at line rate needs: the DATAs of `RTT_max + RTT_p` at one per
    /// token (SIM to DATA-ACK of the DATA), plus the `ack_every` DATAs a DATA-ACK waits for.
    pub window_needed: u32,
}

fn cfg_err(field: &str, e: ConfigError) -> Error {
    Error::field(field, format!("{} ({})", e.problem, e.field))
}

/// Every check the DCSIM build makes on scenario `s` (validated fields) on `fabric`, with
/// `buffer_bytes` per port and `bdp_bytes` for BDP-relative sizes: the parameters, the
/// arbiter of every port rate the run can use (links, `[[failures]]` rate changes, slowed
/// cores), the host engines and the receiver. Called by [`crate::validate`], so a DCSIM
/// configuration the engine cannot build is refused before any run (and by `--dry-run`).
pub fn check(
    s: &Scenario,
    fabric: &crate::topology::Fabric,
    buffer_bytes: u64,
    bdp_bytes: u64,
) -> Result<()> {
    let params = DcsimParams::new(s, fabric.longest.links, buffer_bytes, bdp_bytes)?;
    for (i, f) in s.failures.iter().enumerate() {
        if let Some(g) = f.gbps {
            params.arbiter_config(g, &format!("failures[{i}].gbps"))?;
        }
    }
    let t = &s.topology;
    if t.core_links != crate::scenario::CoreLinks::All {
        params.arbiter_config(
            t.link_gbps * t.slow_core_fraction,
            "topology.slow_core_fraction",
        )?;
    }
    let mut rates: Vec<u64> = fabric.ports.iter().map(|p| p.gbps.to_bits()).collect();
    rates.sort_unstable();
    rates.dedup();
    for g in rates {
        let cfg = params.arbiter_config(f64::from_bits(g), "topology.link_gbps")?;
        super::port::DcsimPort::new(cfg).map_err(|e| {
            Error::field(
                params.data_buffer_field,
                format!("{} ({})", e.problem, e.field),
            )
        })?;
    }
    super::host::check_config(&params)
}

impl DcsimParams {
    /// Resolve the parameters of scenario `s` (validated) on a fabric whose longest path
    /// has `hops` links, with `port_buffer_bytes` per port (`topology.buffer` resolved) and
    /// `bdp_bytes` for BDP-relative sizes.
    pub fn new(s: &Scenario, hops: u32, port_buffer_bytes: u64, bdp_bytes: u64) -> Result<Self> {
        let t = &s.transport;
        let d = &t.dcsim;
        let topo = &s.topology;
        let b = d.small_queue_pkts;
        let l = d.small_bytes;
        let data_bytes = t.mtu + t.header_bytes;
        let small_total = 3 * u64::from(b) * u64::from(l);
        let data_buffer_field = match (d.data_buffer, d.data_buffer_ratio) {
            (Some(_), _) => "transport.dcsim.data_buffer",
            (None, r) if r > 0.0 => "transport.dcsim.data_buffer_ratio",
            _ => "topology.buffer",
        };
        let data_buffer_bytes = match (d.data_buffer, d.data_buffer_ratio) {
            (Some(sz), _) => sz.bytes(bdp_bytes),
            // Saturating: a huge ratio gives a huge buffer, which `check` refuses (the DATA
            // buffer register's width) instead of overflowing here.
            (None, r) if r > 0.0 => {
                ((r * f64::from(b)).floor() as u64).saturating_mul(u64::from(data_bytes))
            }
            _ => port_buffer_bytes.checked_sub(small_total).ok_or_else(|| {
                Error::field(
                    "topology.buffer",
                    format!(
                        "{port_buffer_bytes} bytes leave no DATA buffer after the three DCSIM \
                         small buffers (3 x transport.dcsim.small_queue_pkts x \
                         transport.dcsim.small_bytes = 3 x {b} x {l} bytes)"
                    ),
                )
            })?,
        };
        let h_milli = (d.h * 1000.0).round() as u32;
        let inputs = RttMaxInputs {
            hops,
            link_bps: (topo.link_gbps * 1e9).round() as u64,
            link_delay_ps: topo.link_delay_ns * 1000,
            switch_latency_ps: topo.switch_latency_ns * 1000,
            extra_rtt_ps: 0,
            small_queue_pkts: b,
            small_bytes: l,
            data_bytes,
            h_milli,
        };
        let rtt_max = rtt_max_ps(&inputs).map_err(|e| cfg_err("transport.dcsim.small_bytes", e))?;
        let rtt_p = inputs.rtt_p_ps().max(1);
        let ack_interval = (d.ack_interval_rtts * rtt_p as f64).round().max(1.0) as u64;
        // The DATA timeout covers the DATA-ACK delay (section 2.4 "a large timer"): with the
        // paper's 3 RTT_p interval this is `DcsimHostConfig::with_rtt`'s 2 RTT_max + 3 RTT_p.
        let data_timeout_ps = 2 * rtt_max + ack_interval;
        let host_period_ps = data_timeout_ps.div_ceil(1 << 30).max(1);
        let cyc = |ps: u64| ps.div_ceil(host_period_ps);
        let mut host = DcsimHostConfig::with_rtt(cyc(rtt_max), cyc(rtt_p));
        host.data_timeout = cyc(data_timeout_ps);
        host.variant = match d.variant {
            DcsimVariantKind::Sync => DcsimVariant::Sync,
            DcsimVariantKind::Async => DcsimVariant::Async,
            DcsimVariantKind::Fractional => DcsimVariant::Fractional {
                permille: (d.fraction * 1000.0).round().clamp(0.0, 1000.0) as u16,
            },
        };
        host.ev_bits = t.evs_bits.clamp(1, 16) as u8;
        let rx = DcsimReceiverConfig {
            ack_every: d.ack_every.clamp(1, u32::from(u16::MAX)) as u16,
            ack_interval: cyc(ack_interval),
        };
        rx.validate()
            .map_err(|e| cfg_err("transport.dcsim.ack_interval_rtts", e))?;
        // One SIM token per (L + h l) bytes of line time: the SIM rate of a lone flow.
        let token_ps = ((f64::from(data_bytes) + d.h * f64::from(l)) * 8000.0 / topo.link_gbps)
            .ceil()
            .max(1.0) as u64;
        let sims_needed = rtt_max.div_ceil(token_ps).min(u64::from(u32::MAX)) as u32;
        let window_needed = ((rtt_max + rtt_p).div_ceil(token_ps) + u64::from(rx.ack_every))
            .min(u64::from(u32::MAX)) as u32;
        let p = DcsimParams {
            sims_needed,
            window_needed,
            small_queue_pkts: b,
            small_bytes: l,
            data_bytes,
            mtu: t.mtu,
            header_bytes: t.header_bytes,
            h_milli,
            bucket_depth: d.bucket_depth,
            data_buffer_bytes,
            data_buffer_field,
            rtt_p_ps: rtt_p,
            rtt_max_ps: rtt_max,
            host_period_ps,
            host,
            rx,
        };
        // Check one port of the nominal rate now, so a bad buffer names its field early.
        p.arbiter_config(topo.link_gbps, "topology.link_gbps")?;
        Ok(p)
    }

    /// Host cycle of time `ps` (rounded down: events of a cycle belong to it).
    pub fn host_cycle(&self, ps: u64) -> Cycles {
        self.host_clock().cycle_at(ps)
    }

    /// Start of host cycle `c`, ps.
    pub fn host_ps(&self, c: Cycles) -> u64 {
        self.host_clock().start_of(c)
    }

    /// The host engines' clock domain (`host_period_ps` from t = 0).
    pub fn host_clock(&self) -> crate::clock::ClockDomain {
        crate::clock::ClockDomain::new(self.host_period_ps, 0)
    }

    /// The arbiter of a port of `gbps` (`field` names the rate's origin in errors).
    pub fn arbiter_config(&self, gbps: f64, field: &str) -> Result<DcsimArbiterConfig> {
        let exact = f64::from(DATAPATH_BYTES) * 8000.0 / gbps;
        let period = exact.round();
        if !(period >= 1.0 && period < u64::MAX as f64)
            || ((period - exact) / exact).abs() > MAX_CLOCK_ERROR
        {
            return Err(Error::field(
                field,
                format!(
                    "{gbps} Gb/s cannot be modelled by a DCSIM port: {DATAPATH_BYTES} bytes per \
                     cycle need a clock period of {exact:.3} ps, not within 0.5% of a whole \
                     number of ps"
                ),
            ));
        }
        let cfg = DcsimArbiterConfig {
            bytes_per_cycle: DATAPATH_BYTES,
            clock: Clock {
                period_ps: period as u64,
            },
            small_bytes: self.small_bytes,
            data_bytes: self.data_bytes,
            h_milli: self.h_milli,
            bucket_depth: self.bucket_depth,
            small_queue_pkts: self.small_queue_pkts,
            // Saturating: a huge DATA buffer is refused by `validate` (its 24-bit register).
            port_buffer_bytes: self
                .data_buffer_bytes
                .saturating_add(3 * u64::from(self.small_queue_pkts) * u64::from(self.small_bytes)),
        };
        cfg.validate(super::port::SMALL_SLOTS).map_err(|e| {
            let f = match e.field {
                "small_queue_pkts" => "transport.dcsim.small_queue_pkts",
                "bucket_depth" => "transport.dcsim.bucket_depth",
                "h_milli" => "transport.dcsim.h",
                "small_bytes" | "data_bytes" => "transport.dcsim.small_bytes",
                "port_buffer_bytes" => self.data_buffer_field,
                _ => field,
            };
            cfg_err(f, e)
        })?;
        let slots = self.data_buffer_bytes / u64::from(self.data_bytes);
        if slots > super::port::DATA_SLOTS as u64 {
            return Err(Error::field(
                self.data_buffer_field,
                format!(
                    "a {}-byte DATA buffer holds {slots} DATAs of {} bytes; a DCSIM port has \
                     {} DATA descriptor slots",
                    self.data_buffer_bytes,
                    self.data_bytes,
                    super::port::DATA_SLOTS
                ),
            ));
        }
        Ok(cfg)
    }

    /// Payload bytes of DATA `seq` of a flow of `bytes` bytes.
    pub fn payload(&self, bytes: u64, seq: u32) -> u32 {
        let mtu = u64::from(self.mtu);
        let done = u64::from(seq) * mtu;
        bytes.saturating_sub(done).min(mtu).max(1) as u32
    }

    /// DATAs of a flow of `bytes` bytes.
    pub fn datas(&self, bytes: u64) -> u32 {
        bytes.div_ceil(u64::from(self.mtu)).max(1) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Size;

    fn paper() -> Scenario {
        let mut s = Scenario::default();
        s.topology.link_gbps = 800.0;
        s.topology.link_delay_ns = 200;
        s.topology.switch_latency_ns = 450;
        s.topology.buffer = Size::Bytes(500_000);
        s.transport.mtu = 9000;
        s
    }

    #[test]
    fn paper_setup_resolves() {
        let s = paper();
        let p = DcsimParams::new(&s, 6, 500_000, 750_000).unwrap();
        assert_eq!(p.rtt_p_ps, 2 * (6 * 200_000 + 5 * 450_000));
        // Eq. 5 with L = 9064 B: 6.9 us + 12 * (13 L + 2.1 * 12 * 64 + 64) * 8 / 800 Gb/s.
        let want = 6_900_000.0 + 12.0 * (13.0 * 9064.0 + 2.1 * 12.0 * 64.0 + 64.0) * 10.0;
        assert!((p.rtt_max_ps as f64 - want).abs() < 2.0, "{}", p.rtt_max_ps);
        assert_eq!(p.data_buffer_bytes, 500_000 - 3 * 12 * 64);
        assert_eq!(p.host_period_ps, 1);
        let a = p.arbiter_config(800.0, "x").unwrap();
        assert_eq!(a.clock.period_ps, 80);
        assert_eq!(a.line_rate_bps(), 800_000_000_000);
        // The 1% cores of section 4.2.
        assert_eq!(p.arbiter_config(8.0, "x").unwrap().clock.period_ps, 8000);
        assert_eq!((p.datas(20_000), p.payload(20_000, 2)), (3, 2000));
    }

    #[test]
    fn data_buffer_choices() {
        let mut s = paper();
        s.transport.dcsim.data_buffer_ratio = 2.0;
        let p = DcsimParams::new(&s, 6, 500_000, 1).unwrap();
        assert_eq!(p.data_buffer_bytes, 24 * 9064);
        s.transport.dcsim.data_buffer = Some(Size::Bytes(100_000));
        let p = DcsimParams::new(&s, 6, 500_000, 1).unwrap();
        assert_eq!(p.data_buffer_bytes, 100_000);
        s.transport.dcsim.data_buffer = Some(Size::Bytes(5_000_000));
        match DcsimParams::new(&s, 6, 500_000, 1) {
            Err(Error::Field { field, .. }) => assert_eq!(field, "transport.dcsim.data_buffer"),
            other => panic!("{other:?}"),
        }
        // A huge ratio saturates (no overflow) and is refused on its own field.
        s.transport.dcsim.data_buffer = None;
        s.transport.dcsim.data_buffer_ratio = 1e30;
        match DcsimParams::new(&s, 6, 500_000, 1) {
            Err(Error::Field { field, .. }) => {
                assert_eq!(field, "transport.dcsim.data_buffer_ratio")
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn slow_networks_get_a_coarser_host_clock() {
        let mut s = paper();
        s.topology.link_gbps = 1.0;
        let p = DcsimParams::new(&s, 6, 500_000, 1).unwrap();
        assert!(p.host_period_ps > 1);
        assert!(p.host.validate(256).is_ok());
        assert!(p.host.data_timeout < 1 << 31);
    }
}
