// SPDX-License-Identifier: MIT
/*
 * test_frame_fast.c - inc_frame_compress_fast / inc_frame_decompress_fast
 * against the model's inc_frame_compress / inc_frame_decompress, frame by
 * frame: return value, outcome, reason, offsets, counts and every output
 * byte must be equal (ASan/UBSan build).
 *
 *   test-frame-fast FIXTURE.pcap...
 *
 * 1. The kernels alone (struct inc_frame_kernels): streams of 0..300
 *    values compressed with every output capacity around their size,
 *    sized and decompressed with every input length around it, and with a
 *    tagged padding lane: results, bytes and sums equal the model's.
 * 2. Every frame of the real captures (tests/fixtures) through both
 *    directions, then its compressed form decompressed, at eb 10 and 6.
 * 3. Every single-bit flip of every byte of the compressed capture frames
 *    (the integrity suite's corruption), and random 2..8-byte corruptions,
 *    decompressed by both.
 * 4. Random frames of inc_fg_random (every bypass reason, marked and
 *    corrupted frames, up to 64 KiB) at random error bounds and
 *    configurations, with exact and too small output capacities.
 * 5. Gradient payloads of every length 1..2100 bytes, behind headers that
 *    put the payload at every offset modulo 4 (VLAN, IP and TCP options).
 *
 * Run with the AVX2 kernels when the CPU has them (else the check is
 * trivial and says so) and once with INC_CODEC=portable semantics
 * (inc_codec_select(INC_CODEC_PORTABLE)).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inc_framegen.h"
#include "inc_model.h"
#include "inc_pcap.h"
#include "inc_test.h"
#include "inceptionn/inc_frame_fast.h"
#include "inceptionn/inceptionn.h"

#define FMAX (INC_FRAME_OUT_MAX + 64)

static uint8_t oa[FMAX], ob[FMAX];
static unsigned long compared, differ;
static struct inc_frame_info last;     /* the model's, of the last call */

static int info_eq(const struct inc_frame_info *a, const struct inc_frame_info *b)
{
	return a->outcome == b->outcome && a->reason == b->reason && a->l3_off == b->l3_off &&
	       a->l4_off == b->l4_off && a->payload_off == b->payload_off &&
	       a->payload_in == b->payload_in && a->payload_out == b->payload_out &&
	       !memcmp(&a->counts, &b->counts, sizeof(a->counts));
}

/* One frame through both implementations of one direction; returns the
 * model's result (its output in oa). */
static long both(int rx, const uint8_t *f, size_t len, size_t cap,
		 const struct inc_frame_config *cfg, const char *what)
{
	struct inc_frame_info ia, ib;
	long ra, rb;

	memset(oa, 0xa5, cap < FMAX ? cap : FMAX);
	memset(ob, 0x5a, cap < FMAX ? cap : FMAX);
	ra = rx ? inc_frame_decompress(f, len, oa, cap, cfg, &ia)
		: inc_frame_compress(f, len, oa, cap, cfg, &ia);
	rb = rx ? inc_frame_decompress_fast(f, len, ob, cap, cfg, &ib)
		: inc_frame_compress_fast(f, len, ob, cap, cfg, &ib);
	compared++;
	last = ia;
	if (ra != rb || (ra >= 0 && !info_eq(&ia, &ib)) ||
	    (ra > 0 && memcmp(oa, ob, (size_t)ra))) {
		size_t off = 0;

		while (ra > 0 && rb == ra && off < (size_t)ra && oa[off] == ob[off])
			off++;
		differ++;
		CHECK(0, "%s (%s, %zu bytes): model %ld %s/%s, fast %ld %s/%s, first byte differing %zu",
		      what, rx ? "decompress" : "compress", len, ra, inc_outcome_name(ia.outcome),
		      inc_reason_name(ia.reason), rb, inc_outcome_name(ib.outcome),
		      inc_reason_name(ib.reason), off);
	} else {
		CHECK(1, " ");
	}
	return ra;
}

static int sums_eq(const struct inc_stream_sums *a, const struct inc_stream_sums *b)
{
	return a->in_words == b->in_words && a->restored_words == b->restored_words &&
	       a->tag_sum == b->tag_sum && !memcmp(&a->counts, &b->counts, sizeof(a->counts));
}

/* The kernels alone, on streams of every length 0..300 values (several
 * mixes, input and output at every offset modulo 4), every output
 * capacity around the stream's size, every input length around it, and a
 * padding lane with a tag. */
