//! Memoization of unsteady periods (Wormhole section 4): the flow conflict graph (FCG) of a
//! partition and the simulation database keyed by it.
//!
//! **FCG** (4.2): one vertex per flow of the partition, weighted by its rate class (the
//! instantaneous rate, quantized by [`rate_class`] so that runs compare); an edge between two
//! flows that share at least one port, weighted by the number of shared ports. Path length
//! and position in the topology are deliberately ignored, as in the paper.
//!
//! **Key and matching** (4.4: "eliminates candidates with mismatched structural
//! characteristics ... then a weighted graph isomorphism procedure"). dcfab's choice:
//!
//! 1. the key is a *colour-refinement (1-WL) invariant*: vertices start coloured by weight
//!    rank; each round recolours a vertex by the rank of (its colour, the sorted multiset of
//!    (neighbour colour, edge weight)); when the number of colours stops growing, the sorted
//!    list of the last round's signatures, with the vertex and edge counts, is the key
//!    ([`canonical_key`]). Isomorphic graphs always get the same key, whatever the labelling;
//!    graphs with different keys are never isomorphic. Some non-isomorphic graphs share a key
//!    (a 6-cycle and two triangles), so
//! 2. a lookup verifies each candidate of the bucket, first by pairing the two graphs'
//!    vertices in (stable colour, vertex id) order and checking that pairing (cheap, and
//!    enough when partitions are built in a consistent flow order or are symmetric), then,
//!    if that fails, with an exact weighted isomorphism search: individualization-refinement on the disjoint union of the two graphs (individualize
//!    a vertex of the query's first non-singleton colour class, try each vertex of the same class
//!    in the stored graph, refine, prune on unequal class sizes), ending in an explicit check of
//!    every weight and edge. A search is capped at [`SEARCH_CAP`] tried vertices; a capped search
//!    counts as a miss (the database then may simulate a transient it had seen, but never
//!    returns a wrong one). On the symmetric graphs of collectives the first branch succeeds.
//!
//! The found isomorphism maps the stored per-flow values (end rates, transient bytes, in the
//! stored graph's vertex order) to the query's flows. The database stores
//! `(FCG_start) -> (end rates, per-flow transient bytes, T_conv)` (4.3); the end FCG of the
//! paper is the start FCG with the end rates as weights, so the rates are kept, not a graph.
//! Everything is deterministic (`BTreeMap`, sorted adjacency, ascending search order).

use super::partition::PortId;
use std::collections::BTreeMap;

/// Search nodes (tried vertex pairs) allowed per isomorphism check.
pub const SEARCH_CAP: u32 = 10_000;

/// A malformed graph or database value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MemoError {
    /// An edge names a vertex that does not exist.
    #[error("edge ({0}, {1}): vertex out of range (graph has {2} vertices)")]
    VertexOutOfRange(u32, u32, usize),
    /// An edge from a vertex to itself.
    #[error("edge ({0}, {0}): self loop")]
    SelfLoop(u32),
    /// The same edge twice.
    #[error("edge ({0}, {1}): given twice")]
    DuplicateEdge(u32, u32),
    /// An edge of weight 0 (no shared link: not an edge).
    #[error("edge ({0}, {1}): weight 0")]
    ZeroWeight(u32, u32),
    /// A per-flow value list of the wrong length.
    #[error("{field}: {got} values for {want} flows")]
    Length {
        /// The value (end_rates or transient_bytes).
        field: &'static str,
        /// Its length.
        got: usize,
        /// The graph's vertex count.
        want: usize,
    },
}

/// Rate class of a flow: `round(rate / capacity x classes)`, at most `classes` (rates above
/// the capacity fall in the top class). `classes` = 0 gives class 0 for every rate.
pub fn rate_class(rate_bps: u64, capacity_bps: u64, classes: u32) -> u32 {
    if capacity_bps == 0 || classes == 0 {
        return 0;
    }
    let c = (rate_bps as u128 * classes as u128 * 2 + capacity_bps as u128)
        / (2 * capacity_bps as u128);
    c.min(classes as u128) as u32
}

/// A weighted undirected graph: the flow conflict graph of one partition (4.2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlowConflictGraph {
    weights: Vec<u32>,
    /// Per vertex, (neighbour, edge weight), sorted by neighbour.
    adj: Vec<Vec<(u32, u32)>>,
}

