/* SPDX-License-Identifier: MIT */
/* rx_units.h - shell interface of the RX unit tests (rx_units_tb.c). */
#ifndef RX_UNITS_H
#define RX_UNITS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rx_units_io {
	uint8_t *rst, *blk_tag, *start, *s_valid, *s_ready, *u_count, *u_valid, *u_last;
	uint8_t *pad_bad, *busy, *in_bytes;   /* in_bytes: 32 or 64 per transfer */
	uint32_t *blk_payload, *blk_value;
	uint16_t *n, *consumed;
	uint32_t *s_data, *u_data;   /* in_bytes / 32 bytes, byte 0 = lane 0 */
};

void rxu_open(int argc, char **argv);
void rxu_close(void);
void rxu_eval(void);
void rxu_tick(void);
struct rx_units_io *rxu_io(void);
int rx_units_main(int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif
