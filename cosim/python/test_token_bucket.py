"""Example test of the ctypes route: the dcfab token bucket against a pure-Python
reference, on the LFSR stimulus of cosim/verilator/tb_token_bucket.sv, plus the error paths.

Run with plain `python3 cosim/python/test_token_bucket.py` (pytest also collects it).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import dcfab  # noqa: E402
from dcfab import DcfabError, Lfsr32, TokenBucket  # noqa: E402

Q = 1 << 32
U64 = (1 << 64) - 1
CONFIGS = [(0x4CCCCCCC, 3, True), (0x2_8000_0000, 7, False), (U64, 0xFFFFFFFF, True)]


class RefBucket:
    """The token bucket's specification, in Python integers (Q32.32 fill level)."""

    def __init__(self, rate_q32, depth, start_full):
        self.rate, self.depth_q = rate_q32, depth * Q
        self.q = self.depth_q if start_full else 0

    def try_take(self, n):
        if self.q >= n * Q:
            self.q -= n * Q
            return True
        return False

    def tick(self):
        self.q = min(min(self.q + self.rate, U64), self.depth_q)


def stim(r):
    n = r >> 8 if (r >> 4) & 0xF == 0 else (r >> 2) & 3
    return r & 1 == 1, n


def test_matches_reference_on_lfsr_stimulus(cycles=20000):
    duts = [TokenBucket(*c) for c in CONFIGS]
    refs = [RefBucket(*c) for c in CONFIGS]
    lfsr = Lfsr32(0xACE1)
    grants = 0
    for cycle in range(cycles):
        for i, (dut, ref) in enumerate(zip(duts, refs)):
            assert dut.tokens_q32 == ref.q, f"cycle {cycle} bucket {i}: tokens"
            valid, n = stim(lfsr.next_u32())
            if valid:
                g = dut.try_take(n)
                assert g == ref.try_take(n), f"cycle {cycle} bucket {i}: granted"
                grants += g
            dut.tick()
            ref.tick()
    assert grants > cycles // 4, "the stimulus should grant often"
    for d in duts:
        d.free()


def test_advance_equals_ticks():
    a = TokenBucket(0x4CCCCCCC, 5, start_full=False)
    b = TokenBucket(0x4CCCCCCC, 5, start_full=False)
    a.advance(7)
    for _ in range(7):
        b.tick()
    assert a.tokens_q32 == b.tokens_q32 and a.tokens == 2
    assert a.cycles_until(3) == 4 and a.cycles_until(6) is None
    a.free()
    b.free()


def expect_error(status, fn, *args):
    try:
        fn(*args)
    except DcfabError as e:
        assert e.status == status, (e.status, str(e))
        return str(e)
    raise AssertionError(f"{fn} did not raise")


def test_errors_never_crash():
    live = dcfab.lib().dcfab_live_handles()
    msg = expect_error(dcfab.DCFAB_ERR_CONFIG, TokenBucket, 1, 0)
    assert "depth" in msg, msg
    assert dcfab.lib().dcfab_tb_new_flat(1, 1, 2) is None
    assert "start_full" in dcfab.last_error()
    t = TokenBucket(Q, 2)
    t.free()
    msg = expect_error(dcfab.DCFAB_ERR_BAD_HANDLE, t.tick)
    assert "freed" in msg, msg
    expect_error(dcfab.DCFAB_ERR_BAD_HANDLE, t.free)
    L = dcfab.lib()
    assert L.dcfab_tb_tick(None) == dcfab.DCFAB_ERR_NULL_HANDLE
    assert L.dcfab_tb_tick(0x1234) == dcfab.DCFAB_ERR_BAD_HANDLE
    with TokenBucket(Q, 2) as u:
        assert L.dcfab_tb_tokens(u._h, None) == dcfab.DCFAB_ERR_NULL_POINTER
    assert L.dcfab_live_handles() == live


def main():
    tests = [v for k, v in sorted(globals().items()) if k.startswith("test_")]
    passed = failed = 0
    for t in tests:
        try:
            t()
            passed += 1
            print(f"ok   {t.__name__}")
        except Exception as e:  # report every failure, then fail the run
            failed += 1
            print(f"FAIL {t.__name__}: {type(e).__name__}: {e}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
