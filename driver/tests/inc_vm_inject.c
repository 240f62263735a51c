// SPDX-License-Identifier: MIT
/*
 * inc_vm_inject.c - send crafted frames through an AF_PACKET socket for the
 * driver test in QEMU, and print what the model says the driver must count.
 *
 *   inc-vm-inject IFNAME DSTMAC rx|tx marked|random COUNT SEED
 *
 * "marked": compressed frames (inc_frame_compress of gradient payloads),
 * most of them corrupted afterwards (shim magic/version/length, stream cut
 * short or too long, a padding lane with a non-zero tag, no room for the
 * shim), with the IP header fixed up so they reach the marker validation.
 * "random": inc_fg_random frames of every kind, marked ones included.
 *
 * Each frame is classified with the model before it is sent: "rx" with
 * inc_frame_decompress as the receiving device's RX handler sees it (an
 * 802.1Q tag is taken off by the kernel before the handler runs; max frame
 * = MTU 1500 + 18), "tx" with inc_frame_compress as the sending device's
 * TX path sees it. The last line is machine-readable:
 *   expect sent=N decompressed=N compressed=N malformed=N bad_shim=N bad_stream=N
 */
#include "inc_framegen.h"
#include "inc_model.h"
#include "inc_vm.h"

#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <sys/socket.h>
#include <unistd.h>

#define PROG "inc-vm-inject"
#define MTU 1500u

static void st16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void fix_ip(uint8_t *f, const struct inc_frame_info *info, size_t len)
{
	uint8_t *ip = f + info->l3_off;
	unsigned hl = (ip[0] & 15u) * 4u;

	st16(ip + 2, (unsigned)(len - info->l3_off));
	st16(ip + 10, 0);
	st16(ip + 10, inc_csum_fold(inc_csum_add(0, ip, hl)));
}

/* A compressed frame, corrupted in one of several ways by variant. */
static size_t make_marked(uint8_t *out, size_t cap, unsigned variant,
			  uint64_t *rng)
{
	uint8_t in[2048], payload[1460];
	struct inc_fg_frame fr;
	struct inc_frame_info info;
	size_t plen, len;
	long r;
	uint8_t *shim;

	inc_fg_defaults(&fr);
	plen = 8 + inc_fg_rand(rng) % (sizeof(payload) - 8 - 40);
	inc_fg_payload(payload, plen, INC_FG_GRADIENT, rng);
	fr.payload = payload;
	fr.payload_len = plen;
	fr.tcp_opt_len = (inc_fg_rand(rng) & 1) ? 12 : 0;
	fr.seq = (uint32_t)inc_fg_rand(rng);
	len = inc_fg_build(in, sizeof(in), &fr);
	r = inc_frame_compress(in, len, out, cap, NULL, &info);
	if (r <= 0 || info.outcome != INC_OUT_COMPRESSED)
		return 0;
	len = (size_t)r;
	shim = out + info.payload_off;
	switch (variant % 8) {
	case 0:                         /* valid */
		break;
	case 1:
		shim[0] ^= 0x20;        /* magic */
		break;
	case 2:
		shim[1] = 2;            /* version */
		break;
	case 3:
		st16(shim + 2, 0xfff0); /* longer than any frame */
		break;
	case 4:                         /* stream cut short */
		len -= 1 + inc_fg_rand(rng) % 3;
		fix_ip(out, &info, len);
		break;
	case 5:                         /* bytes left over */
		memset(out + len, 0, 3);
		len += 1 + inc_fg_rand(rng) % 3;
		fix_ip(out, &info, len);
		break;
	case 6: {                       /* last group: a padding lane's tag */
		unsigned n = (unsigned)plen / 4u;

		if (n % 8u == 0) {
			st16(shim + 2, (unsigned)plen + 4u);
			break;
		}
		/* Walk to the last group's tag word. */
		{
			size_t pos = 4, g;
			uint16_t tw = 0;

			for (g = 0; g < (n + 7u) / 8u; g++) {
				tw = (uint16_t)(shim[pos] | shim[pos + 1] << 8);
				if (g + 1 < (n + 7u) / 8u)
					pos += inc_group_size(tw);
			}
			tw |= (uint16_t)(1u << (2u * (n % 8u)));
			shim[pos] = (uint8_t)tw;
			shim[pos + 1] = (uint8_t)(tw >> 8);
		}
		break;
	}
	case 7:                         /* no room for the shim */
		len = info.payload_off + 2;
		fix_ip(out, &info, len);
		break;
	}
	return len;
}

