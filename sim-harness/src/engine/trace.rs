//! The fabric's packet trace (`output.trace`, `../shared/DESIGN.md` "traces"): what every
//! port did with every packet, in the golden-trace schema (`golden::schema`, JSON Lines), so
//! `dcfab trace out/<run>/trace.jsonl --vcd run.vcd` opens a fabric run in GTKWave or Surfer
//! as it opens a block's golden trace.
//!
//! * **Header** (line 1): `block = "fabric"`, the run's seed, and in `config` the scenario
//!   name, the dcfab version, the clock (`period_ps = 1`: a record's `cycle` is simulated
//!   time in picoseconds, and the VCD's timescale is 1 ps) and the trace's window and filters as resolved.
//! * **Records**, in simulated-time order (the event order: same seed, same bytes), each a
//!   signal of a port, named by the port's name in `links.csv` (`tor0.up1`, `host3`):
//!   * `<port>.tx`: a packet starts on the port's wire (string: kind, flow, PSN, bytes on the
//!     wire, entropy value, source and destination hosts, `ce` when CE-marked);
//!   * `<port>.drop`: the port dropped a packet (the same string and the cause:
//!     `buffer_full`, `link_down`, `beyond_window`, `random_loss`);
//!   * `<port>.queue_bytes`: the bytes in the port's buffer (what its admission counts, as in
//!     `queues.csv`) after an arrival, a departure or a drop, written when it changes (switch
//!     ports; a host NIC has no buffer of its own);
//!   * `<host>.rx`: a packet reached host `<host>` (the name of its NIC port);
//!   * `wormhole.pause` / `wormhole.resume` (`skip.enabled`): a partition fast-forwarded
//!     (its id, flows, planned end and the interrupt that ends it) and resumed (the time it
//!     was paused; `skip_back` when earlier than planned, 6.3).
//! * **Scope** (`output.trace_from_us` / `_until_us` / `_flows` / `_ports`): records in the
//!   window, of the listed flows (a queue record belongs to its port, not to a flow), at the
//!   listed ports (a host's name selects its `tx`, `drop` and `rx`). At most
//!   `output.trace_max_records`; then the trace stops and the summary says so
//!   (`extra.trace_truncated`).
//! * **Wormhole** (`skip.enabled`): only simulated packets are traced; a fast-forwarded
//!   packet never exists, and a paused partition's records resume at the shifted times,
//!   after its `wormhole.resume` record. A pause or resume is in scope when one of its flows
//!   is (`trace_ports` does not select them).
//!
//! The trace only reads the engine's state: a run's other outputs are bit-identical with it
//! on or off (`tests/trace.rs`).

use super::*;
use std::fmt::Write as _;

/// Flow ids as `3,5,9`.
fn flow_list(flows: &[u32]) -> String {
    let v: Vec<String> = flows.iter().map(u32::to_string).collect();
    v.join(",")
}

/// The kinds' names in a record's packet string.
fn kind_name(k: PktKind) -> &'static str {
    match k {
        PktKind::Data => "DATA",
        PktKind::Ack => "ACK",
        PktKind::Nack => "NACK",
        PktKind::Header => "HEADER",
        PktKind::Sim => "SIM",
        PktKind::SimAck => "SIM_ACK",
        PktKind::DataAck => "DATA_ACK",
        PktKind::PimRts => "PIM_RTS",
        PktKind::PimGrant => "PIM_GRANT",
        PktKind::PimAccept => "PIM_ACCEPT",
    }
}

/// The trace being recorded.
#[derive(Debug)]
pub(crate) struct Tracer {
    /// The JSON Lines text so far.
    text: String,
    from_ps: Time,
    until_ps: Time,
    /// Traced flows by id (`None`: every flow).
    flows: Option<Vec<bool>>,
    /// Traced ports by index.
    ports: Vec<bool>,
    /// Port names, JSON-escaped (the signal scopes).
    names: Vec<String>,
    /// The last `queue_bytes` written per port (buffers start empty).
    last_q: Vec<u64>,
    records: u64,
    max: u64,
    truncated: bool,
    /// Where the text goes as the run goes ([`Tracer::spool_to`]); `None`: held in `text`.
    spool: Option<Spool>,
}

