// Generic Verilator driver for the dcfab co-simulation testbenches.
//
// The top module (built with --prefix Vtb) has the ports: input clk; outputs done, failed,
// cycles, mismatches. This loop toggles clk until done, then prints one summary line and exits 1 if
// the testbench failed (a mismatch or a DPI error), 0 otherwise.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>

#include "Vtb.h"
#include "verilated.h"

int main(int argc, char** argv) {
    auto ctx = std::make_unique<VerilatedContext>();
    ctx->commandArgs(argc, argv);
    auto top = std::make_unique<Vtb>(ctx.get());
    top->clk = 0;
    top->eval();
    const auto t0 = std::chrono::steady_clock::now();
    while (!top->done && !ctx->gotFinish()) {
        top->clk = 1;
        top->eval();
        top->clk = 0;
        top->eval();
    }
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    top->final();
    const unsigned long long cycles = top->cycles;
    const bool failed = top->failed || !top->done;
    const char* slash = std::strrchr(argv[0], '/');
    const char* name = slash ? slash + 1 : argv[0];
    std::printf("%s: cycles=%llu mismatches=%u cycles_per_s=%.0f (%.3f s)%s\n", name,
                cycles, (unsigned)top->mismatches, secs > 0 ? cycles / secs : 0.0, secs,
                failed ? " FAILED" : "");
    return failed ? 1 : 0;
}
