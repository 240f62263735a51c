// SPDX-License-Identifier: MIT
/*
 * padded - short TCP frames as a receiving wire delivers them: Ethernet
 * padding after the IP datagram (zeros to 60 bytes, or junk to 64), with
 * and without an 802.1Q tag, every payload length 0..40.
 *
 *   padded gen OUT.pcap [SEED]       ToS 0x28 TCP frames, each payload length
 *                                    0..40, plain / zero-padded to 60 /
 *                                    junk-padded to 64, untagged and VLAN
 *   padded pad IN.pcap OUT.pcap [SEED]  pad every compressed frame (IP protocol
 *                                    253) shorter than 64 bytes (the format
 *                                    allows padding up to 64; the smallest
 *                                    compressed frame is 62 bytes) with
 *                                    zeros or junk to 64, alternately; other
 *                                    frames unchanged
 *   padded flip IN.pcap OUT.pcap     flip bit 0 of the TCP checksum of every
 *                                    compressed frame (a corruption on the
 *                                    wire); prints how many were flipped
 *   padded check ORIG.pcap DEC.pcap EB  DEC (compress + decompress of ORIG)
 *                                    restores each frame to its IP datagram:
 *                                    same headers, each
 *                                    value the model's q(x) at 2^-EB, the raw
 *                                    tail exact; or, for
 *                                    a frame the codec passed by, ORIG itself
 *
 * Test helper for suite pcap-padded; prints "N passed, N failed" for check.
 */
#include <pcap/pcap.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inc_model.h"

static uint64_t rng_s;

static uint32_t rnd(void)
{
	rng_s = rng_s * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(rng_s >> 33);
}

static pcap_dumper_t *open_out(const char *path, pcap_t **dead)
{
	pcap_dumper_t *d;

	*dead = pcap_open_dead(DLT_EN10MB, 65535);
	d = *dead ? pcap_dump_open(*dead, path) : NULL;
	if (!d) {
		fprintf(stderr, "padded: %s: cannot write\n", path);
		exit(1);
	}
	return d;
}

static void put(pcap_dumper_t *d, const uint8_t *f, size_t len)
{
	struct pcap_pkthdr h;

	memset(&h, 0, sizeof(h));
	h.caplen = h.len = (bpf_u_int32)len;
	pcap_dump((u_char *)d, &h, f);
}

/* Pad frame f of len bytes: mode 1 zeros to 60, mode 2 junk to 64. */
static size_t pad(uint8_t *f, size_t len, int mode)
{
	size_t to = mode == 1 ? 60 : 64;

	for (; len < to; len++)
		f[len] = mode == 2 ? (uint8_t)rnd() : 0;   /* 1, 3: zeros */
	return len;
}

/* A ToS 0x28 TCP frame with n payload bytes of small float32 values (the
 * last n % 4 bytes a raw tail), valid IPv4 and TCP checksums. */
