/* SPDX-License-Identifier: MIT */
/*
 * inc_vshell.h - the thin C++ shell of a Verilator testbench: owns the
 * Verilated model and its clock, writes an FST trace on +trace[=file].
 * A testbench's .cpp instantiates IncShell<Vtop> and exports C functions
 * (tb_eval, tb_tick, ...) to the C test logic. Models are built with
 * --trace-fst. The clock port is `clk`, the reset port `rst`.
 */
#ifndef INC_VSHELL_H
#define INC_VSHELL_H

#include <verilated.h>
#include <verilated_fst_c.h>
#include <cstdint>
#include <cstring>

template <class T> class IncShell {
public:
	VerilatedContext *ctx;
	T *top;
	VerilatedFstC *tfp = nullptr;
	uint64_t cycle = 0;

	IncShell(int argc, char **argv, const char *default_trace)
	{
		const char *path = nullptr;

		ctx = new VerilatedContext;
		ctx->commandArgs(argc, argv);
		for (int i = 1; i < argc; i++) {
			if (!strcmp(argv[i], "+trace"))
				path = default_trace;
			else if (!strncmp(argv[i], "+trace=", 7))
				path = argv[i] + 7;
		}
		if (path)
			ctx->traceEverOn(true);
		top = new T(ctx);
		if (path) {
			tfp = new VerilatedFstC;
			top->trace(tfp, 99);
			tfp->open(path);
		}
		top->clk = 0;
		top->eval();
	}

	~IncShell()
	{
		top->final();
		if (tfp) {
			tfp->close();
			delete tfp;
		}
		delete top;
		delete ctx;
	}

	void eval() { top->eval(); }

	/* One clock cycle: rising edge, then falling edge. */
	void tick()
	{
		top->clk = 1;
		top->eval();
		if (tfp)
			tfp->dump(2 * cycle + 1);
		top->clk = 0;
		top->eval();
		if (tfp)
			tfp->dump(2 * cycle + 2);
		cycle++;
	}
};

#endif
