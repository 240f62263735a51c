// SPDX-License-Identifier: MIT
/*
 * inc_vm_inject.c - send crafted frames through an AF_PACKET socket for the
 * driver test in QEMU, predict with the model what the driver must do with
 * each, and check the frames the driver emits byte for byte.
 *
 *   inc-vm-inject send IFNAME DSTMAC rx|tx marked|random|flips COUNT SEED [CAPIF]
 *   inc-vm-inject expect IFNAME DSTMAC marked|random|flips COUNT SEED
 *   inc-vm-inject tap IFNAME
 *
 * "tap" keeps a packet tap (AF_PACKET, ETH_P_ALL) open on IFNAME until
 * SIGTERM, so that every frame sent on IFNAME passes the kernel's tap
 * path (which checks each skb's network header offset and logs
 * "protocol ... is buggy" when it is off), and prints
 *   tap: frames=N outgoing=N marked=N
 * (marked: outgoing frames with IP protocol 253).
 *
 * "marked": compressed frames (inc_frame_compress of gradient payloads),
 * most of them corrupted afterwards (shim magic/version/length, stream cut
 * short or too long, a padding lane with a non-zero tag, no room for the
 * shim), with the IP header fixed up so they reach the marker validation.
 * "random": inc_fg_random frames of every kind, marked ones included.
 * "flips": single-bit flips of the shim, stream and tail of three valid
 * compressed frames (1448, 600 and 203 payload bytes of gradient values,
 * valid TCP checksums), bit after bit (format v2 integrity: each must be
 * refused by the decompressor, never delivered with other contents).
 *
 * Each frame is classified with the model: "rx" with inc_frame_decompress
 * as the receiving device's RX handler sees it (the kernel moves one
 * 802.1Q/802.1ad tag into metadata before the handler runs; max frame =
 * MTU 1500 + 18), "tx" with inc_frame_compress as the sending device's TX
 * path sees it (no size limit). The last line of "send" is machine-readable:
 *   expect sent=N decompressed=N compressed=N malformed=N bad_shim=N bad_stream=N
 *          dropped=N bad_payload_csum=N old_version=N corrupt=N
 * (corrupt: frames the model would deliver with contents other than the
 * uncorrupted frame's; must be 0).
 *
 * "send ... tx ... CAPIF" also captures what leaves on CAPIF (the lower
 * device) and requires every sent frame to appear there exactly as the
 * model's output. "expect" runs on the receiving side: it regenerates the
 * same frames from SEED, captures on IFNAME (the upper device) and requires
 * every frame to arrive exactly as the model's output (decompressed, or
 * unchanged), until COUNT frames matched or 10 s passed. It prints
 *   bit-exact: matched=N of N, other=N
 */
#include "inc_framegen.h"
#include "inc_model.h"
#include "inc_vm.h"

