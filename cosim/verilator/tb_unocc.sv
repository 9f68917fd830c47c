// tb_unocc - RTL dcfab_unocc vs the Rust UnoCC model (DPI-C, dcfab_unocc_*), same LFSR
// stimulus, the whole 330-bit state word compared every cycle; stops at the first mismatch.
//
// One intra-DC flow (Uno Table 2: 100 Gb/s at 1 GHz, RTT 14 us, BDP 175 kB, K = BDP / 7).
// Per cycle at most one event, from one LFSR draw r: an ACK when r[9:0] < thr (thr by
// phase, cycles[17:16]: 12, 3, 1, 6, so ACK rates from ~1/85 to 1/1024 cycles; in phase 2
// only one draw in four may ACK, 1/4096, starving the QA window), ECN-marked when
// r[13:10] < {1, 4, 0, 0}[phase] (phases 0 and 3 let AI act), RTT = base, or in phase 1
// base + r[26:15] (queueing delay: full MD; phase 0's marks without delay give gentle MDs)
// by r[14], bytes 4096 or 64..3648 by r[27]; a NACK when r[9:0] == 1023 and r[31:26] == 0
// (1 in 65536), a timeout when r[9:0] == 1022 and r[31:24] == 0, a 4096-byte send when
// 900 <= r[9:0] < 916. Plusargs: +cycles=N (default 1000000), +seed=S, +inject_at=N (skip
// one model tick in cycle N: the run must then fail, a self-test).
/* verilator lint_off BLKSEQ */  // testbench bookkeeping is blocking on purpose
module tb_unocc (
  input  bit              clk,
  output bit              done,
  output bit              failed,
  output longint unsigned cycles,
  output int unsigned     mismatches
);
  import dcfab_dpi::*;
  `include "lfsr.svh"

  localparam bit [31:0] MTU        = 32'd4096;
  localparam bit [63:0] BDP        = 64'd175000;
  localparam bit [63:0] RTT        = 64'd14000;
  localparam bit [63:0] LINE_Q32   = 64'd53687091200;
  localparam bit [9:0]  ACK_THR [4] = '{10'd12, 10'd3, 10'd1, 10'd6};
  localparam bit [3:0]  ECN_THR [4] = '{4'd1, 4'd4, 4'd0, 4'd0};

  longint unsigned target = 64'd1000000;
  longint unsigned inject_at = ~64'd0;
  bit [31:0] seed = 32'h0000_ACE1;
  bit [31:0] lfsr;
  bit        rst_n = 1'b0;
  chandle    h;
  longint unsigned acks, mds, gentles, qas;

  logic         ack_valid = 1'b0, ack_ecn = 1'b0, nack_valid = 1'b0;
  logic         timeout_valid = 1'b0, send_valid = 1'b0;
  logic [31:0]  ack_bytes = 32'h0, send_bytes = 32'h0;
  logic [63:0]  ack_rtt = 64'h0;
  logic [335:0] rtl_word;

  dcfab_unocc dut (
    .clk, .rst_n,
    .ack_valid, .ack_bytes, .ack_ecn, .ack_rtt,
    .nack_valid, .timeout_valid, .send_valid, .send_bytes,
    .word(rtl_word)
  );

  initial begin
    void'($value$plusargs("cycles=%d", target));
    void'($value$plusargs("seed=%d", seed));
    void'($value$plusargs("inject_at=%d", inject_at));
    lfsr = (seed == 0) ? 32'd1 : seed;
    if (dcfab_abi_version() != DCFAB_ABI_VERSION) begin
      $display("tb_unocc: ABI version %0d, package expects %0d", dcfab_abi_version(),
               DCFAB_ABI_VERSION);
      failed = 1; done = 1;
    end
    h = dcfab_unocc_new_uno(MTU, BDP, BDP, RTT, RTT, LINE_Q32);
    if (h == null) begin
      $display("tb_unocc: dcfab_unocc_new_uno: %s", dcfab_last_error());
      failed = 1; done = 1;
    end
  end

  task automatic check(input int st, input string what);
    if (st != DCFAB_OK) begin
      $display("tb_unocc: cycle %0d: %s returned %s: %s", cycles, what,
               dcfab_status_name(st), dcfab_last_error());
      failed = 1; done = 1;
    end
  endtask

  always @(posedge clk) begin
    if (!done) begin
      if (!rst_n) begin
        rst_n <= 1'b1;  // the reset edge: RTL loads its reset state, the model starts there
      end else begin
        bit [335:0] w;
        int unsigned flags;
        check(dcfab_unocc_get_word336(h, w), "dcfab_unocc_get_word336");
        if (!done && w != rtl_word) begin
          $display("tb_unocc: MISMATCH at cycle %0d: word rtl=%h model=%h", cycles, rtl_word, w);
          $display("tb_unocc:   cwnd_q8 rtl=%0d model=%0d", rtl_word[39:0], w[39:0]);
          mismatches = mismatches + 1;
          failed = 1; done = 1;
        end
        if (!done) begin
          if (ack_valid) begin
            check(dcfab_unocc_on_ack(h, ack_bytes, ack_ecn, ack_rtt, flags), "dcfab_unocc_on_ack");
            acks = acks + 1;
            if ((flags & DCFAB_UNOCC_MD) != 0) mds = mds + 1;
            if ((flags & DCFAB_UNOCC_GENTLE) != 0) gentles = gentles + 1;
            if ((flags & DCFAB_UNOCC_QA) != 0) qas = qas + 1;
          end else if (nack_valid) check(dcfab_unocc_on_nack(h), "dcfab_unocc_on_nack");
          else if (timeout_valid) check(dcfab_unocc_on_timeout(h), "dcfab_unocc_on_timeout");
          else if (send_valid) check(dcfab_unocc_on_send(h, send_bytes), "dcfab_unocc_on_send");
        end
        // +inject_at=N: skip the model's clock edge in cycle N (self-test of the checker).
        if (!done && cycles != inject_at) check(dcfab_unocc_tick(h), "dcfab_unocc_tick");
        if (!done) begin
          cycles = cycles + 1;
          if (cycles >= target) begin
            done = 1;
            $display("tb_unocc: %0d ACKs, %0d MDs (%0d gentle), %0d Quick Adapts", acks, mds,
                     gentles, qas);
          end
        end
      end
      begin
        bit [31:0] r;
        bit [1:0]  ph;
        r = lfsr32_draw(lfsr);
        lfsr = r;
        ph = cycles[17:16];
        ack_valid     <= r[9:0] < ACK_THR[ph] && (ph != 2'd2 || r[31:30] == 2'b00);
        ack_ecn       <= r[13:10] < ECN_THR[ph];
        ack_rtt       <= (r[14] && ph == 2'd1) ? RTT + {52'b0, r[26:15]} : RTT;
        ack_bytes     <= r[27] ? {20'b0, r[30:28], 9'b0} + 32'd64 : MTU;
        nack_valid    <= r[9:0] == 10'd1023 && r[31:26] == 6'd0;
        timeout_valid <= r[9:0] == 10'd1022 && r[31:24] == 8'd0;
        send_valid    <= r[9:0] >= 10'd900 && r[9:0] < 10'd916;
        send_bytes    <= MTU;
      end
    end
  end

  final begin
    if (h != null) void'(dcfab_unocc_free(h));
  end
endmodule
