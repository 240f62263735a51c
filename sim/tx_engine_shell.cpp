// SPDX-License-Identifier: MIT
/* tx_engine_shell.cpp - C++ shell of the compress engine testbench. */
#include "Vinc_compress_engine.h"
#include "inc_vshell.h"
#include "tx_engine.h"

static IncShell<Vinc_compress_engine> *sh;
static struct tx_engine_io io;

extern "C" int tx_engine_main(int argc, char **argv);

void tb_open(int argc, char **argv)
{
	Vinc_compress_engine *t;

	sh = new IncShell<Vinc_compress_engine>(argc, argv, "build/sim/tx_engine.fst");
	t = sh->top;
	inc_vshell_engine_io(io, t);
	io.cfg_eb = &t->cfg_eb;
}

INC_VSHELL_EXPORTS(tb_, tx_engine_io, tx_engine_main)
