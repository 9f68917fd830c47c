// dcfab_dpi.sv - SystemVerilog DPI-C imports of the dcfab C ABI (cosim/include/dcfab.h).
//
// Link the simulator with libdcfab_cosim.a (or load libdcfab_cosim.so). All types are
// 2-state: bit (C uint8_t 0/1), int (int32_t), int unsigned (uint32_t), longint unsigned
// (uint64_t), chandle (an opaque dcfab handle), bit [192:0] (svBitVecVal[7], the REPS word).
//
// Every function returns DCFAB_OK (0) or a negative DCFAB_ERR_* status; constructors
// (*_new_flat) return null on error. dcfab_last_error() says why.
//
// Note (Verilator): call stateful functions (tick, try_take, enqueue, ...) only as
// statements, under `if` when conditional - never inside `?:` (Verilator 5.006 evaluates
// both arms of `?:` when they contain DPI calls).
//
// cosim/tests/dpi.rs checks every import below against the generated header (names,
// arity, argument types and directions) and the constants against its #defines.
package dcfab_dpi;
  /* verilator lint_off UNUSEDPARAM */

  // ---- status codes (dcfab.h) --------------------------------------------------------
  localparam int DCFAB_OK               = 0;
  localparam int DCFAB_ERR_NULL_HANDLE  = -1;
  localparam int DCFAB_ERR_BAD_HANDLE   = -2;
  localparam int DCFAB_ERR_WRONG_KIND   = -3;
  localparam int DCFAB_ERR_NULL_POINTER = -4;
  localparam int DCFAB_ERR_ARG          = -5;
  localparam int DCFAB_ERR_CONFIG       = -6;
  localparam int DCFAB_ERR_FULL         = -7;
  localparam int DCFAB_ERR_INTERNAL     = -8;
  localparam int unsigned DCFAB_ABI_VERSION = 1;
  // DCSIM classes (priority order) and enqueue results
  localparam int unsigned DCFAB_CLASS_SIM      = 0;
  localparam int unsigned DCFAB_CLASS_SIM_ACK  = 1;
  localparam int unsigned DCFAB_CLASS_DATA_ACK = 2;
  localparam int unsigned DCFAB_CLASS_DATA     = 3;
  localparam int unsigned DCFAB_ENQ_ACCEPTED   = 0;
  localparam int unsigned DCFAB_ENQ_DROPPED    = 1;
  localparam int unsigned DCFAB_ENQ_REJECTED   = 2;
  localparam longint unsigned DCFAB_DCSIM_MAX_CYCLE = 64'd4611686018427387904;
  // REPS send choices (Algorithm 2 branch) and the word's sizes
  localparam int unsigned DCFAB_REPS_EXPLORE = 0;
  localparam int unsigned DCFAB_REPS_RANDOM  = 1;
  localparam int unsigned DCFAB_REPS_RECYCLE = 2;
  localparam int unsigned DCFAB_REPS_FROZEN  = 3;
  localparam int unsigned DCFAB_REPS_NO_SLOT = 255;
  localparam int unsigned DCFAB_REPS_WORD_BYTES = 25;
  localparam int unsigned DCFAB_REPS_WORD_BITS = 193;
  localparam int unsigned DCFAB_REPS_WORD193_WORDS = 7;
  // Uno: UnoCC on_ack flags, word sizes; phantom-port verdicts and marking choices
  localparam int unsigned DCFAB_UNOCC_AI     = 1;
  localparam int unsigned DCFAB_UNOCC_EPOCH  = 2;
  localparam int unsigned DCFAB_UNOCC_MD     = 4;
  localparam int unsigned DCFAB_UNOCC_GENTLE = 8;
  localparam int unsigned DCFAB_UNOCC_QA     = 16;
  localparam int unsigned DCFAB_UNOCC_WORD_BYTES = 42;
  localparam int unsigned DCFAB_UNOCC_WORD_BITS = 330;
  localparam int unsigned DCFAB_UNOCC_WORD336_WORDS = 11;
  localparam int unsigned DCFAB_UPORT_ENQUEUE = 0;
  localparam int unsigned DCFAB_UPORT_MARK    = 1;
  localparam int unsigned DCFAB_UPORT_TRIM    = 2;
  localparam int unsigned DCFAB_UPORT_DROP    = 3;
  localparam int unsigned DCFAB_MARK_ON_PHYSICAL = 0;
  localparam int unsigned DCFAB_MARK_ON_PHANTOM  = 1;
  localparam int unsigned DCFAB_MARK_ON_BOTH     = 2;
  // Zeropod: cells cross as bit [319:0]; the scheduler is the k = 8 pod's
  localparam int unsigned DCFAB_ZP_CELL_WORDS = 10;
  localparam int unsigned DCFAB_ZP_NO_MICE_CORE = 255;
  localparam int unsigned DCFAB_ZP_M = 4;
  /* verilator lint_on UNUSEDPARAM */

  // ---- library -----------------------------------------------------------------------
  import "DPI-C" function int unsigned dcfab_abi_version();
  import "DPI-C" function string dcfab_version();
  import "DPI-C" function string dcfab_last_error();
  import "DPI-C" function string dcfab_status_name(input int status);
  import "DPI-C" function int unsigned dcfab_live_handles();

  // ---- token bucket (dcfab_tb_*) -----------------------------------------------------
  import "DPI-C" function chandle dcfab_tb_new_flat(input longint unsigned rate_q32,
                                                    input int unsigned depth,
                                                    input bit start_full);
  import "DPI-C" function int dcfab_tb_free(input chandle h);
  import "DPI-C" function int dcfab_tb_try_take(input chandle h, input int unsigned n,
                                                output bit granted);
  import "DPI-C" function int dcfab_tb_tick(input chandle h);
  import "DPI-C" function int dcfab_tb_advance(input chandle h, input longint unsigned cycles);
  import "DPI-C" function int dcfab_tb_can_take(input chandle h, input int unsigned n,
                                                output bit out_can);
  import "DPI-C" function int dcfab_tb_tokens(input chandle h, output int unsigned out_tokens);
  import "DPI-C" function int dcfab_tb_tokens_q32(input chandle h,
                                                  output longint unsigned out_q32);
  import "DPI-C" function int dcfab_tb_cycles_until(input chandle h, input int unsigned n,
                                                    output longint unsigned out_cycles);

  // ---- phantom queue (dcfab_pq_*) ----------------------------------------------------
  import "DPI-C" function chandle dcfab_pq_new_flat(input longint unsigned drain_q32,
                                                    input longint unsigned cap_bytes);
  import "DPI-C" function int dcfab_pq_free(input chandle h);
  import "DPI-C" function int dcfab_pq_on_enqueue(input chandle h, input int unsigned bytes);
  import "DPI-C" function int dcfab_pq_tick(input chandle h);
  import "DPI-C" function int dcfab_pq_advance(input chandle h, input longint unsigned cycles);
  import "DPI-C" function int dcfab_pq_clear(input chandle h);
  import "DPI-C" function int dcfab_pq_occupancy(input chandle h,
                                                 output longint unsigned out_bytes);
  import "DPI-C" function int dcfab_pq_level_q32(input chandle h,
                                                 output longint unsigned out_q32);
  import "DPI-C" function int dcfab_pq_cycles_until_empty(input chandle h,
                                                          output longint unsigned out_cycles);

  // ---- RED/ECN marker (dcfab_red_*) --------------------------------------------------
  import "DPI-C" function chandle dcfab_red_new_flat(input longint unsigned kmin_bytes,
                                                     input longint unsigned kmax_bytes,
                                                     input longint unsigned pmax_q32,
                                                     input int unsigned seed);
  import "DPI-C" function int dcfab_red_free(input chandle h);
  import "DPI-C" function int dcfab_red_should_mark(input chandle h,
                                                    input longint unsigned queue_bytes,
                                                    output bit out_mark);
  import "DPI-C" function int dcfab_red_should_mark_with(input chandle h,
                                                         input longint unsigned queue_bytes,
                                                         input int unsigned rand32,
                                                         output bit out_mark);
  import "DPI-C" function int dcfab_red_probability_q32(input chandle h,
                                                        input longint unsigned queue_bytes,
                                                        output longint unsigned out_q32);
  import "DPI-C" function int dcfab_red_lfsr_state(input chandle h,
                                                   output int unsigned out_state);
  import "DPI-C" function int dcfab_red_tick(input chandle h);

  // ---- DCSIM port arbiter (dcfab_dcsim_*) --------------------------------------------
  import "DPI-C" function chandle dcfab_dcsim_new_flat(input int unsigned bytes_per_cycle,
                                                       input int unsigned small_bytes,
                                                       input int unsigned data_bytes,
                                                       input int unsigned h_milli,
                                                       input int unsigned bucket_depth,
                                                       input int unsigned small_queue_pkts,
                                                       input longint unsigned period_ps,
                                                       input longint unsigned port_buffer_bytes);
  import "DPI-C" function int dcfab_dcsim_free(input chandle h);
  import "DPI-C" function int dcfab_dcsim_enqueue(input chandle h, input int unsigned class_,
                                                  input int unsigned desc,
                                                  input int unsigned bytes,
                                                  output int unsigned out_result);
  import "DPI-C" function int dcfab_dcsim_tick(input chandle h);
  import "DPI-C" function int dcfab_dcsim_advance(input chandle h,
                                                  input longint unsigned cycles);
  import "DPI-C" function int dcfab_dcsim_last_started(input chandle h, output bit out_valid,
                                                       output int unsigned out_class,
                                                       output int unsigned out_desc,
                                                       output int unsigned out_bytes,
                                                       output int unsigned out_cycles);
  import "DPI-C" function int dcfab_dcsim_next_departure(input chandle h,
                                                         output bit out_valid,
                                                         output int unsigned out_class,
                                                         output int unsigned out_desc,
                                                         output longint unsigned out_start);
  import "DPI-C" function int dcfab_dcsim_regs(input chandle h,
                                               output longint unsigned out_tokens_q32,
                                               output int unsigned out_busy_remaining,
                                               output int unsigned out_sim_len,
                                               output int unsigned out_sim_ack_len,
                                               output int unsigned out_data_ack_len,
                                               output int unsigned out_data_len,
                                               output int unsigned out_data_bytes,
                                               output int unsigned out_sim_drops,
                                               output int unsigned out_data_drops);
  import "DPI-C" function int dcfab_dcsim_queue(input chandle h, input int unsigned class_,
                                                output int unsigned out_len,
                                                output longint unsigned out_bytes);
  import "DPI-C" function int dcfab_dcsim_counts(input chandle h, input int unsigned class_,
                                                 output longint unsigned out_accepted,
                                                 output longint unsigned out_dropped,
                                                 output longint unsigned out_rejected,
                                                 output longint unsigned out_departed);
  import "DPI-C" function int dcfab_dcsim_status(input chandle h,
                                                 output longint unsigned out_now,
                                                 output bit out_line_busy,
                                                 output longint unsigned out_token_rate_q32);

  // ---- REPS (dcfab_reps_*); the Table 1 word crosses as bit [192:0] ----------------
  // (dcfab_reps_get_word / dcfab_reps_set_word move it as 25 C bytes: C only.)
  import "DPI-C" function chandle dcfab_reps_new_flat(input int unsigned ev_bits,
                                                      input int unsigned num_pkts_cwnd,
                                                      input int unsigned freezing_timeout_cycles,
                                                      input int unsigned reuse,
                                                      input int unsigned seed,
                                                      input bit freezing);
  import "DPI-C" function int dcfab_reps_free(input chandle h);
  import "DPI-C" function int dcfab_reps_tick(input chandle h);
  import "DPI-C" function int dcfab_reps_advance(input chandle h, input longint unsigned cycles);
  import "DPI-C" function int dcfab_reps_set_now(input chandle h, input longint unsigned now);
  import "DPI-C" function int dcfab_reps_now(input chandle h, output longint unsigned out_now);
  import "DPI-C" function int dcfab_reps_on_ack(input chandle h, input int unsigned ev,
                                                input bit ecn, output bit out_cached,
                                                output int unsigned out_slot,
                                                output bit out_exited_freezing);
  import "DPI-C" function int dcfab_reps_on_failure(input chandle h, output bit out_froze);
  import "DPI-C" function int dcfab_reps_on_send(input chandle h, output int unsigned out_ev,
                                                 output int unsigned out_choice,
                                                 output int unsigned out_slot);
  import "DPI-C" function int dcfab_reps_on_send_with(input chandle h,
                                                      input int unsigned rand32,
                                                      output int unsigned out_ev,
                                                      output int unsigned out_choice,
                                                      output int unsigned out_slot);
  import "DPI-C" function int dcfab_reps_get_word193(input chandle h,
                                                     output bit [192:0] out_word);
  import "DPI-C" function int dcfab_reps_set_word193(input chandle h,
                                                     input bit [192:0] word);
  import "DPI-C" function int dcfab_reps_fields(input chandle h,
                                                output int unsigned out_explore_counter,
                                                output bit out_is_freezing_mode,
                                                output int unsigned out_exit_freezing_mode,
                                                output int unsigned out_head,
                                                output int unsigned out_number_of_valid_evs,
                                                output bit out_is_empty);
  import "DPI-C" function int dcfab_reps_slot(input chandle h, input int unsigned slot,
                                              output int unsigned out_cached_ev,
                                              output bit out_is_valid,
                                              output int unsigned out_uses_left);
  import "DPI-C" function int dcfab_reps_stats(input chandle h,
                                               output longint unsigned out_explored,
                                               output longint unsigned out_random,
                                               output longint unsigned out_recycled,
                                               output longint unsigned out_frozen,
                                               output longint unsigned out_acks_cached,
                                               output longint unsigned out_acks_marked,
                                               output longint unsigned out_freezes,
                                               output longint unsigned out_thaws,
                                               output longint unsigned out_failures_ignored);
  import "DPI-C" function int dcfab_reps_lfsr_state(input chandle h,
                                                    output int unsigned out_state);

  // ---- Uno: UnoCC flow word (dcfab_unocc_*), the word crosses as bit [335:0] ----------
  // (dcfab_unocc_get_word / dcfab_unocc_set_word move it as 42 C bytes: C only.)
  import "DPI-C" function chandle dcfab_unocc_new_uno(input int unsigned mtu_bytes,
                                                      input longint unsigned bdp_bytes,
                                                      input longint unsigned bdp_intra_bytes,
                                                      input longint unsigned base_rtt,
                                                      input longint unsigned intra_rtt,
                                                      input longint unsigned line_rate_q32);
  import "DPI-C" function int dcfab_unocc_free(input chandle h);
  import "DPI-C" function int dcfab_unocc_tick(input chandle h);
  import "DPI-C" function int dcfab_unocc_advance(input chandle h, input longint unsigned cycles);
  import "DPI-C" function int dcfab_unocc_now(input chandle h, output longint unsigned out_now);
  import "DPI-C" function int dcfab_unocc_on_ack(input chandle h, input int unsigned acked_bytes,
                                                 input bit ecn, input longint unsigned rtt,
                                                 output int unsigned out_flags);
  import "DPI-C" function int dcfab_unocc_on_nack(input chandle h);
  import "DPI-C" function int dcfab_unocc_on_timeout(input chandle h);
  import "DPI-C" function int dcfab_unocc_on_send(input chandle h, input int unsigned bytes);
  import "DPI-C" function int dcfab_unocc_cwnd(input chandle h,
                                               output longint unsigned out_cwnd,
                                               output longint unsigned out_rate_q32,
                                               output longint unsigned out_next_send);
  import "DPI-C" function int dcfab_unocc_can_send(input chandle h,
                                                   input longint unsigned inflight_bytes,
                                                   output bit out_can);
  import "DPI-C" function int dcfab_unocc_get_word336(input chandle h,
                                                      output bit [335:0] out_words);
  import "DPI-C" function int dcfab_unocc_set_word336(input chandle h,
                                                      input bit [335:0] words);

  // ---- Uno: phantom-marking port (dcfab_uport_*) ---------------------------------------
  import "DPI-C" function chandle dcfab_uport_new_uno(input longint unsigned buffer_bytes,
                                                      input longint unsigned line_q32,
                                                      input longint unsigned cap_bytes,
                                                      input int unsigned mark_on,
                                                      input int unsigned seed);
  import "DPI-C" function int dcfab_uport_free(input chandle h);
  import "DPI-C" function int dcfab_uport_arrive(input chandle h, input int unsigned bytes,
                                                 output int unsigned out_verdict);
  import "DPI-C" function int dcfab_uport_depart(input chandle h, input int unsigned bytes);
  import "DPI-C" function int dcfab_uport_tick(input chandle h);
  import "DPI-C" function int dcfab_uport_advance(input chandle h, input longint unsigned cycles);
  import "DPI-C" function int dcfab_uport_state(input chandle h,
                                                output longint unsigned out_queue_bytes,
                                                output longint unsigned out_phantom_bytes,
                                                output longint unsigned out_drops,
                                                output longint unsigned out_trims,
                                                output longint unsigned out_marks);
  // ---- Zeropod scheduler (dcfab_zp_sched_*) and cell header (dcfab_zp_header_*) -------
  import "DPI-C" function chandle dcfab_zp_sched_new_flat(input int unsigned pod,
                                                          input int unsigned pods,
                                                          input int unsigned cores,
                                                          input int unsigned mice_core,
                                                          input int unsigned iterations,
                                                          input int unsigned epoch_slots,
                                                          input int unsigned requests_per_sender,
                                                          input int unsigned lat_request,
                                                          input int unsigned lat_grant1,
                                                          input int unsigned lat_grant2,
                                                          input int unsigned lat_accept,
                                                          input int unsigned seed);
  import "DPI-C" function int dcfab_zp_sched_free(input chandle h);
  import "DPI-C" function int dcfab_zp_sched_rts(input chandle h, input bit [319:0] rts_cell);
  import "DPI-C" function int dcfab_zp_sched_demand(input chandle h, input bit from_core,
                                                    input int unsigned src,
                                                    input int unsigned dst,
                                                    input int unsigned cells);
  import "DPI-C" function int dcfab_zp_sched_backpressure(input chandle h,
                                                          input int unsigned core,
                                                          input int unsigned mask);
  import "DPI-C" function int dcfab_zp_sched_set_link_failed(input chandle h,
                                                             input int unsigned kind,
                                                             input int unsigned a,
                                                             input int unsigned b,
                                                             input bit failed);
  import "DPI-C" function int dcfab_zp_sched_start(input chandle h, input int unsigned epoch,
                                                   output bit out_started);
  import "DPI-C" function int dcfab_zp_sched_tick(input chandle h);
  import "DPI-C" function int dcfab_zp_sched_status(input chandle h, output bit out_busy,
                                                    output int unsigned out_iteration,
                                                    output int unsigned out_stage,
                                                    output longint unsigned out_cycles_per_round);
  import "DPI-C" function int dcfab_zp_sched_grant_count(input chandle h,
                                                         output int unsigned out_count,
                                                         output int unsigned out_epoch);
  import "DPI-C" function int dcfab_zp_sched_grant(input chandle h, input int unsigned i,
                                                   output int unsigned out_traffic,
                                                   output int unsigned out_src,
                                                   output int unsigned out_dst,
                                                   output int unsigned out_agg,
                                                   output int unsigned out_core,
                                                   output int unsigned out_volume,
                                                   output int unsigned out_hops,
                                                   output int unsigned out_ports);
  import "DPI-C" function int dcfab_zp_sched_schd(input chandle h, input int unsigned i,
                                                  output bit [319:0] out_cell);
  import "DPI-C" function int dcfab_zp_sched_check(input chandle h, output bit out_ok);
  import "DPI-C" function int dcfab_zp_header_pack(input bit scheduled,
                                                   input int unsigned prio,
                                                   input int unsigned hops,
                                                   input int unsigned ptr,
                                                   input int unsigned ports,
                                                   input int unsigned src,
                                                   input int unsigned dst,
                                                   input int unsigned flow,
                                                   input int unsigned seq,
                                                   input int unsigned len,
                                                   output bit [319:0] out_cell);
  import "DPI-C" function int dcfab_zp_header_unpack(input bit [319:0] header_cell,
                                                     output bit out_scheduled,
                                                     output int unsigned out_priority,
                                                     output int unsigned out_hops,
                                                     output int unsigned out_ptr,
                                                     output int unsigned out_ports,
                                                     output int unsigned out_src,
                                                     output int unsigned out_dst,
                                                     output int unsigned out_flow,
                                                     output int unsigned out_seq,
                                                     output int unsigned out_len);

endpackage
