/* example.c - the dcfab C ABI from plain C99: one block of each kind, the REPS word, and
 * the error paths. Built and run by cosim/verilator/run.sh (also compiled as C++ there, to
 * check the header's C++ compatibility). Exits non-zero on the first unexpected result. */
#include <stdio.h>
#include <string.h>

#include "dcfab.h"

static int failures = 0;

#define EXPECT(cond)                                                        \
    do {                                                                    \
        if (!(cond)) {                                                      \
            fprintf(stderr, "example.c:%d: expected %s (last error: %s)\n", \
                    __LINE__, #cond, dcfab_last_error());                   \
            failures++;                                                     \
        }                                                                   \
    } while (0)

int main(void) {
    const uint32_t live0 = dcfab_live_handles();
    EXPECT(dcfab_abi_version() == DCFAB_ABI_VERSION);

    /* Token bucket: 0.5 token/cycle, depth 2, empty. */
    DcfabTokenBucketConfig tbc = {(uint64_t)1 << 31, 2, 0};
    DcfabTokenBucket *tb = dcfab_tb_new(&tbc);
    uint8_t granted = 9;
    uint32_t tokens = 9;
    EXPECT(tb != NULL);
    EXPECT(dcfab_tb_try_take(tb, 1, &granted) == DCFAB_OK && granted == 0);
    EXPECT(dcfab_tb_tick(tb) == DCFAB_OK && dcfab_tb_tick(tb) == DCFAB_OK);
    EXPECT(dcfab_tb_tokens(tb, &tokens) == DCFAB_OK && tokens == 1);
    EXPECT(dcfab_tb_try_take(tb, 1, &granted) == DCFAB_OK && granted == 1);
    EXPECT(dcfab_tb_free(tb) == DCFAB_OK);
    /* A freed handle is detected, not dereferenced. */
    EXPECT(dcfab_tb_tick(tb) == DCFAB_ERR_BAD_HANDLE);
    EXPECT(strstr(dcfab_last_error(), "freed") != NULL);
    EXPECT(dcfab_tb_tick(NULL) == DCFAB_ERR_NULL_HANDLE);
    tbc.depth = 0;
    EXPECT(dcfab_tb_new(&tbc) == NULL && strstr(dcfab_last_error(), "depth") != NULL);

    /* Phantom queue and RED marker. */
    DcfabPhantomConfig pqc = {(uint64_t)45 << 32, 1 << 20};
    DcfabPhantomQueue *pq = dcfab_pq_new(&pqc);
    uint64_t occ = 0;
    EXPECT(pq != NULL);
    EXPECT(dcfab_pq_on_enqueue(pq, 4096) == DCFAB_OK && dcfab_pq_tick(pq) == DCFAB_OK);
    EXPECT(dcfab_pq_occupancy(pq, &occ) == DCFAB_OK && occ == 4096 - 45);
    DcfabRedConfig rc = {1000, 3000, (uint64_t)1 << 32, 1};
    DcfabRedMarker *red = dcfab_red_new(&rc);
    uint8_t mark = 9;
    EXPECT(red != NULL);
    EXPECT(dcfab_red_should_mark(red, occ, &mark) == DCFAB_OK && mark == 1);
    /* Wrong kind: a phantom-queue handle given to the RED API. */
    EXPECT(dcfab_red_tick((DcfabRedMarker *)pq) == DCFAB_ERR_WRONG_KIND);
    EXPECT(dcfab_pq_free(pq) == DCFAB_OK && dcfab_red_free(red) == DCFAB_OK);

    /* DCSIM arbiter with the paper's config: a DATA then a SIM behind it (no preemption). */
    DcfabDcsimConfig dc;
    EXPECT(dcfab_dcsim_config_default(&dc) == DCFAB_OK && dc.data_bytes == 9000);
    DcfabDcsimArbiter *arb = dcfab_dcsim_new(&dc);
    uint32_t res = 9, cls = 9, desc = 9, bytes = 9, cyc = 9;
    uint8_t valid = 9;
    EXPECT(arb != NULL);
    EXPECT(dcfab_dcsim_enqueue(arb, DCFAB_CLASS_DATA, 7, 9000, &res) == DCFAB_OK &&
           res == DCFAB_ENQ_ACCEPTED);
    EXPECT(dcfab_dcsim_tick(arb) == DCFAB_OK);
    EXPECT(dcfab_dcsim_last_started(arb, &valid, &cls, &desc, &bytes, &cyc) == DCFAB_OK);
    EXPECT(valid == 1 && cls == DCFAB_CLASS_DATA && desc == 7 && cyc == 141);
    EXPECT(dcfab_dcsim_enqueue(arb, 4, 1, 64, &res) == DCFAB_ERR_ARG);
    EXPECT(dcfab_dcsim_free(arb) == DCFAB_OK);

    /* REPS: cache an ACK EV, read the 25-byte word, reload it into another connection. */
    DcfabRepsConfig repc;
    EXPECT(dcfab_reps_config_default(&repc) == DCFAB_OK);
    DcfabReps *a = dcfab_reps_new(&repc), *b = dcfab_reps_new(&repc);
    uint8_t cached = 9, exited = 9, wa[25], wb[25];
    uint32_t slot = 9, ev = 9, choice = 9;
    EXPECT(a != NULL && b != NULL);
    EXPECT(dcfab_reps_on_ack(a, 0xBEEF, 0, &cached, &slot, &exited) == DCFAB_OK && cached == 1);
    EXPECT(dcfab_reps_get_word(a, wa) == DCFAB_OK && wa[0] == 0xEF && wa[1] == 0xBE);
    EXPECT(dcfab_reps_set_word(b, wa) == DCFAB_OK && dcfab_reps_get_word(b, wb) == DCFAB_OK);
    EXPECT(memcmp(wa, wb, sizeof wa) == 0);
    EXPECT(dcfab_reps_on_send(b, &ev, &choice, &slot) == DCFAB_OK);
    EXPECT(ev == 0xBEEF && choice == DCFAB_REPS_RECYCLE && slot == 0);
    wa[17] |= 0x08; /* a reserved bit of `head` */
    EXPECT(dcfab_reps_set_word(b, wa) == DCFAB_ERR_ARG);
    EXPECT(dcfab_reps_free(a) == DCFAB_OK && dcfab_reps_free(b) == DCFAB_OK);

    EXPECT(dcfab_live_handles() == live0);
    if (failures == 0) printf("c example: ok (dcfab %s, ABI %u)\n", dcfab_version(), dcfab_abi_version());
    return failures == 0 ? 0 : 1;
}
