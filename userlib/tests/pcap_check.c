// SPDX-License-Identifier: MIT
/*
 * pcap_check.c - check a capture of libinceptionn traffic (classic pcap,
 * Ethernet) taken on the emulated cluster's bridge. Frames are parsed with
 * the model's inc_frame_parse. Connections are classified by the SYN that
 * opened them: the control port (-c), or data. Checks:
 *   - every frame of a control connection has ToS 0 (DSCP bits);
 *   - every frame the connecting side of a data connection sends (SYN
 *     included), and the listener's SYN-ACK, has ToS -t (e.g. 0x28);
 *   - every payload the connecting side sends has a length that is a
 *     multiple of 4 and starts at a stream offset that is a multiple of 4
 *     (sequence number - ISN - 1), i.e. on a float boundary;
 *   - payloads the accepting side sends (WA results) have ToS -d if given.
 * Last line: "N passed, N failed".
 *
 *   pcap-check -c CTRL_PORT -t TOS [-d TOS] [-v] FILE.pcap
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inc_model.h"
#include "inc_test.h"

#define MAXFLOWS 256

struct flow {
	uint32_t saddr, daddr;
	uint16_t sport, dport;     /* as seen in the SYN: s = connecting side */
	uint32_t isn_c, isn_a;     /* initial sequence numbers */
	int have_a, ctrl;
	unsigned long frames_c, frames_a, payload_c, payload_a;
	unsigned long bad_tos, bad_len, bad_off;
	unsigned maxpay;
};

static struct flow flows[MAXFLOWS];
static int nflows;

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* Find the flow of a segment; *dir = 0 from the connecting side. */
static struct flow *lookup(uint32_t sa, uint32_t da, uint16_t sp, uint16_t dp, int *dir)
{
	int i;

