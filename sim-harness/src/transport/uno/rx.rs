//! The receiver of one flow of the Uno transport (Uno 4.2, "Erasure Coding").
//!
//! ```text
//!  no EC:  every DATA -> ACK {wpn | DONE}; the message is in when every packet is
//!  EC:     wpn -> (block k, index i); first packet of k arms its timer (block_timeout);
//!          x distinct packets of k (the padding of a short last block counts as present)
//!            -> Reed-Solomon decode (nic::uno::ec::BlockCodec, any x of x + y), k decoded
//!          every DATA -> ACK {wpn | DONE if k is decoded}
//!          timer of an undecoded block expires -> NACK {k | DONE}, disarmed until the
//!            next packet of k (the received packets are kept)
//! ```

use super::tx::{Bits, DONE};
use nic::uno::ec::{self, BlockCodec, Payload};
use std::collections::VecDeque;

/// The receiver's counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RxStats {
    /// Blocks decoded (EC).
    pub decoded: u64,
    /// Blocks decoded with data packets missing (the code recovered them).
    pub recovered: u64,
    /// Blocks NACKed (their timer expired).
    pub nacks: u64,
    /// Blocks whose decode failed the payload check (never expected).
    pub decode_failures: u64,
    /// Wire packets beyond the message or duplicates.
    pub ignored: u64,
}

/// The receiver of one flow.
#[derive(Debug, Clone)]
pub struct UnoRx {
    ec: bool,
    x: u32,
    y: u32,
    stride: u32,
    data_pkts: u32,
    units: u32,
    got: Vec<u16>,
    done: Bits,
    armed: Bits,
    deadlines: VecDeque<(u64, u32)>,
    timeout_ps: u64,
    /// Arrival time of the flow's previous DATA (ps; `u64::MAX`: none yet).
    last_arrival: u64,
    /// EWMA (gain 1/8) of the gap between two DATA arrivals of the flow, ps.
    gap_ps: u64,
    /// Data packets delivered (received, or in decoded blocks).
    pub data_done: u32,
    /// Data packets taken off the message by Wormhole fast-forwards ([`UnoRx::fast_forward`]).
    pub skipped_data: u32,
    /// Counters.
    pub stats: RxStats,
}

/// What a DATA did at the receiver.
#[derive(Debug, Clone, Copy)]
pub struct RxOut {
    /// The ACK's `psn` (wpn, with [`DONE`] when its unit is delivered).
    pub ack_psn: u32,
    /// The first copy of this wire packet.
    pub new: bool,
}

impl UnoRx {
    /// A receiver of `bytes` in packets of `mtu` payload; `ec`: blocks of `x` + `y`, NACKed
    /// `timeout_ps` after their first packet when not decodable.
    pub fn new(bytes: u64, mtu: u32, ec: bool, x: u32, y: u32, timeout_ps: u64) -> UnoRx {
        let data_pkts = bytes.div_ceil(u64::from(mtu.max(1))).max(1) as u32;
        let x = x.max(1);
        let (stride, units) = if ec {
            (x + y, data_pkts.div_ceil(x))
        } else {
            (1, data_pkts)
        };
        UnoRx {
            ec,
            x,
            y,
            stride,
            data_pkts,
            units,
            got: if ec {
                vec![0; units as usize]
            } else {
                Vec::new()
            },
            done: Bits::new(units),
            armed: Bits::new(if ec { units } else { 0 }),
            deadlines: VecDeque::new(),
            timeout_ps,
            last_arrival: u64::MAX,
            gap_ps: 0,
            data_done: 0,
            skipped_data: 0,
            stats: RxStats::default(),
        }
    }

    /// Every data packet is delivered.
    pub fn complete(&self) -> bool {
        self.data_done == self.data_pkts
    }

    /// Data packets of block `k`.
    fn data_in(&self, k: u32) -> u32 {
        (self.data_pkts - k * self.x).min(self.x)
    }