/// `trace.jsonl` written as the run goes: `text` is moved to the file whenever it holds
/// [`SPOOL_CHUNK`] bytes, so a long trace does not sit in memory.
#[derive(Debug)]
struct Spool {
    file: std::fs::File,
    path: std::path::PathBuf,
    /// The first write that failed (reported when the trace is taken).
    failed: Option<std::io::Error>,
}

/// Bytes of trace text held before they are written to the spool file.
const SPOOL_CHUNK: usize = 1 << 20;

/// A finished trace: its text, or the file it was written to ([`Tracer::spool_to`]).
#[derive(Debug)]
pub(crate) enum TraceOut {
    Text(String),
    File(std::path::PathBuf),
}

impl TraceOut {
    /// Put it in `r` (`trace` or `trace_file`).
    pub(crate) fn put(self, r: &mut RunResult) {
        match self {
            TraceOut::Text(t) => r.trace = Some(t),
            TraceOut::File(p) => r.trace_file = Some(p),
        }
    }
}

impl Tracer {
    /// The tracer of scenario `s` on `fabric` with `n_flows` flows, its header written;
    /// `output.trace_flows` and `output.trace_ports` checked against them.
    pub(crate) fn new(s: &Scenario, fabric: &Fabric, n_flows: usize) -> Result<Tracer> {
        let names: Vec<&str> = fabric.ports.iter().map(|p| p.name.as_str()).collect();
        Tracer::with_ports(
            s,
            &names,
            n_flows,
            "fabric packet trace: per port, packets sent (tx), dropped (drop), buffered bytes \
             (queue_bytes); per host, packets received (rx)",
            "as in links.csv",
        )
    }

    /// The tracer of scenario `s` over ports named `names` (a record's signal scope; hosts
    /// first, each named `host<i>`) with `n_flows` flows, its header (with `description`)
    /// written; `output.trace_flows` and `output.trace_ports` checked against them (an
    /// unknown port's error says the names are `naming`). The packet engine's ports come
    /// from its fabric ([`Tracer::new`]); a Zeropod region names its own
    /// (`zeropod/trace.rs`).
    pub(crate) fn with_ports(
        s: &Scenario,
        names: &[&str],
        n_flows: usize,
        description: &str,
        naming: &str,
    ) -> Result<Tracer> {
        let o = &s.output;
        let n_ports = names.len();
        let flows = if o.trace_flows.is_empty() {
            None
        } else {
            let mut on = vec![false; n_flows];
            for &f in &o.trace_flows {
                let Some(x) = on.get_mut(f as usize) else {
                    return Err(Error::field(
                        "output.trace_flows",
                        format!(
                            "flow {f} does not exist: the workload has {n_flows} flows (ids 0 to {})",
                            n_flows.saturating_sub(1)
                        ),
                    ));
                };
                *x = true;
            }
            Some(on)
        };
        let ports = if o.trace_ports.is_empty() {
            vec![true; n_ports]
        } else {
            let mut on = vec![false; n_ports];
            for name in &o.trace_ports {
                let Some(i) = names.iter().position(|p| p == name) else {
                    let some: Vec<&str> = names
                        .iter()
                        .copied()
                        .filter(|n| !n.starts_with("host"))
                        .take(4)
                        .collect();
                    return Err(Error::field(
                        "output.trace_ports",
                        format!(
                            "no port is named {name:?}: names are {naming}, e.g. \"host0\"{}",
                            some.iter().map(|n| format!(", {n:?}")).collect::<String>()
                        ),
                    ));
                };
                on[i] = true;
            }
            on
        };
        let names = names
            .iter()
            .map(|p| {
                let q = serde_json::to_string(p).expect("a string serialises");
                q[1..q.len() - 1].to_string()
            })
            .collect();
        let until_ps = if o.trace_until_us > 0.0 {
            crate::units::us_to_ps("output.trace_until_us", o.trace_until_us)?
        } else {
            NEVER
        };
        let header = golden::schema::TraceHeader {
            schema_version: golden::schema::SCHEMA_VERSION,
            block: "fabric".into(),
            config: serde_json::json!({
                "scenario": s.name,
                "dcfab_version": env!("CARGO_PKG_VERSION"),
                "period_ps": 1,
                "from_us": o.trace_from_us,
                "until_us": o.trace_until_us,
                "flows": o.trace_flows,
                "ports": o.trace_ports,
                "max_records": o.trace_max_records,
            }),
            seed: s.seed,
            description: description.into(),
        };
        let single = golden::schema::Trace {
            header,
            records: Vec::new(),
        };
        Ok(Tracer {
            text: single.to_jsonl(),
            from_ps: crate::units::us_to_ps("output.trace_from_us", o.trace_from_us)?,
            until_ps,
            flows,
            ports,
            names,
            last_q: vec![0; n_ports],
            records: 0,
            max: o.trace_max_records,
            truncated: false,
            spool: None,
        })
    }