impl FlowConflictGraph {
    /// A graph from vertex weights and `(a, b, weight)` edges.
    pub fn new(weights: Vec<u32>, edges: &[(u32, u32, u32)]) -> Result<Self, MemoError> {
        let n = weights.len();
        let mut adj = vec![Vec::new(); n];
        for &(a, b, w) in edges {
            if a as usize >= n || b as usize >= n {
                return Err(MemoError::VertexOutOfRange(a, b, n));
            }
            if a == b {
                return Err(MemoError::SelfLoop(a));
            }
            if w == 0 {
                return Err(MemoError::ZeroWeight(a, b));
            }
            adj[a as usize].push((b, w));
            adj[b as usize].push((a, w));
        }
        for (v, l) in adj.iter_mut().enumerate() {
            l.sort_unstable();
            if let Some(d) = l.windows(2).find(|p| p[0].0 == p[1].0) {
                let (a, b) = (v as u32, d[0].0);
                return Err(MemoError::DuplicateEdge(a.min(b), a.max(b)));
            }
        }
        Ok(Self { weights, adj })
    }

    /// The FCG of a partition: flow `i` has weight `flows[i].0` (its rate class) and path
    /// ports `flows[i].1`; the edge weight is the number of distinct ports two flows share.
    pub fn from_paths(flows: &[(u32, &[PortId])]) -> Self {
        // One flow (every memo hit of the GPT pipelines): no edges.
        if let [(w, _)] = flows {
            return Self {
                weights: vec![*w],
                adj: vec![Vec::new()],
            };
        }
        // (port, flow) pairs, each port once per flow, sorted: the flows of one port are a
        // run, in flow order (sorted vectors, not maps: this runs at every memo lookup).
        let mut port_flows: Vec<(PortId, u32)> = Vec::new();
        for (i, (_, ports)) in flows.iter().enumerate() {
            port_flows.extend(ports.iter().map(|&p| (p, i as u32)));
        }
        port_flows.sort_unstable();
        port_flows.dedup();
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        for run in port_flows.chunk_by(|x, y| x.0 == y.0) {
            for (x, &(_, a)) in run.iter().enumerate() {
                pairs.extend(run[x + 1..].iter().map(|&(_, b)| (a, b)));
            }
        }
        pairs.sort_unstable();
        let edges: Vec<_> = pairs
            .chunk_by(|x, y| x == y)
            .map(|c| (c[0].0, c[0].1, c.len() as u32))
            .collect();
        Self::new(flows.iter().map(|f| f.0).collect(), &edges).expect("edges built from paths")
    }

    /// Vertex count.
    pub fn len(&self) -> usize {
        self.weights.len()
    }

    /// True with no vertex.
    pub fn is_empty(&self) -> bool {
        self.weights.is_empty()
    }

    /// Edge count.
    pub fn edge_count(&self) -> usize {
        self.adj.iter().map(Vec::len).sum::<usize>() / 2
    }

    /// Vertex weights.
    pub fn weights(&self) -> &[u32] {
        &self.weights
    }

    /// The edge weight between `a` and `b`, if adjacent.
    pub fn edge(&self, a: u32, b: u32) -> Option<u32> {
        let l = &self.adj[a as usize];
        l.binary_search_by_key(&b, |e| e.0).ok().map(|i| l[i].1)
    }

    /// The same graph with vertex `v` renamed `perm[v]` (`perm` a permutation of `0..n`).
    pub fn relabel(&self, perm: &[u32]) -> Self {
        let mut w = vec![0; self.len()];
        let mut edges = Vec::new();
        for v in 0..self.len() {
            w[perm[v] as usize] = self.weights[v];
            for &(u, ew) in &self.adj[v] {
                if (v as u32) < u {
                    edges.push((perm[v], perm[u as usize], ew));
                }
            }
        }
        Self::new(w, &edges).expect("a permutation keeps a valid graph")
    }

    /// Approximate heap bytes of the graph.
    fn bytes(&self) -> usize {
        self.weights.len() * 4 + self.adj.iter().map(|l| 24 + l.len() * 8).sum::<usize>()
    }
}

