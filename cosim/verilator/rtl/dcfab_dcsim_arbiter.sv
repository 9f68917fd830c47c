// dcfab_dcsim_arbiter - synthesizable DCSIM output-port arbiter (DCSIM section 2.3, Fig. 1,
// Eq. 2, Theorem 3), bit-exact with switch::dcsim::DcsimArbiter<u32, B, ND>.
//
//   enq[SIM]      --> [ SIM      <= cfg_small_queue_pkts ]--(token?)--+
//   enq[SIM_ACK]  --> [ SIM-ACK  <= cfg_small_queue_pkts ]------------+ strict priority,
//   enq[DATA_ACK] --> [ DATA-ACK <= cfg_small_queue_pkts ]------------+ non-preemptive: decides
//   enq[DATA]     --> [ DATA <= ND descs, <= cfg_data_buffer_bytes ]--+ only when the line is
//                                                                        free -> start_*
//   SIM token bucket (dcfab_token_bucket): rate cfg_token_rate_q32, depth cfg_bucket_depth.
//
// One cycle: this cycle's arrivals (at most one per class) are accepted against the queue
// state at the start of the cycle; an idle line may start one of them in the same cycle
// (bypass). Arbitration: SIM if queued and >= 1 token, else SIM-ACK, else DATA-ACK, else DATA.
// A packet of s bytes holds the line max(1, ceil(s / W)) cycles, W = 2^LOG2_W bytes/cycle;
// a packet needing more than 65535 cycles is rejected (enq_result 2), a full queue or DATA
// buffer drops it (enq_result 1, SIM and DATA drops counted, saturating). Bytes leave the
// DATA buffer when transmission starts. The bucket starts full. Units: bytes, cycles,
// Q32.32 tokens. Configuration inputs are static.
module dcfab_dcsim_arbiter #(
  parameter int B      = 12,  // small-queue slots
  parameter int ND     = 64,  // DATA descriptor slots
  parameter int LOG2_W = 6    // datapath width 2^LOG2_W bytes per cycle
) (
  input  logic        clk,
  input  logic        rst_n,
  input  logic [3:0]  cfg_small_queue_pkts,
  input  logic [23:0] cfg_data_buffer_bytes,
  input  logic [63:0] cfg_token_rate_q32,
  input  logic [31:0] cfg_bucket_depth,
  input  logic [3:0]  enq_valid,
  input  logic [31:0] enq_desc   [4],
  input  logic [31:0] enq_bytes  [4],
  output logic [1:0]  enq_result [4],
  output logic        start_valid,
  output logic [1:0]  start_class,
  output logic [31:0] start_desc,
  output logic [31:0] start_bytes,
  output logic [15:0] start_cycles,
  output logic [63:0] tokens_q32,
  output logic [15:0] busy_remaining,
  output logic [3:0]  small_len [3],
  output logic [15:0] data_len,
  output logic [23:0] data_bytes,
  output logic [31:0] sim_drops,
  output logic [31:0] data_drops
);
  localparam int SB = $clog2(B);
  localparam int DB = $clog2(ND);

  // ---- storage -----------------------------------------------------------------------
  logic [63:0]   s_mem [3][B];   // {desc, bytes}
  logic [SB-1:0] s_head [3], s_tail [3];
  logic [63:0]   d_mem [ND];
  logic [DB-1:0] d_head, d_tail;

  // ---- line occupancy of each arrival ------------------------------------------------
  logic [32:0] cyc [4];
  logic [3:0]  rej, acc;
  always_comb begin
    for (int c = 0; c < 4; c++) begin
      cyc[c] = ({1'b0, enq_bytes[c]} + 33'((1 << LOG2_W) - 1)) >> LOG2_W;
      if (cyc[c] == 0) cyc[c] = 33'd1;
      rej[c] = enq_valid[c] && (cyc[c] > 33'd65535);
    end
    for (int c = 0; c < 3; c++)
      acc[c] = enq_valid[c] && !rej[c] && (small_len[c] < cfg_small_queue_pkts);
    acc[3] = enq_valid[3] && !rej[3] && (data_len < 16'(ND)) &&
             ({9'h0, data_bytes} + {1'b0, enq_bytes[3]} <= {9'h0, cfg_data_buffer_bytes});
    for (int c = 0; c < 4; c++)
      enq_result[c] = rej[c] ? 2'd2 : (acc[c] || !enq_valid[c]) ? 2'd0 : 2'd1;
  end

  // ---- effective heads (queued, or this cycle's arrival when the queue is empty) ------
  logic [3:0]  nonempty;
  logic [63:0] head [4];
  always_comb begin
    for (int c = 0; c < 3; c++) begin
      nonempty[c] = (small_len[c] != 0) || acc[c];
      head[c] = (small_len[c] != 0) ? s_mem[c][s_head[c]] : {enq_desc[c], enq_bytes[c]};
    end
    nonempty[3] = (data_len != 0) || acc[3];
    head[3] = (data_len != 0) ? d_mem[d_head] : {enq_desc[3], enq_bytes[3]};
  end

  // ---- arbitration (only when the line is free; no preemption) ------------------------
  logic token, line_free;
  logic [32:0] head_cyc;
  assign token     = tokens_q32 >= 64'h1_0000_0000;
  assign line_free = busy_remaining == 16'd0;
  always_comb begin
    start_valid = 1'b0;
    start_class = 2'd0;
    if (line_free) begin
      if (token && nonempty[0])  begin start_valid = 1'b1; start_class = 2'd0; end
      else if (nonempty[1])      begin start_valid = 1'b1; start_class = 2'd1; end
      else if (nonempty[2])      begin start_valid = 1'b1; start_class = 2'd2; end
      else if (nonempty[3])      begin start_valid = 1'b1; start_class = 2'd3; end
    end
    start_desc  = start_valid ? head[start_class][63:32] : 32'h0;
    start_bytes = start_valid ? head[start_class][31:0]  : 32'h0;
    head_cyc = ({1'b0, start_bytes} + 33'((1 << LOG2_W) - 1)) >> LOG2_W;
    if (head_cyc == 0) head_cyc = 33'd1;
    start_cycles = start_valid ? head_cyc[15:0] : 16'h0;
  end

  // ---- SIM token bucket -------------------------------------------------------------------
  // `granted` equals start_valid && start_class == SIM by construction (token checked).
  /* verilator lint_off UNUSEDSIGNAL */
  logic sim_granted;
  /* verilator lint_on UNUSEDSIGNAL */
  dcfab_token_bucket bucket (
    .clk, .rst_n,
    .cfg_rate_q32(cfg_token_rate_q32), .cfg_depth(cfg_bucket_depth), .cfg_start_full(1'b1),
    .take_valid(start_valid && start_class == 2'd0), .take_n(32'd1),
    .granted(sim_granted), .tokens_q32(tokens_q32)
  );

  // ---- update ---------------------------------------------------------------------------
  logic [3:0] pop;
  always_comb for (int c = 0; c < 4; c++) pop[c] = start_valid && start_class == 2'(c);

  function automatic logic [SB-1:0] s_next(input logic [SB-1:0] p);
    return (p == SB'(B - 1)) ? '0 : p + 1'b1;
  endfunction
  function automatic logic [DB-1:0] d_next(input logic [DB-1:0] p);
    return (p == DB'(ND - 1)) ? '0 : p + 1'b1;
  endfunction

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      for (int c = 0; c < 3; c++) begin
        s_head[c] <= '0; s_tail[c] <= '0; small_len[c] <= '0;
      end
      d_head <= '0; d_tail <= '0; data_len <= '0; data_bytes <= '0;
      busy_remaining <= '0; sim_drops <= '0; data_drops <= '0;
    end else begin
      for (int c = 0; c < 3; c++) begin
        if (acc[c]) begin
          s_mem[c][s_tail[c]] <= {enq_desc[c], enq_bytes[c]};
          s_tail[c] <= s_next(s_tail[c]);
        end
        if (pop[c]) s_head[c] <= s_next(s_head[c]);
        small_len[c] <= small_len[c] + 4'(acc[c]) - 4'(pop[c]);
      end
      if (acc[3]) begin
        d_mem[d_tail] <= {enq_desc[3], enq_bytes[3]};
        d_tail <= d_next(d_tail);
      end
      if (pop[3]) d_head <= d_next(d_head);
      data_len <= data_len + 16'(acc[3]) - 16'(pop[3]);
      data_bytes <= data_bytes + (acc[3] ? enq_bytes[3][23:0] : 24'h0)
                               - (pop[3] ? head[3][23:0] : 24'h0);
      if (start_valid)             busy_remaining <= start_cycles - 16'd1;
      else if (busy_remaining != 0) busy_remaining <= busy_remaining - 16'd1;
      if (enq_valid[0] && enq_result[0] == 2'd1 && sim_drops != 32'hFFFF_FFFF)
        sim_drops <= sim_drops + 32'd1;
      if (enq_valid[3] && enq_result[3] == 2'd1 && data_drops != 32'hFFFF_FFFF)
        data_drops <= data_drops + 32'd1;
    end
  end
endmodule
