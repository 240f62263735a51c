/* SPDX-License-Identifier: MIT */
/* tx_units.h - signals of tx_units_top shared by its C++ shell and C tests. */
#ifndef TX_UNITS_H
#define TX_UNITS_H

#include <stdint.h>
#include "inc_axis.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tx_units_io {
	uint8_t *rst;
	struct inc_axis_if s;
	uint8_t *tb_ready, *cfg_tos_value, *cfg_tos_mask;
	uint8_t *tx_done, *tx_reason, *tx_l3_off, *tx_ip_hlen, *tx_tcp_hlen;
	uint8_t *tx_payload_off, *tx_proto, *tx_ttl, *tx_cur_hdr_valid;
	uint8_t *tx_cur_payload_off;
	uint16_t *tx_frame_len, *tx_ip_total, *tx_payload_len, *tx_csum_rest;
	uint8_t *rx_done, *rx_reason;

	uint32_t *blk_value, *blk_payload;
	uint8_t *blk_eb, *blk_tag;

	uint32_t *unit_data, *unit_group;   /* 8 and 9 words */
	uint8_t *unit_nvalid, *unit_eb, *unit_len;

	uint8_t *al_valid, *al_len, *al_start, *al_offset, *al_last;
	uint8_t *al_inreg;                  /* 1: the align unit built with IN_REG = 1 */
	uint32_t *al_data;                  /* 9 words */
	uint8_t *al_out0_valid, *al_out0_count, *al_out1_valid, *al_out1_count;
	uint32_t *al_out0_data, *al_out1_data;  /* 16 words */
};

void tb_open(int argc, char **argv);
void tb_close(void);
void tb_eval(void);
void tb_tick(void);
struct tx_units_io *tb_io(void);

#ifdef __cplusplus
}
#endif

#endif
