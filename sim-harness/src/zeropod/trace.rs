//! The packet trace of a Zeropod run (`output.trace`, `trace.jsonl`): the slotted region's
//! cells in the fabric trace's schema (`engine/trace.rs`), so `dcfab trace out/<run>/trace.jsonl
//! --vcd run.vcd` opens a Zeropod run in GTKWave as it opens a packet-engine run.
//!
//! What the region shows (Zeropod §III-IV: a pod is bufferless and moves one cell per link
//! per slot; only a Core port buffers):
//!
//! * `host<i>.tx`: NIC `i` puts a data cell on its uplink in a data slot (its start). The
//!   value reads as a packet's: `CELL f=<flow> psn=<cell index> len=<wire bytes of a data
//!   cell> src=<host> dst=<host>`, then `opt` for an optimistic (unscheduled) cell.
//! * `host<i>.rx`: a cell reached host `i` (its arrival time: the slot's start, the cell's
//!   serialization and its hops' propagation, as `flows.csv` counts it); `dup` when the
//!   receiver already had it.
//! * `pod<p>.tor<i>.down<j>` / `.up<j>` and `pod<p>.agg<i>.down<j>` / `.up<j>` `.drop` with
//!   `cause=collision`: a cell headed for that bufferless switch output lost a collision
//!   there (§IV-B3: an optimistic cell meeting a scheduled one, or two optimistic cells; at
//!   the start of the slot it collided in). A
//!   ToR's `down<j>` leads to its host `j`, its `up<j>` to Agg `j`; an Agg's `down<j>` to
//!   ToR `j`, its `up<j>` to Core `j x M + i`.
//! * `core<c>.pod<p>.tx` / `.queue_bytes` / `.drop` (`cause=buffer_full`): the buffered
//!   Core port of pod `p` on Core `c` (named as in `queues.csv`) sends a cell down to its
//!   pod, holds `cells x len` bytes, or drops an arriving cell.
//!
//! The region computes a slot's arrivals ahead of the next slot's sends, so records are kept
//! until every record of an earlier time is known and written in `(time, order made)` order:
//! every record made while running slot `g` is at or after slot `g`'s start.
//! Scope and cap (`output.trace_from_us` / `_until_us` / `_flows` / `_ports` /
//! `_max_records`) are the packet engine's; the trace only reads the region, so a run's
//! other outputs are bit-identical with it on or off (`tests/zeropod.rs`).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rtl_models::zeropod_cell::DATA_CELL_LEN;

use super::links::LinkIndex;
use crate::engine::trace::Tracer;
use crate::error::Result;
use crate::event::Time;
use crate::results::RunResult;
use crate::scenario::Scenario;

/// One cell as a record shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct TracedCell {
    /// Global flow index (`flows.csv` id).
    pub flow: u32,
    /// Cell index in the flow.
    pub seq: u32,
    /// Source and destination hosts.
    pub src: u32,
    pub dst: u32,
    /// Optimistic (unscheduled).
    pub opt: bool,
}

/// A record waiting for its turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Rec {
    /// `tx` (`dup`: unused), `rx` (`dup`: the receiver had it) or `drop` (with a cause).
    Cell {
        port: u32,
        sig: &'static str,
        cell: TracedCell,
        dup: bool,
        cause: Option<&'static str>,
    },
    Queue {
        port: u32,
        bytes: u64,
    },
}

/// The trace of a Zeropod region: the tracer and the records not yet due.
#[derive(Debug)]
pub struct ZeropodTrace {
    t: Tracer,
    /// By `(time, order made)`: unique keys, so a record's own fields never order it.
    pending: BinaryHeap<Reverse<(Time, u64, Rec)>>,
    made: u64,
    ix: LinkIndex,
}

impl ZeropodTrace {
    /// The trace of scenario `s` over links `ix` (its ports, named as in `links.csv`) with
    /// `n_flows` flows.
    pub fn new(s: &Scenario, ix: LinkIndex, n_flows: usize) -> Result<ZeropodTrace> {
        let names = ix.names();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let t = Tracer::with_ports(
            s,
            &refs,
            n_flows,
            "zeropod cell trace: per host, cells sent (tx) and received (rx); per pod switch \
             output, collision losers (drop); per Core port, cells sent (tx), dropped (drop), \
             buffered bytes (queue_bytes)",
            "as in links.csv (host<i>, core<c>.pod<p>, pod<p>.tor<i>.down<j> / .up<j>, \
             pod<p>.agg<i>.down<j> / .up<j> in a Zeropod run)",
        )?;
        Ok(ZeropodTrace {
            t,
            pending: BinaryHeap::new(),
            made: 0,
            ix,
        })
    }

