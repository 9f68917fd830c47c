// dcfab_unocc - UnoCC flow engine (Uno Algorithm 1), bit-exact with nic::uno::UnoCc.
//
//   ack_valid/bytes/ecn/rtt --> AI (line 3) | epoch end (T_pkt = now - rtt >= T_epoch):
//   nack_valid, timeout_valid    E EWMA, gentle / full MD (lines 7-16) | QA (lines 18-22)
//   send_valid/bytes ---------> pacer: next_send = max(now, next_send) + ceil(bytes/rate)
//                                rate = min(cwnd / base_rtt, line)
//   word[335:0]: the packed state (layout of cosim/src/uno.rs), registered.
//
// At most one event per cycle (ack > nack > timeout > send). `now` counts cycles from the
// reset edge (the model's cycle 0). Fixed-point formats as in nic/src/uno/cc.rs: cwnd Q32.8
// bytes (40 bits), E / MD_scale / beta / gentle / MD gain Q1.15, 48-bit time stamps.
// The division and wide products are behavioural (a reference RTL for co-simulation, not
// a timing-closed implementation). Configuration parameters are static.
/* verilator lint_off BLKSEQ */
module dcfab_unocc #(
  parameter bit [31:0] MTU          = 32'd4096,
  parameter bit [63:0] ALPHA_Q8     = 64'd44800,   // 0.001 x 175 000 B, Q32.8
  parameter bit [31:0] BETA_Q15     = 32'd16384,   // 0.5
  parameter bit [31:0] GENTLE_Q15   = 32'd9830,    // 0.3
  parameter bit [31:0] MD_GAIN_Q15  = 32'd16384,   // 4K / (K + BDP), K = BDP / 7
  parameter int        EWMA_SHIFT   = 4,
  parameter bit [63:0] BASE_RTT     = 64'd14000,
  parameter bit [63:0] EPOCH_PERIOD = 64'd14000,
  parameter bit [63:0] DELAY_THRESH = 64'd0,
  parameter bit [63:0] INIT_CWND    = 64'd175000,
  parameter bit [63:0] MAX_CWND     = 64'd350000,
  parameter bit [63:0] LINE_Q32     = 64'd53687091200, // 12.5 B/cycle
  // The authors' simulator's epoch rule (nic::uno::UnoCcConfig::trend_ai / gentle_fixed):
  // a marked epoch with E falling (E_old > 0, E <= 0.9) is an AI by alpha * epoch bytes /
  // cwnd instead of an MD; MD_scale = GENTLE on a phantom-only epoch instead of *= GENTLE.
  parameter bit        TREND_AI     = 1'b0,
  parameter bit        GENTLE_FIXED = 1'b0
) (
  input  logic         clk,
  input  logic         rst_n,
  input  logic         ack_valid,
  input  logic [31:0]  ack_bytes,
  input  logic         ack_ecn,
  input  logic [63:0]  ack_rtt,
  input  logic         nack_valid,
  input  logic         timeout_valid,
  input  logic         send_valid,
  input  logic [31:0]  send_bytes,
  output logic [335:0] word
);
  localparam bit [63:0] T_MAX = 64'hFFFF_FFFF_FFFF;
  localparam bit [31:0] ONE = 32'd32768;

  logic [39:0] cwnd_q8;
  logic [15:0] md_scale, ewma, ep_acked, ep_marked;
  logic        started, ep_delay;
  logic [47:0] t_epoch, qa_end, hold_until, next_send;
  logic [31:0] qa_acked;
  logic [63:0] now;

  assign word = {6'b0, next_send, hold_until, qa_acked, qa_end, t_epoch, ep_delay, started,
                 ep_marked, ep_acked, ewma, md_scale, cwnd_q8};

  function automatic logic [47:0] stamp(input logic [63:0] t);
    return (t > T_MAX) ? T_MAX[47:0] : t[47:0];
  endfunction

  function automatic logic [39:0] clamp_cwnd(input logic [127:0] q8);
    logic [127:0] lo, hi;
    lo = {96'b0, MTU} << 8;
    hi = {64'b0, MAX_CWND} << 8;
    if (q8 < lo) return lo[39:0];
    if (q8 > hi) return hi[39:0];
    return q8[39:0];
  endfunction

  function automatic logic [15:0] sat16_inc(input logic [15:0] v);
    return (v == 16'hFFFF) ? v : v + 16'd1;
  endfunction

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      cwnd_q8    <= clamp_cwnd({64'b0, INIT_CWND} << 8);
      md_scale   <= ONE[15:0];
      ewma       <= 16'd0;
      ep_acked   <= 16'd0;
      ep_marked  <= 16'd0;
      started    <= 1'b0;
      ep_delay   <= 1'b0;
      t_epoch    <= 48'd0;
      qa_end     <= 48'd0;
      qa_acked   <= 32'd0;
      hold_until <= 48'd0;
      next_send  <= 48'd0;
      now        <= 64'd0;
    end else begin
      // Blocking working copies: the event's steps read each other's results in order.
      logic [39:0] c;
      logic [15:0] ms, e16, ea, em;
      logic        st, ed;
      logic [47:0] te, qe, hu, ns;
      logic [31:0] qa;
      c = cwnd_q8; ms = md_scale; e16 = ewma; ea = ep_acked; em = ep_marked;
      st = started; ed = ep_delay; te = t_epoch; qe = qa_end; hu = hold_until;
      ns = next_send; qa = qa_acked;
      if (ack_valid) begin
        logic [63:0] t_pkt, delay, qa_rtt;
        // 4.1.2 "once every RTT": QA's window and hold last the RTT this ACK measured,
        // at least the base RTT (nic::uno::UnoCc::qa_rtt).
        qa_rtt = (ack_rtt > BASE_RTT) ? ack_rtt : BASE_RTT;
        if (!st) begin
          st = 1'b1;
          te = stamp(now);
          qe = stamp(now + qa_rtt);
        end
        ea = sat16_inc(ea);
        if (ack_ecn) begin
          em = sat16_inc(em);
          delay = (ack_rtt > BASE_RTT) ? ack_rtt - BASE_RTT : 64'd0;
          if (delay > DELAY_THRESH) ed = 1'b1;
        end else begin
          logic [127:0] inc;
          inc = ({64'b0, ALPHA_Q8} * {96'b0, ack_bytes} * 128'd256) / {88'b0, c};
          c = clamp_cwnd({88'b0, c} + inc);
        end
        if (now >= {16'b0, hu}) begin
          logic [32:0] s;
          s  = {1'b0, qa} + {1'b0, ack_bytes};
          qa = s[32] ? 32'hFFFF_FFFF : s[31:0];
        end
        t_pkt = (now > ack_rtt) ? now - ack_rtt : 64'd0;
        if (t_pkt >= {16'b0, te}) begin
          // ONEPOCH
          logic [31:0] acked, marked, frac;
          int signed   e, e_old;
          logic [63:0] nxt;
          logic        draining;
          acked  = (ea == 16'd0) ? 32'd1 : {16'b0, ea};
          marked = {16'b0, em};
          frac   = ((marked < acked ? marked : acked) * ONE) / acked;
          e_old  = $signed({16'b0, e16});
          e      = e_old + (($signed(frac) - e_old) >>> EWMA_SHIFT);
          if (e < 0) e = 0;
          if (e > $signed(ONE)) e = $signed(ONE);
          e16    = e[15:0];
          draining = TREND_AI && e_old > 0 && e < e_old && e <= 29491;
          if (marked != 32'd0 && now >= {16'b0, hu} && draining) begin
            logic [127:0] inc;
            inc = ({64'b0, ALPHA_Q8} * ({96'b0, acked} * {96'b0, MTU}) * 128'd256) / {88'b0, c};
            c = clamp_cwnd({88'b0, c} + inc);
          end else if (marked != 32'd0 && now >= {16'b0, hu}) begin
            logic [63:0] md_ecn, red;
            logic [127:0] prod;
            if (!ed) ms = GENTLE_FIXED ? GENTLE_Q15[15:0] : 16'(({16'b0, ms} * GENTLE_Q15) >> 15);
            else     ms = ONE[15:0];
            md_ecn = ({48'b0, e16} * {32'b0, MD_GAIN_Q15}) >> 15;
            red    = (md_ecn * {48'b0, ms}) >> 15;
            if (red > {32'b0, ONE}) red = {32'b0, ONE};
            prod   = ({88'b0, c} * {64'b0, ({32'b0, ONE} - red)}) >> 15;
            c      = clamp_cwnd(prod);
          end
          ea = 16'd0; em = 16'd0; ed = 1'b0;
          nxt = {16'b0, te} + EPOCH_PERIOD;
          if (nxt <= t_pkt) nxt = t_pkt + EPOCH_PERIOD;
          te = stamp(nxt);
        end
        if (now >= {16'b0, qe}) begin
          // ONQA
          logic [63:0] cw;
          cw = {24'b0, c} >> 8;
          if (({32'b0, qa} << 15) < cw * {32'b0, BETA_Q15}) begin
            c  = clamp_cwnd({96'b0, qa} << 8);
            hu = stamp(now + qa_rtt);
            qe = stamp(now + 2 * qa_rtt);
          end else begin
            qe = stamp(now + qa_rtt);
          end
          qa = 32'd0;
        end
      end else if (nack_valid) begin
        ea = sat16_inc(ea);
        em = sat16_inc(em);
        ed = 1'b1;
      end else if (timeout_valid) begin
        c = clamp_cwnd({88'b0, c} >> 1);
      end else if (send_valid) begin
        logic [127:0] rate, gap, amount;
        logic [63:0]  start, fin;
        logic [64:0]  sum;
        rate = ({88'b0, c} << 24) / {64'b0, BASE_RTT};
        if (rate > {64'b0, LINE_Q32}) rate = {64'b0, LINE_Q32};
        amount = {96'b0, send_bytes} << 32;
        gap = (rate == 0) ? 128'd0 : (amount + rate - 128'd1) / rate;
        if (gap > 128'hFFFF_FFFF_FFFF_FFFF) gap = 128'hFFFF_FFFF_FFFF_FFFF;
        start = (now > {16'b0, ns}) ? now : {16'b0, ns};
        sum = {1'b0, start} + {1'b0, gap[63:0]};
        fin = sum[64] ? 64'hFFFF_FFFF_FFFF_FFFF : sum[63:0];
        ns = stamp(fin);
      end
      cwnd_q8 <= c; md_scale <= ms; ewma <= e16; ep_acked <= ea; ep_marked <= em;
      started <= st; ep_delay <= ed; t_epoch <= te; qa_end <= qe; hold_until <= hu;
      next_send <= ns; qa_acked <= qa;
      now <= now + 64'd1;
    end
  end
endmodule