int main(int argc, char **argv)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	struct inc_frame_config cfg;
	struct inc_frame_info info;
	static uint8_t frame[4096], view[4096], out[INC_FRAME_OUT_MAX];
	unsigned mac[6], i;
	unsigned long count, seed, n, sent = 0;
	unsigned long dcmp = 0, cmp = 0, malformed = 0, bad_shim = 0, bad_stream = 0;
	uint64_t rng;
	int rx, marked, fd;
	size_t len, vlen;

	alarm(60);
	if (argc != 7)
		inc_vm_die(PROG, "usage: inc-vm-inject IFNAME DSTMAC rx|tx marked|random COUNT SEED");
	if (sscanf(argv[2], "%x:%x:%x:%x:%x:%x", &mac[0], &mac[1], &mac[2],
		   &mac[3], &mac[4], &mac[5]) != 6)
		inc_vm_die(PROG, "bad MAC '%s'", argv[2]);
	rx = strcmp(argv[3], "rx") == 0;
	marked = strcmp(argv[4], "marked") == 0;
	count = inc_vm_num(PROG, argv[5]);
	seed = inc_vm_num(PROG, argv[6]);
	rng = seed | 1u;

	fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (fd < 0)
		inc_vm_die(PROG, "AF_PACKET socket: %s", strerror(errno));
	sll.sll_ifindex = (int)if_nametoindex(argv[1]);
	if (!sll.sll_ifindex)
		inc_vm_die(PROG, "no interface '%s'", argv[1]);
	sll.sll_halen = 6;

	inc_frame_config_default(&cfg);
	if (rx)
		cfg.max_frame = MTU + 18;   /* the driver's RX limit */
	else
		cfg.max_frame = 0;          /* the driver's TX path: no limit */

	for (n = 0; n < count; n++) {
		long r;

		if (marked)
			len = make_marked(frame, sizeof(frame), (unsigned)n, &rng);
		else
			len = inc_fg_random(frame, sizeof(frame), MTU + 14, 1, &rng);
		/* AF_PACKET takes whole Ethernet headers up to MTU + 14. */
		if (len < 14 || len > MTU + 14)
			continue;
		for (i = 0; i < 6; i++)
			frame[i] = (uint8_t)mac[i];
		memcpy(frame + 6, "\x02\x00\x00\xee\x00\x01", 6);
		/* What the driver's handler sees. */
		memcpy(view, frame, len);
		vlen = len;
		if (rx && len >= 18 && view[12] == 0x81 && view[13] == 0x00) {
			memmove(view + 12, view + 16, len - 16);
			vlen = len - 4;
		}
		if (sendto(fd, frame, len, 0, (struct sockaddr *)&sll,
			   sizeof(sll)) != (ssize_t)len)
			continue;       /* e.g. a header the device refuses */
		sent++;
		r = rx ? inc_frame_decompress(view, vlen, out, sizeof(out), &cfg, &info)
		       : inc_frame_compress(view, vlen, out, sizeof(out), &cfg, &info);
		if (r < 0)
			inc_vm_die(PROG, "model: %s", inc_model_strerror((int)r));
		if (info.outcome == INC_OUT_DECOMPRESSED)
			dcmp++;
		if (info.outcome == INC_OUT_COMPRESSED)
			cmp++;
		if (info.outcome == INC_OUT_MALFORMED) {
			malformed++;
			bad_shim += info.reason == INC_R_BAD_SHIM;
			bad_stream += info.reason == INC_R_BAD_STREAM;
		}
		if (n % 16 == 15)
			usleep(2000);   /* keep the receive backlog short */
	}
	close(fd);
	printf("expect sent=%lu decompressed=%lu compressed=%lu malformed=%lu "
	       "bad_shim=%lu bad_stream=%lu\n",
	       sent, dcmp, cmp, malformed, bad_shim, bad_stream);
	return 0;
}
