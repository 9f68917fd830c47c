//! The event queue: `(time, seq, component)` entries packed in one `u128` (no boxing, one
//! integer comparison), kept in a calendar queue of ~0.5 ns buckets over a ~4 us horizon
//! backed by flat 4-ary heaps, with partitions that can be paused and shifted in time. A
//! Wormhole run lets the calendar widen its buckets to ~33 ns while its queue is sparse
//! ([`EventQueue::adapt_width`]); the order of the events never depends on the width.
//!
//! * Time is `u64` picoseconds ([`Time`]). `seq` is an insertion counter, so events at the
//!   same time come out in the order they were scheduled (FIFO), which keeps runs
//!   bit-identical.
//! * A [`Comp`] is 32 bits: an event kind (4 bits) and the index of the port, flow or
//!   global object it belongs to (28 bits). Events never carry packets; components find
//!   their packets in their own queues (a link holds only its head packet's event).
//! * Wormhole (Def. 1) groups the ports and flows that share a port, transitively, into
//!   partitions. [`EventQueue::pause`] moves every pending event of one partition (a
//!   [`PartitionSet`] of ports and flows) out of the heap into a stash, O(n);
//!   events scheduled for it while paused go to the stash too. [`EventQueue::resume`]
//!   re-inserts them shifted by ΔT. Other partitions' events are never touched. (The
//!   components keep some absolute times of their own, which the Wormhole layer shifts by
//!   the same ΔT: a port's `busy_until` and its link's arrival times, a flow's pending
//!   timer time, and the NIC blocks' cycle counters, which it advances.)

/// Simulated time in picoseconds.
pub type Time = u64;

/// "Never" / "no event pending".
pub const NEVER: Time = u64::MAX;

/// Kinds of events (4 bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Kind {
    /// An output port finished serializing its current packet (index: port).
    TxDone = 0,
    /// The head packet of a port's link reaches the far end (index: port).
    Deliver = 1,
    /// A flow's retransmission timer (index: flow).
    FlowTimer = 2,
    /// The next flow arrivals are due (index: 0).
    Arrivals = 3,
    /// A failure starts (index: 2 * failure) or ends (2 * failure + 1).
    Failure = 4,
    /// Queue-occupancy sampling tick (index: 0).
    Sample = 5,
    /// A transport's per-host timer (index: host, whose NIC is port `host`): DCSIM's host
    /// engine and receiver deadlines.
    HostTimer = 6,
    /// Wormhole's own events (index: 0 rate-sampling tick, 1 a skipped partition's wake-up,
    /// `2 + 2 t (+ 1)` the start (end) of LLM DAG task `t`): see `engine/skip/mod.rs`.
    Wormhole = 10,
}

/// Who an event belongs to (Wormhole Def. 1: each event belongs to exactly one port or one
/// flow endpoint, or to the whole run).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    /// Output port `p` (its serializer, its link, or the host behind host port `p`).
    Port(u32),
    /// Flow `f`'s endpoints (its timers).
    Flow(u32),
    /// The run as a whole (arrivals, failures, sampling): in no partition.
    Global,
}

impl Kind {
    /// The owner of an event of this kind at `index`: the partition-membership rule, one arm
    /// per kind, next to the kinds.
    #[inline]
    pub const fn owner(self, index: u32) -> Owner {
        match self {
            Kind::TxDone | Kind::Deliver | Kind::HostTimer => Owner::Port(index),
            Kind::FlowTimer => Owner::Flow(index),
            Kind::Arrivals | Kind::Failure | Kind::Sample => Owner::Global,
            // Sampling, wake-ups and DAG tasks act on the run as a whole (a wake-up resumes
            // a paused partition; a task starts flows anywhere).
            Kind::Wormhole => Owner::Global,
        }
    }

    /// Kind by its 4-bit code (a plain table lookup per event). Codes no kind uses hold
    /// `TxDone` but never occur: only [`Comp::new`] writes codes, from a `Kind`.
    const ALL: [Kind; 16] = {
        let mut all = [Kind::TxDone; 16];
        all[Kind::Deliver as usize] = Kind::Deliver;
        all[Kind::FlowTimer as usize] = Kind::FlowTimer;
        all[Kind::Arrivals as usize] = Kind::Arrivals;
        all[Kind::Failure as usize] = Kind::Failure;
        all[Kind::Sample as usize] = Kind::Sample;
        all[Kind::HostTimer as usize] = Kind::HostTimer;
        all[Kind::Wormhole as usize] = Kind::Wormhole;
        all
    };
}

/// The component an event belongs to: kind and index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Comp(u32);

impl Comp {
    /// Largest index.
    pub const MAX_INDEX: u32 = (1 << 28) - 1;

    /// Kind `k` at `index` (index masked to 28 bits).
    #[inline]
    pub const fn new(k: Kind, index: u32) -> Comp {
        Comp((index & Self::MAX_INDEX) << 4 | k as u32)
    }

    /// The kind.
    #[inline]
    pub fn kind(self) -> Kind {
        Kind::ALL[(self.0 & 15) as usize]
    }

    /// The index.
    #[inline]
    pub const fn index(self) -> u32 {
        self.0 >> 4
    }
}

/// A heap entry: `time << 64 | seq << 32 | comp`, so one `u128` comparison orders by
/// time, then by insertion order (`seq` wraps after 2^32 events: ties that straddle the
/// wrap are ordered differently, identically in every run).
type Entry = u128;

#[inline]
const fn entry(time: Time, seq: u64, comp: Comp) -> Entry {
    (time as u128) << 64 | ((seq as u32) as u128) << 32 | comp.0 as u128
}

#[inline]
const fn entry_time(e: Entry) -> Time {
    (e >> 64) as Time
}

#[inline]
const fn entry_comp(e: Entry) -> Comp {
    Comp(e as u32)
}

/// A 4-ary min-heap of entries (children of `i` at `4i+1 ..= 4i+4`): half the depth of a
/// binary heap, and a node's children share one or two cache lines.
#[derive(Debug, Default, Clone)]
struct QuadHeap {
    v: Vec<Entry>,
}

impl QuadHeap {
    #[inline]
    fn push(&mut self, x: Entry) {
        let mut i = self.v.len();
        self.v.push(x);
        while i > 0 {
            let parent = (i - 1) / 4;
            let pv = self.v[parent];
            if pv <= x {
                break;
            }
            self.v[i] = pv;
            i = parent;
        }
        self.v[i] = x;
    }

