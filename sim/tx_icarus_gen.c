// SPDX-License-Identifier: MIT
/*
 * tx_icarus_gen.c - writes the stimulus and the model's expectations for
 * the Icarus smoke bench (sim/common/inc_icarus_tb.v, RX=0) into the current directory:
 *   in.hex / in_len.hex      input frames: bytes, one per line; lengths
 *   exp.hex / exp_len.hex    expected output frames (dropped ones omitted)
 *   exp_stat.hex             per input frame: outcome, reason, bytes in, out
 * The frames cover compressed (plain, VLAN + IP options, TCP timestamps),
 * ToS bypass, not_smaller, a runt and an oversize frame.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inc_framegen.h"
#include "inc_model.h"

#define NFRAMES 8

static FILE *xopen(const char *name)
{
	FILE *f = fopen(name, "w");

	if (!f) {
		fprintf(stderr, "tx_icarus_gen: cannot write %s\n", name);
		exit(1);
	}
	return f;
}

int main(void)
{
	static uint8_t fr[10000], out[INC_FRAME_OUT_MAX], pay[9100];
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
		switch (k) {
		case 0: /* small gradient frame */
			f.payload_len = 20;
			inc_fg_payload(pay, 20, INC_FG_GRADIENT, &rng);
			break;
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
		case 3: /* ToS mismatch: bypass */
			f.tos = 0;
			f.payload_len = 200;
			inc_fg_payload(pay, f.payload_len, INC_FG_ZERO, &rng);
			break;
		case 4: /* incompressible: not_smaller */
			f.payload_len = 256;
			inc_fg_payload(pay, f.payload_len, INC_FG_INCOMPRESSIBLE, &rng);
			break;
		case 6: /* oversize: dropped */
			f.payload_len = 9018 - 54 + 40;
			inc_fg_payload(pay, f.payload_len, INC_FG_ZERO, &rng);
			break;
		default: /* 64-byte frame */
			f.payload_len = 10;
			inc_fg_payload(pay, f.payload_len, INC_FG_ZERO, &rng);
			break;
		}
		len = inc_fg_build(fr, sizeof(fr), &f);
		if (k == 5)
			len = 20;               /* runt */
		n = inc_frame_compress(fr, len, out, sizeof(out), &cfg, &info);
		if (n < 0) {
			fprintf(stderr, "tx_icarus_gen: model error %ld\n", n);
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
