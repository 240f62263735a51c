// SPDX-License-Identifier: MIT
/*
 * powerup_tb.cpp - power-up check of inc_offload_top: built with
 * --x-initial unique, every register without a power-up value starts from
 * a random state (a new one per seed). With reset held from the first
 * edge, every output valid (m_axis_tx_tvalid, m_axis_rx_tvalid,
 * s_axil_bvalid, s_axil_rvalid) must be low after every clock edge while
 * reset is high, whatever the inputs do. Seeds 1..N (+seeds=N, default
 * 300); last line "N passed, N failed".
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "Vpowerup.h"
#include "verilated.h"

static const char *valid_name(const Vpowerup *m)
{
	if (m->m_axis_tx_tvalid)
		return "m_axis_tx_tvalid";
	if (m->m_axis_rx_tvalid)
		return "m_axis_rx_tvalid";
	if (m->s_axil_bvalid)
		return "s_axil_bvalid";
	if (m->s_axil_rvalid)
		return "s_axil_rvalid";
	return nullptr;
}

int main(int argc, char **argv)
{
	int seeds = 300, pass = 0, fail = 0;

	for (int i = 1; i < argc; i++)
		if (!strncmp(argv[i], "+seeds=", 7))
			seeds = atoi(argv[i] + 7);
	for (int seed = 1; seed <= seeds; seed++) {
		VerilatedContext ctx;
		ctx.randReset(2);           // random initial values
		ctx.randSeed(seed);
		Vpowerup *m = new Vpowerup(&ctx);
		const char *bad = nullptr;
		int when = -1;
		uint32_t r = (uint32_t)seed * 2654435761u;

		m->rst = 1;
		m->clk = 0;
		m->eval();
		// what the first clock edge samples: the power-up state itself
		if ((bad = valid_name(m)))
			when = 0;
		for (int cyc = 0; cyc < 16 && !bad; cyc++) {
			// inputs toggle at random, as a live bus might during reset
			r = r * 1103515245u + 12345u;
			m->s_axis_tx_tvalid = r >> 16 & 1;
			m->s_axis_rx_tvalid = r >> 17 & 1;
			m->m_axis_tx_tready = r >> 18 & 1;
			m->m_axis_rx_tready = r >> 19 & 1;
			m->s_axil_awvalid = r >> 20 & 1;
			m->s_axil_wvalid = r >> 21 & 1;
			m->s_axil_arvalid = r >> 22 & 1;
			m->s_axil_bready = r >> 23 & 1;
			m->s_axil_rready = r >> 24 & 1;
			m->s_axis_tx_tlast = r >> 25 & 1;
			m->s_axis_rx_tlast = r >> 26 & 1;
			m->clk = 1;
			m->eval();
			if ((bad = valid_name(m)))
				when = cyc + 1;   // sampled by the next edge
			m->clk = 0;
			m->eval();
			if (!bad && (bad = valid_name(m)))
				when = cyc + 1;
		}
		if (bad) {
			if (fail < 10)
				printf("FAIL seed %d: %s high during reset at edge %d\n", seed, bad,
				       when);
			fail++;
		} else {
			pass++;
		}
		m->final();
		delete m;
	}
	printf("powerup: %d seeds, every output valid low during reset in %d\n", seeds, pass);
	printf("%d passed, %d failed\n", pass, fail);
	return fail != 0;
}
