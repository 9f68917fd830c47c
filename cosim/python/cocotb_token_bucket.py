"""cocotb test: the RTL token bucket (cosim/verilator/rtl/dcfab_token_bucket.sv) against the
dcfab Rust model through the ctypes wrapper, on the LFSR stimulus of tb_token_bucket.sv.

Run by run_cocotb.py (Icarus Verilog); the model is the scoreboard, compared every cycle.
Not named test_*.py on purpose: pytest must not collect a cocotb module.
"""

import os
import sys

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dcfab import Lfsr32, TokenBucket  # noqa: E402

CYCLES = int(os.environ.get("DCFAB_COCOTB_CYCLES", "3000"))


def stim(r):
    n = r >> 8 if (r >> 4) & 0xF == 0 else (r >> 2) & 3
    return r & 1, n


@cocotb.test()
async def token_bucket_matches_model(dut):
    rate, depth = 0x4CCCCCCC, 3
    dut.cfg_rate_q32.value = rate
    dut.cfg_depth.value = depth
    dut.cfg_start_full.value = 1
    dut.take_valid.value = 0
    dut.take_n.value = 0
    dut.rst_n.value = 0
    cocotb.start_soon(Clock(dut.clk, 10, "ns").start())
    await RisingEdge(dut.clk)  # reset edge
    await FallingEdge(dut.clk)
    dut.rst_n.value = 1
    model = TokenBucket(rate, depth, start_full=True)
    lfsr = Lfsr32(0xACE1)
    grants = 0
    for cycle in range(CYCLES):
        valid, n = stim(lfsr.next_u32())
        dut.take_valid.value = valid
        dut.take_n.value = n
        await ReadOnly()
        tokens = int(dut.tokens_q32.value)
        assert tokens == model.tokens_q32, f"cycle {cycle}: tokens rtl={tokens} model={model.tokens_q32}"
        g = model.try_take(n) if valid else False
        assert int(dut.granted.value) == int(g), f"cycle {cycle}: granted rtl={dut.granted.value} model={g}"
        grants += g
        model.tick()
        await FallingEdge(dut.clk)
    model.free()
    assert grants > CYCLES // 10
    dut._log.info("token bucket: %d cycles, %d grants, 0 mismatches", CYCLES, grants)