    #[inline]
    fn pop(&mut self) -> Option<Entry> {
        let last = self.v.pop()?;
        let n = self.v.len();
        if n == 0 {
            return Some(last);
        }
        let top = self.v[0];
        self.sift_down(0, last);
        Some(top)
    }

    /// Put `x` at slot `i`, moved down past every smaller child until the 4-ary heap order
    /// holds below it.
    #[inline(always)]
    fn sift_down(&mut self, mut i: usize, x: Entry) {
        let n = self.v.len();
        loop {
            let c = 4 * i + 1;
            if c >= n {
                break;
            }
            let end = (c + 4).min(n);
            let mut m = c;
            let mut mv = self.v[c];
            for j in c + 1..end {
                let vj = self.v[j];
                if vj < mv {
                    m = j;
                    mv = vj;
                }
            }
            if mv >= x {
                break;
            }
            self.v[i] = mv;
            i = m;
        }
        self.v[i] = x;
    }

    #[inline]
    fn peek(&self) -> Option<Entry> {
        self.v.first().copied()
    }

    /// Restore the heap order of `v` after arbitrary removals (Floyd's bottom-up build).
    fn heapify(&mut self) {
        let n = self.v.len();
        for start in (0..n.div_ceil(4)).rev() {
            let x = self.v[start];
            self.sift_down(start, x);
        }
    }

    fn len(&self) -> usize {
        self.v.len()
    }
}

/// Width of a calendar bucket: 2^9 ps (about 0.5 ns, less than a 64-byte packet's 640 ps
/// at 800 Gb/s, so the end of such a packet falls in a later bucket rather than being
/// inserted into the current one). The width of every run, and of a Wormhole run's dense
/// periods ([`Calendar::adapt`]).
const NARROW_SHIFT: u32 = 9;
/// The wide bucket, 2^15 ps (about 33 ns), of a Wormhole run's sparse periods: with most of
/// the network paused, a 0.5 ns bucket holds one event or none, and every push and every
/// bucket read touches a cold bucket (`benches/README.md`, "Session 35").
const WIDE_SHIFT: u32 = 15;
/// Buckets in the wheel: at the narrow width the wheel covers about 4.2 us ahead of the
/// current bucket (a hop's propagation, switch latency and serialization), at the wide one
/// about 268 us; later events wait in a heap.
const N_BUCKETS: usize = 8192;
/// [`Calendar::adapt`]'s window: events read between two density checks.
const ADAPT_WINDOW: u32 = 8192;
/// [`Calendar::adapt`]'s thresholds, in events read per wide bucket's span of simulated
/// time over a window: a narrow queue widens below the first, a wide one narrows above the
/// second (the gap keeps a queue near one threshold from switching back and forth).
const WIDEN_BELOW: u64 = 16;
const NARROW_ABOVE: u64 = 64;

/// A calendar queue (time wheel) with exact `(time, seq)` order:
///
/// ```text
///   cur   : sorted events of [base, base + 1 bucket), read by a cursor   <- pop here
///   wheel : N unsorted buckets for [base + 1 bucket, base + horizon)
///   far   : 4-ary heap of everything later (RTO timers, arrivals)
/// ```
///
/// Pushing appends to a bucket (O(1), one cache line); when `cur` runs dry the next bucket
/// is sorted into it and the far heap refills the slot that left the horizon. An event
/// pushed into the current bucket is inserted in order (rare: only delays under a
/// bucket, 1.5 % of the pushes in the DCSIM fabric). Events come out in exactly the order
/// a single heap would give, but the working set is the few buckets near `now`, and the
/// next events are known in advance ([`Calendar::ahead`]) so their memory can be touched
/// early.
#[derive(Debug, Clone)]
struct Calendar {
    cur: Vec<Entry>,
    pos: usize,
    base: Time,
    /// The bucket width, `2^shift` ps ([`NARROW_SHIFT`] or [`WIDE_SHIFT`]).
    shift: u32,
    /// `base` + one bucket, and `base` + the wheel's horizon (both saturating): a push
    /// compares its time with them, with no arithmetic.
    cur_end: Time,
    horizon_end: Time,
    /// Fixed-size arrays: a slot (masked to the wheel) indexes them without a bounds check.
    wheel: Box<[Vec<Entry>; N_BUCKETS]>,
    /// Bit `i`: wheel bucket `i` is not empty. `fill` jumps to the next occupied bucket
    /// instead of stepping through empty ones (a sparse queue, as when Wormhole has paused
    /// most of the network, would otherwise cost one step per empty nanosecond).
    occupied: Box<[u64; N_BUCKETS / 64]>,
    in_wheel: usize,
    far: QuadHeap,
    /// Empty buffers of buckets already read, reused by the next bucket that fills: the
    /// memory is bounded by the events pending (not by every bucket's peak, which hosts
    /// sending in lockstep make large), and a push lands in recently used, cached memory.
    spare: Vec<Vec<Entry>>,
    /// Scratch buffer of [`sort_bucket`].
    scratch: Vec<Entry>,
    /// The width's density check ([`Calendar::adapt`]), `None`: the narrow width always.
    adapt: Option<Adapt>,
}

/// The events read since the last density check ([`Calendar::adapt`]).
#[derive(Debug, Clone)]
struct Adapt {
    read: u32,
    /// `cur_end` at the last check.
    since: Time,
    /// Events per check (tests shorten it).
    window: u32,
    /// Tests: switch the width at every check, whatever the density.
    #[cfg(test)]
    flip: bool,
}

