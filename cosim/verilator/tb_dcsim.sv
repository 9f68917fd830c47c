// tb_dcsim - RTL dcfab_dcsim_arbiter vs the Rust DCSIM arbiter model (DPI-C), same LFSR
// stimulus, every output compared every cycle; stops at the first mismatch with its cycle.
//
// Two ports run side by side: the paper's (W = 64 B, l = 64 B, L = 9000 B, h = 2.1, depth 2,
// B = 12, 500 KB) and a small one (L = 1500 B, h = 1, B = 4, DATA buffer of exactly 13 DATAs, so a full buffer is reached exactly).
// Per cycle and port: arrivals of each class with a load that changes every 8192 cycles
// (light, medium, overload, none), 64-byte small packets with occasional odd sizes, DATAs
// of L bytes or random sizes, and now and then a malformed (huge) packet.
// Compared every cycle: each enqueue result, the started packet (valid, class, descriptor,
// bytes, cycles) and every control register (tokens, busy, four occupancies, DATA bytes,
// drop counters). Plusargs: +cycles=N (default 1000000), +seed=S,
// +inject_at=N (skip one model tick in cycle N: the run must then fail, a self-test).
/* verilator lint_off BLKSEQ */  // testbench bookkeeping is blocking on purpose
module tb_dcsim (
  input  bit              clk,
  output bit              done,
  output bit              failed,
  output longint unsigned cycles,
  output int unsigned     mismatches
);
  import dcfab_dpi::*;
  `include "lfsr.svh"

  localparam int NP = 2;
  localparam string CLASS_NAME [4] = '{"sim", "sim_ack", "data_ack", "data"};
  localparam int unsigned L      [NP] = '{9000, 1500};
  localparam int unsigned H      [NP] = '{2100, 1000};
  localparam int unsigned BQ     [NP] = '{12, 4};
  localparam longint unsigned BUF[NP] = '{500000, 3 * 4 * 64 + 13 * 1500};  // port 1: exactly 13 DATAs
  localparam longint unsigned PS [NP] = '{640, 1000};

  longint unsigned target = 64'd1000000;
  longint unsigned inject_at = ~64'd0;
  bit [31:0] seed = 32'h0000_ACE1;
  bit [31:0] lfsr;
  bit        rst_n = 1'b0;
  chandle    h [NP];
  longint unsigned rate [NP];
  int unsigned desc_ctr [NP];

  logic [3:0]  enq_valid [NP] = '{default: 4'h0};
  logic [31:0] enq_desc  [NP][4];
  logic [31:0] enq_bytes [NP][4];
  logic [1:0]  r_result  [NP][4];
  logic        r_valid   [NP];
  logic [1:0]  r_class   [NP];
  logic [31:0] r_desc    [NP], r_bytes [NP];
  logic [15:0] r_cycles  [NP];
  logic [63:0] r_tokens  [NP];
  logic [15:0] r_busy    [NP];
  logic [3:0]  r_small   [NP][3];
  logic [15:0] r_dlen    [NP];
  logic [23:0] r_dbytes  [NP];
  logic [31:0] r_sdrops  [NP], r_ddrops [NP];

  for (genvar p = 0; p < NP; p++) begin : g_dut
    dcfab_dcsim_arbiter #(.B(12), .ND(64), .LOG2_W(6)) dut (
      .clk, .rst_n,
      .cfg_small_queue_pkts(4'(BQ[p])),
      .cfg_data_buffer_bytes(24'(BUF[p] - 3 * BQ[p] * 64)),
      .cfg_token_rate_q32(rate[p]), .cfg_bucket_depth(32'd2),
      .enq_valid(enq_valid[p]), .enq_desc(enq_desc[p]), .enq_bytes(enq_bytes[p]),
      .enq_result(r_result[p]),
      .start_valid(r_valid[p]), .start_class(r_class[p]), .start_desc(r_desc[p]),
      .start_bytes(r_bytes[p]), .start_cycles(r_cycles[p]),
      .tokens_q32(r_tokens[p]), .busy_remaining(r_busy[p]), .small_len(r_small[p]),
      .data_len(r_dlen[p]), .data_bytes(r_dbytes[p]),
      .sim_drops(r_sdrops[p]), .data_drops(r_ddrops[p])
    );
  end

  task automatic fail_now(input string msg);
    $display("tb_dcsim: %s", msg);
    failed = 1; done = 1;
  endtask

  task automatic check(input int st, input string what);
    if (st != DCFAB_OK)
      fail_now($sformatf("cycle %0d: %s returned %s: %s", cycles, what,
                         dcfab_status_name(st), dcfab_last_error()));
  endtask

  task automatic cmp(input int p, input string what, input longint unsigned rtl,
                     input longint unsigned model);
    if (!done && rtl != model) begin
      mismatches = mismatches + 1;
      fail_now($sformatf("MISMATCH at cycle %0d, port %0d, %s: rtl=%0d model=%0d",
                         cycles, p, what, rtl, model));
    end
  endtask

  // At the end: print what the stimulus exercised, and fail a long run that missed any of
  // departures of every class, drops (full queues) and rejections (malformed packets).
  task automatic coverage();
    for (int p = 0; p < NP; p++) begin
      longint unsigned a [4], d [4], r [4], g [4];
      string line = "";
      for (int c = 0; c < 4; c++) begin
        check(dcfab_dcsim_counts(h[p], c, a[c], d[c], r[c], g[c]), "dcfab_dcsim_counts");
        line = {line, $sformatf(" %s=%0d/%0d/%0d/%0d", CLASS_NAME[c], a[c], d[c], r[c], g[c])};
      end
      $display("tb_dcsim: port %0d accepted/dropped/rejected/departed:%s", p, line);
      if (cycles >= 100000)
        for (int c = 0; c < 4; c++)
          if (g[c] == 0 || d[c] == 0 || r[c] == 0)
            fail_now($sformatf("port %0d: stimulus left class %s without departures, drops or rejections",
                               p, CLASS_NAME[c]));
    end
  endtask

  initial begin
    void'($value$plusargs("cycles=%d", target));
    void'($value$plusargs("seed=%d", seed));
    void'($value$plusargs("inject_at=%d", inject_at));
    lfsr = (seed == 0) ? 32'd1 : seed;
    for (int p = 0; p < NP; p++) begin
      longint unsigned now;
      bit busy;
      h[p] = dcfab_dcsim_new_flat(64, 64, L[p], H[p], 2, BQ[p], PS[p], BUF[p]);
      if (h[p] == null) fail_now($sformatf("dcfab_dcsim_new_flat: %s", dcfab_last_error()));
      else begin
        check(dcfab_dcsim_status(h[p], now, busy, rate[p]), "dcfab_dcsim_status");
        if (now != 0 || busy) fail_now("a new port must be idle at cycle 0");
      end
      desc_ctr[p] = 0;
      for (int c = 0; c < 4; c++) begin
        enq_desc[p][c] = 0;
        enq_bytes[p][c] = 0;
      end
    end
  end

  always @(posedge clk) begin
    if (!done) begin
      if (!rst_n) begin
        rst_n <= 1'b1;
      end else begin
        for (int p = 0; p < NP && !done; p++) begin
          longint unsigned tq;
          int unsigned busy, sl, sal, dal, dl, db, sd, dd, res, cls, dsc, byt, cyc;
          bit v;
          // 1. registers at the start of the cycle
          check(dcfab_dcsim_regs(h[p], tq, busy, sl, sal, dal, dl, db, sd, dd), "dcfab_dcsim_regs");
          cmp(p, "tokens_q32", r_tokens[p], tq);
          cmp(p, "busy_remaining", 64'(r_busy[p]), 64'(busy));
          cmp(p, "sim_len", 64'(r_small[p][0]), 64'(sl));
          cmp(p, "sim_ack_len", 64'(r_small[p][1]), 64'(sal));
          cmp(p, "data_ack_len", 64'(r_small[p][2]), 64'(dal));
          cmp(p, "data_len", 64'(r_dlen[p]), 64'(dl));
          cmp(p, "data_bytes", 64'(r_dbytes[p]), 64'(db));
          cmp(p, "sim_drops", 64'(r_sdrops[p]), 64'(sd));
          cmp(p, "data_drops", 64'(r_ddrops[p]), 64'(dd));
          // 2. this cycle's arrivals
          for (int c = 0; c < 4 && !done; c++) begin
            if (enq_valid[p][c]) begin
              check(dcfab_dcsim_enqueue(h[p], c, enq_desc[p][c], enq_bytes[p][c], res),
                    "dcfab_dcsim_enqueue");
              cmp(p, $sformatf("enqueue result of class %0d", c), 64'(r_result[p][c]), 64'(res));
            end
          end
          // 3. the clock edge and the packet it started
          // +inject_at=N: skip the model's clock edge in cycle N (self-test of the checker).
          if (!done && cycles != inject_at) check(dcfab_dcsim_tick(h[p]), "dcfab_dcsim_tick");
          if (!done) check(dcfab_dcsim_last_started(h[p], v, cls, dsc, byt, cyc),
                           "dcfab_dcsim_last_started");
          cmp(p, "start_valid", 64'(r_valid[p]), 64'(v));
          if (v) begin
            cmp(p, "start_class", 64'(r_class[p]), 64'(cls));
            cmp(p, "start_desc", 64'(r_desc[p]), 64'(dsc));
            cmp(p, "start_bytes", 64'(r_bytes[p]), 64'(byt));
            cmp(p, "start_cycles", 64'(r_cycles[p]), 64'(cyc));
          end
        end
        if (!done) begin
          cycles = cycles + 1;
          if (cycles >= target) begin
            done = 1;
            coverage();
          end
        end
      end
      // Next cycle's arrivals: two LFSR draws per port.
      for (int p = 0; p < NP; p++) begin
        bit [31:0] r1, r2;
        bit [1:0] phase;
        bit [3:0] thr_s;
        bit [5:0] thr_d;
        bit [31:0] small_sz;
        r1 = lfsr32_draw(lfsr);
        r2 = lfsr32_draw(r1);
        lfsr = r2;
        phase = 2'(cycles >> 13);
        thr_s = (phase == 0) ? 4'd1 : (phase == 1) ? 4'd2 : (phase == 2) ? 4'd4 : 4'd0;
        thr_d = (phase == 0) ? 6'd1 : (phase == 1) ? 6'd2 : (phase == 2) ? 6'd4 : 6'd0;
        small_sz = (r1[15:12] == 4'h0) ? {20'h0, r1[31:20]} : 32'd64;
        enq_valid[p] <= {r2[5:0] < thr_d,
                         r1[11:8] < thr_s && r1[16],
                         r1[7:4] < thr_s && r1[17],
                         r1[3:0] < thr_s};
        for (int c = 0; c < 3; c++) begin
          enq_desc[p][c] <= desc_ctr[p] + c;
          enq_bytes[p][c] <= (r2[31:24] == 8'h0) ? r1 : small_sz;  // rare huge: rejected
        end
        enq_desc[p][3] <= desc_ctr[p] + 3;
        enq_bytes[p][3] <= (r2[9:6] == 4'h0) ? ((r2[10]) ? r1 : {20'h0, r1[11:0]})
                                             : L[p];
        desc_ctr[p] = desc_ctr[p] + 4;
      end
    end
  end

  final begin
    for (int p = 0; p < NP; p++) if (h[p] != null) void'(dcfab_dcsim_free(h[p]));
  end
endmodule