/// Rank colours: each vertex's colour is the number of vertices with a smaller key.
fn ranks<K: Ord>(keys: &[K]) -> Vec<u32> {
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_by(|&a, &b| keys[a].cmp(&keys[b]));
    let mut out = vec![0u32; keys.len()];
    for (i, &v) in order.iter().enumerate() {
        out[v] = if i > 0 && keys[order[i - 1]] == keys[v] {
            out[order[i - 1]]
        } else {
            i as u32
        };
    }
    out
}

type Signature = (u32, Vec<(u32, u32)>);

/// Colour refinement to a stable colouring; returns the last round's signatures.
fn refine(adj: &[Vec<(u32, u32)>], colors: &mut Vec<u32>) -> Vec<Signature> {
    let distinct = |c: &[u32]| {
        let mut s = c.to_vec();
        s.sort_unstable();
        s.dedup();
        s.len()
    };
    let mut classes = distinct(colors);
    loop {
        let sigs: Vec<Signature> = adj
            .iter()
            .enumerate()
            .map(|(v, l)| {
                let mut nb: Vec<(u32, u32)> =
                    l.iter().map(|&(u, w)| (colors[u as usize], w)).collect();
                nb.sort_unstable();
                (colors[v], nb)
            })
            .collect();
        let next = ranks(&sigs);
        let n = distinct(&next);
        *colors = next;
        if n == classes {
            return sigs;
        }
        classes = n;
    }
}

/// The isomorphism-invariant key of a graph (colour-refinement invariant, see module doc).
pub fn canonical_key(g: &FlowConflictGraph) -> Vec<u64> {
    key_and_colors(g).0
}

/// The key and the stable colouring it comes from.
fn key_and_colors(g: &FlowConflictGraph) -> (Vec<u64>, Vec<u32>) {
    // One vertex: one colour, no neighbours (what the refinement below gives).
    if g.len() == 1 {
        return (vec![1, 0, 0, 0], vec![0]);
    }
    key_and_colors_refined(g)
}

/// [`key_and_colors`] by colour refinement (any graph).
fn key_and_colors_refined(g: &FlowConflictGraph) -> (Vec<u64>, Vec<u32>) {
    let mut colors = ranks(&g.weights);
    let mut sigs = refine(&g.adj, &mut colors);
    sigs.sort_unstable();
    let mut key = vec![g.len() as u64, g.edge_count() as u64];
    for (c, nb) in sigs {
        key.push(c as u64);
        key.push(nb.len() as u64);
        key.extend(nb.iter().map(|&(c, w)| ((c as u64) << 32) | w as u64));
    }
    (key, colors)
}

/// Fast path before the search: pair the vertices of `a` and `b` in (stable colour, vertex
/// id) order and check that pairing. Graphs of the same key have the same colour classes;
/// when partitions are built in a consistent flow order (or are symmetric) this pairing is
/// often already an isomorphism, in `O(n log n + m log d)`.
fn ordered_pairing(
    a: &FlowConflictGraph,
    ca: &[u32],
    b: &FlowConflictGraph,
    cb: &[u32],
) -> Option<Vec<u32>> {
    let order = |c: &[u32]| {
        let mut o: Vec<u32> = (0..c.len() as u32).collect();
        o.sort_by_key(|&v| (c[v as usize], v));
        o
    };
    let (oa, ob) = (order(ca), order(cb));
    let mut map = vec![0u32; a.len()];
    for (&x, &y) in oa.iter().zip(&ob) {
        if ca[x as usize] != cb[y as usize] {
            return None;
        }
        map[x as usize] = y;
    }
    verify(a, b, &map).then_some(map)
}

/// An isomorphism `a -> b` (`map[v]` is the vertex of `b` for vertex `v` of `a`), `Err(())`
/// when the search hits its cap, `Ok(None)` when there is none.
fn isomorphism(
    a: &FlowConflictGraph,
    b: &FlowConflictGraph,
    budget: &mut u32,
) -> Result<Option<Vec<u32>>, ()> {
    let n = a.len();
    if n != b.len() || a.edge_count() != b.edge_count() {
        return Ok(None);
    }
    let mut adj = a.adj.clone();
    adj.extend(
        b.adj
            .iter()
            .map(|l| l.iter().map(|&(u, w)| (u + n as u32, w)).collect()),
    );
    let weights: Vec<u32> = a.weights.iter().chain(&b.weights).copied().collect();
    let colors = ranks(&weights);
    search(a, b, &adj, colors, budget)
}

