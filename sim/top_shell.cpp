// SPDX-License-Identifier: MIT
/* top_shell.cpp - C++ shell owning the Verilated inc_offload_top. */
#include "Vinc_offload_top.h"
#include "Vinc_offload_top___024root.h"
#include "inc_vshell.h"
#include "top_io_bind.h"
#include "top_tb.h"

static IncShell<Vinc_offload_top> *sh;
static struct top_io io;

void top_tb_open(int argc, char **argv)
{
	sh = new IncShell<Vinc_offload_top>(argc, argv, "build/sim/top.fst");
	top_io_bind(io, sh->top);
}

static void shell_eval(void *)
{
	sh->eval();
}

static void shell_tick(void *)
{
	sh->tick();
}

void top_bus_init(struct top_bus *b, uint64_t seed)
{
	top_bus_init_dut(b, seed, &io, shell_eval, shell_tick, nullptr);
}

/* The engines' per-frame statistics pulse (public_flat_rd in the top). */
void top_tb_stat(int rx, int *valid, int *outcome, int *reason)
{
	Vinc_offload_top___024root *r = sh->top->rootp;

	*valid = rx ? r->inc_offload_top__DOT__rx_stat_valid : r->inc_offload_top__DOT__tx_stat_valid;
	*outcome = rx ? r->inc_offload_top__DOT__rx_stat_outcome :
			r->inc_offload_top__DOT__tx_stat_outcome;
	*reason = rx ? r->inc_offload_top__DOT__rx_stat_reason : r->inc_offload_top__DOT__tx_stat_reason;
}

INC_VSHELL_EXPORTS(top_tb_, top_io, top_main)
