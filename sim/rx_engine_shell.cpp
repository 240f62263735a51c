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
	io.rst = &t->rst;
	io.s.tdata = t->s_axis_tdata.data();
	io.s.tkeep = &t->s_axis_tkeep;
	io.s.tvalid = &t->s_axis_tvalid;
	io.s.tready = &t->s_axis_tready;
	io.s.tlast = &t->s_axis_tlast;
	io.s.data_bytes = 32;
	io.s.keep_bytes = 4;
	io.m.tdata = t->m_axis_tdata.data();
	io.m.tkeep = &t->m_axis_tkeep;
	io.m.tvalid = &t->m_axis_tvalid;
	io.m.tready = &t->m_axis_tready;
	io.m.tlast = &t->m_axis_tlast;
	io.m.data_bytes = 32;
	io.m.keep_bytes = 4;
	io.cfg_enable = &t->cfg_enable;
	io.cfg_tos_value = &t->cfg_tos_value;
	io.cfg_tos_mask = &t->cfg_tos_mask;
	io.stat_valid = &t->stat_valid;
	io.stat_outcome = &t->stat_outcome;
	io.stat_reason = &t->stat_reason;
	io.stat_bytes_in = &t->stat_bytes_in;
	io.stat_bytes_out = &t->stat_bytes_out;
}

void rx_tb_close(void) { delete sh; }
void rx_tb_eval(void) { sh->eval(); }
void rx_tb_tick(void) { sh->tick(); }
struct rx_io *rx_tb_io(void) { return &io; }

int main(int argc, char **argv) { return rx_engine_main(argc, argv); }