#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
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
	case 2:                         /* version 1 (refused) or unknown */
		shim[1] = (inc_fg_rand(rng) & 1) ? INC_WIRE_VERSION_V1 : 3;
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
			st16(shim + 2, (unsigned)plen + 4u);   /* one value more: its tag is missing */
			break;
		}
		/* Walk to the last group's tag word. */
		{
			size_t pos = INC_WIRE_SHIM_BYTES, g;
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

enum { MODE_RANDOM, MODE_MARKED, MODE_FLIPS };

static int parse_mode(const char *s)
{
	if (!strcmp(s, "marked"))
		return MODE_MARKED;
	if (!strcmp(s, "flips"))
		return MODE_FLIPS;
	if (!strcmp(s, "random"))
		return MODE_RANDOM;
	inc_vm_die(PROG, "unknown mode '%s' (marked, random, flips)", s);
	return MODE_RANDOM;
}

/* The base frames of "flips": compressed, and what they decompress to. */
#define FLIP_BASES 3
static uint8_t flip_comp[FLIP_BASES][1600], flip_dec[FLIP_BASES][1600];
static size_t flip_clen[FLIP_BASES], flip_dlen[FLIP_BASES], flip_poff[FLIP_BASES];

static void flip_bases(void)
{
	static const size_t plens[FLIP_BASES] = { 1448, 600, 203 };
	uint8_t in[1600], payload[1460];
	struct inc_fg_frame fr;
	struct inc_frame_info info;
	uint64_t rng = 0x5eed;
	size_t len;
	long r;
	int k;

	for (k = 0; k < FLIP_BASES; k++) {
		inc_fg_defaults(&fr);
		inc_fg_payload(payload, plens[k], INC_FG_GRADIENT, &rng);
		fr.payload = payload;
		fr.payload_len = plens[k];
		fr.seq = (uint32_t)inc_fg_rand(&rng);
		len = inc_fg_build(in, sizeof(in), &fr);
		r = inc_frame_compress(in, len, flip_comp[k], sizeof(flip_comp[k]), NULL, &info);
		if (r <= 0 || info.outcome != INC_OUT_COMPRESSED)
			inc_vm_die(PROG, "flips: base frame %d does not compress", k);
		flip_clen[k] = (size_t)r;
		flip_poff[k] = info.payload_off;
		r = inc_frame_decompress(flip_comp[k], flip_clen[k], flip_dec[k],
					 sizeof(flip_dec[k]), NULL, &info);
		if (r <= 0 || info.outcome != INC_OUT_DECOMPRESSED)
			inc_vm_die(PROG, "flips: base frame %d does not decompress", k);
		flip_dlen[k] = (size_t)r;
	}
}

/* Flip n: base frame k, bit b of its shim, stream or tail (cycling). */
static size_t make_flip(uint8_t *out, unsigned long n, int *base)
{
	unsigned long total = 0, bits;
	int k;

	if (!flip_clen[0])
		flip_bases();
	for (k = 0; k < FLIP_BASES; k++)
		total += 8ul * (flip_clen[k] - flip_poff[k]);
	n %= total;
	for (k = 0; k < FLIP_BASES; k++) {
		bits = 8ul * (flip_clen[k] - flip_poff[k]);
		if (n < bits)
			break;
		n -= bits;
	}
	memcpy(out, flip_comp[k], flip_clen[k]);
	out[flip_poff[k] + n / 8] ^= (uint8_t)(1u << (n % 8));
	*base = k;
	return flip_clen[k];
}

/* The next frame of the sequence (identical on both sides for one SEED),
 * or 0 when the generator made one AF_PACKET cannot send. *base is the
 * base frame of a flip, else -1. */
static size_t next_frame(uint8_t *frame, size_t cap, int mode,
			 unsigned long n, const unsigned *mac, uint64_t *rng, int *base)
{
	size_t len;
	unsigned i;

	*base = -1;
	if (mode == MODE_MARKED)
		len = make_marked(frame, cap, (unsigned)n, rng);
	else if (mode == MODE_FLIPS)
		len = make_flip(frame, n, base);
	else
		len = inc_fg_random(frame, cap, MTU + 14, 1, rng);
	/* AF_PACKET takes whole Ethernet headers up to MTU + 14. */
	if (len < 14 || len > MTU + 14)
		return 0;
	for (i = 0; i < 6; i++)
		frame[i] = (uint8_t)mac[i];
	memcpy(frame + 6, "\x02\x00\x00\xee\x00\x01", 6);
	return len;
}

/* The frame as the driver's handler sees it, and the model's output. */
static long predict(const uint8_t *frame, size_t len, int rx, uint8_t *out,
		    size_t out_cap, struct inc_frame_info *info)
{
	static uint8_t view[4096];
	struct inc_frame_config cfg;
	size_t vlen = len;

	inc_frame_config_default(&cfg);
	memcpy(view, frame, len);
	if (rx) {
		cfg.max_frame = MTU + 18;       /* the driver's RX limit */
		if (len >= 18 && ((view[12] == 0x81 && view[13] == 0x00) ||
				  (view[12] == 0x88 && view[13] == 0xa8))) {
			memmove(view + 12, view + 16, len - 16);
			vlen = len - 4;
		}
		return inc_frame_decompress(view, vlen, out, out_cap, &cfg, info);
	}
	cfg.max_frame = 0;                      /* the driver's TX path */
	return inc_frame_compress(view, vlen, out, out_cap, &cfg, info);
}

static int open_packet(const char *ifname, int proto, struct sockaddr_ll *sll)
{
	int fd = socket(AF_PACKET, SOCK_RAW, htons(proto));

	if (fd < 0)
		inc_vm_die(PROG, "AF_PACKET socket: %s", strerror(errno));
	memset(sll, 0, sizeof(*sll));
	sll->sll_family = AF_PACKET;
	sll->sll_protocol = htons(proto);
	sll->sll_ifindex = (int)if_nametoindex(ifname);
	if (!sll->sll_ifindex)
		inc_vm_die(PROG, "no interface '%s'", ifname);
	sll->sll_halen = 6;
	if (proto && bind(fd, (struct sockaddr *)sll, sizeof(*sll)) < 0)
		inc_vm_die(PROG, "bind %s: %s", ifname, strerror(errno));
	return fd;
}

/* Wait up to ms for a captured frame of direction outgoing (1) or not (0)
 * equal to want; other frames are skipped. */
static int capture_match(int fd, int outgoing, const uint8_t *want,
			 size_t want_len, int ms, unsigned long *other)
{
	static uint8_t buf[70000];
	struct sockaddr_ll from;
	socklen_t fl;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t r;

	while (poll(&p, 1, ms) > 0) {
		fl = sizeof(from);
		r = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl);
		if (r < 0)
			return 0;
		if ((from.sll_pkttype == PACKET_OUTGOING) != outgoing)
			continue;
		if ((size_t)r == want_len && memcmp(buf, want, want_len) == 0)
			return 1;
		(*other)++;
	}
	return 0;
}