    /// Whether a record at `now` of port `p` (and of flow `flow`, unless `None`) is in
    /// scope, and room is left (else the trace is marked truncated).
    #[inline]
    fn wants(&mut self, now: Time, p: u32, flow: Option<u32>) -> bool {
        self.in_window(now)
            && self.ports[p as usize]
            && flow.is_none_or(|f| self.traced_flow(f))
            && self.take_record()
    }

    /// `now` is in `[trace_from_us, trace_until_us)`.
    fn in_window(&self, now: Time) -> bool {
        now >= self.from_ps && now < self.until_ps
    }

    /// Flow `f` is traced (every flow without `output.trace_flows`).
    fn traced_flow(&self, f: u32) -> bool {
        self.flows
            .as_ref()
            .is_none_or(|on| on.get(f as usize).copied().unwrap_or(false))
    }

    /// Count one more record, or mark the trace truncated at the cap.
    fn take_record(&mut self) -> bool {
        if self.records >= self.max {
            self.truncated = true;
            return false;
        }
        self.records += 1;
        if self.text.len() >= SPOOL_CHUNK && self.spool.is_some() {
            self.drain();
        }
        true
    }

    /// Write the text so far to `path` (created or truncated) and from now on move it there
    /// every [`SPOOL_CHUNK`] bytes; [`Tracer::finish`] then names the file instead of
    /// returning the text.
    pub(crate) fn spool_to(&mut self, path: &std::path::Path) -> Result<()> {
        let file = std::fs::File::create(path).map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?;
        self.spool = Some(Spool {
            file,
            path: path.to_path_buf(),
            failed: None,
        });
        self.drain();
        Ok(())
    }

    /// Move the text to the spool file (after a failed write, drop it: the run's error
    /// names the failure).
    #[cold]
    #[inline(never)]
    fn drain(&mut self) {
        use std::io::Write as _;
        if let Some(sp) = &mut self.spool {
            if sp.failed.is_none() {
                if let Err(e) = sp.file.write_all(self.text.as_bytes()) {
                    sp.failed = Some(e);
                }
            }
            self.text.clear();
        }
    }

    /// `{"cycle":now,"signal":"<port>.<sig>","value":` (the caller writes the value).
    fn open(&mut self, now: Time, p: u32, sig: &str) {
        let _ = write!(
            self.text,
            "{{\"cycle\":{now},\"signal\":\"{}.{sig}\",\"value\":",
            self.names[p as usize]
        );
    }

