// SPDX-License-Identifier: MIT
/*
 * tx_units_tb.c - unit tests of the TX building blocks against the model:
 *   matcher: inc_tos_matcher (TX and RX) on random frames from
 *            inc_fg_random, reason and parsed fields vs inc_frame_compress /
 *            inc_frame_decompress / inc_frame_parse, with and without stalls.
 * Plusargs: +frames=N (matcher frames per stall setting), +seed=N, +trace.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inc_axis.h"
#include "inc_framegen.h"
#include "inc_model.h"
#include "inc_simutil.h"
#include "inc_test.h"
#include "tx_units.h"

static struct tx_units_io *io;

static void reset(void)
{
	*io->rst = 1;
	tb_tick();
	tb_tick();
	*io->rst = 0;
}

/* ---------------------------------------------------------------------- */
/* Matcher                                                                 */
/* ---------------------------------------------------------------------- */
struct mexp {
	unsigned tx_reason, rx_reason, len;
	struct inc_frame_hdr h;
	int hdr_ok;               /* h is meaningful (TX reason none) */
	uint16_t csum;            /* the frame's IP checksum field */
	uint8_t ttl;
};

static unsigned matcher_reason(enum inc_reason r)
{
	switch (r) {
	case INC_R_NO_PAYLOAD:
	case INC_R_NOT_SMALLER:
	case INC_R_NOT_MARKED:
	case INC_R_BAD_SHIM:
	case INC_R_BAD_STREAM:
		return INC_R_NONE;     /* decided after the matcher */
	default:
		return r;
	}
}

static uint16_t fold_add(uint32_t a)
{
	while (a >> 16)
		a = (a & 0xffff) + (a >> 16);
	return (uint16_t)a;
}

static void test_matcher(unsigned long nframes, unsigned stall, uint64_t seed)
{
	static uint8_t fr[9100], out[INC_FRAME_OUT_MAX];
	struct inc_axis_src src;
	struct mexp *exp = calloc(nframes, sizeof(*exp));
	struct inc_frame_config cfg;
	struct inc_frame_info info;
	uint64_t rng = seed;
	unsigned long i, tx_seen = 0, rx_seen = 0, guard;
	size_t len;

	inc_axis_src_init(&src, &io->s, seed ^ 0x1234);
	src.gap_pct = stall;
	inc_frame_config_default(&cfg);
	cfg.max_frame = 0;
	/* One ToS setting per run: the default, or a random value/mask. */
	if (seed & 1) {
		cfg.tos_value = (uint8_t)inc_fg_rand(&rng);
		cfg.tos_mask = (uint8_t)inc_fg_rand(&rng);
	}
	*io->cfg_tos_value = cfg.tos_value;
	*io->cfg_tos_mask = cfg.tos_mask;
	for (i = 0; i < nframes; i++) {
		size_t maxl = inc_fg_rand(&rng) % 8 ? 400 : 9018;

		do
			len = inc_fg_random(fr, sizeof(fr), maxl, 1, &rng);
		while (len == 0);
		inc_frame_compress(fr, len, out, sizeof(out), &cfg, &info);
		exp[i].tx_reason = matcher_reason(info.reason);
		inc_frame_decompress(fr, len, out, sizeof(out), &cfg, &info);
		exp[i].rx_reason = matcher_reason(info.reason);
		exp[i].len = (unsigned)len;
		exp[i].hdr_ok = exp[i].tx_reason == INC_R_NONE;
		if (exp[i].hdr_ok) {
			inc_frame_parse(fr, len, &exp[i].h);
			exp[i].csum = (uint16_t)(fr[exp[i].h.l3_off + 10] << 8 |
						 fr[exp[i].h.l3_off + 11]);
			exp[i].ttl = fr[exp[i].h.l3_off + 8];
		}
		inc_axis_src_push(&src, fr, len, i);
	}
	for (guard = 0; (tx_seen < nframes || rx_seen < nframes) &&
			guard < nframes * 400 + 1000; guard++) {
		inc_axis_src_drive(&src);
		*io->tb_ready = !(stall && inc_sim_rand(&rng) % 100 < stall);
		tb_eval();
		inc_axis_src_handshake(&src);
		if (*io->tx_done && tx_seen < nframes) {
			struct mexp *e = &exp[tx_seen];

			CHECK(*io->tx_reason == e->tx_reason,
			      "matcher tx frame %lu (len %u): reason %s, expected %s",
			      tx_seen, e->len, inc_reason_name(*io->tx_reason),
			      inc_reason_name(e->tx_reason));
			CHECK(*io->tx_frame_len == e->len, "frame %lu: len %u vs %u",
			      tx_seen, *io->tx_frame_len, e->len);
			if (e->hdr_ok && *io->tx_reason == INC_R_NONE) {
				uint16_t sum = fold_add((uint32_t)*io->tx_csum_rest +
							e->h.ip_total +
							((unsigned)e->ttl << 8 | e->h.proto));
				unsigned newc = 0xffffu & ~(unsigned)sum;

				CHECK(*io->tx_l3_off == e->h.l3_off &&
				      *io->tx_ip_hlen == e->h.ip_hlen &&
				      *io->tx_tcp_hlen == e->h.tcp_hlen &&
				      *io->tx_ip_total == e->h.ip_total &&
				      *io->tx_payload_off == e->h.payload_off &&
				      *io->tx_payload_len == e->h.payload_len &&
				      *io->tx_proto == e->h.proto &&
				      *io->tx_ttl == e->ttl,
				      "matcher frame %lu: fields l3 %u ihl %u thl %u total %u poff %u plen %u",
				      tx_seen, *io->tx_l3_off, *io->tx_ip_hlen,
				      *io->tx_tcp_hlen, *io->tx_ip_total,
				      *io->tx_payload_off, *io->tx_payload_len);
				CHECK(newc == e->csum,
				      "matcher frame %lu: csum_rest %04x gives %04x, field %04x",
				      tx_seen, *io->tx_csum_rest, newc, e->csum);
			}
			tx_seen++;
		}
		if (*io->rx_done && rx_seen < nframes) {
			CHECK(*io->rx_reason == exp[rx_seen].rx_reason,
			      "matcher rx frame %lu (len %u): reason %s, expected %s",
			      rx_seen, exp[rx_seen].len, inc_reason_name(*io->rx_reason),
			      inc_reason_name(exp[rx_seen].rx_reason));
			rx_seen++;
		}
		tb_tick();
	}
	CHECK(tx_seen == nframes && rx_seen == nframes,
	      "matcher: %lu/%lu tx and %lu rx results for %lu frames", tx_seen,
	      nframes, rx_seen, nframes);
	inc_axis_src_flush(&src);
	free(exp);
}

int tx_units_main(int argc, char **argv)
{
	unsigned long frames = (unsigned long)inc_sim_arg_long(argc, argv, "frames", 20000);
	uint64_t seed = (uint64_t)inc_sim_arg_long(argc, argv, "seed", 1);

	tb_open(argc, argv);
	io = tb_io();
	reset();
	test_matcher(frames, 0, seed * 2 + 1);
	test_matcher(frames, 30, seed * 2 + 2);
	test_matcher(frames / 4, 0, seed * 2 + 3);
	tb_close();
	return inc_test_done();
}