/// Sort the entries of one bucket into `(time, seq)` order. A bucket's entries share all
/// but the low `SHIFT` bits of their time (the bucket width's) and were mostly appended in
/// push order, which is `seq` order (entries refilled from the far heap are older). Small
/// buckets are insertion-sorted; larger ones first go through one stable counting pass on
/// the top bits of their offset in the bucket (`BINS` sub-buckets: 64 ps at the narrow
/// width, where a 64-byte packet takes 640 ps at 800 Gb/s, so a sub-bucket rarely holds
/// more than a few events; 512 ps at the wide one, which sparse periods use), then an
/// insertion sort on the whole key finishes each sub-bucket. The insertion sort compares
/// whole entries, so the result is the exact `(time, seq)` order for any input; the
/// counting pass only makes it short (the 1024-bin counting sort this replaces spent most
/// of its time clearing and summing its bins).
#[inline(always)]
fn sort_bucket<const SHIFT: u32, const BINS: usize>(v: &mut Vec<Entry>, scratch: &mut Vec<Entry>) {
    const MIN_LEN: usize = 24;
    if v.len() >= MIN_LEN {
        let sub = SHIFT - BINS.trailing_zeros();
        let bin = |e: Entry| (entry_time(e) as usize >> sub) & (BINS - 1);
        let mut start = [0u32; BINS];
        for &e in v.iter() {
            start[bin(e)] += 1;
        }
        let mut sum = 0u32;
        for c in start.iter_mut() {
            let n = *c;
            *c = sum;
            sum += n;
        }
        scratch.clear();
        scratch.resize(v.len(), 0);
        for &e in v.iter() {
            let b = bin(e);
            scratch[start[b] as usize] = e;
            start[b] += 1;
        }
        std::mem::swap(v, scratch);
    }
    insertion_sort(v);
}

/// [`sort_bucket`] at the calendar's width `shift` (a constant where it is inlined).
#[inline(always)]
fn sort_bucket_at(shift: u32, v: &mut Vec<Entry>, scratch: &mut Vec<Entry>) {
    if shift == NARROW_SHIFT {
        sort_bucket::<NARROW_SHIFT, { 1 << (NARROW_SHIFT - 6) }>(v, scratch);
    } else {
        sort_bucket::<WIDE_SHIFT, 64>(v, scratch);
    }
}