static volatile sig_atomic_t tap_stop;

static void tap_signal(int sig)
{
	(void)sig;
	tap_stop = 1;
}

static int do_tap(int argc, char **argv)
{
	static uint8_t buf[70000];
	struct sockaddr_ll sll, from;
	unsigned long frames = 0, outgoing = 0, marked = 0;
	struct pollfd p;
	socklen_t fl;
	ssize_t r;
	int fd;

	if (argc != 3)
		inc_vm_die(PROG, "usage: tap IFNAME");
	signal(SIGTERM, tap_signal);
	signal(SIGINT, tap_signal);
	fd = open_packet(argv[2], ETH_P_ALL, &sll);
	p.fd = fd;
	p.events = POLLIN;
	printf("tap: on %s\n", argv[2]);
	fflush(stdout);
	while (!tap_stop) {
		if (poll(&p, 1, 200) <= 0)
			continue;
		fl = sizeof(from);
		r = recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *)&from, &fl);
		if (r <= 0)
			continue;
		frames++;
		if (from.sll_pkttype != PACKET_OUTGOING)
			continue;
		outgoing++;
		if (r >= 34 && buf[12] == 0x08 && buf[13] == 0x00 && buf[23] == INC_WIRE_IPPROTO)
			marked++;
	}
	printf("tap: frames=%lu outgoing=%lu marked=%lu\n", frames, outgoing, marked);
	return 0;
}

