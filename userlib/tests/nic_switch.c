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
 * -r MBIT paces the links at MBIT Mbit/s of *wire* (compressed) bytes, as
 * a store-and-forward switch: a frame occupies its sender's link for
 * wire_len*8/rate, then the receiver's link as soon as that is free, and is
 * delivered when it has crossed both; a port queues at most QMAX frames
 * (tail drop). With -r the emulated links carry what the NICs put on the
 * wire, so compression shortens transfers as it would on real links (run the
 * namespace links themselves much faster, e.g. netns-cluster.sh -r 40gbit).
 *
 *   nic-switch [-e EB] [-r MBIT] PORT...   runs until SIGTERM/SIGINT, then
 *   prints "frames F compressed C bypassed B malformed M bytes_in I
 *   bytes_wire W dropped D bad_payload_csum X" (D: queue tail drops; X:
 *   frames the receiving NIC dropped because the restored segment failed
 *   its TCP checksum, e.g. a sender whose checksum offload is on)
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
#include <time.h>
#include <unistd.h>

#include "inc_model.h"

#define MAXPORTS 16
#define MAXMACS  256
#define QMAX     1024     /* frames queued per output port */
#define FMAX     9100     /* largest frame kept in a queue: jumbo frames (no offloads) */

struct qframe {
	uint64_t due_ns;
	uint16_t len;
	uint8_t data[FMAX];
};

struct port_q {
	struct qframe *f;     /* ring of QMAX */
	unsigned head, count;
	uint64_t rx_free_ns;  /* sender's link (node -> switch) busy until */
	uint64_t tx_free_ns;  /* receiver's link (switch -> node) busy until */
};

static struct port_q q[MAXPORTS];
static double ns_per_byte;  /* 0: no pacing */
static unsigned long dropped;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Queue a frame for port j; it finished arriving (sender's link) at t. */
static void enqueue(int j, const uint8_t *f, long len, long wire, uint64_t t)
{
	struct port_q *pq = &q[j];
	struct qframe *x;
	uint64_t start;

	if (pq->count == QMAX || len > FMAX) {
		dropped++;
		return;
	}
	start = t > pq->tx_free_ns ? t : pq->tx_free_ns;
	pq->tx_free_ns = start + (uint64_t)((double)wire * ns_per_byte);
	x = &pq->f[(pq->head + pq->count++) % QMAX];
	x->due_ns = pq->tx_free_ns;
	x->len = (uint16_t)len;
	memcpy(x->data, f, (size_t)len);
}

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
	unsigned long frames = 0, comp = 0, byp = 0, mal = 0, bad_csum = 0;
	unsigned long long bytes_in = 0, bytes_wire = 0;
	struct inc_frame_config cfg;

	inc_frame_config_default(&cfg);
	while ((opt = getopt(argc, argv, "e:r:")) != -1) {
		if (opt == 'e') {
			cfg.eb = (uint8_t)atoi(optarg);
		} else if (opt == 'r') {
			double mbit = atof(optarg);

			ns_per_byte = mbit > 0 ? 8e3 / mbit : 0;
		} else {
			fprintf(stderr, "usage: nic-switch [-e EB] [-r MBIT] PORT...\n");
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
		if (ns_per_byte > 0) {
			q[np].f = calloc(QMAX, sizeof(struct qframe));
			if (!q[np].f)
				return 1;
		}
	}
	if (np < 2) {
		fprintf(stderr, "usage: nic-switch [-e EB] PORT PORT...\n");
		return 2;
	}
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	printf("nic-switch: %d ports, eb %u, %s\n", np, cfg.eb,
	       ns_per_byte > 0 ? "paced by wire bytes" : "unpaced");
	fflush(stdout);
	while (!stop) {
		uint64_t t = now_ns(), next = UINT64_MAX;
		struct timespec to;

		/* Deliver what has crossed both links. */
		for (j = 0; ns_per_byte > 0 && j < np; j++) {
			struct port_q *pq = &q[j];

			while (pq->count && pq->f[pq->head].due_ns <= t) {
				(void)send(p[j].fd, pq->f[pq->head].data, pq->f[pq->head].len,
					   MSG_DONTWAIT);
				pq->head = (pq->head + 1) % QMAX;
				pq->count--;
			}
			if (pq->count && pq->f[pq->head].due_ns < next)
				next = pq->f[pq->head].due_ns;
		}
		if (next == UINT64_MAX)
			next = t + 200000000u;
		to.tv_sec = (time_t)((next - t) / 1000000000u);
		to.tv_nsec = (long)((next - t) % 1000000000u);
		if (ppoll(p, (nfds_t)np, &to, NULL) <= 0)
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
				if (o <= 0) {
					bad_csum += ri.reason == INC_R_BAD_PAYLOAD_CSUM;
					continue;
				}
				if (ri.outcome == INC_OUT_MALFORMED)
					mal++;
				dst = mac_port(out);
				if (ns_per_byte > 0) {
					/* The frame occupies the sender's link first. */
					uint64_t t0 = now_ns(), arr;

					if (q[i].rx_free_ns > t0)
						t0 = q[i].rx_free_ns;
					arr = t0 + (uint64_t)((double)w * ns_per_byte);
					q[i].rx_free_ns = arr;
					for (j = 0; j < np; j++)
						if (j != i && (dst < 0 || j == dst))
							enqueue(j, out, o, w, arr);
					continue;
				}
				for (j = 0; j < np; j++) {
					if (j == i || (dst >= 0 && j != dst))
						continue;
					(void)send(p[j].fd, out, (size_t)o, MSG_DONTWAIT);
				}
			}
		}
	}
	printf("frames %lu compressed %lu bypassed %lu malformed %lu bytes_in %llu bytes_wire %llu dropped %lu bad_payload_csum %lu\n",
	       frames, comp, byp, mal, bytes_in, bytes_wire, dropped, bad_csum);
	return 0;
}