    /// Wire packet `wpn` of flow `flow` arrives at `now_ps`; `codec` decodes the blocks.
    pub fn on_data(
        &mut self,
        now_ps: u64,
        flow: u32,
        wpn: u32,
        codec: Option<&BlockCodec>,
    ) -> RxOut {
        let k = wpn / self.stride;
        let mut out = RxOut {
            ack_psn: wpn,
            new: false,
        };
        if k >= self.units {
            self.stats.ignored += 1;
            return out;
        }
        if !self.ec {
            if !self.done.get(k) {
                self.done.put(k, true);
                self.data_done += 1;
                out.new = true;
            } else {
                self.stats.ignored += 1;
            }
            out.ack_psn |= DONE;
            return out;
        }
        let i = wpn % self.stride;
        let d = self.data_in(k);
        if i >= d + self.y || self.done.get(k) {
            self.stats.ignored += 1;
            if self.done.get(k) {
                out.ack_psn |= DONE;
            }
            return out;
        }
        if self.last_arrival != u64::MAX {
            let gap = now_ps.saturating_sub(self.last_arrival) as i128;
            let g = self.gap_ps as i128;
            self.gap_ps = (g + ((gap - g) >> 3)).max(0) as u64;
        }
        self.last_arrival = now_ps;
        if !self.armed.get(k) {
            // The timer covers the queueing estimate (`timeout_ps`) and the block's own
            // transmission at the flow's pace: its packets arrive a gap apart (4.2: "the
            // estimated maximum queuing and transmission delay").
            self.armed.put(k, true);
            let tx = self.gap_ps.saturating_mul(u64::from(self.stride));
            self.deadlines.push_back((now_ps + self.timeout_ps + tx, k));
        }
        let g = &mut self.got[k as usize];
        if *g >> i & 1 == 1 {
            self.stats.ignored += 1;
            return out;
        }
        *g |= 1 << i;
        out.new = true;
        if g.count_ones() >= d {
            let got = *g;
            if self.decode(flow, k, got, codec) {
                self.done.put(k, true);
                self.armed.put(k, false);
                self.data_done += d;
                self.stats.decoded += 1;
                if u32::from(got) & ((1 << d) - 1) != (1 << d) - 1 {
                    self.stats.recovered += 1;
                }
                out.ack_psn |= DONE;
            } else {
                self.stats.decode_failures += 1;
            }
        }
        out
    }

    /// Reconstruct block `k`'s data from the packets in `got` (bit i: packet i of the
    /// block): each data packet carries its payload model, each parity packet the
    /// Reed-Solomon parity the sender computed; the padding of a short block is known.
    fn decode(&self, flow: u32, k: u32, got: u16, codec: Option<&BlockCodec>) -> bool {
        let d = self.data_in(k);
        let Some(codec) = codec.filter(|c| c.parity() > 0) else {
            // No parity: every data packet must be there.
            return u32::from(got) & ((1 << d) - 1) == (1 << d) - 1;
        };
        let x = codec.data() as u32;
        let sent = codec.encode(flow, k);
        let slots: Vec<Option<Payload>> = (0..x + codec.parity() as u32)
            .map(|j| {
                if j < x {
                    // Data shard j: a padding shard (beyond the message) is known.
                    (j >= d || got >> j & 1 == 1).then(|| ec::payload(flow, k * x + j))
                } else {
                    // Parity shard j - x travels as packet d + (j - x) of the block.
                    (got >> (d + j - x) & 1 == 1).then(|| sent[j as usize])
                }
            })
            .collect();
        codec.decode(flow, k, &slots).is_ok()
    }

    /// Wormhole fast-forward at the receiver (Wormhole paper 6.2; Uno 4.2's blocks): the
    /// sender took `k` never-sent units before the last one off the message
    /// ([`super::tx::UnoTx::fast_forward`]); the receiver drops the same `k`, so the last
    /// unit has the same (lower) number on both ends. Nothing of those units has arrived
    /// (the sender never sent them), so no per-block state moves. At most `units - 1` go.
    pub fn fast_forward(&mut self, k: u32) {
        let k = k.min(self.units.saturating_sub(1));
        let data = if self.ec { k * self.x } else { k };
        self.units -= k;
        self.data_pkts -= data;
        self.skipped_data += data;
    }

    /// Data packets delivered, those a Wormhole fast-forward took off the message included.
    pub fn delivered_with_skipped(&self) -> u32 {
        self.data_done + self.skipped_data
    }

