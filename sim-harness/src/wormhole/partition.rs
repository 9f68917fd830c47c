//! Port-level network partitions (Wormhole Definition 1, section 4.1, Algorithm 1 and
//! Appendix E / Algorithm 2).
//!
//! *Flows sharing the same port (or link), along with the ports and links through which these
//! flows traverse, construct a network partition.* A port here is the engine's output port id
//! (one direction of a link): two flows interfere exactly when they queue at the same port.
//! What a flow "traverses" is its path (Algorithm 1 `flow.links`, Algorithm 2 `newflow.path`):
//! the output ports of its DATA direction. The ports its ACKs use on the way back are kept in a
//! second index ([`Partitions::start_flow_acks`]) that never merges partitions: the engine asks
//! it which of a partition's ports carry another partition's ACKs
//! ([`Partitions::foreign_ack_ports`]) and keeps those serving their control lane while the
//! partition is skipped (`engine/skip/held.rs`, `skip.partition_by = "data_ports"`). Giving the
//! ACK ports as part of the path (the `"all_ports"` rule, the default) merges through them
//! instead.
//!
//! [`Partitions`] keeps the partitions incrementally, as Algorithm 2 does:
//!
//! * [`Partitions::start_flow`] (`on_new_flow_enter`): the partitions the new flow's path
//!   touches are found through a port -> flows index; none: a new partition; one: the flow
//!   joins it; several: they are merged into the largest one (union by size, so a flow is
//!   relabelled O(log F) times over any sequence of merges).
//! * [`Partitions::finish_flow`] (`on_old_flow_leave`): with 0 or 1 flows left the partition is
//!   erased or kept; otherwise a BFS from the flows the leaving one shared a port with stops
//!   as soon as they all reach each other (the partition is whole: the common case), and
//!   only when they do not does `network_partitioner` (a BFS over the bipartite flow / port
//!   graph, Algorithm 1) run over the *remaining flows of that partition only* and the
//!   partition split into its connected components.
//!
//! Complexity, with `p` the ports of a path, `F` flows and `P` ports in the system, and
//! `f_A`, `p_A` the flows and port incidences of the affected partition:
//! start: `O(p + r log F)` where `r` is the number of flows relabelled (the smaller
//! merged partitions; amortized `O(log F)` per flow between splits); finish: `O(p)` when at
//! most one flow remains, else `O(f_A + p_A)` for the local BFS, at most twice (the whole
//! network only in the worst case, as the paper says). Flows and ports are dense indices:
//! the per-flow and per-port indexes are slot vectors, a port's flows a sorted vector
//! (measured at 1024 GPUs, 45k flows, partitions of ~350: the tree searches of the BFS made
//! `finish_flow` 11 % of a skip run; 2 % now). Lookups
//! ([`Partitions::partition_of_port`], [`Partitions::partition_of_flow`]) are `O(1)`.
//!
//! Determinism: partitions are a `BTreeMap`, partition ids come from a counter, and on a split
//! the component holding the smallest flow id keeps the old id while the others get fresh ids
//! in the order of their smallest flow id.
//!
//! The engine calls `start_flow` when a flow is injected, `finish_flow` when it completes,
//! and applies the returned [`Change`] to its per-partition event queues (merge the absorbed
//! partitions' queues into the survivor; give each split-off partition the events of its
//! ports and flows, found with `partition_of_port` / `partition_of_flow`).

use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// A flow id (the engine's flow index).
pub type FlowId = u32;
/// A port id (the engine's output port index: one direction of one link).
pub type PortId = u32;
/// A partition id, unique over the lifetime of one [`Partitions`].
pub type PartitionId = u32;

/// A misuse of [`Partitions`]: names the flow.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PartitionError {
    /// `start_flow` for a flow that is already active.
    #[error("flow {0}: already active in a partition")]
    AlreadyActive(FlowId),
    /// `finish_flow` for a flow that is not active.
    #[error("flow {0}: not active in any partition")]
    NotActive(FlowId),
}