	for (i = 0; i < nflows; i++) {
		struct flow *f = &flows[i];

		if (f->saddr == sa && f->daddr == da && f->sport == sp && f->dport == dp) {
			*dir = 0;
			return f;
		}
		if (f->saddr == da && f->daddr == sa && f->sport == dp && f->dport == sp) {
			*dir = 1;
			return f;
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int ctrl_port = -1, tag = -1, down = -1, verbose = 0, opt, swap = 0, i;
	unsigned long frames = 0, tcp = 0, unknown = 0;
	uint8_t gh[24], rh[16], *pkt = malloc(262144);
	FILE *fp;

	while ((opt = getopt(argc, argv, "c:t:d:v")) != -1) {
		switch (opt) {
		case 'c': ctrl_port = atoi(optarg); break;
		case 't': tag = (int)strtol(optarg, NULL, 0); break;
		case 'd': down = (int)strtol(optarg, NULL, 0); break;
		case 'v': verbose = 1; break;
		default:
			fprintf(stderr, "usage: pcap-check -c PORT -t TOS [-d TOS] [-v] FILE\n");
			return 2;
		}
	}
	if (optind >= argc || ctrl_port < 0 || tag < 0) {
		fprintf(stderr, "usage: pcap-check -c PORT -t TOS [-d TOS] [-v] FILE\n");
		return 2;
	}
	fp = fopen(argv[optind], "rb");
	if (!fp || fread(gh, 1, 24, fp) != 24) {
		fprintf(stderr, "pcap-check: cannot read %s\n", argv[optind]);
		return 2;
	}
	if (!memcmp(gh, "\xd4\xc3\xb2\xa1", 4) || !memcmp(gh, "\x4d\x3c\xb2\xa1", 4))
		swap = 0;
	else if (!memcmp(gh, "\xa1\xb2\xc3\xd4", 4) || !memcmp(gh, "\xa1\xb2\x3c\x4d", 4))
		swap = 1;
	else {
		fprintf(stderr, "pcap-check: %s is not a classic pcap file\n", argv[optind]);
		return 2;
	}
	while (fread(rh, 1, 16, fp) == 16) {
		uint32_t incl = swap ? be32(rh + 8) :
				(uint32_t)rh[8] | (uint32_t)rh[9] << 8 | (uint32_t)rh[10] << 16 |
				(uint32_t)rh[11] << 24;
		struct inc_frame_hdr h;
		struct flow *f;
		uint32_t sa, da, seq;
		uint16_t sp, dp;
		uint8_t flags;
		int dir;

		if (incl > 262144 || fread(pkt, 1, incl, fp) != incl)
			break;
		frames++;
		if (inc_frame_parse(pkt, incl, &h) != INC_R_NONE || h.proto != 6)
			continue;
		tcp++;
		sa = be32(pkt + h.l3_off + 12);
		da = be32(pkt + h.l3_off + 16);
		sp = be16(pkt + h.l4_off);
		dp = be16(pkt + h.l4_off + 2);
		seq = be32(pkt + h.l4_off + 4);
		flags = pkt[h.l4_off + 13];
		f = lookup(sa, da, sp, dp, &dir);
		if ((flags & 0x12) == 0x02 && !f && nflows < MAXFLOWS) {   /* SYN */
			f = &flows[nflows++];
			memset(f, 0, sizeof(*f));
			f->saddr = sa;
			f->daddr = da;
			f->sport = sp;
			f->dport = dp;
			f->isn_c = seq;
			f->ctrl = dp == ctrl_port;
			dir = 0;
		}
		if (!f) {
			unknown++;
			continue;
		}
		if ((flags & 0x12) == 0x12 && dir == 1) {   /* SYN-ACK */
			f->isn_a = seq;
			f->have_a = 1;
		}
		if (dir == 0)
			f->frames_c++;
		else
			f->frames_a++;
		if (f->ctrl) {
			if ((h.tos & 0xfc) != 0)
				f->bad_tos++;
			if (h.payload_len)
				f->payload_c++;
			continue;
		}
		/* Data connection. */
		if (dir == 0 || (flags & 0x12) == 0x12) {
			if ((h.tos & 0xfc) != (tag & 0xfc))
				f->bad_tos++;
		}
		if (!h.payload_len)
			continue;
		if (dir == 0) {
			f->payload_c++;
			if (h.payload_len % 4)
				f->bad_len++;
			if ((seq - f->isn_c - 1) % 4)
				f->bad_off++;
			if (h.payload_len > f->maxpay)
				f->maxpay = h.payload_len;
		} else {
			f->payload_a++;
			if (down >= 0 && (h.tos & 0xfc) != (down & 0xfc))
				f->bad_tos++;
		}
	}
	fclose(fp);
	free(pkt);

	{
		unsigned long ctrl_pay = 0, data_pay = 0, data_conns = 0, ctrl_conns = 0;

		for (i = 0; i < nflows; i++) {
			struct flow *f = &flows[i];

			if (verbose || f->bad_tos || f->bad_len || f->bad_off)
				printf("%s %u.%u.%u.%u:%u -> %u.%u.%u.%u:%u frames %lu/%lu payload %lu/%lu "
				       "max %u bad tos %lu len %lu offset %lu\n",
				       f->ctrl ? "ctrl" : "data", f->saddr >> 24, f->saddr >> 16 & 255,
				       f->saddr >> 8 & 255, f->saddr & 255, f->sport, f->daddr >> 24,
				       f->daddr >> 16 & 255, f->daddr >> 8 & 255, f->daddr & 255, f->dport,
				       f->frames_c, f->frames_a, f->payload_c, f->payload_a, f->maxpay,
				       f->bad_tos, f->bad_len, f->bad_off);
			CHECK(f->bad_tos == 0, "%s connection port %u: %lu frames with the wrong ToS",
			      f->ctrl ? "control" : "data", f->sport, f->bad_tos);
			CHECK(f->bad_len == 0, "data connection port %u: %lu payloads not a multiple of 4",
			      f->sport, f->bad_len);
			CHECK(f->bad_off == 0, "data connection port %u: %lu payloads off a float boundary",
			      f->sport, f->bad_off);
			CHECK(f->ctrl || f->have_a, "data connection port %u: no SYN-ACK seen", f->sport);
			if (f->ctrl) {
				ctrl_conns++;
				ctrl_pay += f->payload_c + f->payload_a;
			} else {
				data_conns++;
				data_pay += f->payload_c;
			}
		}
		printf("%lu frames, %lu TCP, %lu outside seen connections; %lu control connections "
		       "(%lu payload frames), %lu data connections (%lu payload frames)\n",
		       frames, tcp, unknown, ctrl_conns, ctrl_pay, data_conns, data_pay);
		CHECK(ctrl_conns > 0 && ctrl_pay > 0, "no control traffic captured");
		CHECK(data_conns > 0 && data_pay > 100, "too little data traffic captured (%lu)", data_pay);
	}
	return inc_test_done();
}
