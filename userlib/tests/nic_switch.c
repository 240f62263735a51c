// SPDX-License-Identifier: MIT
/*
 * nic_switch.c - a user-space Ethernet switch for the emulated cluster that
 * puts an INCEPTIONN NIC pair on every path: each frame a node sends goes
 * through inc_frame_compress (the sender's NIC, ToS 0x28/0xfc, eb 10) and
 * inc_frame_decompress (the receiver's NIC) before it is delivered, so
 * tagged float payloads arrive quantised exactly as with the real NICs.
 * Forwarding: MAC learning, flooding of unknown and broadcast destinations.
 * Test tool (uses libc). Needs the ports' TSO/GSO/GRO and TX checksum
 * offload off (scripts/netns-cluster.sh up -x).
 *
 *   nic-switch [-e EB] PORT...      runs until SIGTERM/SIGINT, then prints
 *   "frames F compressed C bypassed B malformed M bytes_in I bytes_wire W"
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "inc_model.h"

#define MAXPORTS 64
#define MAXMACS  256

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

struct mac_entry {
	uint8_t mac[6];
	int port;
};

static struct mac_entry macs[MAXMACS];
static int nmacs;

static int mac_port(const uint8_t *mac)
{
	int i;

	for (i = 0; i < nmacs; i++)
		if (!memcmp(macs[i].mac, mac, 6))
			return macs[i].port;
	return -1;
}

static void mac_learn(const uint8_t *mac, int port)
{
	int i;

	if (mac[0] & 1)
		return;
	for (i = 0; i < nmacs; i++)
		if (!memcmp(macs[i].mac, mac, 6)) {
			macs[i].port = port;
			return;
		}
	if (nmacs < MAXMACS) {
		memcpy(macs[nmacs].mac, mac, 6);
		macs[nmacs++].port = port;
	}
}

int main(int argc, char **argv)
{
	static uint8_t in[65536], wire[INC_FRAME_OUT_MAX], out[INC_FRAME_OUT_MAX];
	struct pollfd p[MAXPORTS];
	int ifidx[MAXPORTS], np = 0, opt, i, j;
	unsigned long frames = 0, comp = 0, byp = 0, mal = 0;
	unsigned long long bytes_in = 0, bytes_wire = 0;
	struct inc_frame_config cfg;

	inc_frame_config_default(&cfg);
	while ((opt = getopt(argc, argv, "e:")) != -1) {
		if (opt == 'e') {
			cfg.eb = (uint8_t)atoi(optarg);
		} else {
			fprintf(stderr, "usage: nic-switch [-e EB] PORT...\n");
			return 2;
		}
	}
	for (i = optind; i < argc && np < MAXPORTS; i++, np++) {
		struct sockaddr_ll sll;
		int one = 1;

		ifidx[np] = (int)if_nametoindex(argv[i]);
		p[np].fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK, htons(ETH_P_ALL));
		if (!ifidx[np] || p[np].fd < 0) {
			fprintf(stderr, "nic-switch: %s: %s\n", argv[i], strerror(errno));
			return 1;
		}
		memset(&sll, 0, sizeof(sll));
		sll.sll_family = AF_PACKET;
		sll.sll_protocol = htons(ETH_P_ALL);
		sll.sll_ifindex = ifidx[np];
		if (bind(p[np].fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
			fprintf(stderr, "nic-switch: bind %s: %s\n", argv[i], strerror(errno));
			return 1;
		}
		(void)setsockopt(p[np].fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one));
		p[np].events = POLLIN;
	}
	if (np < 2) {
		fprintf(stderr, "usage: nic-switch [-e EB] PORT PORT...\n");
		return 2;
	}
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	printf("nic-switch: %d ports, eb %u\n", np, cfg.eb);
	fflush(stdout);
	while (!stop) {
		if (poll(p, (nfds_t)np, 200) <= 0)
			continue;
		for (i = 0; i < np; i++) {
			for (;;) {
				struct sockaddr_ll from;
				socklen_t fl = sizeof(from);
				struct inc_frame_info ti, ri;
				ssize_t n = recvfrom(p[i].fd, in, sizeof(in), 0,
						     (struct sockaddr *)&from, &fl);
				long w, o;
				int dst;

				if (n <= 0)
					break;
				if (from.sll_pkttype == PACKET_OUTGOING || n < 14)
					continue;
				frames++;
				bytes_in += (unsigned long long)n;
				mac_learn(in + 6, i);
				/* Sender's NIC, the wire, receiver's NIC. */
				w = inc_frame_compress(in, (size_t)n, wire, sizeof(wire), &cfg, &ti);
				if (w <= 0)
					continue;   /* dropped (oversize) */
				bytes_wire += (unsigned long long)w;
				if (ti.outcome == INC_OUT_COMPRESSED)
					comp++;
				else
					byp++;
				o = inc_frame_decompress(wire, (size_t)w, out, sizeof(out), &cfg, &ri);
				if (o <= 0)
					continue;
				if (ri.outcome == INC_OUT_MALFORMED)
					mal++;
				dst = mac_port(out);
				for (j = 0; j < np; j++) {
					if (j == i || (dst >= 0 && j != dst))
						continue;
					(void)send(p[j].fd, out, (size_t)o, MSG_DONTWAIT);
				}
			}
		}
	}
	printf("frames %lu compressed %lu bypassed %lu malformed %lu bytes_in %llu bytes_wire %llu\n",
	       frames, comp, byp, mal, bytes_in, bytes_wire);
	return 0;
}