fn search(
    a: &FlowConflictGraph,
    b: &FlowConflictGraph,
    adj: &[Vec<(u32, u32)>],
    mut colors: Vec<u32>,
    budget: &mut u32,
) -> Result<Option<Vec<u32>>, ()> {
    let n = a.len();
    refine(adj, &mut colors);
    // Class sizes on each side must agree.
    let mut count: BTreeMap<u32, (u32, u32)> = BTreeMap::new();
    for (v, &c) in colors.iter().enumerate() {
        let e = count.entry(c).or_default();
        if v < n {
            e.0 += 1;
        } else {
            e.1 += 1;
        }
    }
    if count.values().any(|&(x, y)| x != y) {
        return Ok(None);
    }
    let target = count.iter().find(|(_, s)| s.0 >= 2).map(|(&c, _)| c);
    let Some(c) = target else {
        // Discrete on both sides: read the bijection and check it.
        let mut by_color = BTreeMap::new();
        for (v, &c) in colors[n..].iter().enumerate() {
            by_color.insert(c, v as u32);
        }
        let map: Vec<u32> = (0..n).map(|v| by_color[&colors[v]]).collect();
        return Ok(verify(a, b, &map).then_some(map));
    };
    let av = (0..n)
        .find(|&v| colors[v] == c)
        .expect("class has an a vertex");
    for bv in (n..2 * n).filter(|&v| colors[v] == c) {
        if *budget == 0 {
            return Err(());
        }
        *budget -= 1;
        let mut next = colors.clone();
        for x in next.iter_mut().filter(|x| **x == c) {
            *x = c + 2;
        }
        next[av] = c;
        next[bv] = c;
        if let Some(m) = search(a, b, adj, next, budget)? {
            return Ok(Some(m));
        }
    }
    Ok(None)
}

fn verify(a: &FlowConflictGraph, b: &FlowConflictGraph, map: &[u32]) -> bool {
    (0..a.len()).all(|v| {
        a.weights[v] == b.weights[map[v] as usize]
            && a.adj[v].len() == b.adj[map[v] as usize].len()
            && a.adj[v]
                .iter()
                .all(|&(u, w)| b.edge(map[v], map[u as usize]) == Some(w))
    })
}

/// The result of a transient, per flow in the graph's vertex order (4.3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoValue {
    /// Rate of each flow when the partition turned steady (`FCG_end`'s weights), bit/s.
    pub end_rates: Vec<u64>,
    /// Bytes each flow sent during the transient (`Size_f`).
    pub transient_bytes: Vec<u64>,
    /// Convergence time `T_conv`, ps.
    pub convergence_ps: u64,
}

/// Database counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MemoStats {
    /// Lookups that returned a transient.
    pub hits: u64,
    /// Lookups that did not.
    pub misses: u64,
    /// Isomorphism checks stopped by [`SEARCH_CAP`] (counted as misses).
    pub capped: u64,
    /// Stored transients.
    pub entries: u64,
    /// Distinct keys.
    pub keys: u64,
    /// Approximate memory of the stored graphs and values, bytes.
    pub bytes: u64,
}

/// A stored transient: the start graph, its stable colouring, the value.
type Stored<V> = (FlowConflictGraph, Vec<u32>, V);

/// A database value: per-flow lists in the graph's vertex order, which a hit permutes to the
/// query's order.
pub trait PerFlowValue: Clone {
    /// Each per-flow list (name, length), checked against the graph's vertex count.
    fn lengths(&self) -> Vec<(&'static str, usize)>;
    /// The value with its per-flow lists permuted: entry `i` of the result is entry
    /// `map[i]` of `self`.
    fn permuted(&self, map: &[u32]) -> Self;
    /// Approximate memory, bytes.
    fn approx_bytes(&self) -> usize;
}

impl PerFlowValue for MemoValue {
    fn lengths(&self) -> Vec<(&'static str, usize)> {
        vec![
            ("end_rates", self.end_rates.len()),
            ("transient_bytes", self.transient_bytes.len()),
        ]
    }

