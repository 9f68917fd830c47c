"""Run the cocotb token-bucket test with Icarus Verilog if cocotb and iverilog are installed;
otherwise print why it is skipped and exit 0. Exit 1 if the cocotb test fails.

    DCFAB_LIB=target/release/libdcfab_cosim.so python3 cosim/python/run_cocotb.py
"""

import os
import shutil
import sys
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
RTL = os.path.join(os.path.dirname(HERE), "verilator", "rtl", "dcfab_token_bucket.sv")


def main():
    try:
        import cocotb  # noqa: F401
    except ImportError:
        print("cocotb test skipped: cocotb is not installed (pip install cocotb)")
        return 0
    if shutil.which("iverilog") is None:
        print("cocotb test skipped: iverilog is not installed (apt-get install iverilog)")
        return 0
    try:
        from cocotb_tools.runner import get_runner  # cocotb >= 2.0
    except ImportError:
        from cocotb.runner import get_runner  # cocotb 1.8 / 1.9

    import dcfab

    lib = next((p for p in dcfab.candidates() if os.path.exists(p)), None)
    if lib is None:
        print("cocotb test failed: libdcfab_cosim.so not found (cargo build --release -p dcfab-cosim)")
        return 1
    lib = os.path.abspath(lib)
    build_dir = os.path.join(os.path.dirname(os.path.dirname(lib)), "cosim-cocotb")
    runner = get_runner("icarus")
    runner.build(
        sources=[RTL],
        hdl_toplevel="dcfab_token_bucket",
        build_dir=build_dir,
        always=True,
        timescale=("1ns", "1ps"),
    )
    results = runner.test(
        hdl_toplevel="dcfab_token_bucket",
        test_module="cocotb_token_bucket",
        test_dir=HERE,
        build_dir=build_dir,
        extra_env={"DCFAB_LIB": lib, "PYTHONPATH": HERE},
        results_xml=os.path.join(build_dir, "results.xml"),
    )
    cases = ET.parse(results).getroot().iter("testcase")
    total = failed = 0
    for case in cases:
        total += 1
        if case.find("failure") is not None or case.find("error") is not None:
            failed += 1
    print(f"cocotb: {total - failed} passed, {failed} failed")
    return 1 if failed or total == 0 else 0


if __name__ == "__main__":
    sys.path.insert(0, HERE)
    sys.exit(main())
