//! Golden scenarios for the REPS load balancer (`nic::reps`).
//!
//! * `reps_scripted`: one connection driven through every behaviour of Algorithms 1 and 2
//!   on the Table 1 word: warm-up exploration, caching unmarked ACK EVs, ignoring marked
//!   ones, reusing the oldest valid EV, buffer wrap, entering freezing mode, reusing
//!   invalid entries while frozen, exiting and re-exploring.
//!
//! Signals (cycle = NIC clock cycle of the event):
//!
//! ```text
//!  phase                  string  which part of the script starts here
//!  op                     string  "send" | "ack" | "failure"             (input)
//!  ack.ev, ack.ecn        int, bool  the ACK's EV and ECN mark            (input)
//!  ack.outcome            string  "marked" | "cached"                     (output)
//!  ack.slot               int     slot written (cached only)              (output)
//!  ack.exited_freezing    bool    Alg. 1 lines 15-17 fired                (output)
//!  send.ev                int     dataPacket.ev                           (output)
//!  send.choice            string  "explore" | "random" | "recycle" | "frozen"
//!  send.slot              int     buffer slot read (recycle / frozen only)
//!  failure.froze          bool    Alg. 1 lines 22-24 fired                (output)
//!  word                   string  the 25-byte Table 1 word after the step, hex, bytes
//!                                 0..25 in address order (layout: nic::reps::word)
//!  head, number_of_valid_evs, explore_counter   int   decoded from the word
//!  is_freezing            bool
//! ```

use crate::recorder::Recorder;
use crate::registry::GoldenScenario;
use crate::schema::Trace;
use nic::reps::{AckOutcome, Reps, RepsConfig};
use rtl_models::{Cycles, Lfsr32};
use serde_json::json;

const DESCRIPTION: &str = "REPS (Table 1 word) scripted: warm-up, cache unmarked / ignore \
                           marked ACK EVs, reuse oldest, buffer wrap, freeze, frozen reuse of \
                           invalid entries, thaw and re-explore";

/// REPS golden scenarios.
pub fn scenarios() -> Vec<GoldenScenario> {
    vec![GoldenScenario {
        name: "reps_scripted",
        description: DESCRIPTION,
        run: reps_scripted,
    }]
}

/// Drives one `Reps` and records every input, output and the packed word.
struct Bench {
    reps: Reps,
    rng: Lfsr32,
    rec: Recorder,
    now: Cycles,
}

impl Bench {
    /// Events are 10 cycles apart.
    fn step(&mut self) {
        self.now += 10;
    }

    fn phase(&mut self, name: &str) {
        self.rec.record(self.now + 10, "phase", name);
    }

    fn state(&mut self) {
        let hex: String = self
            .reps
            .word()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let t = self.now;
        self.rec.record(t, "word", hex);
        self.rec.record(t, "head", self.reps.head() as u64);
        self.rec.record(
            t,
            "number_of_valid_evs",
            self.reps.number_of_valid_evs() as u64,
        );
        self.rec.record(t, "is_freezing", self.reps.is_freezing());
        self.rec
            .record(t, "explore_counter", self.reps.explore_counter() as u64);
    }

    fn send(&mut self) -> u16 {
        self.step();
        let d = self.reps.choose_ev(&mut self.rng);
        let t = self.now;
        self.rec.record(t, "op", "send");
        self.rec.record(t, "send.ev", d.ev as u64);
        self.rec.record(t, "send.choice", d.choice.name());
        if let Some(s) = d.slot {
            self.rec.record(t, "send.slot", s as u64);
        }
        self.state();
        d.ev
    }

    fn ack(&mut self, ev: u16, ecn: bool) {
        self.step();
        let t = self.now;
        self.rec.record(t, "op", "ack");
        self.rec.record(t, "ack.ev", ev as u64);
        self.rec.record(t, "ack.ecn", ecn);
        match self.reps.observe_ack(t, ev, ecn) {
            AckOutcome::Marked => self.rec.record(t, "ack.outcome", "marked"),
            AckOutcome::Cached {
                slot,
                exited_freezing,
            } => {
                self.rec.record(t, "ack.outcome", "cached");
                self.rec.record(t, "ack.slot", slot as u64);
                self.rec.record(t, "ack.exited_freezing", exited_freezing);
            }
        }
        self.state();
    }

    fn failure(&mut self) {
        self.step();
        let t = self.now;
        self.rec.record(t, "op", "failure");
        let froze = self.reps.observe_failure(t);
        self.rec.record(t, "failure.froze", froze);
        self.state();
    }
}

