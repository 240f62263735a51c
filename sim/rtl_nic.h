/* SPDX-License-Identifier: MIT */
/*
 * rtl_nic.h - a NIC made of the RTL: one Verilated inc_offload_top (compress
 * engine, decompress engine, CSR block) configured over its AXI4-Lite port
 * as the driver's FPGA path programs it, taking one frame at a time through
 * either engine. Used by nic-switch's RTL backend (build/bin/nic-switch-rtl).
 */
#ifndef RTL_NIC_H
#define RTL_NIC_H

#include <stddef.h>
#include <stdint.h>

#include "inc_model.h"
#include "inc_regs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An engine's statistics pulse (the CSR counters' input). */
struct rtl_nic_stat {
	uint8_t valid, outcome, reason;
};

/* The C++ side (rtl_nic_shell.cpp): one model instance. */
struct rtl_nic_dut;
struct top_io;
struct rtl_nic_dut *rtl_nic_dut_new(int trace_able);
void rtl_nic_dut_free(struct rtl_nic_dut *d);
struct top_io *rtl_nic_dut_io(struct rtl_nic_dut *d);
void rtl_nic_dut_eval(void *d);
void rtl_nic_dut_tick(void *d);
void rtl_nic_dut_trace(struct rtl_nic_dut *d, const char *path);  /* NULL: stop */
void rtl_nic_dut_stat(struct rtl_nic_dut *d, int rx, struct rtl_nic_stat *st);
/* The program's entry point (the shell's main calls it). */
int rtl_nic_main(int argc, char **argv);

struct rtl_nic;

/*
 * A NIC out of reset with CTRL = TX|RX, the ToS value/mask and error bound
 * of cfg written to its registers. trace_able allows rtl_nic_trace later.
 * cfg->max_frame must be the RTL's MAX_FRAME (9018). NULL on failure.
 */
struct rtl_nic *rtl_nic_open(const struct inc_frame_config *cfg, int trace_able);
void rtl_nic_close(struct rtl_nic *n);

/*
 * One frame through the compress engine (rx = 0) or the decompress engine
 * (rx = 1): the output frame into out (cap bytes), its outcome and reason
 * (from the engine's statistics pulse) into info. Returns the output length
 * (0 when the engine dropped the frame), or -1 when the engine did not
 * finish the frame within a million cycles, -2 when out is too small.
 */
long rtl_nic_frame(struct rtl_nic *n, int rx, const uint8_t *in, size_t len,
		   uint8_t *out, size_t cap, struct inc_frame_info *info);

/* Every counter of both blocks, read over AXI4-Lite (LO then HI):
 * cnt[0] the TX block, cnt[1] the RX block, INC_CNT_PER_DIR each, in the
 * order of the map (outcomes, reasons, bytes in, bytes out). */
void rtl_nic_counters(struct rtl_nic *n, uint64_t cnt[2][INC_CNT_PER_DIR]);

/* Clock cycles this NIC has run. */
uint64_t rtl_nic_cycles(const struct rtl_nic *n);

/* Start an FST trace of this NIC into path, or stop it (NULL). */
void rtl_nic_trace(struct rtl_nic *n, const char *path);

#ifdef __cplusplus
}
#endif

#endif
