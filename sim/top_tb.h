/* SPDX-License-Identifier: MIT */
/*
 * top_tb.h - interface between the C++ shell of inc_offload_top
 * (top_shell.cpp) and the C programs driving it: the top testbench
 * (top_tb.c) and build/bin/inc-rtl-pcap (inc-rtl-pcap.c). Also the
 * AXI4-Lite master helpers (top_axil.c).
 */
#ifndef TOP_TB_H
#define TOP_TB_H

#include <stdint.h>
#include "inc_axis.h"

#ifdef __cplusplus
extern "C" {
#endif

struct top_io {
	uint8_t *rst;
	struct inc_axis_if s_tx, m_tx, s_rx, m_rx;
	uint16_t *awaddr, *araddr;
	uint8_t *awprot, *arprot, *awvalid, *awready, *wvalid, *wready, *wstrb;
	uint32_t *wdata, *rdata;
	uint8_t *bvalid, *bready, *bresp, *arvalid, *arready, *rvalid, *rready, *rresp;
};

void top_tb_open(int argc, char **argv);
void top_tb_close(void);
void top_tb_eval(void);
void top_tb_tick(void);
struct top_io *top_tb_io(void);
/* The statistics pulse of the RX (rx 1) or TX engine in this cycle: one
 * per frame, in frame order, with its outcome and reason. */
void top_tb_stat(int rx, int *valid, int *outcome, int *reason);
int top_main(int argc, char **argv);

/* Stream models of the four ports of one model instance; top_cycle() runs
 * one clock with them and calls the hook after the handshakes (before the
 * clock edge). */
struct top_bus {
	struct inc_axis_src tx_src, rx_src;
	struct inc_axis_sink tx_sink, rx_sink;
	uint64_t cycles;
	void (*hook)(void *arg);
	void *arg;
	struct top_io *io;            /* the instance's ports */
	void (*eval)(void *dut);      /* settle its combinational logic */
	void (*tick)(void *dut);      /* one clock */
	void *dut;
	/* AXI4-Lite responses seen in or before the cycle of their request's
	 * handshake (AXI4 orders them after it; found by formal/ csr_axil) */
	unsigned axil_order_errors;
};

/* The bus of the shell's single instance (top_tb_open). */
void top_bus_init(struct top_bus *b, uint64_t seed);
/* The bus of any instance. */
void top_bus_init_dut(struct top_bus *b, uint64_t seed, struct top_io *io,
		      void (*eval)(void *), void (*tick)(void *), void *dut);
void top_bus_free(struct top_bus *b);
void top_cycle(struct top_bus *b);
void top_reset(struct top_bus *b, int cycles);
/* AXI4-Lite single transfers (run the clock meanwhile). */
void top_axil_write(struct top_bus *b, uint32_t addr, uint32_t data);
uint32_t top_axil_read(struct top_bus *b, uint32_t addr);
/* A 64-bit counter: LO then HI, as the register map documents. */
uint64_t top_read_counter(struct top_bus *b, uint32_t lo_addr);

#ifdef __cplusplus
}
#endif

#endif