    fn permuted(&self, map: &[u32]) -> Self {
        MemoValue {
            end_rates: map.iter().map(|&m| self.end_rates[m as usize]).collect(),
            transient_bytes: map
                .iter()
                .map(|&m| self.transient_bytes[m as usize])
                .collect(),
            convergence_ps: self.convergence_ps,
        }
    }

    fn approx_bytes(&self) -> usize {
        self.end_rates.len() * 16 + 8
    }
}

/// A flow's congestion-control state at a point of a stored transient: (cwnd bytes, alpha
/// Q0.16, in slow start), as `nic::transport::DctcpSender::cc_state` reads it.
pub type CcState = (u32, u32, bool);

/// A transient that ended in an interrupt (a flow arriving in or leaving the partition)
/// before it turned steady, sampled along the way: what a memo hit needs to skip it up to
/// any sampling tick, not only to its end. dcfab's extension of 4.3 (the paper stores the
/// bytes and the end state of a transient ended by a steady state or a flow completion,
/// not the points in between); see `engine/skip/trajectory.rs`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trajectory {
    /// Time between two points, ps (the sampling interval).
    pub tick_ps: u64,
    /// Per flow (vertex order): DATA bytes sent since the start at ticks `1..=K`.
    pub bytes: Vec<Vec<u64>>,
    /// Per flow: its congestion-control state at ticks `1..=K`.
    pub cc: Vec<Vec<CcState>>,
}

impl Trajectory {
    /// Points (ticks) stored.
    pub fn ticks(&self) -> usize {
        self.bytes.first().map_or(0, Vec::len)
    }
}

impl PerFlowValue for Trajectory {
    fn lengths(&self) -> Vec<(&'static str, usize)> {
        vec![("bytes", self.bytes.len()), ("cc", self.cc.len())]
    }

    fn permuted(&self, map: &[u32]) -> Self {
        Trajectory {
            tick_ps: self.tick_ps,
            bytes: map
                .iter()
                .map(|&m| self.bytes[m as usize].clone())
                .collect(),
            cc: map.iter().map(|&m| self.cc[m as usize].clone()).collect(),
        }
    }

    fn approx_bytes(&self) -> usize {
        self.bytes.len() * self.ticks() * 20 + 8
    }
}

/// The simulation database: `FCG_start -> value` (by default the transient's end rates,
/// bytes and `T_conv`, [`MemoValue`]).
#[derive(Debug, Clone)]
pub struct MemoDb<V = MemoValue> {
    /// Key -> (graph, its stable colouring, value).
    buckets: BTreeMap<Vec<u64>, Vec<Stored<V>>>,
    stats: MemoStats,
}

impl<V> Default for MemoDb<V> {
    fn default() -> Self {
        MemoDb {
            buckets: BTreeMap::new(),
            stats: MemoStats::default(),
        }
    }
}

impl<V: PerFlowValue> MemoDb<V> {
    /// An empty database.
    pub fn new() -> Self {
        Self::default()
    }

    /// Find a stored transient for a partition whose start graph is isomorphic to `g`;
    /// the values come back in `g`'s vertex order.
    pub fn lookup(&mut self, g: &FlowConflictGraph) -> Option<V> {
        let (key, colors) = key_and_colors(g);
        let found = self.find(&key, g, &colors);
        match &found {
            Some(_) => self.stats.hits += 1,
            None => self.stats.misses += 1,
        }
        found
    }

    /// The hit [`MemoDb::lookup`] just returned is not used (the caller found the
    /// partition unfit to replay it): count it as a miss.
    pub fn unuse_hit(&mut self) {
        self.stats.hits = self.stats.hits.saturating_sub(1);
        self.stats.misses += 1;
    }

    fn find(&mut self, key: &[u64], g: &FlowConflictGraph, colors: &[u32]) -> Option<V> {
        let bucket = self.buckets.get(key)?;
        for (stored, stored_colors, v) in bucket {
            let mut budget = SEARCH_CAP;
            let quick = ordered_pairing(g, colors, stored, stored_colors);
            let found = match quick {
                Some(map) => Ok(Some(map)),
                None => isomorphism(g, stored, &mut budget),
            };
            match found {
                Ok(Some(map)) => return Some(v.permuted(&map)),
                Ok(None) => {}
                Err(()) => self.stats.capped += 1,
            }
        }
        None
    }