static int do_expect(int argc, char **argv)
{
	static uint8_t frame[4096], out[INC_FRAME_OUT_MAX];
	struct sockaddr_ll sll;
	struct inc_frame_info info;
	unsigned mac[6];
	unsigned long count, n, want = 0, matched = 0, other = 0;
	uint64_t rng;
	int fd, mode, base;
	double t_end;
	long r;

	if (argc != 7)
		inc_vm_die(PROG, "usage: expect IFNAME DSTMAC marked|random|flips COUNT SEED");
	if (sscanf(argv[3], "%x:%x:%x:%x:%x:%x", &mac[0], &mac[1], &mac[2],
		   &mac[3], &mac[4], &mac[5]) != 6)
		inc_vm_die(PROG, "bad MAC '%s'", argv[3]);
	mode = parse_mode(argv[4]);
	count = inc_vm_num(PROG, argv[5]);
	rng = inc_vm_num(PROG, argv[6]) | 1u;
	fd = open_packet(argv[2], ETH_P_ALL, &sll);
	printf("expect: capturing on %s\n", argv[2]);
	fflush(stdout);
	t_end = inc_vm_now() + 10.0;
	for (n = 0; n < count && inc_vm_now() < t_end; n++) {
		size_t len = next_frame(frame, sizeof(frame), mode, n, mac, &rng, &base);

		if (!len)
			continue;
		r = predict(frame, len, 1, out, sizeof(out), &info);
		if (r < 0)
			inc_vm_die(PROG, "model: %s", inc_model_strerror((int)r));
		if (info.outcome == INC_OUT_DROPPED)
			continue;
		want++;
		/* Frames arrive in order; unrelated traffic is skipped. The
		 * first frame may take a while (the sender starts later). */
		matched += capture_match(fd, 0, out, (size_t)r,
					 want == 1 ? 8000 : 1000, &other);
	}
	printf("bit-exact: matched=%lu of %lu, other=%lu\n", matched, want, other);
	return matched == want ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct sockaddr_ll sll, csll;
	struct inc_frame_info info;
	static uint8_t frame[4096], out[INC_FRAME_OUT_MAX];
	unsigned mac[6];
	unsigned long count, seed, n, sent = 0, exact = 0, other = 0;
	unsigned long dcmp = 0, cmp = 0, malformed = 0, bad_shim = 0, bad_stream = 0;
	unsigned long dropped = 0, bad_csum = 0, old_version = 0, corrupt = 0;
	uint64_t rng;
	int rx, mode, fd, cfd = -1, base;
	size_t len;

	if (argc >= 2 && strcmp(argv[1], "tap") == 0)
		return do_tap(argc, argv);
	alarm(60);
	if (argc >= 2 && strcmp(argv[1], "expect") == 0)
		return do_expect(argc, argv);
	if ((argc != 8 && argc != 9) || strcmp(argv[1], "send") != 0)
		inc_vm_die(PROG, "usage: inc-vm-inject send IFNAME DSTMAC rx|tx marked|random|flips COUNT SEED [CAPIF]\n"
			   "       inc-vm-inject expect IFNAME DSTMAC marked|random|flips COUNT SEED");
	if (sscanf(argv[3], "%x:%x:%x:%x:%x:%x", &mac[0], &mac[1], &mac[2],
		   &mac[3], &mac[4], &mac[5]) != 6)
		inc_vm_die(PROG, "bad MAC '%s'", argv[3]);
	rx = strcmp(argv[4], "rx") == 0;
	mode = parse_mode(argv[5]);
	count = inc_vm_num(PROG, argv[6]);
	seed = inc_vm_num(PROG, argv[7]);
	rng = seed | 1u;

	/* Protocol 0: this socket only sends, it receives nothing. */
	fd = open_packet(argv[2], 0, &sll);
	if (argc == 9)
		cfd = open_packet(argv[8], ETH_P_ALL, &csll);

	for (n = 0; n < count; n++) {
		long r;

		len = next_frame(frame, sizeof(frame), mode, n, mac, &rng, &base);
		if (!len)
			continue;
		sll.sll_protocol = (uint16_t)(frame[12] | frame[13] << 8);
		if (sendto(fd, frame, len, 0, (struct sockaddr *)&sll,
			   sizeof(sll)) != (ssize_t)len)
			continue;       /* e.g. a header the device refuses */
		sent++;
		r = predict(frame, len, rx, out, sizeof(out), &info);
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
			old_version += info.reason == INC_R_OLD_VERSION;
		}
		if (info.outcome == INC_OUT_DROPPED) {
			dropped++;
			bad_csum += info.reason == INC_R_BAD_PAYLOAD_CSUM;
		}
		/* A flip the model decompresses must give the base frame's
		 * segment again (the MAC addresses set here aside). */
		if (base >= 0 && info.outcome == INC_OUT_DECOMPRESSED &&
		    ((size_t)r != flip_dlen[base] ||
		     memcmp(out + 12, flip_dec[base] + 12, (size_t)r - 12)))
			corrupt++;
		if (cfd >= 0)
			exact += capture_match(cfd, 1, out, (size_t)r, 500, &other);
		if (n % 16 == 15)
			usleep(2000);   /* keep the receive backlog short */
	}
	close(fd);
	if (cfd >= 0) {
		close(cfd);
		printf("bit-exact: matched=%lu of %lu, other=%lu\n", exact, sent, other);
	}
	printf("expect sent=%lu decompressed=%lu compressed=%lu malformed=%lu "
	       "bad_shim=%lu bad_stream=%lu dropped=%lu bad_payload_csum=%lu "
	       "old_version=%lu corrupt=%lu\n",
	       sent, dcmp, cmp, malformed, bad_shim, bad_stream, dropped, bad_csum,
	       old_version, corrupt);
	return (cfd >= 0 && exact != sent) || corrupt ? 1 : 0;
}
