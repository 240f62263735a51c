// SPDX-License-Identifier: MIT
/*
 * tx_units_tb.c - unit tests of the TX building blocks against the model:
 *   matcher: inc_tos_matcher (TX and RX) on random frames from
 *            inc_fg_random, reason and parsed fields vs inc_frame_compress /
 *            inc_frame_decompress / inc_frame_parse, with and without stalls.
 *   block:   inc_compress_block vs inc_compress_value over every exponent,
 *            both signs, boundary and random mantissas, eb 6/8/10/12 (and
 *            1, 126 and the clamped 0, 127);
 *   unit:    inc_compress_unit vs inc_group_encode on random groups of all
 *            classes, partial groups included, random eb;
 *   align:   inc_align_unit vs plain byte concatenation on random chunk
 *            sequences with random preload offsets and idle cycles.
 * Plusargs: +frames=N (matcher frames per stall setting), +groups=N,
 * +chunks=N, +seed=N, +trace.
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
	case INC_R_OLD_VERSION:
	case INC_R_BAD_PAYLOAD_CSUM:
		return INC_R_NONE;     /* decided after the matcher */
	default:
		return r;
	}
}

/* m_done after the tlast beat (inc_tos_matcher: M_LAT) */
#define MATCHER_LAT 6

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
	unsigned long i, tx_seen = 0, rx_seen = 0, guard, lat_bad = 0;
	unsigned long tl_in = 0;        /* tlast beats accepted */
	/* cycle of each frame's tlast beat, for the result latency */
	unsigned long *tl_cyc = calloc(nframes, sizeof(*tl_cyc));
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
		if (*io->s.tvalid && *io->s.tready && *io->s.tlast && tl_in < nframes)
			tl_cyc[tl_in++] = guard;
		inc_axis_src_handshake(&src);
		if ((*io->tx_done || *io->rx_done) && tx_seen < nframes &&
		    (tx_seen >= tl_in || guard - tl_cyc[tx_seen] != MATCHER_LAT))
			lat_bad++;
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
	CHECK(lat_bad == 0, "matcher: %lu results not %d cycles after their tlast beat",
	      lat_bad, MATCHER_LAT);
	CHECK(tx_seen == nframes && rx_seen == nframes,
	      "matcher: %lu/%lu tx and %lu rx results for %lu frames", tx_seen,
	      nframes, rx_seen, nframes);
	inc_axis_src_flush(&src);
	free(tl_cyc);
	free(exp);
}

/* ---------------------------------------------------------------------- */
/* Compression block                                                       */
/* ---------------------------------------------------------------------- */
static unsigned long block_one(uint32_t f, unsigned eb)
{
	uint32_t pay;
	unsigned tag = inc_compress_value(f, eb, &pay);

	*io->blk_value = f;
	*io->blk_eb = (uint8_t)eb;
	tb_eval();
	if (*io->blk_tag == tag && *io->blk_payload == pay)
		return 0;
	CHECK(0, "block f=%08x eb=%u: tag %u payload %08x, model %u %08x", f, eb,
	      *io->blk_tag, *io->blk_payload, tag, pay);
	return 1;
}

static void test_block(uint64_t seed)
{
	static const unsigned ebs[] = { 6, 8, 10, 12, 1, 126, 0, 127 };
	uint32_t mant[128];
	unsigned nm = 0, k, e, s, m, x;
	unsigned long n = 0, bad = 0;
	uint64_t rng = seed;

	mant[nm++] = 0;
	mant[nm++] = 0x7fffff;
	for (k = 0; k < 23; k++) {
		mant[nm++] = 1u << k;
		mant[nm++] = (1u << k) - 1u;
		mant[nm++] = 0x7fffffu & ~((1u << k) - 1u);
	}
	for (x = 0; x < sizeof(ebs) / sizeof(ebs[0]); x++) {
		unsigned nrand = x < 4 ? 160 : 24;

		for (e = 0; e < 256; e++)
			for (s = 0; s < 2; s++) {
				for (m = 0; m < nm; m++, n++)
					bad += block_one(s << 31 | e << 23 | mant[m], ebs[x]);
				for (m = 0; m < nrand; m++, n++)
					bad += block_one(s << 31 | e << 23 |
							 ((uint32_t)inc_fg_rand(&rng) & 0x7fffff),
							 ebs[x]);
			}
	}
	inc_test_add(n - bad, 0);
	printf("block: %lu values, %lu mismatches\n", n, bad);
}