/// What a start or finish did to the partitions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// The flow formed a partition of its own (no port shared with an active flow).
    Created(PartitionId),
    /// The flow joined one existing partition.
    Joined(PartitionId),
    /// The flow joined several partitions, merged into `into`; `absorbed` no longer exist.
    Merged {
        /// The surviving partition (the largest of the merged ones, ties to the smallest id).
        into: PartitionId,
        /// The partitions merged into `into`, ascending.
        absorbed: Vec<PartitionId>,
    },
    /// The flow left and its partition still exists, unsplit.
    Shrunk(PartitionId),
    /// The flow left and its partition is gone (it was the last flow).
    Removed(PartitionId),
    /// The flow left and its partition split: `kept` keeps the old id, `new` are the other
    /// components (fresh ids, ascending).
    Split {
        /// The old id, now naming the component with the smallest flow id.
        kept: PartitionId,
        /// The split-off components.
        new: Vec<PartitionId>,
    },
}

/// A map from a dense id (a flow or port index of the engine) to a value: a slot per id,
/// so the partition bookkeeping's lookups on every flow start and finish are an index, not
/// a tree search (at 1024 GPUs, 45k flows: the tree searches of the BFS were most of
/// [`Partitions::finish_flow`]'s cost). Ids are indices, so the memory is the largest id.
#[derive(Debug, Clone)]
struct Dense<V> {
    slots: Vec<Option<V>>,
}

impl<V> Default for Dense<V> {
    fn default() -> Self {
        Dense { slots: Vec::new() }
    }
}

impl<V> Dense<V> {
    fn get(&self, k: &u32) -> Option<&V> {
        self.slots.get(*k as usize).and_then(Option::as_ref)
    }

    fn get_mut(&mut self, k: &u32) -> Option<&mut V> {
        self.slots.get_mut(*k as usize).and_then(Option::as_mut)
    }

    fn contains_key(&self, k: &u32) -> bool {
        self.get(k).is_some()
    }

    fn slot(&mut self, k: u32) -> &mut Option<V> {
        let i = k as usize;
        if self.slots.len() <= i {
            self.slots.resize_with(i + 1, || None);
        }
        &mut self.slots[i]
    }

    fn insert(&mut self, k: u32, v: V) -> Option<V> {
        self.slot(k).replace(v)
    }

    fn remove(&mut self, k: &u32) -> Option<V> {
        self.slots.get_mut(*k as usize).and_then(Option::take)
    }

    fn or_default(&mut self, k: u32) -> &mut V
    where
        V: Default,
    {
        self.slot(k).get_or_insert_with(V::default)
    }
}

impl<V> std::ops::Index<&u32> for Dense<V> {
    type Output = V;
    fn index(&self, k: &u32) -> &V {
        self.get(k).expect("id present")
    }
}

/// Set bit `i` of a growable bitset; true if it was clear (membership only: no order
/// depends on it).
fn bit_insert(bits: &mut Vec<u64>, i: u32) -> bool {
    let (w, b) = ((i / 64) as usize, i % 64);
    if bits.len() <= w {
        bits.resize(w + 1, 0);
    }
    let new = bits[w] >> b & 1 == 0;
    bits[w] |= 1 << b;
    new
}

/// A small ordered set of ids (the active flows on one port): a sorted vector, cheaper to
/// walk than a tree for the few to few hundred flows a port carries.
#[derive(Debug, Clone, Default)]
struct SortedIds(Vec<u32>);

impl SortedIds {
    fn insert(&mut self, x: u32) {
        if let Err(i) = self.0.binary_search(&x) {
            self.0.insert(i, x);
        }
    }

    fn remove(&mut self, x: &u32) {
        if let Ok(i) = self.0.binary_search(x) {
            self.0.remove(i);
        }
    }

    fn first(&self) -> Option<&u32> {
        self.0.first()
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn iter(&self) -> std::slice::Iter<'_, u32> {
        self.0.iter()
    }
}

/// Work counters (to report the cost of keeping partitions).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PartitionStats {
    /// Partitions created (new flows alone, and split-off components).
    pub created: u64,
    /// Merge operations (a start touching two or more partitions).
    pub merges: u64,
    /// Finishes that ran the local BFS.
    pub rebuilds: u64,
    /// Finishes whose BFS found more than one component.
    pub splits: u64,
    /// Flows whose partition id was rewritten (merge relabels and BFS visits).
    pub relabels: u64,
}

