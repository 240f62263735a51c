// SPDX-License-Identifier: MIT
/*
 * test_integrity.c - end-to-end integrity of compressed frames (format v2,
 * docs/wire-format.md "Integrity"), on the model.
 *
 * Frames: tagged TCP segments of real captures (the .pcap files of tests/fixtures, made
 * by the Linux stack, so their TCP checksums are real), compressed by the
 * model; kept when they compress and decompress. Their payloads are whole
 * floats, so four generated frames with a raw tail are added.
 *
 * 1. Every single-bit flip of every kept compressed frame (all of it:
 *    headers, shim, stream, tail) is decompressed and classified
 *    (tests/common/inc_integrity.h). Asserted: no flip is ever delivered as
 *    a TCP segment with different contents; every flip in the shim, stream
 *    or tail is dropped or refused by the decompressor itself (counted).
 * 2. Random multi-byte corruption of N frames (default 100000; 2..8 bytes
 *    each, anywhere in the frame): how many the decompressor's structural
 *    checks catch, how many the payload checksum drops, how many are
 *    delivered; every corrupt delivery is listed, and their number must be
 *    of the order of 2^-16 of the frames that reach the checksum.
 *
 * Usage: test_integrity FIXTURE_DIR [N]
 */
#include "inc_model.h"
#include "inc_integrity.h"
#include "inc_framegen.h"
#include "inc_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FRAMES   64u     /* kept frames in all */
#define PER_FILE     16u     /* at most per capture */

static struct inc_int_frame frames[MAX_FRAMES];
static unsigned n_frames;
static uint8_t outbuf[INC_FRAME_OUT_MAX];

static void *xmalloc(size_t n)
{
	void *p = malloc(n);

	if (!p)
		abort();
	return p;
}

/* Decompress f with the defaults; returns the output length (0 if none). */
static size_t rx(const uint8_t *f, size_t len, struct inc_frame_info *info)
{
	long r = inc_frame_decompress(f, len, outbuf, sizeof(outbuf), NULL, info);

	CHECK(r >= 0, "decompress error %ld", r);
	return r > 0 ? (size_t)r : 0;
}

static void print_reasons(const char *title, const unsigned long *hist)
{
	unsigned i;

	printf("%s:", title);
	for (i = 0; i < INC_R_COUNT; i++)
		if (hist[i])
			printf(" %s %lu", inc_reason_name((enum inc_reason)i), hist[i]);
	printf("\n");
}

/* The captures' payloads are whole floats; four generated frames with a raw
 * tail (1..3 bytes) cover the tail region too. */
static void add_tail_frames(void)
{
	static const size_t plens[4] = { 203, 601, 1447, 61 };
	static uint8_t in[2048], comp[2048], dec[2048], pay[1500];
	struct inc_frame_info info;
	struct inc_fg_frame f;
	uint64_t rng = 0x7a11;
	size_t len;
	long c, d;
	unsigned i;

	for (i = 0; i < 4 && n_frames < MAX_FRAMES; i++) {
		inc_fg_defaults(&f);
		inc_fg_payload(pay, plens[i], INC_FG_GRADIENT, &rng);
		f.payload = pay;
		f.payload_len = plens[i];
		f.vlan = i & 1;
		len = inc_fg_build(in, sizeof(in), &f);
		c = inc_frame_compress(in, len, comp, sizeof(comp), NULL, &info);
		d = c > 0 ? inc_frame_decompress(comp, (size_t)c, dec, sizeof(dec), NULL, &info) : -1;
		CHECK(d > 0 && info.outcome == INC_OUT_DECOMPRESSED,
		      "setup: generated frame with a %zu-byte payload", plens[i]);
		if (d <= 0)
			continue;
		frames[n_frames].comp = xmalloc((size_t)c);
		memcpy(frames[n_frames].comp, comp, (size_t)c);
		frames[n_frames].clen = (size_t)c;
		frames[n_frames].ref = xmalloc((size_t)d);
		memcpy(frames[n_frames].ref, dec, (size_t)d);
		frames[n_frames].rlen = (size_t)d;
		snprintf(frames[n_frames].src, sizeof(frames[n_frames].src), "generated");
		n_frames++;
	}
}