/// Sort `v` by insertion: O(n + inversions), for short or nearly sorted slices.
#[inline]
fn insertion_sort(v: &mut [Entry]) {
    for i in 1..v.len() {
        let x = v[i];
        let mut j = i;
        while j > 0 && v[j - 1] > x {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = x;
    }
}

impl Default for Calendar {
    fn default() -> Self {
        let mut c = Calendar {
            cur: Vec::new(),
            pos: 0,
            base: 0,
            shift: NARROW_SHIFT,
            cur_end: 0,
            horizon_end: 0,
            wheel: Box::new(std::array::from_fn(|_| Vec::new())),
            occupied: Box::new([0; N_BUCKETS / 64]),
            in_wheel: 0,
            far: QuadHeap::default(),
            spare: Vec::new(),
            scratch: Vec::new(),
            adapt: None,
        };
        c.set_base(0);
        c
    }
}

impl Calendar {
    #[inline]
    fn slot(&self, t: Time) -> usize {
        (t >> self.shift) as usize & (N_BUCKETS - 1)
    }

    /// The bucket width in ps.
    #[inline]
    fn bucket_ps(&self) -> Time {
        1 << self.shift
    }

    /// Move the current bucket to `[base, base + 1 bucket)`.
    #[inline]
    fn set_base(&mut self, base: Time) {
        self.base = base;
        self.cur_end = base.saturating_add(self.bucket_ps());
        self.horizon_end = base.saturating_add(self.bucket_ps() * N_BUCKETS as Time);
    }

    #[inline(always)]
    fn push(&mut self, e: Entry) {
        let t = entry_time(e);
        if t < self.cur_end {
            self.push_cur(e);
        } else if t < self.horizon_end {
            let slot = self.slot(t);
            self.occupied[slot / 64] |= 1 << (slot % 64);
            let b = &mut self.wheel[slot];
            if b.capacity() == 0 {
                if let Some(v) = self.spare.pop() {
                    *b = v;
                }
            }
            b.push(e);
            self.in_wheel += 1;
        } else {
            self.far.push(e);
        }
    }

    /// Insert `e` into the sorted unread part of `cur`, scanning back from the end: the
    /// events scheduled into the current bucket are mostly near its end (a few places on
    /// average in the DCSIM fabric), where a binary search and a `memmove` cost more. Out
    /// of line: most pushes go to the wheel, whose path stays short.
    #[inline(never)]
    fn push_cur(&mut self, e: Entry) {
        let pos = self.pos;
        let cur = &mut self.cur;
        cur.push(e);
        let mut j = cur.len() - 1;
        while j > pos && cur[j - 1] > e {
            cur[j] = cur[j - 1];
            j -= 1;
        }
        cur[j] = e;
    }

    /// Move far events that entered the horizon into the wheel (or `cur`).
    fn refill_from_far(&mut self) {
        let end = self.horizon_end;
        while let Some(e) = self.far.peek() {
            if entry_time(e) >= end {
                break;
            }
            self.far.pop();
            self.push(e);
        }
    }

    /// Make `cur` hold the earliest events; false if the queue is empty.
    #[inline(always)]
    fn fill(&mut self) -> bool {
        self.pos < self.cur.len() || self.next_bucket()
    }

    /// [`Calendar::fill`] when `cur` is used up: move to the next occupied bucket. A queue
    /// at the fixed narrow width takes a path whose width is a constant, as before the
    /// width could change.
    #[inline(never)]
    fn next_bucket(&mut self) -> bool {
        match self.adapt {
            None => self.next_bucket_at::<NARROW_SHIFT>(),
            Some(_) => self.next_bucket_adaptive(),
        }
    }

    /// [`Calendar::next_bucket`] of a queue with [`EventQueue::adapt_width`] on: the
    /// density check when due, then the next bucket at the width it leaves.
    #[inline(never)]
    fn next_bucket_adaptive(&mut self) -> bool {
        if let Some(a) = &mut self.adapt {
            a.read += self.cur.len() as u32;
            if a.read >= a.window {
                self.cur.clear();
                self.pos = 0;
                self.adapt();
                if !self.cur.is_empty() {
                    return true;
                }
            }
        }
        if self.shift == NARROW_SHIFT {
            self.next_bucket_at::<NARROW_SHIFT>()
        } else {
            self.next_bucket_at::<WIDE_SHIFT>()
        }
    }

    /// The next bucket at width `2^SHIFT` ps (the calendar's `shift`).
    #[inline(always)]
    fn next_bucket_at<const SHIFT: u32>(&mut self) -> bool {
        debug_assert_eq!(self.shift, SHIFT);
        let slot_of = |t: Time| (t >> SHIFT) as usize & (N_BUCKETS - 1);
        self.cur.clear();
        self.pos = 0;
        if self.in_wheel == 0 {
            return self.next_from_far();
        }
        // Every far event is at least a horizon after the old base, so none is due before
        // the next occupied bucket, which is not empty: no second round.
        let step = 1 + self.next_occupied(slot_of(self.cur_end));
        self.base += step << SHIFT;
        self.cur_end = self.base + (1 << SHIFT);
        self.horizon_end = self.base.saturating_add((N_BUCKETS as Time) << SHIFT);
        let slot = slot_of(self.base);
        self.occupied[slot / 64] &= !(1 << (slot % 64));
        // `cur` is empty: the bucket's buffer becomes `cur`, and `cur`'s old buffer goes to
        // the spares (reused by the next bucket that fills: recently used, cached memory).
        let b = std::mem::take(&mut self.wheel[slot]);
        self.in_wheel -= b.len();
        let old = std::mem::replace(&mut self.cur, b);
        if old.capacity() > 0 {
            self.spare.push(old);
        }
        // A lone event (most buckets of a sparse queue, e.g. when Wormhole has paused most
        // of the network) needs no sort, nor the call.
        if self.cur.len() > 1 {
            sort_bucket_at(SHIFT, &mut self.cur, &mut self.scratch);
        }
        if self
            .far
            .peek()
            .is_some_and(|f| entry_time(f) < self.horizon_end)
        {
            self.refill_from_far();
        }
        true
    }

    /// [`Calendar::next_bucket`] with the wheel empty: jump to the bucket of the earliest
    /// far event (false if there is none) and move the far events within the horizon in.
    #[inline(never)]
    fn next_from_far(&mut self) -> bool {
        let Some(f) = self.far.peek() else {
            return false;
        };
        self.set_base(entry_time(f) & !(self.bucket_ps() - 1));
        self.refill_from_far();
        debug_assert!(!self.cur.is_empty());
        true
    }

    /// The density check of a queue with [`EventQueue::adapt_width`] on, every
    /// [`ADAPT_WINDOW`] events read, between two buckets (`cur` empty): the events read
    /// over the window's simulated time, per wide bucket's span, pick the width (a narrow
    /// queue widens below [`WIDEN_BELOW`], a wide one narrows above [`NARROW_ABOVE`]), and
    /// a new width re-buckets the wheel. The order of the events does not depend on the
    /// width (each bucket is sorted on the whole key when it is read), so neither does
    /// any result: only the cost. Brown's calendar queue (CACM 31(10), 1988) resizes its
    /// buckets the same way, from the events' spacing.
    #[cold]
    #[inline(never)]
    fn adapt(&mut self) {
        let Some(a) = &mut self.adapt else {
            return;
        };
        let span = self.cur_end.saturating_sub(a.since).max(1);
        let per_wide = (u128::from(a.read) << WIDE_SHIFT) / u128::from(span);
        let per_wide = u64::try_from(per_wide).unwrap_or(u64::MAX);
        a.read = 0;
        a.since = self.cur_end;
        #[cfg(test)]
        let flip = a.flip;
        #[cfg(not(test))]
        let flip = false;
        let shift = if self.shift == NARROW_SHIFT && (per_wide < WIDEN_BELOW || flip) {
            WIDE_SHIFT
        } else if self.shift == WIDE_SHIFT && (per_wide > NARROW_ABOVE || flip) {
            NARROW_SHIFT
        } else {
            return;
        };
        self.rebucket(shift);
        if let Some(a) = &mut self.adapt {
            a.since = self.cur_end;
        }
    }

    /// Re-bucket the wheel at width `2^shift` ps, `cur` empty: every pending event is at
    /// or after `cur_end`. The new current bucket ends at `cur_end` rounded down to the new
    /// width (an event pushed before that goes into `cur`, in order, as any push into the
    /// current bucket), and the wheel's events are pushed again (into the new wheel, or
    /// the far heap past a narrower horizon; the far events within a wider one come in).
    fn rebucket(&mut self, shift: u32) {
        debug_assert!(self.pos >= self.cur.len());
        let mut moved = Vec::with_capacity(self.in_wheel);
        for w in 0..self.occupied.len() {
            let mut bits = self.occupied[w];
            while bits != 0 {
                let b = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                moved.append(&mut self.wheel[w * 64 + b]);
            }
            self.occupied[w] = 0;
        }
        self.in_wheel = 0;
        let end = self.cur_end;
        self.shift = shift;
        let ps = self.bucket_ps();
        self.set_base((end & !(ps - 1)).saturating_sub(ps));
        for e in moved {
            self.push(e);
        }
        self.refill_from_far();
    }

    /// Buckets from slot `from` (inclusive) to the first occupied one, going round; some
    /// bucket must be occupied.
    #[inline]
    fn next_occupied(&self, from: usize) -> Time {
        let words = self.occupied.len();
        let (w0, b0) = (from / 64, from % 64);
        let first = self.occupied[w0] >> b0;
        if first != 0 {
            return Time::from(first.trailing_zeros());
        }
        for k in 1..=words {
            let w = (w0 + k) % words;
            if self.occupied[w] != 0 {
                let slot = w * 64 + self.occupied[w].trailing_zeros() as usize;
                return ((slot + N_BUCKETS - from) % N_BUCKETS) as Time;
            }
        }
        unreachable!("in_wheel > 0 with no occupied bucket")
    }

    #[inline]
    fn pop(&mut self) -> Option<Entry> {
        if self.fill() {
            self.pos += 1;
            Some(self.cur[self.pos - 1])
        } else {
            None
        }
    }

    #[inline]
    fn peek(&mut self) -> Option<Entry> {
        if self.fill() {
            Some(self.cur[self.pos])
        } else {
            None
        }
    }

    /// Take the event [`Calendar::peek`] just returned (nothing pushed since).
    #[inline(always)]
    fn pop_peeked(&mut self) -> Entry {
        let e = self.cur[self.pos];
        self.pos += 1;
        e
    }

    /// The `k`-th next event of the current bucket, if known (0 = the next).
    #[inline]
    fn ahead(&self, k: usize) -> Option<Entry> {
        self.cur.get(self.pos + k).copied()
    }

    fn len(&self) -> usize {
        self.cur.len() - self.pos + self.in_wheel + self.far.len()
    }

    /// Move every pending entry that `take` selects to `out` (in no particular order); the
    /// others stay where they are (the current bucket keeps its order, the far heap is
    /// rebuilt if it lost any). Visits only the occupied buckets: pausing a partition costs
    /// the events pending, not a pass over every bucket of the wheel and a push of every
    /// event kept.
    fn extract(&mut self, mut take: impl FnMut(Entry) -> bool, out: &mut Vec<Entry>) {
        move_taken(&mut self.cur, self.pos, &mut take, out);
        for w in 0..self.occupied.len() {
            let mut bits = self.occupied[w];
            while bits != 0 {
                let b = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let v = &mut self.wheel[w * 64 + b];
                self.in_wheel -= move_taken(v, 0, &mut take, out);
                if v.is_empty() {
                    self.occupied[w] &= !(1 << b);
                }
            }
        }
        if move_taken(&mut self.far.v, 0, &mut take, out) > 0 {
            self.far.heapify();
        }
    }
}

/// Move the entries of `v[from..]` that `take` selects to `out`, the others compacted in
/// place in their order ([`Calendar::extract`]; `Vec::retain` without its per-call setup,
/// which a pause paid on every occupied bucket, most of them holding one event). Returns
/// how many moved. Up to the first entry taken nothing is written (most buckets lose
/// none).
#[inline(always)]
fn move_taken(
    v: &mut Vec<Entry>,
    from: usize,
    take: &mut impl FnMut(Entry) -> bool,
    out: &mut Vec<Entry>,
) -> usize {
    let Some(first) = v[from..].iter().position(|&e| take(e)) else {
        return 0;
    };
    let mut keep = from + first;
    out.push(v[keep]);
    for r in keep + 1..v.len() {
        let e = v[r];
        if take(e) {
            out.push(e);
        } else {
            v[keep] = e;
            keep += 1;
        }
    }
    let moved = v.len() - keep;
    v.truncate(keep);
    moved
}

/// A set of ports and flows (a Wormhole partition). Port-kind events (`TxDone`,
/// `Deliver`) belong to their port, `FlowTimer` to its flow; global events (arrivals,
/// failures, sampling) belong to no partition.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PartitionSet {
    ports: Vec<u64>,
    flows: Vec<u64>,
}