fn reps_scripted() -> Trace {
    let seed = 7u32;
    let cfg = RepsConfig {
        ev_bits: 16,
        num_pkts_cwnd: 16,
        freezing_timeout_cycles: 2_000,
        freezing: true,
        reuse: 1,
        timed_exit: false,
    };
    let rec = Recorder::new(
        "Reps",
        json!({
            "buffer_size": 8,
            "ev_bits": cfg.ev_bits,
            "num_pkts_cwnd": cfg.num_pkts_cwnd,
            "freezing_timeout_cycles": cfg.freezing_timeout_cycles,
            "freezing": cfg.freezing,
            "reuse": cfg.reuse,
            "layout": "REPS Table 1, 193 bits in 25 bytes",
            "rng": "Lfsr32",
        }),
        seed as u64,
        DESCRIPTION,
    );
    let mut b = Bench {
        reps: Reps::new(cfg).expect("valid REPS config"),
        rng: Lfsr32::new(seed),
        rec,
        now: 1_000,
    };

    // Alg. 2 L19-20: an empty buffer explores at random (OPS-like warm-up).
    b.phase("warm_up");
    let s: Vec<u16> = (0..4).map(|_| b.send()).collect();

    // Alg. 1 L6-14: unmarked ACK EVs are cached, the marked one is ignored.
    b.phase("cache_and_ignore");
    b.ack(s[0], false);
    b.ack(s[1], false);
    b.ack(s[2], true);
    b.ack(s[3], false);

    // Alg. 2 L3-6: the oldest valid EV first.
    b.phase("reuse_oldest");
    b.send();
    b.send();

    // Nine more ACKs: numberOfValidEVs saturates at 8, head wraps and the oldest entries
    // are overwritten.
    b.phase("buffer_wrap");
    for k in 0..9u16 {
        b.ack(0x1000 + k, false);
    }

    // Eight recycles drain the buffer, then a random EV (not freezing).
    b.phase("drain");
    for _ in 0..9 {
        b.send();
    }

    // Alg. 1 L22-24.
    b.phase("freeze");
    b.failure();

    // Alg. 2 L7-9: round robin over the (invalid) entries, no random draw.
    b.phase("frozen_reuse");
    for _ in 0..10 {
        b.send();
    }

    // A fresh ACK while frozen is recycled first; a second failure is ignored.
    b.phase("frozen_fresh_ack");
    b.ack(0x2000, false);
    b.send();
    b.send();
    b.failure();

    // Alg. 1 L15-17: a marked ACK after the deadline does not thaw; an unmarked one does.
    b.now += 2_000;
    b.phase("thaw");
    b.ack(0x2FFF, true);
    b.ack(0x3000, false);

    // Alg. 2 L15-17: one packet in 8 explores; Alg. 1 L22 ignores failures meanwhile.
    b.phase("re_explore");
    b.failure();
    for k in 0..16u16 {
        b.ack(0x4000 + k, false);
        b.send();
    }

    // Exploration over: the next failure freezes again.
    b.phase("refreeze");
    b.failure();
    b.send();

    b.rec.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_covers_every_behaviour() {
        let t = reps_scripted();
        let choices: Vec<&str> = t
            .values("send.choice")
            .into_iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        for c in ["random", "recycle", "frozen", "explore"] {
            assert!(choices.contains(&c), "no {c} choice");
        }
        assert_eq!(choices.iter().filter(|&&c| c == "explore").count(), 2);
        assert_eq!(choices.iter().filter(|&&c| c == "frozen").count(), 11);
        let outcomes = t.values("ack.outcome");
        assert_eq!(outcomes.iter().filter(|v| **v == "marked").count(), 2);
        let froze: Vec<bool> = t
            .values("failure.froze")
            .into_iter()
            .map(|v| v.as_bool().unwrap())
            .collect();
        assert_eq!(froze, vec![true, false, false, true]);
        let thawed = t
            .values("ack.exited_freezing")
            .into_iter()
            .filter(|v| v.as_bool() == Some(true))
            .count();
        assert_eq!(thawed, 1);
        // numberOfValidEVs saturated at 8 during the wrap.
        assert!(t.values("number_of_valid_evs").contains(&&json!(8)));
        // Every word is 25 bytes of hex.
        assert!(t
            .values("word")
            .iter()
            .all(|v| v.as_str().unwrap().len() == 50));
    }
}