/* ---------------------------------------------------------------------- */
/* Compress unit                                                           */
/* ---------------------------------------------------------------------- */
static void test_unit(unsigned long ngroups, uint64_t seed)
{
	uint64_t rng = seed;
	uint8_t in[32], exp[INC_GROUP_MAX_BYTES], act[36];
	unsigned long g, bad = 0;
	unsigned nv, eb, len, i, lane;

	for (g = 0; g < ngroups; g++) {
		uint64_t r = inc_fg_rand(&rng);

		/* per lane a random class, so groups mix all four tags */
		for (lane = 0; lane < 8; lane++)
			inc_fg_payload(in + 4 * lane, 4,
				       (enum inc_fg_mix)(inc_fg_rand(&rng) % INC_FG_MIX_COUNT),
				       &rng);
		nv = r % 4 ? 8 : (unsigned)(r >> 8) % 9;
		eb = (r >> 16) % 8 == 0 ? (unsigned)(r >> 24) % 128
					: 6 + 2 * (unsigned)((r >> 24) % 4);
		len = inc_group_encode(in, nv, eb, exp, NULL);
		memcpy(io->unit_data, in, 32);
		*io->unit_nvalid = (uint8_t)nv;
		*io->unit_eb = (uint8_t)eb;
		tb_eval();
		memcpy(act, io->unit_group, 34);
		for (i = len; i < 34 && !act[i]; i++)
			;
		if (*io->unit_len != len || memcmp(act, exp, len) || i != 34) {
			bad++;
			CHECK(0, "unit group %lu (nvalid %u eb %u): len %u vs %u", g,
			      nv, eb, *io->unit_len, len);
			if (bad < 3) {
				inc_sim_hexdump(stderr, "input", in, 32);
				inc_sim_hexdump(stderr, "expected", exp, len);
				inc_sim_hexdump(stderr, "actual", act, 34);
			}
		}
	}
	inc_test_add(ngroups - bad, 0);
	printf("unit: %lu groups, %lu mismatches\n", ngroups, bad);
}

/* ---------------------------------------------------------------------- */
/* Align unit                                                              */
/* ---------------------------------------------------------------------- */
/* The rows the align unit presents after a clock edge, appended to got. */
static void align_collect(uint8_t *got, size_t *glen)
{
	if (*io->al_out0_valid) {
		memcpy(got + *glen, io->al_out0_data, 64);
		*glen += *io->al_out0_count;
	}
	if (*io->al_out1_valid) {
		memcpy(got + *glen, io->al_out1_data, 64);
		*glen += *io->al_out1_count;
	}
}

/* inreg: the unit with a register between its front and its merge (rows
 * two cycles after their chunk instead of one). */
static void test_align(unsigned long nframes, uint64_t seed, int inreg)
{
	static uint8_t exp[64 * 200], got[64 * 200];
	uint64_t rng = seed;
	unsigned long fr, bad = 0;
	size_t elen, glen;

	*io->al_inreg = (uint8_t)inreg;

	for (fr = 0; fr < nframes; fr++) {
		uint64_t r = inc_fg_rand(&rng);
		unsigned off = (unsigned)(r % 64), nch = (unsigned)(r >> 8) % 40;
		int bare = (r >> 16) % 10 == 0;
		unsigned c, i, len, ok;

		if (bare)
			nch = 0;
		memset(exp, 0, off);
		elen = bare ? 0 : off;
		glen = 0;
		for (c = 0; c <= nch; c++) {
			uint8_t chunk[36];
			int last = c == nch;

			len = (unsigned)(inc_fg_rand(&rng) % 35);
			if (bare || (last && inc_fg_rand(&rng) % 3 == 0))
				len = 0;
			for (i = 0; i < 36; i++)
				chunk[i] = (uint8_t)inc_fg_rand(&rng);
			memcpy(exp + elen, chunk, len);
			elen += len;
			/* idle cycles between chunks */
			while (inc_fg_rand(&rng) % 4 == 0) {
				*io->al_valid = 0;
				tb_eval();
				tb_tick();
				align_collect(got, &glen);
			}
			*io->al_valid = 1;
			memcpy(io->al_data, chunk, 34);
			*io->al_len = (uint8_t)len;
			*io->al_start = !bare && c == 0;
			*io->al_offset = (uint8_t)off;
			*io->al_last = last;
			tb_eval();
			tb_tick();
			*io->al_valid = 0;
			tb_eval();
			align_collect(got, &glen);
		}
		/* the last rows of the frame (a cycle later with inreg) */
		for (i = 0; i < 2; i++) {
			tb_tick();
			tb_eval();
			align_collect(got, &glen);
		}
		/* the preloaded bytes come out as zeros */
		ok = glen == elen && !memcmp(got, exp, elen);
		if (!ok) {
			bad++;
			CHECK(0, "align%s frame %lu (offset %u, %u chunks): %zu bytes, expected %zu",
			      inreg ? " (in_reg)" : "", fr, off, nch + 1, glen, elen);
			if (bad < 3) {
				inc_sim_hexdump(stderr, "expected", exp, elen);
				inc_sim_hexdump(stderr, "actual", got, glen);
			}
		}
	}
	inc_test_add(nframes - bad, 0);
	printf("align%s: %lu frames, %lu mismatches\n", inreg ? " (in_reg)" : "", nframes, bad);
}

int tx_units_main(int argc, char **argv)
{
	unsigned long frames = (unsigned long)inc_sim_arg_long(argc, argv, "frames", 20000);
	uint64_t seed = (uint64_t)inc_sim_arg_long(argc, argv, "seed", 1);

	tb_open(argc, argv);
	io = tb_io();
	unsigned long groups = (unsigned long)inc_sim_arg_long(argc, argv, "groups", 200000);
	unsigned long chunks = (unsigned long)inc_sim_arg_long(argc, argv, "chunks", 20000);

	reset();
	test_block(seed);
	test_unit(groups, seed + 7);
	test_align(chunks, seed + 11, 0);
	test_align(chunks, seed + 12, 1);
	test_matcher(frames, 0, seed * 2 + 1);
	test_matcher(frames, 30, seed * 2 + 2);
	test_matcher(frames / 4, 0, seed * 2 + 3);
	tb_close();
	return inc_test_done();
}