/// The incremental port-level partitioning of the active flows.
#[derive(Debug, Clone, Default)]
pub struct Partitions {
    flow_ports: Dense<Vec<PortId>>,
    port_flows: Dense<SortedIds>,
    /// ACK-direction ports of each active flow (no part in membership).
    flow_acks: Dense<Vec<PortId>>,
    /// Port -> active flows whose ACKs use it.
    ack_flows: Dense<BTreeSet<FlowId>>,
    flow_part: Dense<PartitionId>,
    parts: BTreeMap<PartitionId, BTreeSet<FlowId>>,
    next_id: PartitionId,
    stats: PartitionStats,
}

impl Partitions {
    /// No flows, no partitions.
    pub fn new() -> Self {
        Self::default()
    }

    /// Algorithm 2 `on_new_flow_enter`: `flow` becomes active on the ports of `path`
    /// (duplicates ignored; an empty path gives a partition of one flow and no port).
    pub fn start_flow(&mut self, flow: FlowId, path: &[PortId]) -> Result<Change, PartitionError> {
        self.start_flow_acks(flow, path, &[])
    }

    /// [`Partitions::start_flow`] for a flow whose ACKs use the ports `acks` on the way back:
    /// membership (merges) by `path` only; `acks` are indexed for
    /// [`Partitions::foreign_ack_ports`].
    pub fn start_flow_acks(
        &mut self,
        flow: FlowId,
        path: &[PortId],
        acks: &[PortId],
    ) -> Result<Change, PartitionError> {
        if self.flow_part.contains_key(&flow) {
            return Err(PartitionError::AlreadyActive(flow));
        }
        let mut acks = acks.to_vec();
        acks.sort_unstable();
        acks.dedup();
        for &p in &acks {
            self.ack_flows.or_default(p).insert(flow);
        }
        self.flow_acks.insert(flow, acks);
        let mut ports = path.to_vec();
        ports.sort_unstable();
        ports.dedup();
        let mut touched = BTreeSet::new();
        for p in &ports {
            if let Some(&f) = self.port_flows.get(p).and_then(|s| s.first()) {
                touched.insert(self.flow_part[&f]);
            }
        }
        for &p in &ports {
            self.port_flows.or_default(p).insert(flow);
        }
        self.flow_ports.insert(flow, ports);
        let change = match touched.len() {
            0 => {
                let id = self.fresh_id();
                self.parts.insert(id, BTreeSet::new());
                Change::Created(id)
            }
            1 => Change::Joined(*touched.first().expect("one partition")),
            _ => {
                // Union by size: the largest partition survives (ties: smallest id).
                let into = *touched
                    .iter()
                    .max_by_key(|&&id| (self.parts[&id].len(), std::cmp::Reverse(id)))
                    .expect("two or more partitions");
                let absorbed: Vec<PartitionId> =
                    touched.iter().copied().filter(|&id| id != into).collect();
                for id in &absorbed {
                    let flows = self.parts.remove(id).expect("touched partition exists");
                    for f in &flows {
                        self.flow_part.insert(*f, into);
                    }
                    self.stats.relabels += flows.len() as u64;
                    self.parts.get_mut(&into).expect("survivor").extend(flows);
                }
                self.stats.merges += 1;
                Change::Merged { into, absorbed }
            }
        };
        let id = match &change {
            Change::Created(id) | Change::Joined(id) => *id,
            Change::Merged { into, .. } => *into,
            _ => unreachable!("start gives Created, Joined or Merged"),
        };
        self.parts.get_mut(&id).expect("partition").insert(flow);
        self.flow_part.insert(flow, id);
        Ok(change)
    }

