// SPDX-License-Identifier: MIT
/* rx_units_shell.cpp - C++ shell of the RX unit tests (model: rx_units_top). */
#include "Vrx_units_top.h"
#include "inc_vshell.h"
#include "rx_units.h"

static IncShell<Vrx_units_top> *sh;
static struct rx_units_io io;

void rxu_open(int argc, char **argv)
{
	Vrx_units_top *t;

	sh = new IncShell<Vrx_units_top>(argc, argv, "build/sim/rx_units.fst");
	t = sh->top;
	io.rst = &t->rst;
	io.blk_tag = &t->blk_tag;
	io.blk_payload = &t->blk_payload;
	io.blk_value = &t->blk_value;
	io.start = &t->start;
	io.n = &t->n;
	io.s_data = t->s_data.data();
	io.in_bytes = &t->in_bytes;
	io.s_valid = &t->s_valid;
	io.s_ready = &t->s_ready;
	io.u_data = t->u_data.data();
	io.u_count = &t->u_count;
	io.u_valid = &t->u_valid;
	io.u_last = &t->u_last;
	io.consumed = &t->consumed;
	io.pad_bad = &t->pad_bad;
	io.busy = &t->busy;
}

INC_VSHELL_EXPORTS(rxu_, rx_units_io, rx_units_main)