static void single_bit_flips(void)
{
	static unsigned long t[INC_REG_COUNT][INC_FATE_COUNT];
	static unsigned long reasons[INC_R_COUNT];
	struct inc_frame_info info;
	unsigned long total = 0;
	unsigned i, bit;
	enum inc_region reg;
	enum inc_fate fate;
	uint8_t *m;
	size_t off, olen;

	for (i = 0; i < n_frames; i++) {
		struct inc_int_frame *k = &frames[i];

		m = xmalloc(k->clen);
		memcpy(m, k->comp, k->clen);
		for (off = 0; off < k->clen; off++) {
			reg = inc_region_of(k->comp, k->clen, off);
			for (bit = 0; bit < 8; bit++) {
				m[off] ^= (uint8_t)(1u << bit);
				olen = rx(m, k->clen, &info);
				fate = inc_fate_of(&info, outbuf, olen, k->ref, k->rlen);
				m[off] ^= (uint8_t)(1u << bit);
				t[reg][fate]++;
				reasons[info.reason]++;
				total++;
				CHECK(fate != INC_FATE_CORRUPT,
				      "%s frame %u (%zu bytes): flip of bit %u of byte %zu (%s) delivered corrupt",
				      k->src, i, k->clen, bit, off, inc_region_name(reg));
				if (reg >= INC_REG_SHIM)
					CHECK(fate == INC_FATE_DROPPED || fate == INC_FATE_MALFORMED,
					      "%s frame %u: flip of bit %u of byte %zu (%s) not caught by the decompressor (%s)",
					      k->src, i, bit, off, inc_region_name(reg), inc_fate_name(fate));
			}
		}
		free(m);
	}
	printf("single-bit flips: %lu over %u frames\n", total, n_frames);
	inc_int_print_table("fate per region (single-bit flips)", t);
	print_reasons("decompressor reasons", reasons);
	CHECK(t[INC_REG_STREAM][INC_FATE_DROPPED] > 0 && t[INC_REG_TAIL][INC_FATE_DROPPED] > 0 &&
	      t[INC_REG_TCP][INC_FATE_DROPPED] > 0, "payload checksum drops exercised");
}

/*
 * How often a 16-bit one's-complement checksum misses the corruption model
 * below on its own (k = 2..8 bytes, random positions, random new values),
 * by simulation of the sum alone: a changed byte moves the sum by its
 * delta times 1 or 256 (its place in a 16-bit word) modulo 0xffff. Two
 * bytes at the same place with opposite deltas cancel (probability about
 * 1/510 for k = 2), so the rate is well above 2^-16 for short corruptions
 * and approaches it as k grows.
 */
static double checksum_miss_rate(unsigned long trials)
{
	uint64_t rng = 0xc5c5c5;
	unsigned long i, miss = 0;
	unsigned k, j, old, nw;
	long d;

	for (i = 0; i < trials; i++) {
		k = 2 + (unsigned)(inc_fg_rand(&rng) % 7);
		d = 0;
		for (j = 0; j < k; j++) {
			old = (unsigned)(inc_fg_rand(&rng) & 0xff);
			nw = old ^ (unsigned)(1 + inc_fg_rand(&rng) % 255);
			d += ((long)nw - (long)old) * ((inc_fg_rand(&rng) & 1) ? 256 : 1);
		}
		miss += d % 0xffff == 0;
	}
	return (double)miss / (double)trials;
}

