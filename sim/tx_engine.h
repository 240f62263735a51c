/* SPDX-License-Identifier: MIT */
/* tx_engine.h - signals of inc_compress_engine shared by its C++ shell and
 * the C testbench. */
#ifndef TX_ENGINE_H
#define TX_ENGINE_H

#include <stdint.h>
#include "inc_axis.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tx_engine_io {
	uint8_t *rst;
	struct inc_axis_if s, m;
	uint8_t *cfg_enable, *cfg_tos_value, *cfg_tos_mask, *cfg_eb;
	uint8_t *stat_valid, *stat_outcome, *stat_reason;
	uint16_t *stat_bytes_in, *stat_bytes_out;
};

void tb_open(int argc, char **argv);
void tb_close(void);
void tb_eval(void);
void tb_tick(void);
struct tx_engine_io *tb_io(void);

#ifdef __cplusplus
}
#endif

#endif