    /// Store the transient of start graph `g` (values in `g`'s vertex order). Returns
    /// `Ok(false)` when an isomorphic graph is already stored (the first one is kept).
    pub fn insert(&mut self, g: FlowConflictGraph, v: V) -> Result<bool, MemoError> {
        for (field, got) in v.lengths() {
            if got != g.len() {
                return Err(MemoError::Length {
                    field,
                    got,
                    want: g.len(),
                });
            }
        }
        let (key, colors) = key_and_colors(&g);
        if self.find(&key, &g, &colors).is_some() {
            return Ok(false);
        }
        self.stats.bytes += (key.len() * 8 + g.bytes() + g.len() * 4 + v.approx_bytes()) as u64;
        let bucket = self.buckets.entry(key).or_default();
        if bucket.is_empty() {
            self.stats.keys += 1;
        }
        bucket.push((g, colors, v));
        self.stats.entries += 1;
        Ok(true)
    }

    /// The counters.
    pub fn stats(&self) -> MemoStats {
        self.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rand::seq::SliceRandom;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn cycle(n: u32, w: u32) -> Vec<(u32, u32, u32)> {
        (0..n).map(|i| (i, (i + 1) % n, w)).collect()
    }

    #[test]
    fn from_paths_counts_shared_ports() {
        let p0: &[PortId] = &[1, 2, 3];
        let p1: &[PortId] = &[2, 3, 3];
        let p2: &[PortId] = &[3, 9];
        let p3: &[PortId] = &[7];
        let g = FlowConflictGraph::from_paths(&[(5, p0), (5, p1), (2, p2), (1, p3)]);
        assert_eq!(g.edge(0, 1), Some(2));
        assert_eq!(g.edge(0, 2), Some(1));
        assert_eq!(g.edge(1, 2), Some(1));
        assert_eq!(g.edge(0, 3), None);
        assert_eq!((g.len(), g.edge_count()), (4, 3));
        assert_eq!(rate_class(50, 100, 8), 4);
        assert_eq!(rate_class(56, 100, 8), 4); // 4.48
        assert_eq!(rate_class(57, 100, 8), 5); // 4.56
        assert_eq!(rate_class(300, 100, 8), 8);
    }

    #[test]
    fn one_flow_fast_paths_match_the_general_ones() {
        for w in [0, 3, 15] {
            let ports = [4u32, 9, 11];
            let g = FlowConflictGraph::from_paths(&[(w, &ports[..])]);
            assert_eq!(g, FlowConflictGraph::new(vec![w], &[]).unwrap());
            assert_eq!(key_and_colors(&g), key_and_colors_refined(&g));
        }
        // Two flows take the general path, and their key is not the one-vertex key.
        let (a, b) = ([1u32, 2], [2u32, 3]);
        let g = FlowConflictGraph::from_paths(&[(1, &a[..]), (1, &b[..])]);
        assert_eq!(g.edge(0, 1), Some(1));
        assert_ne!(key_and_colors(&g).0, vec![1, 0, 0, 0]);
    }

    #[test]
    fn bad_graphs_are_errors() {
        assert_eq!(
            FlowConflictGraph::new(vec![1, 1], &[(0, 2, 1)]),
            Err(MemoError::VertexOutOfRange(0, 2, 2))
        );
        assert_eq!(
            FlowConflictGraph::new(vec![1], &[(0, 0, 1)]),
            Err(MemoError::SelfLoop(0))
        );
        assert_eq!(
            FlowConflictGraph::new(vec![1, 1], &[(0, 1, 1), (1, 0, 2)]),
            Err(MemoError::DuplicateEdge(0, 1))
        );
        let g = FlowConflictGraph::new(vec![1, 1], &[(0, 1, 1)]).unwrap();
        let v = MemoValue {
            end_rates: vec![1],
            transient_bytes: vec![1, 2],
            convergence_ps: 0,
        };
        let e = MemoDb::new().insert(g, v).unwrap_err();
        assert!(e.to_string().starts_with("end_rates"), "{e}");
    }

    #[test]
    fn wl_equivalent_but_not_isomorphic_misses() {
        // A 6-cycle and two triangles: 2-regular, same key, not isomorphic.
        let c6 = FlowConflictGraph::new(vec![1; 6], &cycle(6, 1)).unwrap();
        let mut two = cycle(3, 1);
        two.extend(cycle(3, 1).iter().map(|&(a, b, w)| (a + 3, b + 3, w)));
        let t2 = FlowConflictGraph::new(vec![1; 6], &two).unwrap();
        assert_eq!(canonical_key(&c6), canonical_key(&t2));
        let mut db = MemoDb::new();
        let v = MemoValue {
            end_rates: vec![10; 6],
            transient_bytes: vec![1; 6],
            convergence_ps: 5,
        };
        assert_eq!(db.insert(c6.clone(), v.clone()), Ok(true));
        assert_eq!(db.lookup(&t2), None);
        assert_eq!(db.insert(t2.clone(), v.clone()), Ok(true));
        assert!(db.lookup(&t2).is_some());
        assert!(db.lookup(&c6).is_some());
        assert_eq!(db.insert(c6.relabel(&[5, 4, 3, 2, 1, 0]), v), Ok(false));
        let s = db.stats();
        assert_eq!((s.hits, s.misses, s.entries, s.keys), (2, 1, 2, 1));
        assert!(s.bytes > 0);
        // A different edge weight or vertex weight changes the key.
        let c6w = FlowConflictGraph::new(vec![1; 6], &cycle(6, 2)).unwrap();
        assert_ne!(canonical_key(&c6w), canonical_key(&c6));
        let mut w = vec![1; 6];
        w[0] = 2;
        let c6v = FlowConflictGraph::new(w, &cycle(6, 1)).unwrap();
        assert_ne!(canonical_key(&c6v), canonical_key(&c6));
        assert_eq!(db.lookup(&c6v), None);
    }

    /// Interrupted transients: a hit comes back in the query's flow order (each flow its
    /// own stored points); a start state that differs in one flow's weight is a miss.
    #[test]
    fn trajectory_hit_is_permuted_and_a_changed_start_state_misses() {
        // A path of three flows 0 - 1 - 2, flow 1 in the middle; weights = start states.
        let g = FlowConflictGraph::new(vec![7, 9, 5], &[(0, 1, 1), (1, 2, 1)]).unwrap();
        let tr = Trajectory {
            tick_ps: 5,
            bytes: vec![vec![10, 20], vec![30, 40], vec![50, 60]],
            cc: vec![
                vec![(1, 0, false), (2, 0, false)],
                vec![(3, 0, true), (4, 0, true)],
                vec![(5, 1, false), (6, 1, false)],
            ],
        };
        assert_eq!(tr.ticks(), 2);
        let mut db: MemoDb<Trajectory> = MemoDb::new();
        assert_eq!(db.insert(g.clone(), tr.clone()), Ok(true));
        // The same partition, its flows listed in another order (2, 0, 1).
        let q = g.relabel(&[1, 2, 0]);
        let hit = db.lookup(&q).expect("isomorphic start state");
        assert_eq!(hit.bytes, vec![vec![50, 60], vec![10, 20], vec![30, 40]]);
        assert_eq!(hit.cc[2], tr.cc[1]);
        // One flow in another start state: a miss.
        let changed = FlowConflictGraph::new(vec![7, 9, 6], &[(0, 1, 1), (1, 2, 1)]).unwrap();
        assert_eq!(db.lookup(&changed), None);
        let s = db.stats();
        assert_eq!((s.hits, s.misses, s.entries), (1, 1, 1));
        // Per-flow lists of the wrong length are refused.
        let short = Trajectory {
            bytes: tr.bytes[..2].to_vec(),
            ..tr
        };
        assert!(db.insert(changed, short).is_err());
    }

    #[test]
    fn symmetric_clique_matches_fast() {
        // An EP-8 all-to-all: 56 flows, every pair sharing one port, same rate class.
        let mut edges = Vec::new();
        for a in 0..56 {
            for b in a + 1..56 {
                edges.push((a, b, 1));
            }
        }
        let g = FlowConflictGraph::new(vec![3; 56], &edges).unwrap();
        let mut perm: Vec<u32> = (0..56).collect();
        perm.shuffle(&mut ChaCha8Rng::seed_from_u64(1));
        let mut db = MemoDb::new();
        let v = MemoValue {
            end_rates: (0..56).collect(),
            transient_bytes: vec![7; 56],
            convergence_ps: 9,
        };
        db.insert(g.clone(), v).unwrap();
        assert!(db.lookup(&g.relabel(&perm)).is_some());
        assert_eq!(db.stats().capped, 0);
    }

    fn arb_graph() -> impl Strategy<Value = FlowConflictGraph> {
        (2usize..12).prop_flat_map(graph_of)
    }

    fn graph_of(n: usize) -> impl Strategy<Value = FlowConflictGraph> {
        (
            prop::collection::vec(0u32..2, n),
            prop::collection::vec((0..n as u32, 0..n as u32, 1u32..3), 0..2 * n),
        )
            .prop_map(|(w, es)| {
                let mut seen = std::collections::BTreeSet::new();
                let edges: Vec<_> = es
                    .into_iter()
                    .filter(|&(a, b, _)| a != b && seen.insert((a.min(b), a.max(b))))
                    .collect();
                FlowConflictGraph::new(w, &edges).unwrap()
            })
    }

    proptest! {
        /// A random relabelling keeps the key and hits, and the returned per-flow values
        /// follow the relabelling (the flow's own value, up to an automorphism: the returned
        /// value of each flow belongs to a vertex with the same weight).
        #[test]
        fn relabelled_graph_hits(g in arb_graph(), seed in any::<u64>()) {
            let mut perm: Vec<u32> = (0..g.len() as u32).collect();
            perm.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
            let h = g.relabel(&perm);
            prop_assert_eq!(canonical_key(&g), canonical_key(&h));
            let mut db = MemoDb::new();
            // Values: the stored vertex's weight x 1000 + its id.
            let v = MemoValue {
                end_rates: g.weights().iter().enumerate().map(|(i, &w)| w as u64 * 1000 + i as u64).collect(),
                transient_bytes: vec![0; g.len()],
                convergence_ps: 42,
            };
            db.insert(g.clone(), v).unwrap();
            let hit = db.lookup(&h).expect("isomorphic graph hits");
            prop_assert_eq!(hit.convergence_ps, 42);
            let mut got: Vec<u64> = hit.end_rates.clone();
            for (q, &r) in hit.end_rates.iter().enumerate() {
                prop_assert_eq!(r / 1000, h.weights()[q] as u64);
            }
            got.sort_unstable();
            got.dedup();
            prop_assert_eq!(got.len(), g.len(), "the mapping is a bijection");
        }

        /// Two random graphs: a lookup hits exactly when a brute-force check finds an
        /// isomorphism (small graphs: all permutations).
        #[test]
        fn hit_iff_isomorphic((a, b) in (2usize..=6).prop_flat_map(|n| (graph_of(n), graph_of(n)))) {
            let brute = permutations(a.len()).iter().any(|p| a.relabel(p) == b);
            let mut db = MemoDb::new();
            db.insert(a.clone(), MemoValue { end_rates: vec![0; a.len()], transient_bytes: vec![0; a.len()], convergence_ps: 0 }).unwrap();
            prop_assert_eq!(db.lookup(&b).is_some(), brute);
        }
    }

    proptest! {
        /// The search alone (no ordered-pairing fast path) finds an isomorphism of a
        /// relabelled graph, and what it returns is one.
        #[test]
        fn search_finds_relabelling(g in arb_graph(), seed in any::<u64>()) {
            let mut perm: Vec<u32> = (0..g.len() as u32).collect();
            perm.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
            let h = g.relabel(&perm);
            let mut budget = SEARCH_CAP;
            let map = isomorphism(&h, &g, &mut budget).unwrap().expect("isomorphic");
            prop_assert!(verify(&h, &g, &map));
        }
    }

    fn permutations(n: usize) -> Vec<Vec<u32>> {
        if n == 0 {
            return vec![vec![]];
        }
        let mut out = Vec::new();
        for p in permutations(n - 1) {
            for i in 0..n {
                let mut q = p.clone();
                q.insert(i, (n - 1) as u32);
                out.push(q);
            }
        }
        out
    }
}
