#!/usr/bin/env bash
# cosim/verilator/run.sh - the dcfab co-simulation in one command.
#
#   1. builds libdcfab_cosim.{a,so} in release (cargo build --release -p dcfab-cosim);
#   2. verilates and builds each testbench, linking the staticlib by absolute path;
#   3. runs each for $CYCLES cycles (default 1000000): RTL and Rust model driven by the
#      same LFSR stimulus, every output compared every cycle; prints cycles, mismatches
#      and cycles/s, and fails on the first mismatch; then a self-test run with one
#      injected divergence (+inject_at) must fail, proving the checker can fail;
#   4. compiles and runs cosim/c/example.c against include/dcfab.h (C99; C++ syntax check);
#   5. times the Rust models alone (and through the C ABI) on the same stimulus;
#   6. runs the Python ctypes test (and the cocotb test when cocotb + iverilog exist).
#
# Exits non-zero on any mismatch, build error or test failure.
# Environment: CYCLES, TESTBENCHES (space-separated subset), CARGO_TARGET_DIR.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
COSIM="$(dirname "$HERE")"
ROOT="$(dirname "$COSIM")"
CYCLES="${CYCLES:-1000000}"
TESTBENCHES="${TESTBENCHES:-tb_token_bucket tb_dcsim tb_reps tb_unocc tb_zeropod}"
JOBS="${JOBS:-2}"

if ! command -v verilator >/dev/null 2>&1; then
    echo "cosim: verilator not found (Debian: apt-get install -y verilator)" >&2
    exit 2
fi

cd "$ROOT"
echo "== cosim: cargo build --release -p dcfab-cosim"
cargo build --release -p dcfab-cosim
TARGET="$(cargo metadata --format-version 1 --no-deps \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
LIB="$TARGET/release/libdcfab_cosim.a"
SO="$TARGET/release/libdcfab_cosim.so"
[[ -f "$LIB" && -f "$SO" ]] || { echo "cosim: $LIB or $SO missing" >&2; exit 2; }
# The staticlib's system dependencies (rustc --print native-static-libs, Linux).
NATIVE_LIBS="-lgcc_s -lutil -lrt -lpthread -lm -ldl"
BUILD="$TARGET/cosim-verilator"
mkdir -p "$BUILD"

echo "== cosim: $(verilator --version)"
fail=0
for tb in $TESTBENCHES; do
    obj="$BUILD/obj_$tb"  # not "$tb": make would take the directory for the target
    echo "== cosim: verilate + build $tb"
    t0=$(date +%s)
    rm -f "$obj/$tb"  # the link does not depend on the staticlib: force a relink
    verilator --cc --exe --build -j "$JOBS" -Wall \
        --x-assign fast --x-initial fast \
        --prefix Vtb --top-module "$tb" -Mdir "$obj" -o "$tb" \
        -I"$HERE" \
        -MAKEFLAGS "OPT_FAST=-O1 OPT_GLOBAL=-O1" \
        "$COSIM/sv/dcfab_dpi.sv" "$HERE"/rtl/*.sv "$HERE/$tb.sv" \
        "$HERE/sim_main.cpp" "$LIB" \
        -LDFLAGS "$NATIVE_LIBS" >"$obj.build.log" 2>&1 || {
            cat "$obj.build.log" >&2
            echo "cosim: build of $tb failed" >&2
            exit 1
        }
    echo "   built in $(( $(date +%s) - t0 )) s"
    echo "== cosim: run $tb +cycles=$CYCLES"
    if ! "$obj/$tb" "+cycles=$CYCLES"; then
        echo "cosim: $tb FAILED" >&2
        fail=1
    fi
    # Self-test of the checker: skip one model clock edge at cycle 1000; the run must fail
    # and name the cycle of the first mismatch.
    if out="$("$obj/$tb" +cycles=50000 +inject_at=1000 2>&1)"; then
        echo "$out"
        echo "cosim: $tb self-test FAILED: an injected divergence went unnoticed" >&2
        fail=1
    elif ! grep -q "MISMATCH at cycle" <<<"$out"; then
        echo "$out"
        echo "cosim: $tb self-test FAILED: no mismatch report" >&2
        fail=1
    else
        at="$(grep -m1 -o 'MISMATCH at cycle [0-9]*' <<<"$out" | grep -o '[0-9]*$')"
        if (( at < 1000 )); then
            echo "$out"
            echo "cosim: $tb self-test FAILED: mismatch at cycle $at, before the injection" >&2
            fail=1
        else
            echo "   self-test: divergence injected at cycle 1000 caught at cycle $at"
        fi
    fi
done

echo "== cosim: C example against include/dcfab.h (C99, and the header as C++)"
cc -std=c99 -Wall -Wextra -Werror -pedantic -I"$COSIM/include" "$COSIM/c/example.c" \
    "$LIB" $NATIVE_LIBS -o "$BUILD/c_example"
"$BUILD/c_example"
echo '#include "dcfab.h"' | c++ -std=c++17 -Wall -Wextra -Werror -I"$COSIM/include" \
    -x c++ -fsyntax-only -

echo "== cosim: Rust models alone, same stimulus (release)"
"$TARGET/release/model_speed" "$CYCLES"

echo "== cosim: Python ctypes wrapper"
export PYTHONDONTWRITEBYTECODE=1
DCFAB_LIB="$SO" python3 "$COSIM/python/test_token_bucket.py"
DCFAB_LIB="$SO" python3 "$COSIM/python/run_cocotb.py"

if [[ $fail -ne 0 ]]; then
    echo "cosim: FAILED (a testbench reported a mismatch or an error)" >&2
    exit 1
fi
echo "cosim: all testbenches passed"
