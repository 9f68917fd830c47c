// dcfab_token_bucket - synthesizable token bucket, bit-exact with rtl_models::TokenBucket.
//
//            cfg_rate_q32 (tokens/cycle, Q32.32)
//                 |
//            +----v-----+   take_valid, take_n  -> granted (combinational)
//            | tokens_q |   grant: tokens_q >= take_n << 32
//            | <= depth |   edge:  tokens_q <= min(sat(tokens_q - taken + rate), depth << 32)
//            +----------+
//
// Units: tokens; the fill level tokens_q32 is Q32.32 tokens (64 flops, the model's
// StateBudget); the rate is Q32.32 tokens per cycle. Reset (synchronous, active low)
// loads depth << 32 when cfg_start_full, else 0. Configuration inputs are static.
module dcfab_token_bucket (
  input  logic        clk,
  input  logic        rst_n,
  input  logic [63:0] cfg_rate_q32,
  input  logic [31:0] cfg_depth,
  input  logic        cfg_start_full,
  input  logic        take_valid,
  input  logic [31:0] take_n,
  output logic        granted,
  output logic [63:0] tokens_q32
);
  logic [63:0] need_q, depth_q, after_take, sat_sum, next_q;
  logic [64:0] sum;

  assign need_q     = {take_n, 32'h0};
  assign depth_q    = {cfg_depth, 32'h0};
  assign granted    = take_valid && (tokens_q32 >= need_q);
  assign after_take = granted ? tokens_q32 - need_q : tokens_q32;
  assign sum        = {1'b0, after_take} + {1'b0, cfg_rate_q32};
  assign sat_sum    = sum[64] ? 64'hFFFF_FFFF_FFFF_FFFF : sum[63:0];
  assign next_q     = (sat_sum > depth_q) ? depth_q : sat_sum;

  always_ff @(posedge clk) begin
    if (!rst_n) tokens_q32 <= cfg_start_full ? depth_q : 64'h0;
    else        tokens_q32 <= next_q;
  end
endmodule