    /// Output `port` of pod `p`'s ToR `i` (`agg`: Agg `i`) discarded `cell`, a collision's
    /// loser, at `at`.
    pub fn switch_lost(
        &mut self,
        at: Time,
        p: u32,
        agg: bool,
        i: u32,
        port: u32,
        cell: TracedCell,
    ) {
        let port = self.ix.switch_port(p, agg, i, port);
        self.cell(at, port, "drop", cell, false, Some("collision"));
    }

    fn push(&mut self, at: Time, r: Rec) {
        self.pending.push(Reverse((at, self.made, r)));
        self.made += 1;
    }

    /// A record of `cell` on `port`'s signal `sig`.
    fn cell(
        &mut self,
        at: Time,
        port: u32,
        sig: &'static str,
        cell: TracedCell,
        dup: bool,
        cause: Option<&'static str>,
    ) {
        self.push(
            at,
            Rec::Cell {
                port,
                sig,
                cell,
                dup,
                cause,
            },
        );
    }

    /// Host `h` sends `cell` at `at`.
    pub fn host_tx(&mut self, at: Time, h: u32, cell: TracedCell) {
        self.cell(at, self.ix.host(h), "tx", cell, false, None);
    }

    /// `cell` reaches its destination host at `at` (`dup`: already received).
    pub fn host_rx(&mut self, at: Time, cell: TracedCell, dup: bool) {
        self.cell(at, self.ix.host(cell.dst), "rx", cell, dup, None);
    }

    /// Core `c`'s port to pod `p` at `at`: sent `cell` down (`Some(true)`), dropped it on
    /// arrival (`Some(false)`) or took it in (`None`); it now holds `cells` cells.
    pub fn core(
        &mut self,
        at: Time,
        c: u32,
        p: u32,
        cell: TracedCell,
        sent: Option<bool>,
        cells: u32,
    ) {
        let port = self.ix.core_port(c, p);
        match sent {
            Some(true) => self.cell(at, port, "tx", cell, false, None),
            Some(false) => self.cell(at, port, "drop", cell, false, Some("buffer_full")),
            None => {}
        }
        self.push(
            at,
            Rec::Queue {
                port,
                bytes: u64::from(cells) * DATA_CELL_LEN as u64,
            },
        );
    }

    /// Write every record before `t` (all later ones are not known yet), in time order and,
    /// at one time, in the order they were made.
    pub fn flush_before(&mut self, t: Time) {
        while let Some(&Reverse((at, _, r))) = self.pending.peek() {
            if at >= t {
                break;
            }
            self.pending.pop();
            match r {
                Rec::Cell {
                    port,
                    sig,
                    cell,
                    dup,
                    cause,
                } => {
                    let opt = if cell.opt { " opt" } else { "" };
                    let dup = if dup { " dup" } else { "" };
                    let cause = cause.map(|c| format!(" cause={c}")).unwrap_or_default();
                    self.t.text_record(
                        at,
                        port,
                        sig,
                        Some(cell.flow),
                        format_args!(
                            "CELL f={} psn={} len={DATA_CELL_LEN} src={} dst={}{opt}{dup}{cause}",
                            cell.flow, cell.seq, cell.src, cell.dst
                        ),
                    );
                }
                Rec::Queue { port, bytes } => self.t.queue_bytes(at, port, bytes),
            }
        }
    }

    /// Write the trace to `path` as the run goes ([`Tracer::spool_to`]).
    pub fn spool_to(&mut self, path: &std::path::Path) -> Result<()> {
        self.t.spool_to(path)
    }

    /// Write what is left and put the trace (or its file) and its counts in `r`.
    pub fn finish(mut self, r: &mut RunResult) -> Result<()> {
        self.flush_before(Time::MAX);
        self.t.put_counts(r);
        self.t.finish()?.put(r);
        Ok(())
    }
}