fn set_bit(v: &mut Vec<u64>, i: u32) {
    let w = (i / 64) as usize;
    if v.len() <= w {
        v.resize(w + 1, 0);
    }
    v[w] |= 1 << (i % 64);
}

#[inline]
fn get_bit(v: &[u64], i: u32) -> bool {
    v.get((i / 64) as usize)
        .is_some_and(|w| w >> (i % 64) & 1 == 1)
}

impl PartitionSet {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Add port `p`.
    pub fn add_port(&mut self, p: u32) {
        set_bit(&mut self.ports, p);
    }

    /// Add flow `f`.
    pub fn add_flow(&mut self, f: u32) {
        set_bit(&mut self.flows, f);
    }

    /// Add every port and flow of `other`.
    fn union_with(&mut self, other: &PartitionSet) {
        for (a, b) in [
            (&mut self.ports, &other.ports),
            (&mut self.flows, &other.flows),
        ] {
            if a.len() < b.len() {
                a.resize(b.len(), 0);
            }
            for (x, y) in a.iter_mut().zip(b) {
                *x |= y;
            }
        }
    }

    /// Make `self`, the union of `gone` and the sets `rest`, the union of `rest` alone:
    /// only the words where `gone` has a bit are recomputed (elsewhere the union is
    /// unchanged), so a resume costs the resumed partition's words times the paused
    /// partitions, not every paused set's whole width (at 1024 GPUs, thousands of paused
    /// partitions: rebuilding the union on each resume was a quarter of a skip run).
    fn remove_set<'a>(
        &mut self,
        gone: &PartitionSet,
        rest: impl Iterator<Item = &'a PartitionSet> + Clone,
    ) {
        fn words<'a>(
            mine: &mut [u64],
            gone: &[u64],
            rest: impl Iterator<Item = &'a [u64]> + Clone,
        ) {
            for (w, (x, &g)) in mine.iter_mut().zip(gone).enumerate() {
                if g != 0 {
                    *x = rest
                        .clone()
                        .fold(0, |acc, q| acc | q.get(w).copied().unwrap_or(0));
                }
            }
        }
        words(
            &mut self.ports,
            &gone.ports,
            rest.clone().map(|q| &q.ports[..]),
        );
        words(&mut self.flows, &gone.flows, rest.map(|q| &q.flows[..]));
    }

    /// Whether the component's events belong to this set (by [`Kind::owner`]).
    #[inline]
    pub fn contains(&self, c: Comp) -> bool {
        match c.kind().owner(c.index()) {
            Owner::Port(p) => get_bit(&self.ports, p),
            Owner::Flow(f) => get_bit(&self.flows, f),
            Owner::Global => false,
        }
    }
}

#[derive(Debug)]
struct Paused {
    id: u32,
    set: PartitionSet,
    stash: Vec<Entry>,
}

/// The event queue.
#[derive(Debug, Default)]
pub struct EventQueue {
    heap: Calendar,
    seq: u64,
    paused: Vec<Paused>,
    /// The union of the paused sets: a push tests it once (O(1)) before looking for the
    /// partition that holds the event.
    paused_any: PartitionSet,
}

impl EventQueue {
    /// An empty queue.
    pub fn new() -> Self {
        Self::default()
    }

    /// Schedule `comp` at `time`. Inlined into every caller (a call and its register
    /// saves cost as much as the wheel push itself); the paused path is out of line.
    #[inline(always)]
    pub fn push(&mut self, time: Time, comp: Comp) {
        let e = entry(time, self.seq, comp);
        self.seq += 1;
        // The union test is inlined: at a call site whose kind is a constant (most pushes)
        // it folds to one bit test of the paused ports or flows, with no call.
        if !self.paused.is_empty() && self.paused_any.contains(comp) && self.stash(e) {
            return;
        }
        self.heap.push(e);
    }

    /// Hold `e` back in the paused partition its component is in (the caller found it in
    /// the union of the paused sets); true if held.
    #[inline(never)]
    fn stash(&mut self, e: Entry) -> bool {
        let comp = entry_comp(e);
        match self.paused.iter_mut().find(|p| p.set.contains(comp)) {
            Some(p) => {
                p.stash.push(e);
                true
            }
            None => false,
        }
    }