static void kernels(void)
{
	const struct inc_frame_kernels *m = &inc_frame_kernels_model, *k = inc_frame_kernels_fast();
	static uint8_t in[1300], sa[11000], sb[11000], da[1300], db[1300];
	uint64_t rng = 0x1234567887654321ull;
	size_t n, cap, len, i, bad = 0, cases = 0;
	long ra, rb, s;

	for (n = 0; n <= 300; n++) {
		struct inc_stream_sums xa, xb;
		unsigned off = (unsigned)(n % 4), eb = n % 3 ? 10 : (unsigned)(1 + n % 126);

		inc_fg_payload(in + off, 4 * n, n % 4 ? INC_FG_GRADIENT :
			       (enum inc_fg_mix)(n / 4 % INC_FG_MIX_COUNT), &rng);
		if (n % 50 == 7)
			memset(in + off, 0xff, 4 * n);    /* the largest word sums */
		s = inc_stream_compress(in + off, n, eb, sa, sizeof(sa), NULL);
		for (cap = s > 40 ? (size_t)s - 40 : 0; cap <= (size_t)s + 40; cap++) {
			memset(&xa, 0x11, sizeof(xa));
			memset(&xb, 0x11, sizeof(xb));
			ra = m->stream_compress(in + off, n, eb, sa + 1, cap, &xa);
			rb = k->stream_compress(in + off, n, eb, sb + 1, cap, &xb);
			cases++;
			bad += ra != rb || (ra >= 0 && (memcmp(sa + 1, sb + 1, (size_t)ra) ||
							!sums_eq(&xa, &xb)));
		}
		for (len = s > 40 ? (size_t)s - 40 : 0; len <= (size_t)s + 3; len++) {
			memset(&xa, 0x11, sizeof(xa));
			memset(&xb, 0x11, sizeof(xb));
			ra = m->stream_size(sa + 1, len, n);
			rb = k->stream_size(sa + 1, len, n);
			bad += ra != rb;
			ra = m->stream_decompress(sa + 1, len, n, da + off, 4 * n, &xa);
			rb = k->stream_decompress(sa + 1, len, n, db + off, 4 * n, &xb);
			cases += 2;
			bad += ra != rb || (ra >= 0 && (memcmp(da + off, db + off, 4 * n) ||
							!sums_eq(&xa, &xb)));
		}
		if (n % 8 && s > 0) {  /* a padding lane with a tag */
			size_t g = 0;

			for (i = 0; i + 8 < n; i += 8)
				g += inc_group_size((uint16_t)(sa[1 + g] | sa[2 + g] << 8));
			sa[2 + g] |= 0x80;     /* lane 7's tag */
			ra = m->stream_size(sa + 1, (size_t)s + 4, n);
			rb = k->stream_size(sa + 1, (size_t)s + 4, n);
			bad += ra != rb || ra != INC_EMALFORMED;
			ra = m->stream_decompress(sa + 1, (size_t)s + 4, n, da, 4 * n, &xa);
			rb = k->stream_decompress(sa + 1, (size_t)s + 4, n, db, 4 * n, &xb);
			bad += ra != rb || ra != INC_EMALFORMED;
			cases += 2;
		}
	}
	CHECK(bad == 0, "kernels differ from the model's in %zu of %zu cases", bad, cases);
}

/* A frame's compressed form, decompressed by both; then every single-bit
 * flip of it, and some random corruptions. */
static int round_trip(const uint8_t *f, size_t len, const struct inc_frame_config *cfg,
		      int flips, uint64_t *rng, const char *what)
{
	static uint8_t comp[FMAX], bad[FMAX];
	long c = both(0, f, len, FMAX, cfg, what);
	size_t i;
	int b, k;

	if (c <= 0 || last.outcome != INC_OUT_COMPRESSED)
		return 0;
	memcpy(comp, oa, (size_t)c);
	both(1, comp, (size_t)c, FMAX, cfg, what);
	/* The exact output capacity, and one byte less. */
	both(1, comp, (size_t)c, len, cfg, what);
	both(1, comp, (size_t)c, len - 1, cfg, what);
	if (!flips)
		return 1;
	for (i = 0; i < (size_t)c; i++)
		for (b = 0; b < 8; b++) {
			comp[i] ^= (uint8_t)(1u << b);
			both(1, comp, (size_t)c, FMAX, cfg, "single-bit flip");
			comp[i] ^= (uint8_t)(1u << b);
		}
	for (k = 0; k < 200; k++) {
		int nb = 2 + (int)(inc_fg_rand(rng) % 7);

		memcpy(bad, comp, (size_t)c);
		while (nb--)
			bad[inc_fg_rand(rng) % (uint64_t)c] ^= (uint8_t)(1 + inc_fg_rand(rng) % 255);
		both(1, bad, (size_t)c, FMAX, cfg, "random corruption");
	}
	return 1;
}

