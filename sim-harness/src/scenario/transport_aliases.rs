//! `[transport]` as read from a file: the deprecated flat aliases (`transport.reps_freezing`,
//! `transport.dcsim_variant`, ...) of the per-transport sections, moved into their sections
//! with a deprecation line on stderr.

use serde::Deserialize;

use super::{
    CcKind, DcpimSection, DcsimSection, DcsimVariantKind, LbKind, PhostSection, RepsSection, Size,
    Transport, UnoSection, ZeropodSection,
};

/// `[transport]` as read from a file: [`Transport`] plus the deprecated flat aliases of the
/// per-transport sections (`reps_*` for `[transport.reps]`, `dcsim_*` for `[transport.dcsim]`).
/// An alias that is given overrides the section's value and prints a deprecation line on
/// stderr.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub(super) struct TransportToml {
    cc: CcKind,
    lb: LbKind,
    mtu: u32,
    trimming: bool,
    evs_bits: u32,
    rto_us: f64,
    init_cwnd: Size,
    slow_start: bool,
    header_bytes: u32,
    per_connection_cwnd: bool,
    reps: RepsSection,
    dcsim: DcsimSection,
    uno: UnoSection,
    zeropod: ZeropodSection,
    pfabric: crate::transport::pfabric::PfabricSection,
    phost: PhostSection,
    dcpim: DcpimSection,
    reps_freezing: Option<bool>,
    reps_freezing_timeout_us: Option<f64>,
    dcsim_variant: Option<DcsimVariantKind>,
    dcsim_fraction: Option<f64>,
    dcsim_small_queue_pkts: Option<u32>,
    dcsim_small_bytes: Option<u32>,
    dcsim_h: Option<f64>,
    dcsim_bucket_depth: Option<u32>,
    dcsim_data_buffer: Option<Size>,
    dcsim_data_buffer_ratio: Option<f64>,
    dcsim_ack_every: Option<u32>,
    dcsim_ack_interval_rtts: Option<f64>,
}

impl Default for TransportToml {
    fn default() -> Self {
        let t = Transport::default();
        TransportToml {
            cc: t.cc,
            lb: t.lb,
            mtu: t.mtu,
            trimming: t.trimming,
            evs_bits: t.evs_bits,
            rto_us: t.rto_us,
            init_cwnd: t.init_cwnd,
            slow_start: t.slow_start,
            header_bytes: t.header_bytes,
            per_connection_cwnd: t.per_connection_cwnd,
            reps: t.reps,
            dcsim: t.dcsim,
            uno: t.uno,
            zeropod: t.zeropod,
            pfabric: t.pfabric,
            phost: t.phost,
            dcpim: t.dcpim,
            reps_freezing: None,
            reps_freezing_timeout_us: None,
            dcsim_variant: None,
            dcsim_fraction: None,
            dcsim_small_queue_pkts: None,
            dcsim_small_bytes: None,
            dcsim_h: None,
            dcsim_bucket_depth: None,
            dcsim_data_buffer: None,
            dcsim_data_buffer_ratio: None,
            dcsim_ack_every: None,
            dcsim_ack_interval_rtts: None,
        }
    }
}

/// Move a deprecated flat alias into its section field, with a deprecation line.
fn alias<T>(old: Option<T>, old_name: &str, new_name: &str, field: &mut T) {
    if let Some(v) = old {
        eprintln!(
            "warning: transport.{old_name} is deprecated; use transport.{new_name} \
             (a [transport.{}] section)",
            new_name.split('.').next().unwrap_or(new_name)
        );
        *field = v;
    }
}

impl From<TransportToml> for Transport {
    fn from(t: TransportToml) -> Transport {
        let (mut reps, mut d) = (t.reps, t.dcsim);
        alias(
            t.reps_freezing,
            "reps_freezing",
            "reps.freezing",
            &mut reps.freezing,
        );
        alias(
            t.reps_freezing_timeout_us,
            "reps_freezing_timeout_us",
            "reps.freezing_timeout_us",
            &mut reps.freezing_timeout_us,
        );
        alias(
            t.dcsim_variant,
            "dcsim_variant",
            "dcsim.variant",
            &mut d.variant,
        );
        alias(
            t.dcsim_fraction,
            "dcsim_fraction",
            "dcsim.fraction",
            &mut d.fraction,
        );
        alias(
            t.dcsim_small_queue_pkts,
            "dcsim_small_queue_pkts",
            "dcsim.small_queue_pkts",
            &mut d.small_queue_pkts,
        );
        alias(
            t.dcsim_small_bytes,
            "dcsim_small_bytes",
            "dcsim.small_bytes",
            &mut d.small_bytes,
        );
        alias(t.dcsim_h, "dcsim_h", "dcsim.h", &mut d.h);
        alias(
            t.dcsim_bucket_depth,
            "dcsim_bucket_depth",
            "dcsim.bucket_depth",
            &mut d.bucket_depth,
        );
        alias(
            t.dcsim_data_buffer.map(Some),
            "dcsim_data_buffer",
            "dcsim.data_buffer",
            &mut d.data_buffer,
        );
        alias(
            t.dcsim_data_buffer_ratio,
            "dcsim_data_buffer_ratio",
            "dcsim.data_buffer_ratio",
            &mut d.data_buffer_ratio,
        );
        alias(
            t.dcsim_ack_every,
            "dcsim_ack_every",
            "dcsim.ack_every",
            &mut d.ack_every,
        );
        alias(
            t.dcsim_ack_interval_rtts,
            "dcsim_ack_interval_rtts",
            "dcsim.ack_interval_rtts",
            &mut d.ack_interval_rtts,
        );
        Transport {
            cc: t.cc,
            lb: t.lb,
            mtu: t.mtu,
            trimming: t.trimming,
            evs_bits: t.evs_bits,
            rto_us: t.rto_us,
            init_cwnd: t.init_cwnd,
            slow_start: t.slow_start,
            header_bytes: t.header_bytes,
            per_connection_cwnd: t.per_connection_cwnd,
            reps,
            dcsim: d,
            uno: t.uno,
            zeropod: t.zeropod,
            pfabric: t.pfabric,
            phost: t.phost,
            dcpim: t.dcpim,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::scenario::{DcsimVariantKind, Scenario};

    #[test]
    fn transport_sections_and_deprecated_aliases() {
        let new: Scenario = toml::from_str(
            "[transport.dcsim]\nvariant = \"async\"\nack_every = 8\n\
             [transport.reps]\nfreezing = false\n",
        )
        .unwrap();
        let old: Scenario = toml::from_str(
            "[transport]\ndcsim_variant = \"async\"\ndcsim_ack_every = 8\nreps_freezing = false\n",
        )
        .unwrap();
        assert_eq!(new, old);
        assert_eq!(new.transport.dcsim.variant, DcsimVariantKind::Async);
        assert_eq!(new.transport.dcsim.ack_every, 8);
        assert!(!new.transport.reps.freezing);
        // Written back with the new names only.
        let text = toml::to_string(&new).unwrap();
        assert!(text.contains("[transport.dcsim]") && !text.contains("dcsim_variant"));
        assert!(toml::from_str::<Scenario>("[transport.dcsim]\nvariant_x = 1\n").is_err());
    }
}