    /// Take the earliest event (of the partitions not paused).
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, Comp)> {
        self.heap.pop().map(|e| (entry_time(e), entry_comp(e)))
    }

    /// Time of the earliest event, if any.
    #[inline]
    pub fn peek_time(&mut self) -> Option<Time> {
        self.heap.peek().map(entry_time)
    }

    /// Take the earliest event, which [`EventQueue::peek_time`] just returned (no push,
    /// pause or resume in between): the run loop's pop, without looking for it again.
    #[inline]
    pub fn pop_peeked(&mut self) -> (Time, Comp) {
        let e = self.heap.pop_peeked();
        (entry_time(e), entry_comp(e))
    }

    /// Component of the `k`-th next event (0 = the next), if it is already known (it is in
    /// the current ~0.5 ns bucket), without moving the queue: for touching memory early.
    #[inline]
    pub fn ahead_comp(&self, k: usize) -> Option<Comp> {
        self.heap.ahead(k).map(entry_comp)
    }

    /// Let the calendar pick its bucket width from the events' density as the run goes
    /// ([`Calendar::adapt`]: the narrow width while events are dense, a wide one while they
    /// are sparse): for a Wormhole run, whose queue goes sparse while most partitions are
    /// paused. The events come out in the same order either way.
    pub fn adapt_width(&mut self) {
        if self.heap.adapt.is_none() {
            self.heap.adapt = Some(Adapt {
                read: 0,
                since: self.heap.cur_end,
                window: ADAPT_WINDOW,
                #[cfg(test)]
                flip: false,
            });
        }
    }

    /// Events in the heap (not counting paused partitions).
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// No event in the heap.
    pub fn is_empty(&self) -> bool {
        self.heap.len() == 0
    }

    /// Events of paused partition `id`, if it is paused.
    pub fn paused_len(&self, id: u32) -> Option<usize> {
        self.paused
            .iter()
            .find(|p| p.id == id)
            .map(|p| p.stash.len())
    }

    /// Pause partition `id` made of `set`: its pending events leave the heap (O(n)), and
    /// events scheduled for it until [`EventQueue::resume`] are held back too. Returns
    /// false (and does nothing) if `id` is already paused.
    pub fn pause(&mut self, id: u32, set: PartitionSet) -> bool {
        if self.paused.iter().any(|p| p.id == id) {
            return false;
        }
        let mut stash = Vec::new();
        self.heap
            .extract(|e| set.contains(entry_comp(e)), &mut stash);
        self.paused_any.union_with(&set);
        self.paused.push(Paused { id, set, stash });
        true
    }

    /// Resume partition `id`, shifting each of its held events `delta` ps later (their
    /// order among themselves is kept). Returns the number of events re-inserted, or
    /// `None` if `id` was not paused.
    pub fn resume(&mut self, id: u32, delta: Time) -> Option<usize> {
        let i = self.paused.iter().position(|p| p.id == id)?;
        let p = self.paused.swap_remove(i);
        self.paused_any
            .remove_set(&p.set, self.paused.iter().map(|q| &q.set));
        let n = p.stash.len();
        for e in p.stash {
            let t = entry_time(e).saturating_add(delta);
            self.heap.push((t as u128) << 64 | (e & u64::MAX as u128));
        }
        Some(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    /// The narrow width and horizon, and the wide horizon.
    const BUCKET_PS: Time = 1 << NARROW_SHIFT;
    const HORIZON_PS: Time = BUCKET_PS * N_BUCKETS as Time;
    const WIDE_HORIZON_PS: Time = (N_BUCKETS as Time) << WIDE_SHIFT;

    /// A calendar with the width fixed (`mode` 0), switched at every check of a 5-event
    /// window whatever the density (1: re-bucketing as often as it can happen), or picked
    /// by density over 5-event windows (2).
    fn calendar(mode: u8) -> Calendar {
        let mut c = Calendar::default();
        if mode > 0 {
            c.adapt = Some(Adapt {
                read: 0,
                since: 0,
                window: 5,
                flip: mode == 1,
            });
        }
        c
    }

    fn queue(mode: u8) -> EventQueue {
        EventQueue {
            heap: calendar(mode),
            ..EventQueue::default()
        }
    }

    /// Every kind survives the 4-bit packing, with any index.
    #[test]
    fn every_kind_round_trips_through_comp() {
        for k in [
            Kind::TxDone,
            Kind::Deliver,
            Kind::FlowTimer,
            Kind::Arrivals,
            Kind::Failure,
            Kind::Sample,
            Kind::HostTimer,
            Kind::Wormhole,
        ] {
            for i in [0, 1, 12345, Comp::MAX_INDEX] {
                let c = Comp::new(k, i);
                assert_eq!((c.kind(), c.index()), (k, i));
            }
        }
        assert_eq!(Kind::Wormhole.owner(3), Owner::Global);
    }

    #[test]
    fn heap_sorts_like_a_sort() {
        let mut h = QuadHeap::default();
        let mut x: u64 = 12345;
        let mut all = Vec::new();
        for i in 0..2000u64 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let e = entry(
                x >> 40,
                i,
                Comp::new(Kind::Deliver, (x >> 8) as u32 & 0xffff),
            );
            all.push(e);
            h.push(e);
            if i % 3 == 0 {
                all.sort_unstable();
                assert_eq!(h.pop(), Some(all.remove(0)));
            }
        }
        all.sort_unstable();
        let rest: Vec<_> = std::iter::from_fn(|| h.pop()).collect();
        assert_eq!(rest, all);
    }

    /// The calendar gives exactly the order of a sort, with pushes interleaved with pops
    /// (never earlier than the last pop, as in the DES), near and far, and gaps.
    /// The counting sort of a bucket gives exactly the comparison sort's order, for
    /// buckets appended in `seq` order (the fast path) and not (the fallback), with many
    /// ties in time as hosts in lockstep produce.
    #[test]
    fn bucket_sort_matches_comparison_sort() {
        let mut x: u64 = 7;
        let mut rnd = move || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            x >> 24
        };
        let mut scratch = Vec::new();
        for case in 0..400u64 {
            let shift = if case % 2 == 0 {
                NARROW_SHIFT
            } else {
                WIDE_SHIFT
            };
            let n = (rnd() % 3000) as usize;
            let base: Time = 5 << shift;
            let distinct = 1 + rnd() % 40; // few distinct times: many ties
            let times: Vec<Time> = (0..distinct).map(|_| base + rnd() % (1 << shift)).collect();
            let mut v: Vec<Entry> = (0..n)
                .map(|i| {
                    let t = times[(rnd() % distinct) as usize];
                    entry(t, i as u64, Comp::new(Kind::Deliver, (rnd() % 100) as u32))
                })
                .collect();
            if case % 4 == 0 && n > 1 {
                // An older entry appended last (refilled from the far heap).
                let t = times[0];
                v.push(entry(t, 0, Comp::new(Kind::FlowTimer, 1)));
                v[0] = entry(t, 0, Comp::new(Kind::FlowTimer, 2));
            }
            let mut want = v.clone();
            want.sort_unstable();
            sort_bucket_at(shift, &mut v, &mut scratch);
            assert_eq!(v, want, "case {case}, {n} entries");
        }
    }

    /// At a fixed width and with the width switching (at every check, or by density).
    #[test]
    fn calendar_pops_in_sorted_order() {
        for mode in 0..3 {
            pops_in_sorted_order(mode);
        }
    }

    fn pops_in_sorted_order(mode: u8) {
        let mut c = calendar(mode);
        let mut x: u64 = 99;
        let mut rnd = move || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            x >> 20
        };
        let mut pending: Vec<Entry> = Vec::new();
        let mut now: Time = 0;
        let mut seq = 0u64;
        let mut widths = std::collections::BTreeSet::new();
        for round in 0..8_000u64 {
            widths.insert(c.shift);
            for _ in 0..(rnd() % 3) {
                let dt = match rnd() % 10 {
                    0 => rnd() % 100,               // same bucket
                    1 => 70_000_000 + rnd() % 1000, // far (an RTO)
                    2 => 500_000_000 + rnd() % 10,  // far, after a gap
                    _ => rnd() % 3_000_000,         // within the wheel
                };
                let e = entry(
                    now + dt,
                    seq,
                    Comp::new(Kind::Deliver, (rnd() % 1000) as u32),
                );
                seq += 1;
                c.push(e);
                pending.push(e);
            }
            if round % 2 == 0 {
                pending.sort_unstable();
                let want = if pending.is_empty() {
                    None
                } else {
                    Some(pending.remove(0))
                };
                assert_eq!(c.peek(), want);
                assert_eq!(c.pop(), want);
                if let Some(e) = want {
                    now = entry_time(e);
                }
                assert_eq!(c.len(), pending.len());
            }
        }
        pending.sort_unstable();
        let rest: Vec<_> = std::iter::from_fn(|| c.pop()).collect();
        assert_eq!(rest, pending);
        // The modes did what they say: a fixed width stays narrow, a flipping one used
        // both, and this sparse traffic (about one event per microsecond) is wide by
        // density.
        let want: &[u32] = match mode {
            0 => &[NARROW_SHIFT],
            _ => &[NARROW_SHIFT, WIDE_SHIFT],
        };
        assert_eq!(widths.into_iter().collect::<Vec<_>>(), want, "mode {mode}");
        if mode == 2 {
            assert_eq!(c.shift, WIDE_SHIFT);
        }
    }

    /// A delay drawn from the scales the calendar treats differently: the same time, the
    /// current bucket, the next buckets, the wheel, past the horizon (the far heap) and
    /// long gaps (the wheel runs empty).
    fn delay() -> impl Strategy<Value = Time> {
        prop_oneof![
            3 => Just(0u64),
            4 => 0u64..BUCKET_PS,
            4 => prop::sample::select(vec![640u64, 1280, 90_000, 200_640, 650_000]),
            4 => 0u64..HORIZON_PS,
            2 => HORIZON_PS - 2..HORIZON_PS + 2,
            2 => WIDE_HORIZON_PS - 2..WIDE_HORIZON_PS + 2,
            2 => 0u64..2 * WIDE_HORIZON_PS,
            2 => HORIZON_PS..20 * HORIZON_PS,
            1 => 1_000_000_000u64..2_000_000_000,
        ]
    }

    proptest! {
        /// The queue pops exactly the order of a binary heap keyed by `(time, seq)` (time,
        /// then scheduling order), for pushes at or after the last popped time interleaved
        /// with pops through both `pop` and `peek_time` + `pop_peeked` (the run loop's).
        /// Each step pushes a burst: each event either at its own delay or at the step's
        /// base delay plus a jitter of up to two buckets, so that buckets fill with dozens
        /// of events at random offsets (the bucket sort's counting pass).
        #[test]
        fn pop_order_matches_a_binary_heap(
            steps in prop::collection::vec(
                (
                    delay(),
                    prop::collection::vec(
                        (any::<bool>(), delay(), 0..2 * BUCKET_PS, 0u32..1000),
                        0..40,
                    ),
                    0usize..30,
                    any::<bool>(),
                ),
                1..100,
            ),
            mode in 0u8..3,
        ) {
            let mut q = queue(mode);
            let mut reference = BinaryHeap::new();
            let mut seq = 0u64;
            let mut now: Time = 0;
            for (base, pushes, pops, peeked) in steps {
                for (burst, d, jitter, i) in pushes {
                    let t = if burst { now + base + jitter } else { now + d };
                    let c = Comp::new(Kind::Deliver, i);
                    q.push(t, c);
                    reference.push(Reverse((t, seq, c.index())));
                    seq += 1;
                }
                for _ in 0..pops {
                    let want = reference.pop().map(|Reverse((t, _, i))| (t, i));
                    let got = if peeked {
                        let t = q.peek_time();
                        prop_assert_eq!(t, want.map(|w| w.0));
                        t.map(|_| q.pop_peeked())
                    } else {
                        q.pop()
                    };
                    prop_assert_eq!(got.map(|(t, c)| (t, c.index())), want);
                    if let Some((t, _)) = want {
                        now = t;
                    }
                    prop_assert_eq!(q.len(), reference.len());
                }
            }
            while let Some(Reverse((t, _, i))) = reference.pop() {
                prop_assert_eq!(q.pop().map(|(t, c)| (t, c.index())), Some((t, i)));
            }
            prop_assert_eq!(q.pop(), None);
        }
    }

    proptest! {
        /// Pausing a partition takes exactly its events out of every part of the calendar
        /// (current bucket, wheel, far heap), the others pop in order, and a resume puts
        /// the held ones back shifted.
        #[test]
        fn pause_takes_exactly_the_partitions_events(
            pushes in prop::collection::vec((delay(), 0u32..16), 1..300),
            pops in 0usize..50,
            ports in prop::collection::vec(0u32..16, 0..8),
            delta in 0u64..3 * HORIZON_PS,
            mode in 0u8..3,
        ) {
            let mut q = queue(mode);
            let mut reference = Vec::new();
            for (seq, &(d, i)) in pushes.iter().enumerate() {
                q.push(d, Comp::new(Kind::TxDone, i));
                reference.push((d, seq, i));
            }
            reference.sort_unstable();
            let mut reference = std::collections::VecDeque::from(reference);
            for _ in 0..pops {
                let want = reference.pop_front().map(|(t, _, i)| (t, i));
                prop_assert_eq!(q.pop().map(|(t, c)| (t, c.index())), want);
            }
            let mut set = PartitionSet::new();
            for &p in &ports {
                set.add_port(p);
            }
            let (held, rest): (Vec<_>, Vec<_>) =
                reference.into_iter().partition(|e| ports.contains(&e.2));
            prop_assert!(q.pause(1, set));
            prop_assert_eq!(q.paused_len(1), Some(held.len()));
            prop_assert_eq!(q.len(), rest.len());
            let n = rest.len() / 2;
            for &(t, _, i) in &rest[..n] {
                prop_assert_eq!(q.pop().map(|(t, c)| (t, c.index())), Some((t, i)));
            }
            prop_assert_eq!(q.resume(1, delta), Some(held.len()));
            let mut want: Vec<_> = rest[n..].to_vec();
            want.extend(held.iter().map(|&(t, s, i)| (t + delta, s, i)));
            want.sort_unstable();
            for (t, _, i) in want {
                prop_assert_eq!(q.pop().map(|(t, c)| (t, c.index())), Some((t, i)));
            }
            prop_assert_eq!(q.pop(), None);
        }
    }

    proptest! {
        /// Across any sequence of pauses and resumes of overlapping sets, the union a push
        /// tests ([`EventQueue::paused_any`], kept incrementally by
        /// [`PartitionSet::remove_set`]) holds exactly the members of the partitions still
        /// paused, and a push lands in the heap or a stash accordingly.
        #[test]
        fn paused_union_is_the_union_of_the_paused_sets(
            sets in prop::collection::vec(
                (prop::collection::vec(0u32..300, 0..6), prop::collection::vec(0u32..300, 0..6)),
                1..8,
            ),
            ops in prop::collection::vec((any::<bool>(), 0usize..8), 1..40),
        ) {
            let set_of = |(ports, flows): &(Vec<u32>, Vec<u32>)| {
                let mut s = PartitionSet::new();
                ports.iter().for_each(|&p| s.add_port(p));
                flows.iter().for_each(|&f| s.add_flow(f));
                s
            };
            let mut q = EventQueue::new();
            let mut paused: Vec<usize> = Vec::new();
            for (pause, k) in ops {
                let k = k % sets.len();
                if pause {
                    prop_assert_eq!(q.pause(k as u32, set_of(&sets[k])), !paused.contains(&k));
                    if !paused.contains(&k) {
                        paused.push(k);
                    }
                } else {
                    prop_assert_eq!(q.resume(k as u32, 0).is_some(), paused.contains(&k));
                    paused.retain(|&j| j != k);
                }
                for x in 0u32..300 {
                    let port = paused.iter().any(|&j| sets[j].0.contains(&x));
                    let flow = paused.iter().any(|&j| sets[j].1.contains(&x));
                    prop_assert_eq!(q.paused_any.contains(Comp::new(Kind::TxDone, x)), port);
                    prop_assert_eq!(q.paused_any.contains(Comp::new(Kind::FlowTimer, x)), flow);
                }
            }
        }
    }

    #[test]
    fn pops_in_time_then_fifo_order() {
        let mut q = EventQueue::new();
        q.push(30, Comp::new(Kind::TxDone, 1));
        q.push(10, Comp::new(Kind::Deliver, 2));
        q.push(30, Comp::new(Kind::TxDone, 0));
        q.push(20, Comp::new(Kind::FlowTimer, 5));
        let got: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            got,
            [
                (10, Comp::new(Kind::Deliver, 2)),
                (20, Comp::new(Kind::FlowTimer, 5)),
                (30, Comp::new(Kind::TxDone, 1)),
                (30, Comp::new(Kind::TxDone, 0)),
            ]
        );
        let c = Comp::new(Kind::Failure, 12345);
        assert_eq!((c.kind(), c.index()), (Kind::Failure, 12345));
    }

    /// Pausing one partition and shifting it by ΔT moves exactly its events (including
    /// one scheduled while paused) and leaves the other partition's events untouched.
    #[test]
    fn pause_and_shift_one_partition() {
        let mut q = EventQueue::new();
        // Partition A: port 1 and flow 7. Partition B: port 2, flow 8. Plus a global event.
        for t in [100, 200, 300] {
            q.push(t, Comp::new(Kind::TxDone, 1));
            q.push(t + 5, Comp::new(Kind::Deliver, 2));
        }
        q.push(150, Comp::new(Kind::FlowTimer, 7));
        q.push(160, Comp::new(Kind::FlowTimer, 8));
        q.push(250, Comp::new(Kind::Sample, 0));
        let mut a = PartitionSet::new();
        a.add_port(1);
        a.add_flow(7);
        assert!(q.pause(1, a.clone()));
        assert!(!q.pause(1, a), "already paused");
        assert_eq!(q.paused_len(1), Some(4));
        // Scheduled while paused: held back too.
        q.push(400, Comp::new(Kind::Deliver, 1));
        assert_eq!(q.paused_len(1), Some(5));
        // Only B and the global event run meanwhile, at their own times.
        let (t, c) = q.pop().unwrap();
        assert_eq!((t, c), (105, Comp::new(Kind::Deliver, 2)));
        assert_eq!(q.pop().unwrap(), (160, Comp::new(Kind::FlowTimer, 8)));
        // Shift A by 1000 ps.
        assert_eq!(q.resume(1, 1000), Some(5));
        assert_eq!(q.resume(1, 1000), None);
        let rest: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            rest,
            [
                (205, Comp::new(Kind::Deliver, 2)),
                (250, Comp::new(Kind::Sample, 0)),
                (305, Comp::new(Kind::Deliver, 2)),
                (1100, Comp::new(Kind::TxDone, 1)),
                (1150, Comp::new(Kind::FlowTimer, 7)),
                (1200, Comp::new(Kind::TxDone, 1)),
                (1300, Comp::new(Kind::TxDone, 1)),
                (1400, Comp::new(Kind::Deliver, 1)),
            ]
        );
    }
}