    /// A packet record (`tx`, `rx`; `drop` with its cause).
    fn packet(&mut self, now: Time, p: u32, sig: &str, pk: &Packet, cause: Option<&str>) {
        if !self.wants(now, p, Some(pk.flow)) {
            return;
        }
        self.open(now, p, sig);
        let _ = write!(
            self.text,
            "\"{} f={} psn={} len={} ev={} src={} dst={}",
            kind_name(pk.kind),
            pk.flow,
            pk.psn,
            pk.bytes,
            pk.ev,
            pk.src,
            pk.dst
        );
        if pk.ecn {
            self.text.push_str(" ce");
        }
        if let Some(c) = cause {
            let _ = write!(self.text, " cause={c}");
        }
        self.text.push_str("\"}\n");
    }

    /// A record of port `p`'s signal `sig` whose value is the string `value`, of flow
    /// `flow` (`None`: of no flow), if in scope (the Zeropod region's cells,
    /// `zeropod/trace.rs`).
    pub(crate) fn text_record(
        &mut self,
        now: Time,
        p: u32,
        sig: &str,
        flow: Option<u32>,
        value: std::fmt::Arguments,
    ) {
        if !self.wants(now, p, flow) {
            return;
        }
        self.open(now, p, sig);
        let _ = writeln!(self.text, "\"{value}\"}}");
    }

    /// Port `p`'s buffered bytes `bytes` at `now`, written if changed since its last record
    /// (the Zeropod region's Core ports).
    pub(crate) fn queue_bytes(&mut self, now: Time, p: u32, bytes: u64) {
        self.queue(now, p, Some(bytes));
    }

    /// The trace, finished: its text moved out, or (spooled) the rest written and the
    /// file named; a failed write is an error naming the file.
    pub(crate) fn finish(&mut self) -> Result<TraceOut> {
        self.drain();
        let Some(mut sp) = self.spool.take() else {
            return Ok(TraceOut::Text(std::mem::take(&mut self.text)));
        };
        if sp.failed.is_none() {
            use std::io::Write as _;
            if let Err(e) = sp.file.flush() {
                sp.failed = Some(e);
            }
        }
        match sp.failed {
            None => Ok(TraceOut::File(sp.path)),
            Some(source) => Err(Error::Io {
                path: sp.path,
                source,
            }),
        }
    }

    /// The trace's summary keys: `extra.trace_records` / `trace_truncated`.
    pub(crate) fn put_counts(&self, r: &mut RunResult) {
        let (records, truncated) = self.counts();
        r.summary
            .extra
            .insert("trace_records".into(), records as f64);
        r.summary
            .extra
            .insert("trace_truncated".into(), u8::from(truncated) as f64);
    }

    /// A Wormhole record (`wormhole.pause` / `wormhole.resume`) about partition flows
    /// `flows`: in the window, and of a traced flow when the trace has a flow list.
    fn wormhole(&mut self, now: Time, sig: &str, flows: &[u32], text: std::fmt::Arguments) {
        if !(self.in_window(now)
            && flows.iter().any(|&f| self.traced_flow(f))
            && self.take_record())
        {
            return;
        }
        let _ = writeln!(
            self.text,
            "{{\"cycle\":{now},\"signal\":\"wormhole.{sig}\",\"value\":\"{text}\"}}"
        );
    }

    /// Port `p`'s buffered bytes now, written if changed.
    fn queue(&mut self, now: Time, p: u32, bytes: Option<u64>) {
        let Some(b) = bytes else { return };
        if self.last_q[p as usize] == b || !self.wants(now, p, None) {
            return;
        }
        self.last_q[p as usize] = b;
        self.open(now, p, "queue_bytes");
        let _ = writeln!(self.text, "{b}}}");
    }

    /// (records written, truncated).
    pub(crate) fn counts(&self) -> (u64, bool) {
        (self.records, self.truncated)
    }
}

