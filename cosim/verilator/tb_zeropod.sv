// tb_zeropod - the Zeropod iterative scheduler (k = 8 pod, Algorithm 1) and the 40 B cell
// formats across DPI-C, checked cycle by cycle in SystemVerilog.
//
// Every cycle an LFSR feeds the scheduler of pod 1 (of 8, 7 Cores, mice Core 6) with RTS
// demands: hosts of the pod to random hosts of the fabric (E2E inside the pod, E2P to the
// other pods), Cores to hosts of the pod (C2E), and now and then new backpressure flags.
// Whenever the scheduler is idle the next epoch is started; it is clocked every cycle
// (I = 6 iterations of 2 + 2 + 1 + 1 cycles). Every cycle the testbench reads the grants of
// the last completed round and checks, in SystemVerilog, independently of the model:
//   * each sender (host, or Core for C2E) and receiver (host, or Core up port for E2P) holds
//     at most one grant;
//   * walking each grant's source route hop by hop from its origin (ToR t: ports 0..3 down
//     to hosts, 4..7 up to Agg p-4; Agg a: ports 0..3 down to ToR p, 4..7 up to Core
//     (p-4)*4+a), no ToR or Agg output port is used twice, and the route ends at the
//     grant's receiver;
//   * 1 <= cells <= 32, E2P never uses a Core backpressured for its pod;
//   * the model's own check (dcfab_zp_sched_check) agrees;
//   * the grant's SCHD cell (bit [319:0]) carries kind 2, the traffic kind, the volume and
//     the route at their bit positions, and a data header packed with that route
//     (dcfab_zp_header_pack) has the route bits where the layout says and unpacks to the
//     same fields.
// Plusargs: +cycles=N (default 1000000), +seed=S, +inject_at=N (from cycle N, the first
// cycle with grants is checked with its first grant counted twice: the run must then fail,
// a self-test).
/* verilator lint_off BLKSEQ */  // testbench bookkeeping is blocking on purpose
module tb_zeropod (
  input  bit              clk,
  output bit              done,
  output bit              failed,
  output longint unsigned cycles,
  output int unsigned     mismatches
);
  import dcfab_dpi::*;
  `include "lfsr.svh"

  localparam int unsigned POD = 1;
  longint unsigned target = 64'd1000000;
  longint unsigned inject_at = ~64'd0;
  bit [31:0] seed = 32'h0000_ACE1;
  bit [31:0] lfsr;
  chandle    h;
  bit [31:0] bp [7];          // flags given to the model (applied between rounds)
  bit [31:0] bp_round [7];    // the flags of the round in flight
  bit [31:0] bp_grants [7];   // the flags of the round whose grants are readable
  longint unsigned n_rounds = 0, n_grants = 0, n_cells = 0, n_injected = 0;
  longint unsigned n_kind [3];
  int unsigned last_epoch = 0;

  task automatic fail_now(input string msg);
    $display("tb_zeropod: %s", msg);
    failed = 1; done = 1;
  endtask

  task automatic check(input int st, input string what);
    if (!done && st != DCFAB_OK)
      fail_now($sformatf("cycle %0d: %s returned %s: %s", cycles, what,
                         dcfab_status_name(st), dcfab_last_error()));
  endtask

  task automatic conflict(input string what);
    if (!done) begin
      mismatches = mismatches + 1;
      fail_now($sformatf("MISMATCH at cycle %0d: %s", cycles, what));
    end
  endtask

  task automatic cmp(input string what, input longint unsigned got, input longint unsigned want);
    if (got != want) conflict($sformatf("%s: got %0d, want %0d", what, got, want));
  endtask

  initial begin
    void'($value$plusargs("cycles=%d", target));
    void'($value$plusargs("seed=%d", seed));
    void'($value$plusargs("inject_at=%d", inject_at));
    lfsr = (seed == 0) ? 32'd1 : seed;
    for (int c = 0; c < 7; c++) begin bp[c] = 0; bp_round[c] = 0; bp_grants[c] = 0; end
    for (int k = 0; k < 3; k++) n_kind[k] = 0;
    h = dcfab_zp_sched_new_flat(POD, 8, 7, 6, 6, 32, 4, 2, 2, 1, 1, seed);
    if (h == null) fail_now($sformatf("dcfab_zp_sched_new_flat: %s", dcfab_last_error()));
  end

  // Check the grants of the last completed round; `dup` counts grant 0 twice.
  task automatic check_grants(input bit dup);
    int unsigned n, epoch, tr, src, dst, agg, core, vol, hops, ports, ok_hops, ok_ports;
    int unsigned nn, g, layer, sw, p, endp, want, sender, recv;
    bit [7:0] used [2][4];
    bit [22:0] senders, receivers;
    bit [319:0] schd_cell, hdr;
    bit model_ok, end_found, s_o;
    int unsigned u_pr, u_h, u_p, u_po, u_s, u_d, u_f, u_q, u_l;
    bit new_round;
    int unsigned first_agg, want_core;
    check(dcfab_zp_sched_grant_count(h, n, epoch), "dcfab_zp_sched_grant_count");
    new_round = (epoch != last_epoch);
    if (new_round) for (int c = 0; c < 7; c++) bp_grants[c] = bp_round[c];
    for (int l = 0; l < 2; l++) for (int s = 0; s < 4; s++) used[l][s] = 8'h0;
    senders = '0; receivers = '0;
    nn = n + ((dup && n > 0) ? 1 : 0);
    for (int unsigned i = 0; i < nn; i++) begin
      g = (i == n) ? 0 : i;
      check(dcfab_zp_sched_grant(h, g, tr, src, dst, agg, core, vol, hops, ports),
            "dcfab_zp_sched_grant");
      if (done) return;
      if (tr > 2) begin conflict($sformatf("grant %0d: traffic kind %0d", g, tr)); return; end
      sender = (tr == 2) ? 16 + core : src;
      recv = (tr == 1) ? 16 + core : dst;
      if (sender > 22 || recv > 22) begin conflict("sender/receiver out of range"); return; end
      if (senders[sender]) conflict($sformatf("sender %0d holds two grants", sender));
      if (receivers[recv]) conflict($sformatf("receiver %0d holds two grants", recv));
      senders[sender] = 1'b1;
      receivers[recv] = 1'b1;
      if (vol < 1 || vol > 32) conflict($sformatf("grant %0d: %0d cells", g, vol));
      if (tr == 1 && bp_grants[core][dst]) conflict($sformatf("E2P over Core %0d backpressured for pod %0d", core, dst));
      // Walk the route from the origin.
      layer = (tr == 2) ? 1 : 0;
      sw = (tr == 2) ? core % 4 : src / 4;
      end_found = 0;
      endp = 0;
      for (int unsigned hop = 0; hop < hops && !end_found; hop++) begin
        p = (ports >> (6 * hop)) & 32'h3f;
        if (p > 7) begin conflict($sformatf("grant %0d: port %0d", g, p)); return; end
        if (used[layer][sw][p]) conflict($sformatf("%s %0d output port %0d used twice",
                                                   layer == 0 ? "ToR" : "Agg", sw, p));
        used[layer][sw][p] = 1'b1;
        if (layer == 0 && p < 4) begin endp = sw * 4 + p; end_found = 1; end
        else if (layer == 0) begin layer = 1; sw = p - 4; end
        else if (p < 4) begin layer = 0; sw = p; end
        else begin endp = 16 + (p - 4) * 4 + sw; end_found = 1; end
      end
      want = (tr == 1) ? 16 + core : dst;
      if (!end_found || endp != want)
        conflict($sformatf("grant %0d (kind %0d %0d->%0d): route ends at %0d", g, tr, src, dst, endp));
      if (done) return;
      if (i < n && new_round) begin  // the cells' bits once per round
        n_kind[tr]++;
        // The SCHD schd_cell, bit by bit (control.rs layout).
        check(dcfab_zp_sched_schd(h, g, schd_cell), "dcfab_zp_sched_schd");
        cmp("SCHD kind cell[1:0]", 64'(schd_cell[1:0]), 64'd2);
        cmp("SCHD traffic cell[4:3]", 64'(schd_cell[4:3]), 64'(tr));
        cmp("SCHD volume cell[71:56]", 64'(schd_cell[71:56]), 64'(vol));
        cmp("SCHD epoch cell[39:24]", 64'(schd_cell[39:24]), 64'(epoch));
        cmp("SCHD route hops cell[82:80]", 64'(schd_cell[82:80]), 64'(hops));
        cmp("SCHD route ports cell[119:88]", 64'(schd_cell[119:88]), 64'(ports));
        cmp("SCHD to_core cell[2]", 64'(schd_cell[2]), 64'(tr == 2));
        cmp("SCHD reserved cell[7:5]", 64'(schd_cell[7:5]), 64'd0);
        cmp("SCHD to cell[23:8]", 64'(schd_cell[23:8]), 64'(src));
        cmp("SCHD dst cell[55:40]", 64'(schd_cell[55:40]), 64'(dst));
        want_core = (tr == 0) ? 32'd0 : core;
        cmp("SCHD core cell[79:72]", 64'(schd_cell[79:72]), 64'(want_core));
        cmp("SCHD route ptr + reserved cell[87:83]", 64'(schd_cell[87:83]), 64'd0);
        cmp("SCHD slot cell[127:120]", 64'(schd_cell[127:120]), 64'd0);
        if (schd_cell[319:128] != '0) conflict("SCHD reserved bytes 16..40 not zero");
        // The Agg the grant names is the one its route crosses.
        first_agg = (tr == 2) ? core % 4 : (ports & 32'h3f) - 32'd4;
        cmp("grant agg vs route", 64'(agg), 64'(first_agg));
        // A data header on that route, pointer at hop 1, and back.
        check(dcfab_zp_header_pack(1'b1, g % 8, hops, 1, ports, src, dst, 32'(n_grants) & 32'hffff, 32'(n_cells), 512, hdr),
              "dcfab_zp_header_pack");
        cmp("data kind hdr[1:0]", 64'(hdr[1:0]), 64'd0);
        cmp("data scheduled hdr[2]", 64'(hdr[2]), 64'd1);
        cmp("data route hops hdr[10:8]", 64'(hdr[10:8]), 64'(hops));
        cmp("data route ptr hdr[13:11]", 64'(hdr[13:11]), 64'd1);
        cmp("data route ports hdr[47:16]", 64'(hdr[47:16]), 64'(ports));
        cmp("data seq hdr[127:96]", 64'(hdr[127:96]), 64'(32'(n_cells)));
        check(dcfab_zp_header_unpack(hdr, s_o, u_pr, u_h, u_p, u_po, u_s, u_d, u_f, u_q, u_l),
              "dcfab_zp_header_unpack");
        cmp("unpacked route ports", 64'(u_po), 64'(ports));
        cmp("unpacked src", 64'(u_s), 64'(src));
        cmp("unpacked len", 64'(u_l), 64'd512);
        cmp("unpacked scheduled/prio", 64'({31'd0, s_o, u_pr}), 64'({32'd1, g % 8}));
        cmp("unpacked dst/flow", 64'({u_d, u_f}), 64'({dst, 32'(n_grants) & 32'hffff}));
        cmp("unpacked seq", 64'(u_q), 64'(32'(n_cells)));
        ok_hops = u_h; ok_ports = u_p;
        cmp("unpacked hops/ptr", 64'({ok_hops, ok_ports}), 64'({hops, 32'd1}));
      end
    end
    check(dcfab_zp_sched_check(h, model_ok), "dcfab_zp_sched_check");
    if (!dup) cmp("model conflict check", 64'(model_ok), 64'd1);
    if (new_round) begin
      last_epoch = epoch;
      n_rounds++;
      n_grants += 64'(n);
    end
  endtask

  always @(posedge clk) begin
    if (!done) begin
      bit [31:0] r, r2;
      bit busy, started, inject;
      int unsigned it, stage;
      longint unsigned cyc;
      int unsigned src, dst, cells, c;

      r = lfsr32_draw(lfsr);
      r2 = lfsr32_draw(r);
      lfsr = r2;
      // ---- this cycle's RTS -----------------------------------------------------------
      if (r[2:0] == 3'd0) begin  // a host of the pod: any host of the fabric
        src = 32'(r[7:4]);
        dst = 32'(r2[6:0]);
        cells = 32'(r2[13:8]) + 1;
        if (dst != POD * 16 + src) begin
          check(dcfab_zp_sched_demand(h, 1'b0, src, dst, cells), "dcfab_zp_sched_demand");
          n_cells += 64'(cells);
        end
      end else if (r[5:3] == 3'd0) begin  // a Core: a host of this pod
        c = 32'(r2[18:16]) % 7;
        dst = POD * 16 + 32'(r2[23:20]);
        cells = 32'(r2[29:24]) + 1;
        check(dcfab_zp_sched_demand(h, 1'b1, c, dst, cells), "dcfab_zp_sched_demand");
      end
      // ---- start an epoch when idle, clock the scheduler ------------------------------
      check(dcfab_zp_sched_status(h, busy, it, stage, cyc), "dcfab_zp_sched_status");
      if (!done && (it > 5 || stage > 3)) fail_now($sformatf("status: iteration %0d stage %0d", it, stage));
      if (!busy) begin
        if (r[11:8] == 4'd0) begin  // new backpressure flags of one Core (not for our pod)
          c = 32'(r[18:16]) % 7;
          bp[c] = {24'h0, r2[7:0]} & ~(32'd1 << POD);
          check(dcfab_zp_sched_backpressure(h, c, bp[c]), "dcfab_zp_sched_backpressure");
        end
        for (int k = 0; k < 7; k++) bp_round[k] = bp[k];
        check(dcfab_zp_sched_start(h, 32'(cycles / cyc) & 32'hffff, started), "dcfab_zp_sched_start");
        if (!done && !started) fail_now("start refused while idle");
      end
      check(dcfab_zp_sched_tick(h), "dcfab_zp_sched_tick");
      // ---- this cycle's grants ----------------------------------------------------------
      inject = 0;
      if (cycles >= inject_at && n_injected == 0) begin
        int unsigned n, e;
        check(dcfab_zp_sched_grant_count(h, n, e), "dcfab_zp_sched_grant_count");
        if (n > 0 && e <= 32'hffff) begin inject = 1; n_injected = 1; end
      end
      check_grants(inject);

      if (!done) begin
        cycles = cycles + 1;
        if (cycles >= target) begin
          done = 1;
          $display("tb_zeropod: rounds=%0d grants=%0d (E2E %0d, E2P %0d, C2E %0d), demanded host cells=%0d",
                   n_rounds, n_grants, n_kind[0], n_kind[1], n_kind[2], n_cells);
          if (cycles >= 100000 && (n_kind[0] == 0 || n_kind[1] == 0 || n_kind[2] == 0))
            fail_now("the stimulus missed a traffic kind (E2E, E2P or C2E)");
        end
      end
    end
  end

  final begin
    if (h != null) void'(dcfab_zp_sched_free(h));
  end
endmodule
