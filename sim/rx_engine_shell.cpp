// SPDX-License-Identifier: MIT
/* rx_engine_shell.cpp - C++ shell of the decompress engine testbench. */
#include "Vinc_decompress_engine.h"
#include "inc_vshell.h"
#include "rx_tb.h"

static IncShell<Vinc_decompress_engine> *sh;
static struct rx_io io;

void rx_tb_open(int argc, char **argv)
{
	Vinc_decompress_engine *t;

	sh = new IncShell<Vinc_decompress_engine>(argc, argv, "build/sim/rx_engine.fst");
	t = sh->top;
	inc_vshell_engine_io(io, t);
}

INC_VSHELL_EXPORTS(rx_tb_, rx_io, rx_engine_main)