    /// Move every absolute time (ps) the receiver holds `delta` ps later (Wormhole 6.2, a
    /// skipped partition resumed): its block timers and its last DATA arrival.
    pub fn shift(&mut self, delta: u64) {
        for (t, _) in &mut self.deadlines {
            *t = t.saturating_add(delta);
        }
        if self.last_arrival != u64::MAX {
            self.last_arrival = self.last_arrival.saturating_add(delta);
        }
    }

    /// The next block timer, ps.
    pub fn deadline_ps(&self) -> Option<u64> {
        self.deadlines.front().map(|&(t, _)| t)
    }

    /// Block timers due at `now_ps`: the blocks to NACK (`k | DONE`).
    pub fn on_timer(&mut self, now_ps: u64) -> Vec<u32> {
        let mut nacks = Vec::new();
        while let Some(&(t, k)) = self.deadlines.front() {
            if t > now_ps {
                break;
            }
            self.deadlines.pop_front();
            if self.done.get(k) || !self.armed.get(k) {
                continue;
            }
            self.armed.put(k, false);
            self.stats.nacks += 1;
            nacks.push(k | DONE);
        }
        nacks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 20 data packets in blocks of (8, 2): blocks of 8, 8 and 4 data.
    fn rx() -> (UnoRx, BlockCodec) {
        (
            UnoRx::new(20 * 100, 100, true, 8, 2, 1000),
            BlockCodec::new(8, 2).unwrap(),
        )
    }

    #[test]
    fn a_block_decodes_from_any_x_of_x_plus_y_and_not_fewer() {
        let (mut r, c) = rx();
        // Block 0: data 0 and 3 lost, both parity packets (indices 8, 9) arrive.
        for i in [1, 2, 4, 5, 6, 7, 8] {
            let o = r.on_data(0, 5, i, Some(&c));
            assert_eq!(o.ack_psn & DONE, 0, "7 of 10 packets: not decodable");
        }
        let o = r.on_data(0, 5, 9, Some(&c));
        assert_eq!(o.ack_psn, 9 | DONE, "8 of 10: decoded");
        assert_eq!(r.stats.decoded, 1);
        assert_eq!(r.stats.recovered, 1);
        assert_eq!(r.data_done, 8);
        // A late copy of block 0 is ACKed as delivered and ignored.
        assert_eq!(r.on_data(0, 5, 0, Some(&c)).ack_psn, DONE);
        // The short last block (4 data + 2 parity, wpn 20..26) decodes from 4 of its 6.
        for i in [21, 24, 25] {
            r.on_data(0, 5, i, Some(&c));
        }
        assert_eq!(r.stats.decoded, 1);
        assert_eq!(r.on_data(0, 5, 23, Some(&c)).ack_psn, 23 | DONE);
        assert_eq!(r.data_done, 12);
        assert!(!r.complete());
    }

    #[test]
    fn an_unrecoverable_block_is_nacked_once_when_its_timer_expires() {
        let (mut r, c) = rx();
        for i in 10..16 {
            r.on_data(100, 5, i, Some(&c));
        }
        assert_eq!(r.deadline_ps(), Some(1100));
        assert!(r.on_timer(1099).is_empty());
        assert_eq!(r.on_timer(1100), vec![1 | DONE]);
        assert!(r.on_timer(5000).is_empty(), "NACKed once");
        // The retransmitted block completes it (received packets were kept) and re-arms.
        r.on_data(6000, 5, 16, Some(&c));
        // Re-armed: the queueing estimate plus the block's 10 packets at the arrival gap
        // (EWMA 1/8 of the 5900 ps gap).
        assert_eq!(r.deadline_ps(), Some(6000 + 1000 + 10 * (5900 / 8)));
        assert_eq!(r.on_data(6000, 5, 17, Some(&c)).ack_psn, 17 | DONE);
        assert!(r.on_timer(8000).is_empty(), "decoded: no NACK");
        assert_eq!(r.stats.nacks, 1);
    }

    #[test]
    fn without_ec_every_packet_is_its_own_unit() {
        let mut r = UnoRx::new(250, 100, false, 8, 2, 1000);
        assert_eq!(r.on_data(0, 1, 2, None).ack_psn, 2 | DONE);
        assert!(r.on_data(0, 1, 0, None).new);
        assert!(!r.on_data(0, 1, 0, None).new);
        assert!(!r.complete());
        r.on_data(0, 1, 1, None);
        assert!(r.complete());
        assert!(r.deadline_ps().is_none());
    }
}