    /// Algorithm 2 `on_old_flow_leave`: `flow` completes and releases its ports.
    pub fn finish_flow(&mut self, flow: FlowId) -> Result<Change, PartitionError> {
        let id = self
            .flow_part
            .remove(&flow)
            .ok_or(PartitionError::NotActive(flow))?;
        let ports = self
            .flow_ports
            .remove(&flow)
            .expect("active flow has ports");
        for p in &ports {
            let set = self.port_flows.get_mut(p).expect("port of an active flow");
            set.remove(&flow);
            if set.is_empty() {
                self.port_flows.remove(p);
            }
        }
        for p in self.flow_acks.remove(&flow).unwrap_or_default() {
            let set = self
                .ack_flows
                .get_mut(&p)
                .expect("ACK port of an active flow");
            set.remove(&flow);
            if set.is_empty() {
                self.ack_flows.remove(&p);
            }
        }
        let part = self
            .parts
            .get_mut(&id)
            .expect("partition of an active flow");
        part.remove(&flow);
        let left = part.len();
        match left {
            0 => {
                self.parts.remove(&id);
                return Ok(Change::Removed(id));
            }
            1 => return Ok(Change::Shrunk(id)),
            _ => {}
        }
        // network_partitioner over the remaining flows of this partition only.
        self.stats.rebuilds += 1;
        if self.still_connected(&ports) {
            self.stats.relabels += left as u64;
            return Ok(Change::Shrunk(id));
        }
        let remaining = self.parts.remove(&id).expect("partition");
        let comps = self.components_of(&remaining);
        self.stats.relabels += remaining.len() as u64;
        let mut new = Vec::new();
        for (i, comp) in comps.into_iter().enumerate() {
            // The first component keeps the id its flows already map to.
            let cid = if i == 0 { id } else { self.fresh_id() };
            if i > 0 {
                for f in &comp {
                    self.flow_part.insert(*f, cid);
                }
            }
            self.parts.insert(cid, comp);
            if i > 0 {
                new.push(cid);
            }
        }
        if new.is_empty() {
            Ok(Change::Shrunk(id))
        } else {
            self.stats.splits += 1;
            Ok(Change::Split { kept: id, new })
        }
    }

    /// Whether the partition a flow on `ports` just left is still one
    /// component: the flow only joined the groups of flows on each of its ports, each
    /// connected through its port, so the partition is whole iff one group reaches every
    /// other without it. A BFS from the first group that stops once it has met all of them
    /// (usually a few flows away), instead of labelling the whole partition; when it
    /// cannot, [`Partitions::components_of`] labels the pieces.
    fn still_connected(&self, ports: &[PortId]) -> bool {
        let mut anchors: Vec<FlowId> = ports
            .iter()
            .filter_map(|p| self.port_flows.get(p).and_then(|s| s.first()).copied())
            .collect();
        anchors.sort_unstable();
        anchors.dedup();
        if anchors.len() <= 1 {
            return true;
        }
        let mut seen_flows: Vec<u64> = Vec::new();
        let mut seen_ports: Vec<u64> = Vec::new();
        let mut queue = VecDeque::from([anchors[0]]);
        bit_insert(&mut seen_flows, anchors[0]);
        let mut missing = anchors.len() - 1;
        while let Some(f) = queue.pop_front() {
            for p in &self.flow_ports[&f] {
                if !bit_insert(&mut seen_ports, *p) {
                    continue;
                }
                for g in self.port_flows[p].iter() {
                    if bit_insert(&mut seen_flows, *g) {
                        if anchors[1..].binary_search(g).is_ok() {
                            missing -= 1;
                            if missing == 0 {
                                return true;
                            }
                        }
                        queue.push_back(*g);
                    }
                }
            }
        }
        false
    }

    /// Connected components of the bipartite flow / port graph restricted to `flows`
    /// (Algorithm 1 `network_partitioner`, BFS), ordered by their smallest flow id.
    fn components_of(&self, flows: &BTreeSet<FlowId>) -> Vec<BTreeSet<FlowId>> {
        let last = flows.last().copied().unwrap_or(0);
        let mut seen: Vec<u64> = vec![0; last as usize / 64 + 1];
        let mut seen_ports: Vec<u64> = Vec::new();
        let mut out = Vec::new();
        for &start in flows {
            if seen[(start / 64) as usize] >> (start % 64) & 1 == 1 {
                continue;
            }
            let mut comp = Vec::new();
            let mut queue = VecDeque::from([start]);
            bit_insert(&mut seen, start);
            while let Some(f) = queue.pop_front() {
                comp.push(f);
                for p in &self.flow_ports[&f] {
                    if !bit_insert(&mut seen_ports, *p) {
                        continue;
                    }
                    for g in self.port_flows[p].iter() {
                        if bit_insert(&mut seen, *g) {
                            queue.push_back(*g);
                        }
                    }
                }
            }
            comp.sort_unstable();
            out.push(comp.into_iter().collect());
        }
        out
    }

    fn fresh_id(&mut self) -> PartitionId {
        let id = self.next_id;
        self.next_id += 1;
        self.stats.created += 1;
        id
    }

    /// The partition of an active flow.
    pub fn partition_of_flow(&self, flow: FlowId) -> Option<PartitionId> {
        self.flow_part.get(&flow).copied()
    }