static void random_corruption(unsigned long n)
{
	static unsigned long t[INC_FATE_COUNT], reasons[INC_R_COUNT];
	struct inc_frame_info info;
	uint64_t rng = 0x1c0ffee;
	unsigned long i, reach = 0, structural = 0, listed = 0;
	unsigned nb;
	size_t pos[8], olen, j;
	enum inc_fate fate;
	static uint8_t m[70000];
	double expect, rate;

	if (!n_frames)
		return;
	for (i = 0; i < n; i++) {
		struct inc_int_frame *k = &frames[inc_fg_rand(&rng) % n_frames];

		if (i && i % 25000 == 0)
			fprintf(stderr, "random corruption: %lu/%lu frames\n", i, n);
		memcpy(m, k->comp, k->clen);
		nb = 2 + (unsigned)(inc_fg_rand(&rng) % 7);
		for (j = 0; j < nb; j++) {
			pos[j] = (size_t)(inc_fg_rand(&rng) % k->clen);
			m[pos[j]] ^= (uint8_t)(1 + inc_fg_rand(&rng) % 255);
		}
		olen = rx(m, k->clen, &info);
		fate = inc_fate_of(&info, outbuf, olen, k->ref, k->rlen);
		t[fate]++;
		reasons[info.reason]++;
		if (info.outcome == INC_OUT_DECOMPRESSED ||
		    (info.outcome == INC_OUT_DROPPED && info.reason == INC_R_BAD_PAYLOAD_CSUM))
			reach++;
		else if (info.outcome != INC_OUT_DROPPED)
			structural++;
		if (fate == INC_FATE_CORRUPT) {
			listed++;
			printf("corrupt delivery %lu: %s, %zu-byte frame, %u bytes changed at",
			       listed, k->src, k->clen, nb);
			for (j = 0; j < nb; j++)
				printf(" %zu(%s) %02x->%02x", pos[j],
				       inc_region_name(inc_region_of(k->comp, k->clen, pos[j])),
				       k->comp[pos[j]], m[pos[j]]);
			printf("; delivered bytes that differ:");
			for (j = 0; j < olen && j < k->rlen; j++)
				if (outbuf[j] != k->ref[j])
					printf(" %zu:%02x/%02x", j, outbuf[j], k->ref[j]);
			printf("\n");
		}
	}
	rate = checksum_miss_rate(4000000ul);
	expect = (double)reach * rate;
	printf("random corruption: %lu frames, 2..8 bytes each\n", n);
	printf("  caught by the structural checks (bypass / malformed): %lu\n", structural);
	printf("  reached the payload checksum: %lu, of which dropped by it: %lu\n", reach,
	       reasons[INC_R_BAD_PAYLOAD_CSUM]);
	printf("  delivered intact (e.g. MAC bytes only): %lu\n", t[INC_FATE_DELIVERED]);
	printf("  delivered corrupt: %lu; a 16-bit one's-complement checksum alone misses this\n"
	       "    corruption model at a rate of %.2e (2^-16 = %.2e), so %.2f are expected\n",
	       t[INC_FATE_CORRUPT], rate, 1.0 / 65536.0, expect);
	print_reasons("  decompressor reasons", reasons);
	CHECK(reach > n / 50, "too few corrupted frames reach the checksum (%lu)", reach);
	CHECK((double)t[INC_FATE_CORRUPT] <= 3.0 * expect + 4.0,
	      "%lu corrupt deliveries, far more than the checksum's own miss rate gives (%.2f)",
	      t[INC_FATE_CORRUPT], expect);
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 2 ? strtoul(argv[2], NULL, 0) : 100000ul;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FIXTURE_DIR [N]\n", argv[0]);
		return 2;
	}
	{
		long r = inc_int_collect(argv[1], frames, MAX_FRAMES, PER_FILE);

		CHECK(r >= 0, "cannot read the capture directory %s", argv[1]);
		n_frames = r > 0 ? (unsigned)r : 0;
	}
	CHECK(n_frames >= 8, "only %u frames to corrupt", n_frames);
	{
		unsigned from_captures = n_frames;

		add_tail_frames();
		printf("frames: %u compressed tagged TCP frames from %s and %u generated ones with a raw tail\n",
		       from_captures, argv[1], n_frames - from_captures);
	}
	single_bit_flips();
	random_corruption(n);
	inc_int_free(frames, n_frames);
	return inc_test_done();
}
