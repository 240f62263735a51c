// SPDX-License-Identifier: MIT
/* top_axil.c - stream models, clock and AXI4-Lite master for inc_offload_top. */
#include "top_tb.h"

#include <stdio.h>

void top_bus_init_dut(struct top_bus *b, uint64_t seed, struct top_io *io,
		      void (*eval)(void *), void (*tick)(void *), void *dut)
{
	b->io = io;
	b->eval = eval;
	b->tick = tick;
	b->dut = dut;
	inc_axis_src_init(&b->tx_src, &io->s_tx, seed ^ 0x11);
	inc_axis_src_init(&b->rx_src, &io->s_rx, seed ^ 0x22);
	inc_axis_sink_init(&b->tx_sink, &io->m_tx, seed ^ 0x33);
	inc_axis_sink_init(&b->rx_sink, &io->m_rx, seed ^ 0x44);
	b->cycles = 0;
	b->hook = NULL;
	b->axil_order_errors = 0;
	*io->awvalid = *io->wvalid = *io->arvalid = 0;
	*io->bready = *io->rready = 1;
	*io->awprot = *io->arprot = 0;
	*io->wstrb = 0xf;
}

void top_bus_free(struct top_bus *b)
{
	inc_axis_sink_free(&b->tx_sink);
	inc_axis_sink_free(&b->rx_sink);
}

void top_cycle(struct top_bus *b)
{
	inc_axis_src_drive(&b->tx_src);
	inc_axis_src_drive(&b->rx_src);
	inc_axis_sink_drive(&b->tx_sink);
	inc_axis_sink_drive(&b->rx_sink);
	b->eval(b->dut);
	inc_axis_src_handshake(&b->tx_src);
	inc_axis_src_handshake(&b->rx_src);
	inc_axis_sink_handshake(&b->tx_sink);
	inc_axis_sink_handshake(&b->rx_sink);
	if (b->hook)
		b->hook(b->arg);
	b->tick(b->dut);
	b->cycles++;
}

void top_reset(struct top_bus *b, int cycles)
{
	struct top_io *io = b->io;
	int i;

	inc_axis_src_flush(&b->tx_src);
	inc_axis_src_flush(&b->rx_src);
	*io->rst = 1;
	for (i = 0; i < cycles; i++)
		top_cycle(b);
	*io->rst = 0;
	inc_axis_sink_reset(&b->tx_sink);
	inc_axis_sink_reset(&b->rx_sink);
}

void top_axil_write(struct top_bus *b, uint32_t addr, uint32_t data)
{
	struct top_io *io = b->io;
	int n;

	*io->awaddr = (uint16_t)addr;
	*io->wdata = data;
	*io->awvalid = *io->wvalid = 1;
	*io->bready = 1;
	for (n = 0; n < 1000; n++) {
		int took, resp;

		b->eval(b->dut);
		took = *io->awready && *io->wready;   /* taken at this edge */
		resp = *io->bvalid;
		if (resp && *io->awvalid) {
			/* B with or before the AW/W handshake */
			fprintf(stderr, "axil write 0x%x: response before its handshake\n", addr);
			b->axil_order_errors++;
		}
		top_cycle(b);
		if (took)
			*io->awvalid = *io->wvalid = 0;
		if (resp)
			return;
	}
	*io->awvalid = *io->wvalid = 0;
	fprintf(stderr, "axil write 0x%x: no response\n", addr);
}

uint32_t top_axil_read(struct top_bus *b, uint32_t addr)
{
	struct top_io *io = b->io;
	uint32_t v;
	int n;

	*io->araddr = (uint16_t)addr;
	*io->arvalid = 1;
	*io->rready = 1;
	for (n = 0; n < 1000; n++) {
		int took, resp;

		b->eval(b->dut);
		took = *io->arready;
		resp = *io->rvalid;
		v = *io->rdata;
		if (resp && *io->arvalid) {
			fprintf(stderr, "axil read 0x%x: response before its handshake\n", addr);
			b->axil_order_errors++;
		}
		top_cycle(b);
		if (took)
			*io->arvalid = 0;
		if (resp)
			return v;
	}
	*io->arvalid = 0;
	fprintf(stderr, "axil read 0x%x: no response\n", addr);
	return 0xdeadbeef;
}

uint64_t top_read_counter(struct top_bus *b, uint32_t lo_addr)
{
	uint64_t lo = top_axil_read(b, lo_addr);
	uint64_t hi = top_axil_read(b, lo_addr + 4);

	return hi << 32 | lo;
}
