// SPDX-License-Identifier: MIT
/* rtl_nic.c - a NIC made of the RTL, one frame at a time (rtl_nic.h). */
#include "rtl_nic.h"
#include "top_tb.h"

#include <stdlib.h>
#include <string.h>

#define FRAME_CYCLES_MAX 1000000u

struct rtl_nic {
	struct rtl_nic_dut *dut;
	struct top_bus bus;
	struct rtl_nic_stat seen[2];   /* the last pulse of each engine */
};

/* Runs in every cycle after the handshakes: catch the statistics pulses. */
static void stat_hook(void *arg)
{
	struct rtl_nic *n = arg;
	struct rtl_nic_stat st;
	int d;

	for (d = 0; d < 2; d++) {
		rtl_nic_dut_stat(n->dut, d, &st);
		if (st.valid)
			n->seen[d] = st;
	}
}

struct rtl_nic *rtl_nic_open(const struct inc_frame_config *cfg, int trace_able)
{
	struct rtl_nic *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->dut = rtl_nic_dut_new(trace_able);
	top_bus_init_dut(&n->bus, 1, rtl_nic_dut_io(n->dut), rtl_nic_dut_eval,
			 rtl_nic_dut_tick, n->dut);
	n->bus.hook = stat_hook;
	n->bus.arg = n;
	top_reset(&n->bus, 4);
	/* As the driver's FPGA path programs the engines. */
	top_axil_write(&n->bus, INC_REG_TOS,
		       (uint32_t)cfg->tos_value << INC_TOS_VALUE_SHIFT |
		       (uint32_t)cfg->tos_mask << INC_TOS_MASK_SHIFT);
	top_axil_write(&n->bus, INC_REG_EB, cfg->eb & INC_EB_MASK);
	top_axil_write(&n->bus, INC_REG_CNT_CTRL, INC_CNT_CTRL_CLEAR);
	top_axil_write(&n->bus, INC_REG_CTRL, INC_CTRL_TX_EN | INC_CTRL_RX_EN);
	if (top_axil_read(&n->bus, INC_REG_ID) != INC_ID_VALUE ||
	    top_axil_read(&n->bus, INC_REG_CTRL) != (INC_CTRL_TX_EN | INC_CTRL_RX_EN)) {
		rtl_nic_close(n);
		return NULL;
	}
	return n;
}

void rtl_nic_close(struct rtl_nic *n)
{
	if (!n)
		return;
	top_bus_free(&n->bus);
	rtl_nic_dut_free(n->dut);
	free(n);
}

long rtl_nic_frame(struct rtl_nic *n, int rx, const uint8_t *in, size_t len,
		   uint8_t *out, size_t cap, struct inc_frame_info *info)
{
	struct inc_axis_src *src = rx ? &n->bus.rx_src : &n->bus.tx_src;
	struct inc_axis_sink *sink = rx ? &n->bus.rx_sink : &n->bus.tx_sink;
	struct inc_axis_frame *f;
	unsigned c;
	long r;

	memset(info, 0, sizeof(*info));
	n->seen[rx].valid = 0;
	inc_axis_src_push(src, in, len, 0);
	for (c = 0; c < FRAME_CYCLES_MAX; c++) {
		top_cycle(&n->bus);
		if (n->seen[rx].valid &&
		    (n->seen[rx].outcome == INC_OUT_DROPPED || sink->done.count))
			break;
	}
	if (c == FRAME_CYCLES_MAX)
		return -1;
	info->outcome = (enum inc_outcome)n->seen[rx].outcome;
	info->reason = (enum inc_reason)n->seen[rx].reason;
	if (info->outcome == INC_OUT_DROPPED)
		return 0;
	f = inc_axis_fifo_pop(&sink->done);
	r = f->len <= cap ? (long)f->len : -2;
	if (r > 0)
		memcpy(out, f->data, f->len);
	inc_axis_frame_free(f);
	return r;
}

void rtl_nic_counters(struct rtl_nic *n, uint64_t cnt[2][INC_CNT_PER_DIR])
{
	static const uint32_t base[2] = { INC_REG_TX_BASE, INC_REG_RX_BASE };
	int d, i, k;

	for (d = 0; d < 2; d++) {
		k = 0;
		for (i = 0; i < INC_CNT_OUTCOMES; i++)
			cnt[d][k++] = top_read_counter(&n->bus, INC_REG_CNT_OUTCOME(base[d], i));
		for (i = 0; i < INC_CNT_REASONS; i++)
			cnt[d][k++] = top_read_counter(&n->bus, INC_REG_CNT_REASON(base[d], i));
		cnt[d][k++] = top_read_counter(&n->bus, INC_REG_CNT_BYTES_IN(base[d]));
		cnt[d][k++] = top_read_counter(&n->bus, INC_REG_CNT_BYTES_OUT(base[d]));
	}
}

uint64_t rtl_nic_cycles(const struct rtl_nic *n)
{
	return n->bus.cycles;
}

void rtl_nic_trace(struct rtl_nic *n, const char *path)
{
	rtl_nic_dut_trace(n->dut, path);
}
