// SPDX-License-Identifier: MIT
/*
 * fuzz_seeds.c - write the seed corpora of the fuzz targets, generated from
 * framegen and the model:
 *   DIR/fuzz_frame_decompress/   compressed (marked) frames, random frames
 *                                of every bypass kind, corrupted frames
 *   DIR/fuzz_stream_decompress/  2-byte value count + a stream
 * Usage: fuzz_seeds DIR
 */
#include "inc_model.h"
#include "inc_framegen.h"
#include "inceptionn/inceptionn.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int write_file(const char *dir, const char *sub, unsigned i,
		      const uint8_t *p, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/seed-%04u", dir, sub, i);
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, len, f) != len || fclose(f) != 0) {
		fprintf(stderr, "fuzz_seeds: cannot write %s\n", path);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static _Alignas(16) uint8_t frame[16384], comp[16384], payload[9000], vals[4 * 600];
	static uint8_t seed[2 + 34 * 80];
	char path[4096];
	uint64_t rng = 0x5eed5eed5eedull;
	struct inc_fg_frame fr;
	size_t len, n;
	long r;
	unsigned i, nf = 0, ns = 0, nk = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: fuzz_seeds DIR\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/fuzz_frame_decompress", argv[1]);
	if (mkdir(path, 0755) && errno != EEXIST)
		return perror(path), 1;
	snprintf(path, sizeof(path), "%s/fuzz_stream_decompress", argv[1]);
	if (mkdir(path, 0755) && errno != EEXIST)
		return perror(path), 1;
	snprintf(path, sizeof(path), "%s/fuzz_sketch_decompress", argv[1]);
	if (mkdir(path, 0755) && errno != EEXIST)
		return perror(path), 1;

	/* Compressed frames: VLAN or not, options, payload lengths with and
	 * without a raw tail, several mixes and error bounds. */
	for (i = 0; i < 120; i++) {
		struct inc_frame_config cfg;

		inc_fg_defaults(&fr);
		fr.vlan = i % 3 == 0;
		fr.ip_opt_len = i % 5 == 0 ? 8 : 0;
		fr.tcp_opt_len = i % 2 ? 12 : 0;
		fr.payload_len = 8 + (size_t)(inc_fg_rand(&rng) % (i < 100 ? 1400 : 8900));
		inc_fg_payload(payload, fr.payload_len,
			       i % 7 == 0 ? INC_FG_BOUNDARY : INC_FG_GRADIENT, &rng);
		fr.payload = payload;
		len = inc_fg_build(frame, sizeof(frame), &fr);
		inc_frame_config_default(&cfg);
		cfg.eb = (uint8_t)(6 + 2 * (i % 3));
		r = inc_frame_compress(frame, len, comp, sizeof(comp), &cfg, NULL);
		if (r > 0 && write_file(argv[1], "fuzz_frame_decompress", nf++, comp, (size_t)r))
			return 1;
	}
	/* Random frames, marked and corrupted ones included. */
	for (i = 0; i < 200; i++) {
		len = inc_fg_random(frame, sizeof(frame), i % 4 ? 1518 : 120, 1, &rng);
		if (write_file(argv[1], "fuzz_frame_decompress", nf++, frame, len))
			return 1;
	}
	/* Streams: n values, a mix, an error bound. */
	for (i = 0; i < 150; i++) {
		n = i < 50 ? i : (size_t)(inc_fg_rand(&rng) % 600);
		if (n > 600)
			n = 600;
		inc_fg_payload(vals, 4 * n, (enum inc_fg_mix)(i % INC_FG_MIX_COUNT), &rng);
		seed[0] = (uint8_t)n;
		seed[1] = (uint8_t)(n >> 8);
		r = inc_stream_compress(vals, n, 6 + 2 * (i % 3), seed + 2,
					sizeof(seed) - 2, NULL);
		if (r < 0)
			continue;
		if (write_file(argv[1], "fuzz_stream_decompress", ns++, seed, 2 + (size_t)r))
			return 1;
	}
	/* Sketch messages: n values (< 2000), sparse gradient-like values,
	 * bitmap and Bloom indices, several gammas. */
	for (i = 0; i < 80; i++) {
		static uint8_t msg[2 + 9000];
		float *fv = (float *)(void *)vals;
		size_t k;

		n = i < 20 ? i : (size_t)(inc_fg_rand(&rng) % 600);
		inc_fg_payload(vals, 4 * n, INC_FG_GRADIENT, &rng);
		for (k = 0; k < n; k++)
			if (inc_fg_rand(&rng) % 8 < (uint64_t)(i % 8))
				fv[k] = 0.0f;
		msg[0] = (uint8_t)n;
		msg[1] = (uint8_t)(n >> 8);
		r = inc_sketch_compress(fv, n, i % 2 ? INC_SKETCH_BLOOM : INC_SKETCH_BITMAP,
					1.0 + 0.1 * (i % 6), inc_fg_rand(&rng), msg + 2,
					sizeof(msg) - 2, NULL);
		if (r > 0 && write_file(argv[1], "fuzz_sketch_decompress", nk++, msg, 2 + (size_t)r))
			return 1;
	}
	printf("fuzz seeds: %u frames, %u streams, %u sketches in %s\n", nf, ns, nk, argv[1]);
	return 0;
}
