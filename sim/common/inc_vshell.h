/* SPDX-License-Identifier: MIT */
/*
 * inc_vshell.h - the thin C++ shell of a Verilator testbench: owns the
 * Verilated model and its clock, writes an FST trace on +trace[=file].
 * A testbench's .cpp instantiates IncShell<Vtop>, points its io struct at
 * the model's ports (INC_VSHELL_AXIS for a stream, inc_vshell_engine_io for
 * the ports both engines share) and exports C functions (tb_eval, tb_tick,
 * ...) to the C test logic with INC_VSHELL_EXPORTS. Models are built with
 * --trace-fst. The clock port is `clk`, the reset port `rst`.
 */
#ifndef INC_VSHELL_H
#define INC_VSHELL_H

#include <verilated.h>
#include <verilated_fst_c.h>
#include <cstdint>
#include <cstring>

#include "inc_axis.h"

template <class T> class IncShell {
public:
	VerilatedContext *ctx;
	T *top;
	VerilatedFstC *tfp = nullptr;
	uint64_t cycle = 0;

	/* argv's +trace[=file] opens a trace from the start; trace_able
	 * allows trace_open() later (tracing costs a little even when off). */
	IncShell(int argc, char **argv, const char *default_trace, bool trace_able = false)
	{
		const char *path = nullptr;

		ctx = new VerilatedContext;
		if (argc > 0)
			ctx->commandArgs(argc, argv);
		for (int i = 1; i < argc; i++) {
			if (!strcmp(argv[i], "+trace"))
				path = default_trace;
			else if (!strncmp(argv[i], "+trace=", 7))
				path = argv[i] + 7;
		}
		if (path || trace_able)
			ctx->traceEverOn(true);
		top = new T(ctx);
		if (path)
			trace_open(path);
		top->clk = 0;
		top->eval();
	}

	~IncShell()
	{
		top->final();
		trace_close();
		delete top;
		delete ctx;
	}

	/* Start an FST trace (the model must be trace_able or +trace). */
	void trace_open(const char *path)
	{
		trace_close();
		tfp = new VerilatedFstC;
		top->trace(tfp, 99);
		tfp->open(path);
	}

	void trace_close()
	{
		if (tfp) {
			tfp->close();
			delete tfp;
			tfp = nullptr;
		}
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

/* Points a at the stream ports <prefix>_tdata/tkeep/tvalid/tready/tlast of
 * the model t (tdata a VlWide, i.e. wider than 64 bits). */
#define INC_VSHELL_AXIS(a, t, prefix)                                         \
	inc_vshell_axis(&(a), (t)->prefix##_tdata.data(), &(t)->prefix##_tkeep, \
			&(t)->prefix##_tvalid, &(t)->prefix##_tready,           \
			&(t)->prefix##_tlast, sizeof((t)->prefix##_tdata),      \
			sizeof((t)->prefix##_tkeep))

static inline void inc_vshell_axis(struct inc_axis_if *a, void *tdata, void *tkeep,
				   uint8_t *tvalid, uint8_t *tready, uint8_t *tlast,
				   unsigned data_bytes, unsigned keep_bytes)
{
	a->tdata = tdata;
	a->tkeep = tkeep;
	a->tvalid = tvalid;
	a->tready = tready;
	a->tlast = tlast;
	a->data_bytes = data_bytes;
	a->keep_bytes = keep_bytes;
}

/* The ports inc_compress_engine and inc_decompress_engine share: reset,
 * s_axis, m_axis, cfg_enable/tos_value/tos_mask and the stat pulse. */
template <class IO, class T> void inc_vshell_engine_io(IO &io, T *t)
{
	io.rst = &t->rst;
	INC_VSHELL_AXIS(io.s, t, s_axis);
	INC_VSHELL_AXIS(io.m, t, m_axis);
	io.cfg_enable = &t->cfg_enable;
	io.cfg_tos_value = &t->cfg_tos_value;
	io.cfg_tos_mask = &t->cfg_tos_mask;
	io.stat_valid = &t->stat_valid;
	io.stat_outcome = &t->stat_outcome;
	io.stat_reason = &t->stat_reason;
	io.stat_bytes_in = &t->stat_bytes_in;
	io.stat_bytes_out = &t->stat_bytes_out;
}

/* The C entry points of a shell whose IncShell is `sh` and io struct `io`
 * (of type struct IO): PFX##close, PFX##eval, PFX##tick, PFX##io, and main()
 * calling the test's MAIN(argc, argv). */
#define INC_VSHELL_EXPORTS(PFX, IO, MAIN)                                     \
	void PFX##close(void) { delete sh; }                                  \
	void PFX##eval(void) { sh->eval(); }                                  \
	void PFX##tick(void) { sh->tick(); }                                  \
	struct IO *PFX##io(void) { return &io; }                              \
	int main(int argc, char **argv) { return MAIN(argc, argv); }

#endif