    /// The partition that owns `port` (the partition-membership of a port event), or `None`
    /// when no active flow uses the port.
    pub fn partition_of_port(&self, port: PortId) -> Option<PartitionId> {
        let f = self.port_flows.get(&port)?.first()?;
        self.flow_part.get(f).copied()
    }

    /// The partitions owning any of `ports` ([`Self::partition_of_port`]), ascending, each
    /// once.
    pub fn partitions_of_ports(&self, ports: &[PortId]) -> Vec<PartitionId> {
        let mut ids: Vec<PartitionId> = ports
            .iter()
            .filter_map(|&p| self.partition_of_port(p))
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    /// The flows of a partition, ascending.
    pub fn flows(&self, id: PartitionId) -> Option<&BTreeSet<FlowId>> {
        self.parts.get(&id)
    }

    /// The ports of a partition (union of its flows' paths), ascending.
    pub fn ports(&self, id: PartitionId) -> Option<BTreeSet<PortId>> {
        let flows = self.parts.get(&id)?;
        Some(
            flows
                .iter()
                .flat_map(|f| self.flow_ports[f].iter().copied())
                .collect(),
        )
    }

    /// The ports of partition `id` that carry ACKs of an active flow of another partition
    /// (ascending): skipping `id` must keep their control lane served.
    pub fn foreign_ack_ports(&self, id: PartitionId) -> Vec<PortId> {
        let Some(ports) = self.ports(id) else {
            return Vec::new();
        };
        ports
            .into_iter()
            .filter(|p| {
                self.ack_flows
                    .get(p)
                    .is_some_and(|fs| fs.iter().any(|f| self.flow_part[f] != id))
            })
            .collect()
    }

    /// The active flows of partitions other than `flow`'s whose ACKs cross one of `flow`'s
    /// DATA ports (each counted once): the foreign ACK load its rate depends on under
    /// `skip.partition_by = "data_ports"` (0 when ACK ports merge partitions).
    pub fn foreign_acks_on(&self, flow: FlowId) -> usize {
        let (Some(path), Some(&id)) = (self.flow_ports.get(&flow), self.flow_part.get(&flow))
        else {
            return 0;
        };
        let mut seen: Vec<FlowId> = path
            .iter()
            .filter_map(|p| self.ack_flows.get(p))
            .flatten()
            .copied()
            .filter(|f| self.flow_part[f] != id)
            .collect();
        seen.sort_unstable();
        seen.dedup();
        seen.len()
    }

    /// The ACK ports of partition `id`'s flows that are not ports of `id` (ascending): its
    /// ACKs cross them, other partitions' packets may too.
    pub fn ack_only_ports(&self, id: PartitionId) -> Vec<PortId> {
        let Some(flows) = self.parts.get(&id) else {
            return Vec::new();
        };
        let own = self.ports(id).unwrap_or_default();
        let acks: BTreeSet<PortId> = flows
            .iter()
            .flat_map(|f| self.flow_acks[f].iter().copied())
            .filter(|p| !own.contains(p))
            .collect();
        acks.into_iter().collect()
    }

    /// The ACK ports of an active flow (sorted, deduplicated).
    pub fn ack_path(&self, flow: FlowId) -> Option<&[PortId]> {
        self.flow_acks.get(&flow).map(Vec::as_slice)
    }

    /// The ports of an active flow's path (sorted, deduplicated).
    pub fn path(&self, flow: FlowId) -> Option<&[PortId]> {
        self.flow_ports.get(&flow).map(Vec::as_slice)
    }

    /// Ids of the current partitions, ascending.
    pub fn ids(&self) -> impl Iterator<Item = PartitionId> + '_ {
        self.parts.keys().copied()
    }

    /// Number of partitions.
    pub fn len(&self) -> usize {
        self.parts.len()
    }

    /// True when no flow is active.
    pub fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }

    /// The work counters.
    pub fn stats(&self) -> PartitionStats {
        self.stats
    }

    /// The current partitions as sets of flows, sorted (for comparison with
    /// [`from_scratch`]).
    pub fn as_sets(&self) -> Vec<BTreeSet<FlowId>> {
        let mut v: Vec<_> = self.parts.values().cloned().collect();
        v.sort();
        v
    }
}

