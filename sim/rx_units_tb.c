// SPDX-License-Identifier: MIT
/*
 * rx_units_tb.c - unit tests of the receive datapath against the model:
 *  1. inc_decompress_block vs inc_decompress_value: every exponent, both
 *     signs and many mantissas compressed at eb 6, 8, 10, 12 (the model
 *     makes the payloads), plus every 8-bit payload and random 16-bit and
 *     raw payloads of each tag (field 0 -> signed zero included);
 *  2. inc_burst_buffer + inc_decompress_unit vs inc_stream_decompress on
 *     random streams (all payload mixes, random n) fed with random input
 *     gaps; the consumed size vs inc_stream_size, and padding lanes with a
 *     non-zero tag flagged; one or two beats per transfer, as the harness
 *     was built (rx_units_top IN_BEATS).
 *   +streams=N +seed=S. Last line "N passed, N failed".
 */
#include "rx_units.h"
#include "inc_model.h"
#include "inc_framegen.h"
#include "inc_simutil.h"
#include "inc_test.h"

#include <stdio.h>
#include <string.h>

static struct rx_units_io *io;

static uint32_t blk(unsigned tag, uint32_t payload)
{
	*io->blk_tag = (uint8_t)tag;
	*io->blk_payload = payload;
	rxu_eval();
	return *io->blk_value;
}

static void test_block(uint64_t *rng)
{
	static const unsigned ebs[4] = { 6, 8, 10, 12 };
	unsigned long bad = 0, n = 0;
	unsigned e, s, k, i, tag;
	uint32_t f, payload, got, exp;

	for (i = 0; i < 4; i++)
		for (e = 0; e < 256; e++)
			for (s = 0; s < 2; s++)
				for (k = 0; k < 64; k++) {
					uint32_t m = k < 24 ? (k ? 1u << (k - 1) : 0) :
						 k < 26 ? 0x7fffffu * (k - 24) :
						 (uint32_t)inc_fg_rand(rng) & 0x7fffff;

					f = s << 31 | e << 23 | m;
					tag = inc_compress_value(f, ebs[i], &payload);
					got = blk(tag, payload);
					exp = inc_decompress_value(tag, payload);
					n++;
					if (got != exp) {
						bad++;
						CHECK(0, "eb %u f 0x%08x tag %u payload 0x%x: 0x%08x, model 0x%08x",
						      ebs[i], f, tag, payload, got, exp);
					}
				}
	CHECK(bad == 0, "%lu of %lu compressed values", bad, n);
	bad = 0;
	for (tag = 0; tag < 4; tag++)
		for (k = 0; k < 70000; k++) {
			payload = tag == 1 ? k & 0xff : tag == 2 ? k & 0xffff :
				  (uint32_t)inc_fg_rand(rng);
			if (k < 2)   /* field 0 with either sign: signed zero */
				payload = tag == 1 ? k << 7 : k << 15;
			if (blk(tag, payload) != inc_decompress_value(tag, payload))
				bad++;
		}
	CHECK(bad == 0, "%lu direct tag/payload patterns differ", bad);
}

static void tick(void)
{
	rxu_tick();
}

/* Feed one stream; returns 1 when the outputs equal the model. */
static int run_stream(const uint8_t *st, size_t slen, size_t n, unsigned gap, uint64_t *rng,
		      unsigned long idx)
{
	static uint8_t exp[4 * 20000 + 64], got[4 * 20000 + 64];
	size_t pos = 0, outpos = 0;
	long want = inc_stream_decompress(st, slen, n, exp, sizeof(exp));
	long size = inc_stream_size(st, slen, n);
	unsigned long guard = 0;
	size_t inb = *io->in_bytes;   /* bytes per burst buffer transfer */
	int ok = 1;

	*io->n = (uint16_t)n;
	*io->start = 1;
	*io->s_valid = 0;
	rxu_eval();
	tick();
	*io->start = 0;
	while ((*io->busy || pos == 0) && guard++ < 100000) {
		int drive = (inc_fg_rand(rng) % 100) >= gap;

		*io->s_valid = (uint8_t)drive;
		memset(io->s_data, 0, inb);
		/* beyond the stream: zeros, like the rest of an input slot */
		if (pos < slen)
			memcpy(io->s_data, st + pos, slen - pos < inb ? slen - pos : inb);
		rxu_eval();
		if (*io->u_valid) {
			memcpy(got + outpos, io->u_data, *io->u_count);
			outpos += *io->u_count;
		}
		if (drive && *io->s_ready)
			pos += inb;
		tick();
		if (!*io->busy && n == 0)
			break;
	}
	/* the unit's pipeline (four stages) drains */
	for (int i = 0; i < 5; i++) {
		*io->s_valid = 0;
		rxu_eval();
		if (*io->u_valid) {
			memcpy(got + outpos, io->u_data, *io->u_count);
			outpos += *io->u_count;
		}
		tick();
	}
	if (want >= 0) {
		ok = outpos == 4 * n && !memcmp(exp, got, 4 * n) && *io->consumed == (unsigned)want &&
		     !*io->pad_bad;
		if (!ok)
			inc_sim_frame_eq("rx_units stream", idx, exp, 4 * n, got, outpos);
		CHECK(ok, "stream %lu (n %zu, %zu bytes): consumed %u (model %ld), pad_bad %u",
		      idx, n, slen, *io->consumed, want, *io->pad_bad);
	} else {
		/* A malformed stream: the engine's check flags it. */
		ok = *io->pad_bad || *io->consumed != (unsigned)slen;
		CHECK(ok, "bad stream %lu (%ld) not flagged", idx, size);
	}
	return ok;
}

static void test_streams(long count, uint64_t *rng)
{
	static uint8_t vals[4 * 20000], st[40000];
	long i;

	for (i = 0; i < count; i++) {
		size_t n = (size_t)(inc_fg_rand(rng) % (i % 10 == 0 ? 2300 : 200));
		enum inc_fg_mix mix = (enum inc_fg_mix)(inc_fg_rand(rng) % INC_FG_MIX_COUNT);
		unsigned eb = 1 + (unsigned)(inc_fg_rand(rng) % 14);
		long slen;

		inc_fg_payload(vals, 4 * n, mix, rng);
		slen = inc_stream_compress(vals, n, eb, st, sizeof(st), NULL);
		if (slen < 0) {
			CHECK(0, "model compress");
			continue;
		}
		/* Every 16th stream: a non-zero padding tag in the last group. */
		if (i % 16 == 5 && n % 8) {
			long last = inc_stream_size(st, (size_t)slen, n - n % 8);
			st[last + 1] |= 0x80;   /* lane 7 tag 2 */
			slen = inc_stream_size(st, sizeof(st), n - n % 8) +
			       (long)inc_group_size((uint16_t)(st[last] | st[last + 1] << 8));
		}
		run_stream(st, (size_t)slen, n, i % 2 ? 40 : 0, rng, (unsigned long)i);
	}
}

int rx_units_main(int argc, char **argv)
{
	long streams = inc_sim_arg_long(argc, argv, "streams", 3000);
	uint64_t rng = (uint64_t)inc_sim_arg_long(argc, argv, "seed", 1) * 0x9e3779b97f4a7c15ULL + 3;
	int i;

	rxu_open(argc, argv);
	io = rxu_io();
	*io->rst = 1;
	for (i = 0; i < 3; i++) {
		rxu_eval();
		tick();
	}
	*io->rst = 0;
	test_block(&rng);
	test_streams(streams, &rng);
	rxu_close();
	return inc_test_done();
}