static void fixtures(int argc, char **argv, uint64_t *rng)
{
	static uint8_t f[FMAX];
	struct inc_frame_config cfg;
	unsigned long frames = 0, flipped = 0;
	int a, eb;

	for (a = 1; a < argc; a++)
		for (eb = 10; eb >= 6; eb -= 4) {
			struct inc_pcap p;
			size_t len;
			int r;

			r = inc_pcap_open(&p, argv[a]);
			CHECK(r == 0, "%s: %s", argv[a], inc_pcap_strerror(r));
			if (r)
				continue;
			inc_frame_config_default(&cfg);
			cfg.eb = (uint8_t)eb;
			cfg.max_frame = 0;
			while (inc_pcap_next(&p, f, sizeof(f), &len) == 1) {
				/* Every single-bit flip of the first compressed
				 * frames of each capture (eb 10). */
				int flips = eb == 10 && flipped < 12 * (unsigned long)a &&
					    len < 2000;

				frames++;
				both(1, f, len, FMAX, &cfg, argv[a]);
				if (round_trip(f, len, &cfg, flips, rng, argv[a]) && flips)
					flipped++;
			}
			inc_pcap_close(&p);
		}
	printf("captures: %lu frames (both directions, eb 10 and 6), flips of %lu compressed frames\n",
	       frames, flipped);
}

static void random_frames(uint64_t *rng)
{
	static uint8_t f[FMAX];
	struct inc_frame_config cfg;
	unsigned long i;

	for (i = 0; i < 40000; i++) {
		size_t len = inc_fg_random(f, sizeof(f), i % 4 ? 9018 : 65535, 1, rng);
		size_t cap = FMAX;

		inc_frame_config_default(&cfg);
		if (i % 5 == 1)
			cfg.eb = (uint8_t)(1 + inc_fg_rand(rng) % 126);
		if (i % 7 == 2)
			cfg.max_frame = 0;
		if (i % 11 == 3)
			cfg.tos_mask = 0;
		if (i % 3 == 0)
			cap = len;
		else if (i % 13 == 4 && len)
			cap = len - 1;
		both(0, f, len, cap, &cfg, "random frame");
		both(1, f, len, cap, &cfg, "random frame");
		if (i % 8 == 0)
			round_trip(f, len, &cfg, 0, rng, "random frame");
	}
}

static void payload_lengths(uint64_t *rng)
{
	static uint8_t pay[2200], f[FMAX];
	struct inc_fg_frame d;
	struct inc_frame_config cfg;
	size_t plen, len;
	int shape;

	inc_frame_config_default(&cfg);
	for (shape = 0; shape < 4; shape++)
		for (plen = 1; plen <= 2100; plen++) {
			inc_fg_defaults(&d);
			d.vlan = shape & 1;
			d.ip_opt_len = shape & 2 ? 4 : 0;
			d.tcp_opt_len = shape == 3 ? 12 : 0;
			inc_fg_payload(pay, plen, plen % 5 ? INC_FG_GRADIENT :
					     (enum inc_fg_mix)(plen / 5 % INC_FG_MIX_COUNT), rng);
			d.payload = pay;
			d.payload_len = plen;
			len = inc_fg_build(f, sizeof(f), &d);
			round_trip(f, len, &cfg, 0, rng, "payload length");
		}
}

int main(int argc, char **argv)
{
	uint64_t rng = 0x9e3779b97f4a7c15ull;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		int r = inc_codec_select(pass ? INC_CODEC_PORTABLE : INC_CODEC_AVX2);

		if (r) {
			printf("this CPU has no AVX2: the fast path is the model (checked anyway)\n");
			inc_codec_select(INC_CODEC_AUTO);
		}
		printf("kernels: %s\n", inc_frame_kernels_fast() == &inc_frame_kernels_model ?
		       "the model's" : "avx2");
		compared = differ = 0;
		kernels();
		fixtures(argc, argv, &rng);
		random_frames(&rng);
		payload_lengths(&rng);
		printf("frames compared: %lu, differing: %lu\n", compared, differ);
	}
	return inc_test_done();
}