/// Algorithm 1 from scratch: the connected components of the bipartite flow / link graph
/// of `flows` (flow id, path ports), by BFS; `O(N + M)` visits. Sorted like
/// [`Partitions::as_sets`].
pub fn from_scratch(flows: &[(FlowId, Vec<PortId>)]) -> Vec<BTreeSet<FlowId>> {
    let mut port_flows: BTreeMap<PortId, Vec<usize>> = BTreeMap::new();
    for (i, (_, ports)) in flows.iter().enumerate() {
        for p in ports {
            port_flows.entry(*p).or_default().push(i);
        }
    }
    let mut seen = vec![false; flows.len()];
    let mut seen_port = BTreeSet::new();
    let mut out = Vec::new();
    for s in 0..flows.len() {
        if seen[s] {
            continue;
        }
        seen[s] = true;
        let mut comp = BTreeSet::new();
        let mut queue = VecDeque::from([s]);
        while let Some(i) = queue.pop_front() {
            comp.insert(flows[i].0);
            for p in &flows[i].1 {
                if seen_port.insert(*p) {
                    for &j in &port_flows[p] {
                        if !seen[j] {
                            seen[j] = true;
                            queue.push_back(j);
                        }
                    }
                }
            }
        }
        out.push(comp);
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn merge_and_split_by_hand() {
        let mut p = Partitions::new();
        assert_eq!(p.start_flow(1, &[10, 11]), Ok(Change::Created(0)));
        assert_eq!(p.start_flow(2, &[20, 21]), Ok(Change::Created(1)));
        assert_eq!(p.start_flow(3, &[30]), Ok(Change::Created(2)));
        // Flow 4 bridges partitions 0 and 1 (equal sizes: smallest id survives).
        assert_eq!(
            p.start_flow(4, &[11, 21]),
            Ok(Change::Merged {
                into: 0,
                absorbed: vec![1]
            })
        );
        assert_eq!(p.partition_of_flow(2), Some(0));
        assert_eq!(p.partition_of_port(20), Some(0));
        assert_eq!(p.partition_of_port(30), Some(2));
        assert_eq!(p.partition_of_port(99), None);
        assert_eq!(p.start_flow(5, &[30, 30]), Ok(Change::Joined(2)));
        assert_eq!(p.len(), 2);
        // Removing the bridge splits {1, 2} again; 1 (smallest flow) keeps id 0.
        assert_eq!(
            p.finish_flow(4),
            Ok(Change::Split {
                kept: 0,
                new: vec![3]
            })
        );
        assert_eq!(p.partition_of_flow(1), Some(0));
        assert_eq!(p.partition_of_flow(2), Some(3));
        assert_eq!(p.partition_of_port(21), Some(3));
        assert_eq!(p.partition_of_port(11), Some(0));
        assert_eq!(p.ports(3), Some(BTreeSet::from([20, 21])));
        assert_eq!(p.finish_flow(5), Ok(Change::Shrunk(2)));
        assert_eq!(p.finish_flow(3), Ok(Change::Removed(2)));
        assert_eq!(p.finish_flow(3), Err(PartitionError::NotActive(3)));
        assert_eq!(p.start_flow(1, &[1]), Err(PartitionError::AlreadyActive(1)));
        let s = p.stats();
        assert_eq!((s.merges, s.splits, s.rebuilds), (1, 1, 1));
    }

    #[test]
    fn leaving_flow_that_is_not_a_bridge_keeps_the_partition() {
        let mut p = Partitions::new();
        p.start_flow(1, &[1, 2]).unwrap();
        p.start_flow(2, &[2, 3]).unwrap();
        p.start_flow(3, &[3, 1]).unwrap();
        assert_eq!(p.finish_flow(2), Ok(Change::Shrunk(0)));
        assert_eq!(p.as_sets(), vec![BTreeSet::from([1, 3])]);
    }

    #[test]
    fn from_scratch_by_hand() {
        let flows = vec![
            (7, vec![1, 2]),
            (8, vec![3]),
            (9, vec![2, 3]),
            (10, vec![4]),
        ];
        assert_eq!(
            from_scratch(&flows),
            vec![BTreeSet::from([7, 8, 9]), BTreeSet::from([10])]
        );
    }

    #[test]
    fn ack_only_sharing_does_not_merge() {
        let mut p = Partitions::new();
        // Flow 1: DATA on 1 -> 2, ACKs back on 20 -> 10. Flow 2: DATA on 10 (flow 1's ACK
        // port), ACKs on 30.
        assert_eq!(
            p.start_flow_acks(1, &[1, 2], &[20, 10]),
            Ok(Change::Created(0))
        );
        assert_eq!(p.start_flow_acks(2, &[10], &[30]), Ok(Change::Created(1)));
        assert_eq!(p.len(), 2);
        // Port 10 is partition 1's and carries partition 0's ACKs.
        assert_eq!(p.foreign_ack_ports(1), vec![10]);
        assert_eq!(p.foreign_ack_ports(0), Vec::<PortId>::new());
        assert_eq!(p.ack_only_ports(0), vec![10, 20]);
        assert_eq!(p.ack_only_ports(1), vec![30]);
        // A flow with DATA on 2 and 10 merges them (a shared DATA port each).
        assert!(matches!(
            p.start_flow_acks(3, &[2, 10], &[]),
            Ok(Change::Merged { .. })
        ));
        assert_eq!(p.foreign_ack_ports(0), Vec::<PortId>::new());
        // Flow 3 leaves: the split gives flow 2 a partition of its own again.
        p.finish_flow(3).unwrap();
        let b = p.partition_of_flow(2).unwrap();
        assert_ne!(Some(b), p.partition_of_flow(1));
        assert_eq!(p.foreign_ack_ports(b), vec![10]);
        p.finish_flow(1).unwrap();
        assert_eq!(p.foreign_ack_ports(b), Vec::<PortId>::new());
        assert_eq!(p.ack_path(2), Some(&[30][..]));
    }

    proptest! {
        /// After any sequence of starts and finishes, the incremental partitions equal a
        /// from-scratch BFS over the active flows' DATA paths (ACK paths never merge), every
        /// index agrees with them, and the foreign-ACK ports of each partition are the ones a
        /// brute-force scan of every other active flow's ACK path finds.
        #[test]
        fn incremental_equals_from_scratch(
            ops in prop::collection::vec(
                (
                    any::<bool>(),
                    0u32..24,
                    prop::collection::vec(0u32..40, 0..5),
                    prop::collection::vec(0u32..40, 0..5),
                ),
                1..120,
            )
        ) {
            let mut p = Partitions::new();
            let mut active: BTreeMap<FlowId, (Vec<PortId>, Vec<PortId>)> = BTreeMap::new();
            for (start, flow, path, acks) in ops {
                if start && !active.contains_key(&flow) {
                    p.start_flow_acks(flow, &path, &acks).unwrap();
                    active.insert(flow, (path, acks));
                } else if !start && active.contains_key(&flow) {
                    p.finish_flow(flow).unwrap();
                    active.remove(&flow);
                } else if start {
                    prop_assert_eq!(p.start_flow(flow, &path), Err(PartitionError::AlreadyActive(flow)));
                } else {
                    prop_assert_eq!(p.finish_flow(flow), Err(PartitionError::NotActive(flow)));
                }
                let list: Vec<_> = active.iter().map(|(f, (ps, _))| (*f, ps.clone())).collect();
                let sets = from_scratch(&list);
                prop_assert_eq!(p.as_sets(), sets.clone());
                for (f, (ps, _)) in &active {
                    let id = p.partition_of_flow(*f).unwrap();
                    prop_assert!(p.flows(id).unwrap().contains(f));
                    for port in ps {
                        prop_assert_eq!(p.partition_of_port(*port), Some(id));
                    }
                }
                for set in &sets {
                    let id = p.partition_of_flow(*set.first().unwrap()).unwrap();
                    let own: BTreeSet<PortId> =
                        set.iter().flat_map(|f| active[f].0.iter().copied()).collect();
                    let foreign: BTreeSet<PortId> = active
                        .iter()
                        .filter(|(f, _)| !set.contains(f))
                        .flat_map(|(_, (_, a))| a.iter().copied())
                        .filter(|q| own.contains(q))
                        .collect();
                    prop_assert_eq!(p.foreign_ack_ports(id), foreign.into_iter().collect::<Vec<_>>());
                    let ack_only: BTreeSet<PortId> = set
                        .iter()
                        .flat_map(|f| active[f].1.iter().copied())
                        .filter(|q| !own.contains(q))
                        .collect();
                    prop_assert_eq!(p.ack_only_ports(id), ack_only.into_iter().collect::<Vec<_>>());
                }
            }
        }
    }
}