impl Sim {
    /// Port `p`'s buffered bytes (switch ports; `None` for a host NIC).
    fn traced_occupancy(&self, p: u32) -> Option<u64> {
        let switch_side = p >= self.fabric.hosts;
        switch_side
            .then(|| self.ports[p as usize].kind.occupancy_bytes(true))
            .flatten()
    }

    /// Packet `pk` starts on port `p`'s wire.
    #[cold]
    #[inline(never)]
    pub(super) fn trace_tx(&mut self, p: u32, pk: &Packet) {
        let q = self.traced_occupancy(p);
        let now = self.now;
        if let Some(t) = self.trace.as_deref_mut() {
            t.packet(now, p, "tx", pk, None);
            t.queue(now, p, q);
        }
    }

    /// Port `p` dropped packet `pk` for `cause`.
    #[cold]
    #[inline(never)]
    pub(super) fn trace_drop(&mut self, p: u32, pk: &Packet, cause: &str) {
        let q = self.traced_occupancy(p);
        let now = self.now;
        if let Some(t) = self.trace.as_deref_mut() {
            t.packet(now, p, "drop", pk, Some(cause));
            t.queue(now, p, q);
        }
    }

    /// Port `p`'s buffer after an arrival.
    #[cold]
    #[inline(never)]
    pub(super) fn trace_queue(&mut self, p: u32) {
        let q = self.traced_occupancy(p);
        let now = self.now;
        if let Some(t) = self.trace.as_deref_mut() {
            t.queue(now, p, q);
        }
    }

    /// Packet `pk` reached host `h`.
    #[cold]
    #[inline(never)]
    pub(super) fn trace_rx(&mut self, h: u32, pk: &Packet) {
        let now = self.now;
        if let Some(t) = self.trace.as_deref_mut() {
            t.packet(now, h, "rx", pk, None);
        }
    }

    /// Wormhole paused partition `id` (its `flows`) from now until `until_ps` (the planned
    /// interrupt, `cause`).
    #[cold]
    #[inline(never)]
    pub(super) fn trace_pause(&mut self, id: u32, flows: &[u32], until_ps: Time, cause: &str) {
        let now = self.now;
        if let Some(t) = self.trace.as_deref_mut() {
            let list = flow_list(flows);
            t.wormhole(
                now,
                "pause",
                flows,
                format_args!("partition={id} flows={list} until_ps={until_ps} cause={cause}"),
            );
        }
    }

    /// Wormhole resumed partition `id` (its `flows`), paused since `from_ps`, planned until
    /// `until_ps` (earlier: a skip-back, 6.3).
    #[cold]
    #[inline(never)]
    pub(super) fn trace_resume(&mut self, id: u32, flows: &[u32], from_ps: Time, until_ps: Time) {
        let now = self.now;
        if let Some(t) = self.trace.as_deref_mut() {
            let list = flow_list(flows);
            let early = if now < until_ps { " skip_back" } else { "" };
            t.wormhole(
                now,
                "resume",
                flows,
                format_args!(
                    "partition={id} flows={list} paused_ps={}{early}",
                    now - from_ps
                ),
            );
        }
    }

    /// Write the trace to `path` as the run goes ([`Tracer::spool_to`]); nothing without
    /// `output.trace`.
    pub(crate) fn spool_trace(&mut self, path: &std::path::Path) -> Result<()> {
        match self.trace.as_deref_mut() {
            Some(t) => t.spool_to(path),
            None => Ok(()),
        }
    }

    /// The trace (`trace.jsonl`), finished: [`crate::run::simulate`] puts it in the results
    /// (not [`Sim::results`], which would copy the text).
    pub(crate) fn take_trace(&mut self) -> Result<Option<TraceOut>> {
        self.trace.as_deref_mut().map(Tracer::finish).transpose()
    }

    /// The trace's summary keys: `extra.trace_records` / `trace_truncated`.
    pub(super) fn trace_results(&self, r: &mut RunResult) {
        if let Some(t) = self.trace.as_deref() {
            t.put_counts(r);
        }
    }
}