static size_t make_frame(uint8_t *f, int vlan, unsigned n)
{
	static const uint8_t macs[12] = { 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1 };
	size_t l3 = vlan ? 18 : 14, l4 = l3 + 20, p = l4 + 20, i;
	uint16_t tot = (uint16_t)(40 + n), c;
	uint32_t sum;
	uint8_t ph[12];

	memcpy(f, macs, 12);
	if (vlan) {
		f[12] = 0x81; f[13] = 0x00; f[14] = 0x00; f[15] = 0x05;
		f[16] = 0x08; f[17] = 0x00;
	} else {
		f[12] = 0x08; f[13] = 0x00;
	}
	memset(f + l3, 0, 40);
	f[l3] = 0x45; f[l3 + 1] = 0x28;
	f[l3 + 2] = (uint8_t)(tot >> 8); f[l3 + 3] = (uint8_t)tot;
	f[l3 + 4] = 0x12; f[l3 + 5] = (uint8_t)n;
	f[l3 + 6] = 0x40; f[l3 + 8] = 64; f[l3 + 9] = 6;
	f[l3 + 12] = 10; f[l3 + 15] = 1; f[l3 + 16] = 10; f[l3 + 19] = 2;
	c = inc_csum_fold(inc_csum_add(0, f + l3, 20));
	f[l3 + 10] = (uint8_t)(c >> 8); f[l3 + 11] = (uint8_t)c;
	f[l4] = 0x9c; f[l4 + 1] = 0x40; f[l4 + 2] = 0x14; f[l4 + 3] = 0x51;
	f[l4 + 7] = 1; f[l4 + 11] = 1; f[l4 + 12] = 0x50; f[l4 + 13] = 0x18;
	f[l4 + 14] = 0x01;
	for (i = 0; i + 4 <= n; i += 4) {
		/* gradient-like: mostly below every error bound tested (2-bit),
		 * some fixed-point, a few >= 1 (raw) */
		float v = (float)((int)(rnd() % 2001) - 1000) * (1.0f / 65536.0f) * (1.0f / 65536.0f);
		unsigned k = i < 8 ? 0 : rnd() % 16;   /* the first two: tiny, so
							   short frames compress */

		if (k >= 12)
			v *= 1e7f;     /* about 2^-9 .. 2^-2 */
		if (k == 15)
			v *= 2000.0f;  /* >= 1 */
		memcpy(f + p + i, &v, 4);
	}
	for (; i < n; i++)
		f[p + i] = (uint8_t)rnd();
	memcpy(ph, f + l3 + 12, 8);
	ph[8] = 0; ph[9] = 6; ph[10] = (uint8_t)((20 + n) >> 8); ph[11] = (uint8_t)(20 + n);
	sum = inc_csum_add(inc_csum_add(0, ph, 12), f + l4, 20 + n);
	c = inc_csum_fold(sum);
	f[l4 + 16] = (uint8_t)(c >> 8); f[l4 + 17] = (uint8_t)c;
	return p + n;
}

static int gen(const char *out)
{
	pcap_t *dead;
	pcap_dumper_t *d = open_out(out, &dead);
	uint8_t f[128];
	unsigned n;
	int vlan, mode, frames = 0;

	for (vlan = 0; vlan < 2; vlan++)
		for (n = 0; n <= 40; n++)
			for (mode = 0; mode < 3; mode++) {
				size_t len = make_frame(f, vlan, n);

				if (mode)
					len = pad(f, len, mode);
				put(d, f, len);
				frames++;
			}
	pcap_dump_close(d);
	pcap_close(dead);
	printf("padded: %d frames in %s\n", frames, out);
	return 0;
}

static pcap_t *open_in(const char *path)
{
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *p = pcap_open_offline(path, err);

	if (!p) {
		fprintf(stderr, "padded: %s\n", err);
		exit(1);
	}
	return p;
}

/* IPv4 protocol 253 (a compressed frame), with or without a VLAN tag. */
static int is_marked(const uint8_t *f, size_t len)
{
	size_t l3 = len > 13 && f[12] == 0x81 && f[13] == 0x00 ? 18 : 14;

	return len >= l3 + 20 && f[l3 - 2] == 0x08 && f[l3 - 1] == 0x00 &&
	       f[l3 + 9] == INC_WIRE_IPPROTO;
}

static int pad_file(const char *in, const char *out)
{
	pcap_t *pi = open_in(in), *dead;
	pcap_dumper_t *d = open_out(out, &dead);
	struct pcap_pkthdr *h;
	const u_char *data;
	uint8_t f[65536];
	int k = 0;

	while (pcap_next_ex(pi, &h, &data) == 1) {
		size_t len = h->caplen;

		memcpy(f, data, len);
		if (len < 64 && is_marked(f, len))
			len = pad(f, len, 2 + (k++ & 1));
		put(d, f, len);
	}
	pcap_dump_close(d);
	pcap_close(dead);
	pcap_close(pi);
	return 0;
}

static int flip_file(const char *in, const char *out)
{
	pcap_t *pi = open_in(in), *dead;
	pcap_dumper_t *d = open_out(out, &dead);
	struct pcap_pkthdr *h;
	struct inc_frame_hdr fh;
	const u_char *data;
	uint8_t f[65536];
	int n = 0;

	while (pcap_next_ex(pi, &h, &data) == 1) {
		size_t len = h->caplen;

		memcpy(f, data, len);
		if (is_marked(f, len) && inc_frame_parse(f, len, &fh) == INC_R_NONE) {
			f[fh.l4_off + 17] ^= 1;
			n++;
		}
		put(d, f, len);
	}
	pcap_dump_close(d);
	pcap_close(dead);
	pcap_close(pi);
	printf("flipped %d\n", n);
	return 0;
}

