// tb_token_bucket - RTL dcfab_token_bucket vs the Rust model (DPI-C), same LFSR stimulus,
// every output compared every cycle; stops at the first mismatch with its cycle number.
//
// Three buckets run side by side: a slow pacer (0.3 tokens/cycle, depth 3, full), a fast
// one (2.5 tokens/cycle, depth 7, empty) and a saturating one (rate ~2^32, depth 2^32-1).
// Per cycle and bucket: take_valid with probability 1/2, take_n in 0..3, and 1 time in 16
// a large n (up to 2^24). Plusargs: +cycles=N (default 1000000), +seed=S,
// +inject_at=N (skip one model tick in cycle N: the run must then fail, a self-test).
/* verilator lint_off BLKSEQ */  // testbench bookkeeping is blocking on purpose
module tb_token_bucket (
  input  bit              clk,
  output bit              done,
  output bit              failed,
  output longint unsigned cycles,
  output int unsigned     mismatches
);
  import dcfab_dpi::*;
  `include "lfsr.svh"

  localparam int NB = 3;
  localparam bit [63:0] RATE  [NB] = '{64'h0000_0000_4CCC_CCCC, 64'h0000_0002_8000_0000,
                                       64'hFFFF_FFFF_FFFF_FFFF};
  localparam bit [31:0] DEPTH [NB] = '{32'd3, 32'd7, 32'hFFFF_FFFF};
  localparam bit        FULL  [NB] = '{1'b1, 1'b0, 1'b1};

  longint unsigned target = 64'd1000000;
  longint unsigned inject_at = ~64'd0;
  bit [31:0] seed = 32'h0000_ACE1;
  bit [31:0] lfsr;
  bit        rst_n = 1'b0;
  chandle    h [NB];

  logic        take_valid [NB] = '{default: 1'b0};
  logic [31:0] take_n     [NB] = '{default: 32'h0};
  logic        rtl_granted [NB];
  logic [63:0] rtl_tokens  [NB];

  for (genvar i = 0; i < NB; i++) begin : g_dut
    dcfab_token_bucket dut (
      .clk, .rst_n,
      .cfg_rate_q32(RATE[i]), .cfg_depth(DEPTH[i]), .cfg_start_full(FULL[i]),
      .take_valid(take_valid[i]), .take_n(take_n[i]),
      .granted(rtl_granted[i]), .tokens_q32(rtl_tokens[i])
    );
  end

  initial begin
    void'($value$plusargs("cycles=%d", target));
    void'($value$plusargs("seed=%d", seed));
    void'($value$plusargs("inject_at=%d", inject_at));
    lfsr = (seed == 0) ? 32'd1 : seed;
    if (dcfab_abi_version() != DCFAB_ABI_VERSION) begin
      $display("tb_token_bucket: ABI version %0d, package expects %0d",
               dcfab_abi_version(), DCFAB_ABI_VERSION);
      failed = 1; done = 1;
    end
    for (int i = 0; i < NB; i++) begin
      h[i] = dcfab_tb_new_flat(RATE[i], DEPTH[i], FULL[i]);
      if (h[i] == null) begin
        $display("tb_token_bucket: dcfab_tb_new_flat: %s", dcfab_last_error());
        failed = 1; done = 1;
      end
    end
  end

  task automatic check(input int st, input string what);
    if (st != DCFAB_OK) begin
      $display("tb_token_bucket: cycle %0d: %s returned %s: %s", cycles, what,
               dcfab_status_name(st), dcfab_last_error());
      failed = 1; done = 1;
    end
  endtask

  task automatic mismatch(input int i, input string what, input longint unsigned rtl,
                          input longint unsigned model);
    $display("tb_token_bucket: MISMATCH at cycle %0d, bucket %0d, %s: rtl=%0d model=%0d",
             cycles, i, what, rtl, model);
    mismatches = mismatches + 1;
    failed = 1; done = 1;
  endtask

  always @(posedge clk) begin
    if (!done) begin
      if (!rst_n) begin
        rst_n <= 1'b1;  // the reset edge: RTL loads its reset value, the model starts there
      end else begin
        for (int i = 0; i < NB && !done; i++) begin
          longint unsigned q;
          bit g;
          check(dcfab_tb_tokens_q32(h[i], q), "dcfab_tb_tokens_q32");
          if (!done && q != rtl_tokens[i]) mismatch(i, "tokens_q32", rtl_tokens[i], q);
          g = 0;
          if (!done && take_valid[i]) check(dcfab_tb_try_take(h[i], take_n[i], g), "dcfab_tb_try_take");
          if (!done && g != rtl_granted[i]) mismatch(i, "granted", 64'(rtl_granted[i]), 64'(g));
          // +inject_at=N: skip the model's clock edge in cycle N (self-test of the checker).
          if (!done && cycles != inject_at) check(dcfab_tb_tick(h[i]), "dcfab_tb_tick");
        end
        if (!done) begin
          cycles = cycles + 1;
          if (cycles >= target) done = 1;
        end
      end
      // Next cycle's stimulus, one LFSR draw per bucket.
      for (int i = 0; i < NB; i++) begin
        bit [31:0] r;
        r = lfsr32_draw(lfsr);
        lfsr = r;
        take_valid[i] <= r[0];
        take_n[i]     <= (r[7:4] == 4'h0) ? {8'h0, r[31:8]} : {30'h0, r[3:2]};
      end
    end
  end

  final begin
    for (int i = 0; i < NB; i++) if (h[i] != null) void'(dcfab_tb_free(h[i]));
  end
endmodule
