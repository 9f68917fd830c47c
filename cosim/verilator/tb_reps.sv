// tb_reps - the REPS Table 1 word (193 bits) across DPI-C, checked field by field.
//
// Every cycle an LFSR drives one REPS connection with ACKs (random EV, 1 in 8 ECN-marked),
// DATA sends (random word supplied by the testbench) and, rarely, failure detections
// (FREEZING_TIMEOUT 500 cycles, so it freezes and thaws often). Then the testbench reads the
// word as `bit [192:0]` and checks, in SystemVerilog:
//   * every field it unpacks (REPS Table 1 layout: cachedEV[k] = w[16k +: 16],
//     isValid[k] = w[128 + k], head = w[138:136], reserved w[142:139] = 0, notEmpty = w[143],
//     numberOfValidEVs = w[151:144], exitFreezingMode = w[183:152],
//     exploreCounter = w[191:184], isFreezingMode = w[192]) against the model's field readers;
//   * the invariants popcount(isValid) == numberOfValidEVs <= 8, and that the valid entries
//     are the numberOfValidEVs slots just before head;
//   * the effect of this cycle's events on the word: a cached ACK wrote its EV at the old
//     head, set isValid and moved head; a recycled EV cleared its slot's isValid;
//   * migration: a second connection is loaded with the first one's word every 4096 cycles
//     (dcfab_reps_set_word193), gets the same events, and must hold the identical word and
//     produce identical outputs every cycle; a word with a reserved bit set must be refused
//     with DCFAB_ERR_ARG and leave the state unchanged.
// Plusargs: +cycles=N (default 1000000), +seed=S, +inject_at=N (skip one model tick of
// the first connection in cycle N: the run must then fail, a self-test).
/* verilator lint_off BLKSEQ */  // testbench bookkeeping is blocking on purpose
module tb_reps (
  input  bit              clk,
  output bit              done,
  output bit              failed,
  output longint unsigned cycles,
  output int unsigned     mismatches
);
  import dcfab_dpi::*;
  `include "lfsr.svh"

  longint unsigned target = 64'd1000000;
  longint unsigned inject_at = ~64'd0;
  bit [31:0] seed = 32'h0000_ACE1;
  bit [31:0] lfsr;
  chandle    h, h2;
  longint unsigned n_recycled = 0, n_frozen = 0, n_explore = 0, n_thaws = 0, n_migrations = 0;

  task automatic fail_now(input string msg);
    $display("tb_reps: %s", msg);
    failed = 1; done = 1;
  endtask

  task automatic check(input int st, input string what);
    if (!done && st != DCFAB_OK)
      fail_now($sformatf("cycle %0d: %s returned %s: %s", cycles, what,
                         dcfab_status_name(st), dcfab_last_error()));
  endtask

  task automatic cmp(input string what, input longint unsigned got, input longint unsigned want);
    if (!done && got != want) begin
      mismatches = mismatches + 1;
      fail_now($sformatf("MISMATCH at cycle %0d, %s: word=%0d model=%0d", cycles, what, got, want));
    end
  endtask

  initial begin
    void'($value$plusargs("cycles=%d", target));
    void'($value$plusargs("seed=%d", seed));
    void'($value$plusargs("inject_at=%d", inject_at));
    lfsr = (seed == 0) ? 32'd1 : seed;
    h  = dcfab_reps_new_flat(16, 86, 500, 1, 7, 1'b1);
    h2 = dcfab_reps_new_flat(16, 86, 500, 1, 7, 1'b1);
    if (h == null || h2 == null) fail_now($sformatf("dcfab_reps_new_flat: %s", dcfab_last_error()));
  end

  always @(posedge clk) begin
    if (!done) begin
      bit [31:0] r, r2;
      bit [192:0] w, w2, wb;
      bit c1, c2, x1, x2, f1, f2, valid, is_empty, frz;
      int unsigned s1, s2, ev1, ev2, ch1, ch2, sl1, sl2;
      int unsigned ec, efm, hd, nv, cev, uses, pop;
      bit [2:0] old_head;
      bit acked, sent;

      r = lfsr32_draw(lfsr);
      r2 = lfsr32_draw(r);
      lfsr = r2;
      check(dcfab_reps_get_word193(h, w), "dcfab_reps_get_word193");
      old_head = w[138:136];

      // ---- this cycle's events, to both connections ---------------------------------
      acked = 0; sent = 0; c1 = 0; sl2 = DCFAB_REPS_NO_SLOT; ch1 = 0; sl1 = 0;
      if (r[1:0] == 2'd0) begin
        check(dcfab_reps_on_ack(h, {16'h0, r[31:16]}, r[4:2] == 3'd0, c1, s1, x1), "dcfab_reps_on_ack");
        check(dcfab_reps_on_ack(h2, {16'h0, r[31:16]}, r[4:2] == 3'd0, c2, s2, x2), "dcfab_reps_on_ack");
        cmp("ack cached (migrated copy)", 64'(c2), 64'(c1));
        cmp("ack slot (migrated copy)", 64'(s2), 64'(s1));
        cmp("ack exited_freezing (migrated copy)", 64'(x2), 64'(x1));
        acked = 1;
        if (x1) n_thaws++;
      end
      if (r[15:8] == 8'd0) begin
        check(dcfab_reps_on_failure(h, f1), "dcfab_reps_on_failure");
        check(dcfab_reps_on_failure(h2, f2), "dcfab_reps_on_failure");
        cmp("failure froze (migrated copy)", 64'(f2), 64'(f1));
      end
      if (r[6:5] == 2'd0) begin
        check(dcfab_reps_on_send_with(h, r2, ev1, ch1, sl1), "dcfab_reps_on_send_with");
        check(dcfab_reps_on_send_with(h2, r2, ev2, ch2, sl2), "dcfab_reps_on_send_with");
        cmp("send ev (migrated copy)", 64'(ev2), 64'(ev1));
        cmp("send choice (migrated copy)", 64'(ch2), 64'(ch1));
        cmp("send slot (migrated copy)", 64'(sl2), 64'(sl1));
        sent = 1;
        if (ch1 == DCFAB_REPS_RECYCLE) n_recycled++;
        if (ch1 == DCFAB_REPS_FROZEN) n_frozen++;
        if (ch1 == DCFAB_REPS_EXPLORE) n_explore++;
      end
      // +inject_at: skip the first connection's clock edge once (its `now` then lags).
      if (cycles != inject_at) check(dcfab_reps_tick(h), "dcfab_reps_tick");
      check(dcfab_reps_tick(h2), "dcfab_reps_tick");

      // ---- the word, field by field ------------------------------------------------------
      check(dcfab_reps_get_word193(h, w), "dcfab_reps_get_word193");
      check(dcfab_reps_fields(h, ec, frz, efm, hd, nv, is_empty), "dcfab_reps_fields");
      cmp("exploreCounter w[191:184]", 64'(w[191:184]), 64'(ec));
      cmp("isFreezingMode w[192]", 64'(w[192]), 64'(frz));
      cmp("exitFreezingMode w[183:152]", 64'(w[183:152]), 64'(efm));
      cmp("head w[138:136]", 64'(w[138:136]), 64'(hd));
      cmp("reserved w[142:139]", 64'(w[142:139]), 64'd0);
      cmp("notEmpty w[143]", 64'(w[143]), 64'(!is_empty));
      cmp("numberOfValidEVs w[151:144]", 64'(w[151:144]), 64'(nv));
      pop = 0;
      for (int k = 0; k < 8; k++) begin
        check(dcfab_reps_slot(h, k, cev, valid, uses), "dcfab_reps_slot");
        cmp($sformatf("cachedEV[%0d] w[%0d +: 16]", k, 16 * k), 64'(w[16 * k +: 16]), 64'(cev));
        cmp($sformatf("isValid[%0d] w[%0d]", k, 128 + k), 64'(w[128 + k]), 64'(valid));
        cmp($sformatf("uses_left[%0d] (reuse 1: = isValid)", k), 64'(uses), 64'(w[128 + k]));
        pop += int'(w[128 + k]);
        // The valid entries are the numberOfValidEVs slots just before head.
        cmp($sformatf("isValid[%0d] inside the valid window", k), 64'(w[128 + k]),
            64'(((3'(w[138:136]) - 3'(k) - 3'd1) & 3'h7) < 3'(w[151:144]) || w[151:144] == 8'd8));
      end
      cmp("popcount(isValid)", 64'(pop), 64'(w[151:144]));
      if (w[151:144] > 8) cmp("numberOfValidEVs <= 8", 64'(w[151:144]), 64'd8);
      if (acked && c1) begin
        cmp("ACK slot = old head", 64'(s1), 64'(old_head));
        cmp("ACK EV cached at old head", 64'(w[16 * int'(old_head) +: 16]), 64'(r[31:16]));
        if (!(sent && ch1 == DCFAB_REPS_RECYCLE && sl1 == 32'(old_head)))
          cmp("ACK set isValid at old head", 64'(w[128 + int'(old_head)]), 64'd1);
        if (!sent) cmp("ACK moved head", 64'(w[138:136]), 64'(3'(old_head + 3'd1)));
      end
      if (sent && ch1 == DCFAB_REPS_RECYCLE)
        cmp("recycled slot cleared", 64'(w[128 + sl1]), 64'd0);

      // ---- the migrated copy holds the identical word ------------------------------
      check(dcfab_reps_get_word193(h2, w2), "dcfab_reps_get_word193");
      if (!done && w2 != w) begin
        mismatches = mismatches + 1;
        fail_now($sformatf("MISMATCH at cycle %0d, migrated word: %h vs %h", cycles, w2, w));
      end
      if (!done && cycles % 4096 == 0) begin
        // A malformed word is refused and changes nothing; the real one is accepted.
        wb = w;
        wb[139] = 1'b1;
        cmp("set_word193(reserved bit set) status", 64'(dcfab_reps_set_word193(h2, wb)),
            64'(DCFAB_ERR_ARG));
        check(dcfab_reps_get_word193(h2, w2), "dcfab_reps_get_word193");
        if (!done && w2 != w) fail_now("a refused word changed the state");
        check(dcfab_reps_set_word193(h2, w), "dcfab_reps_set_word193");
        n_migrations++;
      end

      if (!done) begin
        cycles = cycles + 1;
        if (cycles >= target) begin
          done = 1;
          $display("tb_reps: sends recycled=%0d frozen=%0d explore=%0d, thaws=%0d, migrations=%0d",
                   n_recycled, n_frozen, n_explore, n_thaws, n_migrations);
          if (cycles >= 100000 && (n_recycled == 0 || n_frozen == 0 || n_explore == 0 || n_thaws == 0))
            fail_now("the stimulus missed a REPS branch (recycle, frozen, explore or thaw)");
        end
      end
    end
  end

  final begin
    if (h != null) void'(dcfab_reps_free(h));
    if (h2 != null) void'(dcfab_reps_free(h2));
  end
endmodule