static int check(const char *orig, const char *dec, unsigned eb)
{
	pcap_t *po = open_in(orig), *pd = open_in(dec);
	struct pcap_pkthdr *ho, *hd;
	const u_char *o, *d;
	int pass = 0, fail = 0, idx = 0;

	while (pcap_next_ex(po, &ho, &o) == 1) {
		struct inc_frame_hdr fh;
		size_t ext, i;
		const char *why = NULL;

		idx++;
		if (pcap_next_ex(pd, &hd, &d) != 1) {
			printf("FAIL frame %d: missing from %s\n", idx, dec);
			fail++;
			break;
		}
		if (hd->caplen == ho->caplen && !memcmp(o, d, ho->caplen)) {
			pass++;          /* passed by (e.g. no whole float) */
			continue;
		}
		if (inc_frame_parse(o, ho->caplen, &fh) != INC_R_NONE) {
			printf("FAIL frame %d: original does not parse\n", idx);
			fail++;
			continue;
		}
		ext = (size_t)fh.l3_off + fh.ip_total;
		if (hd->caplen != ext)
			why = "length is not the IP datagram's";
		for (i = 0; !why && i < fh.payload_off; i++)
			if (o[i] != d[i] && i != fh.l4_off + 16u && i != fh.l4_off + 17u)
				why = "headers differ";
		/* The restored TCP checksum (the sender's, updated for q(x))
		 * must verify over the restored segment. */
		if (!why) {
			uint32_t sum = inc_csum_add(0, d + fh.l3_off + 12, 8);

			sum += 6u + (uint32_t)(fh.ip_total - fh.ip_hlen);
			sum = inc_csum_add(sum, d + fh.l4_off, ext - fh.l4_off);
			if (inc_csum_fold(sum) != 0)
				why = "the restored TCP checksum does not verify";
		}
		for (i = fh.payload_off; !why && i + 4 <= ext; i += 4) {
			uint32_t a, b, pl = 0, q;
			unsigned tag;

			memcpy(&a, o + i, 4);
			memcpy(&b, d + i, 4);
			tag = inc_compress_value(a, eb, &pl);
			q = inc_decompress_value(tag, pl);
			if (b != q)
				why = "a value is not the codec's q(x)";
		}
		for (; !why && i < ext; i++)
			if (o[i] != d[i])
				why = "the raw tail differs";
		if (why) {
			printf("FAIL frame %d (%u bytes captured, datagram ends at %zu): %s\n",
			       idx, ho->caplen, ext, why);
			fail++;
		} else {
			pass++;
		}
	}
	if (pcap_next_ex(pd, &hd, &d) == 1) {
		printf("FAIL %s has more frames than %s\n", dec, orig);
		fail++;
	}
	pcap_close(po);
	pcap_close(pd);
	printf("%d passed, %d failed\n", pass, fail);
	return fail != 0;
}

int main(int argc, char **argv)
{
	rng_s = 0x5eed;
	if (argc >= 3 && !strcmp(argv[1], "gen")) {
		if (argc > 3)
			rng_s = strtoull(argv[3], NULL, 0);
		return gen(argv[2]);
	}
	if (argc >= 4 && !strcmp(argv[1], "pad")) {
		if (argc > 4)
			rng_s = strtoull(argv[4], NULL, 0);
		return pad_file(argv[2], argv[3]);
	}
	if (argc == 4 && !strcmp(argv[1], "flip"))
		return flip_file(argv[2], argv[3]);
	if (argc == 5 && !strcmp(argv[1], "check"))
		return check(argv[2], argv[3], (unsigned)atoi(argv[4]));
	fprintf(stderr, "usage: padded gen OUT.pcap [SEED] | pad IN OUT [SEED] | flip IN OUT | check ORIG DEC EB\n");
	return 2;
}
