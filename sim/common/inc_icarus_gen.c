// SPDX-License-Identifier: MIT
/*
 * inc_icarus_gen.c - writes the stimulus and the model's expectations for
 * the Icarus smoke bench (sim/common/inc_icarus_tb.v) into the current
 * directory. Usage: inc_icarus_gen tx|rx (compress or decompress engine).
 *   in.hex / in_len.hex      input frames: bytes, one per line; lengths
 *   exp.hex / exp_len.hex    expected output frames (dropped ones omitted)
 *   exp_stat.hex             per input frame: outcome, reason, bytes in, out
 * One line per frame (length, outcome/reason) goes to stderr.
 * tx frames: compressed (plain, VLAN + IP options, TCP timestamps), ToS
 * bypass, not_smaller, a runt and an oversize frame.
 * rx frames: compressed frames (small, MTU with timestamps, VLAN + IP options
 * with an odd tail, a small one padded to 64 bytes), plain tagged TCP (not_marked),
 * ToS bypass, a bad shim, a bad stream, a runt and an oversize frame.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inc_framegen.h"
#include "inc_model.h"

#define TX_NFRAMES 8
#define RX_NFRAMES 11

static FILE *xopen(const char *name)
{
	FILE *f = fopen(name, "w");

	if (!f) {
		fprintf(stderr, "inc_icarus_gen: cannot write %s\n", name);
		exit(1);
	}
	return f;
}

/* Frames 1 and 2 of both lists: MTU with TCP timestamps; VLAN + IP options. */
static int common_frame(int k, struct inc_fg_frame *f, uint8_t *pay, uint64_t *rng)
{
	switch (k) {
	case 1: /* MTU, TCP timestamps (66-byte header) */
		f->tcp_opt_len = 12;
		f->payload_len = 1448;
		inc_fg_payload(pay, f->payload_len, INC_FG_GRADIENT, rng);
		return 1;
	case 2: /* VLAN, IP options, odd tail */
		f->vlan = 1;
		f->vlan_tci = 5;
		f->ip_opt_len = 12;
		f->tcp_opt_len = 12;
		f->payload_len = 403;
		inc_fg_payload(pay, f->payload_len, INC_FG_ZERO, rng);
		return 1;
	default:
		return 0;
	}
}

/* Input frame k of the compress engine's list; returns its length. */
static size_t tx_frame(int k, uint8_t *fr, size_t cap, uint8_t *pay, uint64_t *rng)
{
	struct inc_fg_frame f;
	size_t len;

	inc_fg_defaults(&f);
	f.payload = pay;
	if (!common_frame(k, &f, pay, rng)) {
		switch (k) {
		case 0: /* small gradient frame */
			f.payload_len = 20;
			inc_fg_payload(pay, 20, INC_FG_GRADIENT, rng);
			break;
		case 3: /* ToS mismatch: bypass */
			f.tos = 0;
			f.payload_len = 200;
			inc_fg_payload(pay, f.payload_len, INC_FG_ZERO, rng);
			break;
		case 4: /* incompressible: not_smaller */
			f.payload_len = 256;
			inc_fg_payload(pay, f.payload_len, INC_FG_INCOMPRESSIBLE, rng);
			break;
		case 6: /* oversize: dropped */
			f.payload_len = 9018 - 54 + 40;
			inc_fg_payload(pay, f.payload_len, INC_FG_ZERO, rng);
			break;
		default: /* 64-byte frame */
			f.payload_len = 10;
			inc_fg_payload(pay, f.payload_len, INC_FG_ZERO, rng);
			break;
		}
	}
	len = inc_fg_build(fr, cap, &f);
	if (k == 5)
		len = 20;               /* runt */
	return len;
}

/* Input frame k of the decompress engine's list (compressed by the model,
 * then padded or corrupted); returns its length. */
static size_t rx_frame(int k, uint8_t *fr, size_t cap, uint8_t *pay, uint64_t *rng,
		       const struct inc_frame_config *cfg)
{
	static uint8_t comp[10000];
	struct inc_frame_info info;
	struct inc_fg_frame f;
	size_t len;
	long n;

	inc_fg_defaults(&f);
	f.payload = pay;
	f.payload_len = 200;
	inc_fg_payload(pay, 200, INC_FG_GRADIENT, rng);
	if (!common_frame(k, &f, pay, rng)) {
		switch (k) {
		case 3: /* tiny payload: a 62-byte compressed frame, padded below */
			f.payload_len = 16;
			inc_fg_payload(pay, f.payload_len, INC_FG_ZERO, rng);
			break;
		case 6: /* oversize when restored is fine; this one is oversize in */
			f.payload_len = 9018 - 54 + 40;
			inc_fg_payload(pay, f.payload_len, INC_FG_RANDOM_BITS, rng);
			break;
		default:
			break;
		}
	}
	len = inc_fg_build(fr, cap, &f);
	n = inc_frame_compress(fr, len, comp, sizeof(comp), cfg, &info);
	if (n > 0 && info.outcome == INC_OUT_COMPRESSED && k != 4 && k != 5) {
		memcpy(fr, comp, (size_t)n);
		len = (size_t)n;
	}
	if (k == 3 && len < 64) {   /* Ethernet padding (allowed up to 64 bytes) */
		memset(fr + len, 0, 64 - len);
		len = 64;
	}
	if (k == 7)             /* bad shim: version 3 */
		fr[54 + 1] = 3;
	if (k == 8)             /* bad stream: one byte more in the stream */
		fr[54 + 3]--;   /* restored length one float shorter */
	if (k == 9)
		len = 20;       /* runt */
	if (k == 10)
		fr[15] = 0;     /* ToS 0: bypass */
	return len;
}

int main(int argc, char **argv)
{
	static uint8_t fr[10000], out[INC_FRAME_OUT_MAX], pay[9100];
	struct inc_frame_config cfg;
	struct inc_frame_info info;
	uint64_t rng = 42;
	FILE *in, *inl, *ex, *exl, *st;
	size_t len, i;
	long n;
	int k, rx, nframes;

	if (argc != 2 || (strcmp(argv[1], "tx") && strcmp(argv[1], "rx"))) {
		fprintf(stderr, "usage: inc_icarus_gen tx|rx\n");
		return 2;
	}
	rx = !strcmp(argv[1], "rx");
	nframes = rx ? RX_NFRAMES : TX_NFRAMES;
	in = xopen("in.hex");
	inl = xopen("in_len.hex");
	ex = xopen("exp.hex");
	exl = xopen("exp_len.hex");
	st = xopen("exp_stat.hex");
	inc_frame_config_default(&cfg);
	for (k = 0; k < nframes; k++) {
		if (rx) {
			len = rx_frame(k, fr, sizeof(fr), pay, &rng, &cfg);
			n = inc_frame_decompress(fr, len, out, sizeof(out), &cfg, &info);
		} else {
			len = tx_frame(k, fr, sizeof(fr), pay, &rng);
			n = inc_frame_compress(fr, len, out, sizeof(out), &cfg, &info);
		}
		if (n < 0) {
			fprintf(stderr, "inc_icarus_gen: model error %ld\n", n);
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
