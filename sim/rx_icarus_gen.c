// SPDX-License-Identifier: MIT
/*
 * rx_icarus_gen.c - writes the stimulus and the model's expectations for
 * the Icarus smoke bench of the decompress engine (sim/common/inc_icarus_tb.v, RX=1) into
 * the current directory, in the format of sim/tx_icarus_gen.c:
 *   in.hex / in_len.hex      input frames: bytes, one per line; lengths
 *   exp.hex / exp_len.hex    expected output frames (dropped ones omitted)
 *   exp_stat.hex             per input frame: outcome, reason, bytes in, out
 * Frames: compressed frames (small, MTU with timestamps, VLAN + IP options
 * with an odd tail, a padded 60-byte one), plain tagged TCP (not_marked),
 * ToS bypass, a bad shim, a bad stream, a runt and an oversize frame.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inc_framegen.h"
#include "inc_model.h"

#define NFRAMES 11

static FILE *xopen(const char *name)
{
	FILE *f = fopen(name, "w");

	if (!f) {
		fprintf(stderr, "rx_icarus_gen: cannot write %s\n", name);
		exit(1);
	}
	return f;
}

int main(void)
{
	static uint8_t fr[10000], comp[10000], out[INC_FRAME_OUT_MAX], pay[9100];
	FILE *in = xopen("in.hex"), *inl = xopen("in_len.hex");
	FILE *ex = xopen("exp.hex"), *exl = xopen("exp_len.hex");
	FILE *st = xopen("exp_stat.hex");
	struct inc_frame_config cfg;
	struct inc_frame_info info;
	struct inc_fg_frame f;
	uint64_t rng = 42;
	size_t len, i;
	long n;
	int k;

	inc_frame_config_default(&cfg);
	for (k = 0; k < NFRAMES; k++) {
		inc_fg_defaults(&f);
		f.payload = pay;
		f.payload_len = 200;
		inc_fg_payload(pay, 200, INC_FG_GRADIENT, &rng);
		switch (k) {
		case 1: /* MTU, TCP timestamps (66-byte header) */
			f.tcp_opt_len = 12;
			f.payload_len = 1448;
			inc_fg_payload(pay, f.payload_len, INC_FG_GRADIENT, &rng);
			break;
		case 2: /* VLAN, IP options, odd tail */
			f.vlan = 1;
			f.vlan_tci = 5;
			f.ip_opt_len = 12;
			f.tcp_opt_len = 12;
			f.payload_len = 403;
			inc_fg_payload(pay, f.payload_len, INC_FG_ZERO, &rng);
			break;
		case 3: /* tiny payload: compressed frame shorter than 60 bytes */
			f.payload_len = 16;
			inc_fg_payload(pay, f.payload_len, INC_FG_ZERO, &rng);
			break;
		case 6: /* oversize when restored is fine; this one is oversize in */
			f.payload_len = 9018 - 54 + 40;
			inc_fg_payload(pay, f.payload_len, INC_FG_RANDOM_BITS, &rng);
			break;
		default:
			break;
		}
		len = inc_fg_build(fr, sizeof(fr), &f);
		n = inc_frame_compress(fr, len, comp, sizeof(comp), &cfg, &info);
		if (n > 0 && info.outcome == INC_OUT_COMPRESSED && k != 4 && k != 5) {
			memcpy(fr, comp, (size_t)n);
			len = (size_t)n;
		}
		if (k == 3) {           /* Ethernet padding to 60 bytes */
			memset(fr + len, 0, 60 - len);
			len = 60;
		}
		if (k == 7)             /* bad shim: version 2 */
			fr[54 + 1] = 2;
		if (k == 8)             /* bad stream: one byte more in the stream */
			fr[54 + 3]--;   /* restored length one float shorter */
		if (k == 9)
			len = 20;       /* runt */
		if (k == 10)
			fr[15] = 0;     /* ToS 0: bypass */
		n = inc_frame_decompress(fr, len, out, sizeof(out), &cfg, &info);
		if (n < 0) {
			fprintf(stderr, "rx_icarus_gen: model error %ld\n", n);
			return 1;
		}
		for (i = 0; i < len; i++)
			fprintf(in, "%02x\n", fr[i]);
		fprintf(inl, "%04zx\n", len);
		if (info.outcome != INC_OUT_DROPPED) {
			for (i = 0; i < (size_t)n; i++)
				fprintf(ex, "%02x\n", out[i]);
			fprintf(exl, "%04lx\n", n);
		}
		fprintf(st, "%02x%02x%04zx%04lx\n", info.outcome, info.reason, len, n);
		fprintf(stderr, "frame %d: %zu bytes, %s/%s\n", k, len, inc_outcome_name(info.outcome),
			inc_reason_name(info.reason));
	}
	fprintf(inl, "0000\n");
	fprintf(exl, "0000\n");
	fclose(in);
	fclose(inl);
	fclose(ex);
	fclose(exl);
	fclose(st);
	return 0;
}
