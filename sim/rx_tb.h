/* SPDX-License-Identifier: MIT */
/*
 * rx_tb.h - interface between the C++ shell (rx_engine_shell.cpp, which owns
 * the Verilated inc_decompress_engine) and the C test logic (rx_engine_tb.c).
 */
#ifndef RX_TB_H
#define RX_TB_H

#include <stdint.h>
#include "inc_axis.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rx_io {
	uint8_t *rst;
	struct inc_axis_if s, m;
	uint8_t *cfg_enable, *cfg_tos_value, *cfg_tos_mask;
	uint8_t *stat_valid, *stat_outcome, *stat_reason;
	uint16_t *stat_bytes_in, *stat_bytes_out;
};

void rx_tb_open(int argc, char **argv);
void rx_tb_close(void);
void rx_tb_eval(void);
void rx_tb_tick(void);
struct rx_io *rx_tb_io(void);
int rx_engine_main(int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif
