// SPDX-License-Identifier: MIT
/*
 * nic_switch.c - a user-space Ethernet switch for the emulated cluster that
 * puts an INCEPTIONN NIC pair on every path: each frame a node sends goes
 * through inc_frame_compress (the sender's NIC, ToS 0x28/0xfc, eb 10) and
 * inc_frame_decompress (the receiver's NIC) before it is delivered, so
 * tagged float payloads arrive quantised exactly as with the real NICs.
 * Forwarding: MAC learning, flooding of unknown and broadcast destinations.
 * Part of the emulated cluster (cluster/; uses libc). Needs the ports'
 * TSO/GSO/GRO and TX checksum offload off (cluster/netns-cluster.sh up -x).
 *
 * -r MBIT paces the links at MBIT Mbit/s of *wire* (compressed) bytes, as
 * a store-and-forward switch: a frame occupies its sender's link for
 * wire_len*8/rate, then the receiver's link as soon as that is free, and is
 * delivered when it has crossed both; a port queues at most QMAX frames
 * (tail drop). With -r the emulated links carry what the NICs put on the
 * wire, so compression shortens transfers as it would on real links (run the
 * namespace links themselves much faster, e.g. netns-cluster.sh -r 40gbit).
 * -l USEC (with -r) delivers every frame USEC microseconds later: a link
 * latency (propagation and switching) that needs no netem in the kernel.
 *
 *   nic-switch [-e EB] [-r MBIT] [-c N] [-w FILE] PORT...   runs until
 *   SIGTERM/SIGINT, then prints "frames F compressed C bypassed B malformed
 *   M bytes_in I bytes_wire W dropped D bad_payload_csum X misaligned A
 *   cpu_ms U codec_ms K xcheck_ms Y link_ms L elapsed_ms E" (D: queue tail
 *   drops; X: frames the receiving NIC dropped because the restored segment
 *   failed its TCP checksum, e.g. a sender whose checksum offload is on; A:
 *   tagged TCP payloads that do not start on a float boundary of their
 *   stream or do not hold whole floats, the first ten also on stderr; U:
 *   the switch's CPU time, user + system; K: time in the NICs' frame codec,
 *   Y of it in the cross-check; L: with -r, the wire time of the busiest
 *   link direction, the bytes it carried at MBIT; E: wall time from the
 *   first frame to the end; then "segmented S coalesced C gso_dropped G
 *   gso_other O": super-frames cut into segments by the senders' NICs,
 *   super-frames passed up whole by the receivers' NICs, super-frames lost
 *   to a segment a NIC did not restore, offloaded packets that are not
 *   TCP/IPv4, dropped, and "kernel_dropped K": frames the kernel dropped
 *   on the switch's receiving sockets before the switch read them).
 *   Frames, bytes and the NICs' counts are of the segments on the wire.
 *   The switch keeps up with its links when U is below L.
 *
 * Ports whose node has TSO/GSO and TX checksum offload on (the receiving
 * sockets read the virtio-net header) work as NICs with these offloads:
 * see "Super-frames" below.
 *
 * The model backend's NICs run the model's frame logic with the user
 * library's SIMD kernels (inc_frame_compress_fast / _decompress_fast,
 * byte-identical to inc_frame_compress / _decompress; INC_CODEC=portable
 * makes them the model's own loops). -c N cross-checks every Nth frame
 * through the model too (both directions; 1 = every frame, as the tests
 * run it; 0 = none, the default): a difference stops the switch with exit
 * status 3 and a message naming the frame.
 *
 * The model backend runs in two threads: the main thread receives frames
 * and runs the senders' NICs and links, a second one the receivers' NICs
 * and links and the delivery (-s: one thread, as the RTL backend always
 * runs).
 *
 * -w FILE writes every frame as it crosses the wire (after the sender's
 * NIC: compressed when the NIC compressed it) to a pcap file, stamped with
 * the time it finished crossing the sender's link (with -r) or when the
 * switch handled it.
 *
 * RTL backend (build/userlib-test/nic-switch-rtl, the same program built
 * with the Verilated inc_offload_top): -b rtl gives every port a NIC of its
 * own, an inc_offload_top instance configured over its AXI4-Lite port as
 * the driver's FPGA path does (ToS value/mask, error bound, CTRL = TX|RX);
 * a frame goes through the sender's compress engine and each receiver's
 * decompress engine, one frame at a time. Options of the RTL backend:
 *   -x          cross-check: every frame also through the model; the first
 *               difference (bytes, outcome or reason) stops the switch with
 *               exit status 3 and writes DIR/mismatch.pcap (input, RTL
 *               output, model output)
 *   -X EB       cross-check against the model at error bound EB instead of
 *               the NICs' (a difference the cross-check must catch)
 *   -t A-B      FST traces of frames A..B (numbered from 1 as they enter
 *               the switch): DIR/nicP.fst per NIC
 *   -T REASON   FST trace of the first frame an engine gives REASON (e.g.
 *               bad_payload_csum): DIR/trigger-frameN-nicP-tx|rx.fst
 *   -d DIR      where traces and mismatch captures go [.]
 * At the end it reads every NIC's CSR counters, compares them with the
 * switch's own per-frame counts (exit status 4 on a difference) and prints
 * the simulation rate: "rtl: cycles C (X cycles/s), frames F (Y frames/s),
 * Z Mbit/s".
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/ethtool.h>
#include <linux/if_packet.h>
#include <linux/sockios.h>
#include <linux/virtio_net.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/eventfd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "inc_model.h"
#include "inc_pcap.h"
#ifdef INC_NIC_RTL
#include "rtl_nic.h"
#else
#include "inceptionn/inc_frame_fast.h"
#endif

#define MAXPORTS 16
#define MAXMACS  256
#define QMAX     1024     /* frames queued per output port */
#define RCVBUF   (32 << 20) /* bytes a port's receiving socket buffers (SO_RCVBUFFORCE) */
#define FMAX     9100     /* largest frame kept in a queue: jumbo frames (no offloads) */
/* Super-frames (TSO/GSO on the nodes' ports): a TCP/IPv4 packet of up to
 * 64 KiB, cut into at most GSO_SEGS segments on the wire. */
#define GSO_SEGS 64
#define GMAX     (18 + 65535)                      /* Ethernet (+ VLAN tag) and the IPv4 packet */
#define GWIRE    (65536 + GSO_SEGS * 160)          /* the wire bytes of one super-frame's segments */

struct qframe {
	uint64_t due_ns;
	uint32_t len;
	uint16_t l4;          /* the receiving NIC verified the TCP checksum at this offset; 0: not */
	uint16_t gso_size;    /* big: a super-frame of segments of this size; 0: the frame in data */
	uint16_t hdr_len;     /* ... its headers' bytes */
	uint8_t *big;         /* the super-frame (malloc'd), or NULL */
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
static uint64_t lat_ns;     /* -l: propagation delay added to every frame */
static unsigned long dropped;
static uint64_t link_bytes[MAXPORTS][2];  /* wire bytes per link: [port][0 = node -> switch, 1 = switch -> node] */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The free slot at the tail of port j's queue, or NULL when it is full:
 * the receiving NIC writes its output there, and enqueue commits it. */
static struct qframe *queue_slot(int j)
{
	struct port_q *pq = &q[j];

	return pq->count == QMAX ? NULL : &pq->f[(pq->head + pq->count) % QMAX];
}

/* Queue the frame in port j's slot; it finished arriving (sender's link)
 * at t. */
static void enqueue(int j, long len, long wire, uint64_t t, unsigned l4)
{
	struct port_q *pq = &q[j];
	struct qframe *x = &pq->f[(pq->head + pq->count++) % QMAX];
	uint64_t start;

	start = t > pq->tx_free_ns ? t : pq->tx_free_ns;
	pq->tx_free_ns = start + (uint64_t)((double)wire * ns_per_byte);
	link_bytes[j][1] += (uint64_t)wire;
	x->due_ns = pq->tx_free_ns + lat_ns;
	x->len = (uint16_t)len;
	x->l4 = (uint16_t)l4;
}

/*
 * Delivery to a node: the frame with a virtio-net header (PACKET_VNET_HDR).
 * For a segment the receiving NIC decompressed, and so verified its TCP
 * checksum (docs/wire-format.md), the header marks the checksum as one
 * to be filled in at the TCP header (l4 > 0): the kernel then hands the
 * node's stack a segment whose checksum needs no check, as a NIC's receive
 * checksum offload does, and the node does not add up the 9000 bytes
 * again. The checksum field itself stays as the NIC restored it (valid).
 * Other frames go without the flag and are checked by the stack as before.
 */
static int txfd[MAXPORTS];
/* The port's device takes checksums to fill in (TX checksum offload); if
 * not, the kernel would fill in the marked checksum itself, over a field
 * that already holds the final value: the mark is then left off. */
static int tx_csum[MAXPORTS];

static int dev_tx_csum(int fd, const char *name)
{
	struct ethtool_value ev = { .cmd = ETHTOOL_GTXCSUM };
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	ifr.ifr_data = (void *)&ev;
	return ioctl(fd, SIOCETHTOOL, &ifr) == 0 && ev.data;
}

static void port_send(int j, const uint8_t *f, size_t len, unsigned l4, unsigned gso,
		      unsigned hdr_len)
{
	struct virtio_net_hdr vh;
	struct iovec iov[2];
	struct msghdr mh;

	memset(&vh, 0, sizeof(vh));
	if (gso) {
		/* A super-frame of segments the receiving NIC verified: the
		 * kernel takes it as one packet, as from a NIC's receive
		 * coalescing (its TCP checksum field holds the pseudo-header
		 * sum, to be filled in if the port's device must cut it). */
		vh.gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
		vh.gso_size = (uint16_t)gso;
		vh.hdr_len = (uint16_t)hdr_len;
		vh.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		vh.csum_start = (uint16_t)l4;
		vh.csum_offset = 16;
	} else if (l4 && l4 + 18 <= len && tx_csum[j]) {
		vh.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		vh.csum_start = (uint16_t)l4;
		vh.csum_offset = 16;
	}
	iov[0].iov_base = &vh;
	iov[0].iov_len = sizeof(vh);
	iov[1].iov_base = (void *)(uintptr_t)f;
	iov[1].iov_len = len;
	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = iov;
	mh.msg_iovlen = 2;
	(void)sendmsg(txfd[j], &mh, MSG_DONTWAIT);
}

/* ---- NIC backends: the model (default) or the RTL ------------------------ */

static struct inc_frame_config cfg;

#ifdef INC_NIC_RTL
static int use_rtl, xcheck;
static struct inc_frame_config xcfg;  /* the model's configuration for -x */
static struct rtl_nic *nics[MAXPORTS];
static unsigned long trace_from, trace_to, frame_no;
static int trace_reason = -1, traced;
static const char *outdir = ".";
static uint64_t rtl_ns;               /* time spent in the RTL */
/* The switch's own count of what each NIC's engines did, for the CSR. */
static uint64_t counted[MAXPORTS][2][INC_CNT_PER_DIR];

static void mismatch(int port, int rx, const uint8_t *in, size_t len, const uint8_t *a,
		     long alen, const struct inc_frame_info *ai, const uint8_t *b,
		     long blen, const struct inc_frame_info *bi)
{
	struct inc_pcap pc;
	char path[4096];

	snprintf(path, sizeof(path), "%s/mismatch.pcap", outdir);
	fprintf(stderr, "nic-switch: frame %lu, NIC %d %s: RTL %ld bytes %s/%s, model %ld bytes %s/%s; "
		"input, RTL and model frames in %s\n", frame_no, port, rx ? "rx" : "tx",
		alen, inc_outcome_name(ai->outcome), inc_reason_name(ai->reason), blen,
		inc_outcome_name(bi->outcome), inc_reason_name(bi->reason), path);
	if (inc_pcap_create(&pc, path, 65535) == 0) {
		inc_pcap_write(&pc, in, len, 0, 0);
		if (alen > 0)
			inc_pcap_write(&pc, a, (size_t)alen, 0, 1);
		if (blen > 0)
			inc_pcap_write(&pc, b, (size_t)blen, 0, 2);
		inc_pcap_close(&pc);
	}
	exit(3);
}

/* One frame through NIC port's engine in the RTL (cross-checked). */
static long rtl_frame(int port, int rx, const uint8_t *in, size_t len, uint8_t *out,
		      size_t cap, struct inc_frame_info *info)
{
	static uint8_t mout[INC_FRAME_OUT_MAX];
	struct inc_frame_info mi;
	char cur[4096];
	uint64_t t0 = now_ns();
	uint64_t *c = counted[port][rx];
	long r, m;

	if (trace_reason >= 0 && !traced) {
		snprintf(cur, sizeof(cur), "%s/nic%d-%s.cur.fst", outdir, port, rx ? "rx" : "tx");
		rtl_nic_trace(nics[port], cur);
	}
	r = rtl_nic_frame(nics[port], rx, in, len, out, cap, info);
	if (trace_reason >= 0 && !traced) {
		rtl_nic_trace(nics[port], NULL);
		if ((int)info->reason == trace_reason) {
			char keep[4096], name[96];

			snprintf(name, sizeof(name), "trigger-frame%lu-nic%d-%s.fst", frame_no, port,
				 rx ? "rx" : "tx");
			snprintf(keep, sizeof(keep), "%s/%s", outdir, name);
			if (rename(cur, keep) == 0)
				fprintf(stderr, "nic-switch: frame %lu gave %s on NIC %d %s: trace %s\n",
					frame_no, inc_reason_name(info->reason), port, rx ? "rx" : "tx", keep);
			traced = 1;
		} else {
			remove(cur);
		}
	}
	rtl_ns += now_ns() - t0;
	if (r < 0) {
		fprintf(stderr, "nic-switch: frame %lu, NIC %d %s: %s\n", frame_no, port,
			rx ? "rx" : "tx", r == -1 ? "the engine did not finish the frame" :
			"output larger than the buffer");
		exit(1);
	}
	c[info->outcome]++;
	c[INC_CNT_OUTCOMES + info->reason]++;
	c[INC_CNT_OUTCOMES + INC_CNT_REASONS] += len;
	c[INC_CNT_OUTCOMES + INC_CNT_REASONS + 1] += (uint64_t)r;
	if (xcheck) {
		m = rx ? inc_frame_decompress(in, len, mout, sizeof(mout), &xcfg, &mi)
		       : inc_frame_compress(in, len, mout, sizeof(mout), &xcfg, &mi);
		if (m != r || mi.outcome != info->outcome || mi.reason != info->reason ||
		    (r > 0 && memcmp(out, mout, (size_t)r)))
			mismatch(port, rx, in, len, out, r, info, mout, m, &mi);
	}
	return r;
}

/* Trace window by frame number: every NIC, one file each. */
static void trace_window(void)
{
	char path[4096];
	int j;

	if (!trace_from || (frame_no != trace_from && frame_no != trace_to + 1))
		return;
	for (j = 0; j < MAXPORTS && nics[j]; j++) {
		if (frame_no == trace_from) {
			snprintf(path, sizeof(path), "%s/nic%d.fst", outdir, j);
			rtl_nic_trace(nics[j], path);
		} else {
			rtl_nic_trace(nics[j], NULL);
		}
	}
	if (frame_no == trace_from)
		fprintf(stderr, "nic-switch: tracing frames %lu-%lu into %s/nicP.fst\n",
			trace_from, trace_to, outdir);
}

/* At the end: CSR counters against the switch's counts, and the rates. */
static int rtl_report(unsigned long frames, unsigned long long bytes_in)
{
	uint64_t cnt[2][INC_CNT_PER_DIR], cycles = 0;
	double secs = (double)rtl_ns / 1e9;
	int j, d, k, bad = 0, np = 0;

	for (j = 0; j < MAXPORTS && nics[j]; j++, np++) {
		cycles += rtl_nic_cycles(nics[j]);
		rtl_nic_counters(nics[j], cnt);
		for (d = 0; d < 2; d++)
			for (k = 0; k < INC_CNT_PER_DIR; k++)
				if (cnt[d][k] != counted[j][d][k]) {
					fprintf(stderr, "nic-switch: NIC %d %s counter %d: CSR %llu, switch %llu\n",
						j, d ? "rx" : "tx", k, (unsigned long long)cnt[d][k],
						(unsigned long long)counted[j][d][k]);
					bad = 1;
				}
	}
	printf("rtl: %d NICs, CSR counters %s the switch's per-frame counts\n", np,
	       bad ? "DIFFER from" : "equal");
	if (secs <= 0)
		secs = 1e-9;
	printf("rtl: cycles %llu (%.0f cycles/s), frames %lu (%.0f frames/s), %.2f Mbit/s of frames in\n",
	       (unsigned long long)cycles, (double)cycles / secs, frames, (double)frames / secs,
	       (double)bytes_in * 8.0 / secs / 1e6);
	return bad;
}
#endif

static unsigned long xevery;          /* -c: cross-check every Nth frame */
/* Per thread (the switch's two threads each run one side of the NICs),
 * added up at the end. */
static _Thread_local unsigned long xframe, xchecked;
static _Thread_local uint64_t codec_ns, xcheck_ns;
static _Atomic unsigned long xchecked_all;
static _Atomic uint64_t codec_ns_all, xcheck_ns_all;

static void stats_flush(void)
{
	xchecked_all += xchecked;
	codec_ns_all += codec_ns;
	xcheck_ns_all += xcheck_ns;
	xchecked = 0;
	codec_ns = xcheck_ns = 0;
}

/* The model backend's frame functions: the fast path (the model's frame
 * logic with the SIMD kernels); the RTL build keeps the model's own. */
#ifdef INC_NIC_RTL
#define frame_compress inc_frame_compress
#define frame_decompress inc_frame_decompress
#else
#define frame_compress inc_frame_compress_fast
#define frame_decompress inc_frame_decompress_fast
#endif

/* -c: the same frame through the model, compared field by field. */
static void model_check(int port, int rx, const uint8_t *in, size_t len, const uint8_t *out,
			long r, const struct inc_frame_info *info)
{
	static _Thread_local uint8_t mout[INC_FRAME_OUT_MAX];
	struct inc_frame_info mi;
	long m;

	m = rx ? inc_frame_decompress(in, len, mout, sizeof(mout), &cfg, &mi)
	       : inc_frame_compress(in, len, mout, sizeof(mout), &cfg, &mi);
	xchecked++;
	if (m != r || mi.outcome != info->outcome || mi.reason != info->reason ||
	    memcmp(&mi.counts, &info->counts, sizeof(mi.counts)) ||
	    (r > 0 && memcmp(out, mout, (size_t)r))) {
		fprintf(stderr, "nic-switch: frame %lu, NIC %d %s: fast path %ld bytes %s/%s, "
			"model %ld bytes %s/%s\n", xframe, port, rx ? "rx" : "tx", r,
			inc_outcome_name(info->outcome), inc_reason_name(info->reason), m,
			inc_outcome_name(mi.outcome), inc_reason_name(mi.reason));
		exit(3);
	}
}

/* One frame through port's NIC: its compress engine (rx = 0) or its
 * decompress engine (rx = 1), in the RTL or the model. */
static long nic_frame(int port, int rx, const uint8_t *in, size_t len, uint8_t *out,
		      size_t cap, struct inc_frame_info *info)
{
	uint64_t t0 = now_ns(), t1;
	long r;

#ifdef INC_NIC_RTL
	if (use_rtl)
		return rtl_frame(port, rx, in, len, out, cap, info);
#endif
	r = rx ? frame_decompress(in, len, out, cap, &cfg, info)
	       : frame_compress(in, len, out, cap, &cfg, info);
	t1 = now_ns();
	codec_ns += t1 - t0;
	if (xevery && xframe % xevery == 0) {
		model_check(port, rx, in, len, out, r, info);
		xcheck_ns += now_ns() - t1;
		codec_ns += now_ns() - t1;
	}
	return r;
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

/*
 * Float-boundary monitor: the NIC quantises a tagged payload as float32
 * values from its first byte, which is only right when the segment starts
 * at a stream offset that is a multiple of 4 and carries whole floats
 * (docs/userlib.md, "Float boundaries on the wire"). The switch remembers
 * each connection's initial sequence number from its SYN and counts tagged
 * payloads whose offset (seq - ISN - 1) or length is not a multiple of 4.
 */
#define MAXFLOWS 512
struct flow {
	uint32_t saddr, daddr, isn;
	uint16_t sport, dport;
};
static struct flow flows[MAXFLOWS];
static unsigned nflows, flow_next;
static unsigned long misaligned, unknown_flow;

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static struct flow *flow_find(const uint8_t *ip, const uint8_t *tcp)
{
	uint32_t sa = be32(ip + 12), da = be32(ip + 16);
	uint16_t sp = (uint16_t)(tcp[0] << 8 | tcp[1]), dp = (uint16_t)(tcp[2] << 8 | tcp[3]);
	unsigned k;

	for (k = 0; k < nflows; k++)
		if (flows[k].saddr == sa && flows[k].daddr == da && flows[k].sport == sp &&
		    flows[k].dport == dp)
			return &flows[k];
	return NULL;
}

static void align_check(const uint8_t *f, size_t len)
{
	struct inc_frame_hdr h;
	const uint8_t *ip, *tcp;
	struct flow *fl;
	uint32_t off;

	if (inc_frame_parse(f, len, &h) != INC_R_NONE || h.proto != 6)
		return;
	ip = f + h.l3_off;
	tcp = f + h.l4_off;
	fl = flow_find(ip, tcp);
	if (tcp[13] & 0x02) {                   /* SYN: (re)start the flow */
		if (!fl) {
			fl = &flows[nflows < MAXFLOWS ? nflows++ : flow_next++ % MAXFLOWS];
			fl->saddr = be32(ip + 12);
			fl->daddr = be32(ip + 16);
			fl->sport = (uint16_t)(tcp[0] << 8 | tcp[1]);
			fl->dport = (uint16_t)(tcp[2] << 8 | tcp[3]);
		}
		fl->isn = be32(tcp + 4);
		return;
	}
	if (!h.payload_len || (h.tos & cfg.tos_mask) != (cfg.tos_value & cfg.tos_mask))
		return;
	if (!fl) {
		unknown_flow++;
		return;
	}
	off = be32(tcp + 4) - fl->isn - 1;
	if ((off | h.payload_len) & 3) {
		if (misaligned++ < 10)
			fprintf(stderr, "nic-switch: misaligned tagged segment: port %u -> %u, "
				"stream offset %u, %u bytes, flags 0x%02x\n", fl->sport, fl->dport,
				off, h.payload_len, tcp[13]);
	}
}
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

/* ---- Super-frames: the NICs' segmentation and receive coalescing ------- */

/*
 * With TSO/GSO and TX checksum offload on the nodes' ports (train-cluster.sh
 * without -F), a node hands its port TCP packets of up to 64 KiB with the
 * checksum left to fill in, as a host hands them to a NIC with TCP
 * segmentation offload. The sending NIC cuts such a super-frame into
 * MSS-sized segments with complete checksums and compresses each one (the
 * NICs see exactly the frames they see without offloads); the receiving
 * NIC decompresses each segment, verifies its checksum, and passes the
 * segments of one super-frame up as one packet again (receive coalescing).
 * So the frames on the wire, their pacing and the NICs' work are per
 * segment, and the kernel's work per super-frame. A frame with only its
 * checksum left to fill in gets it here (the NIC's checksum offload).
 */
static unsigned long gso_in, gso_out, gso_bad, gso_other;

static void st_be16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void st_be32(uint8_t *p, uint32_t v)
{
	st_be16(p, v >> 16);
	st_be16(p + 2, v & 0xffffu);
}

/*
 * The Internet checksum's sum of len bytes added to sum, as the model's
 * inc_csum_add (big-endian 16-bit words, an odd last byte padded with
 * zero) gives it once folded, 8 bytes per step: the two 32-bit halves of
 * each 64-bit word are added (2^16 is 1 in ones' complement arithmetic,
 * so they sum the same 16-bit words), in host byte order, swapped once at
 * the end. -c compares it with the model on every frame it checks.
 */
static uint32_t csum_add_fast(uint32_t sum, const uint8_t *p, size_t len)
{
	uint64_t acc = 0;
	size_t i = 0;
	uint16_t w;

	for (; i + 8 <= len; i += 8) {
		uint64_t x;

		memcpy(&x, p + i, 8);
		acc += (x & 0xffffffffu) + (x >> 32);
	}
	for (; i + 1 < len; i += 2) {
		memcpy(&w, p + i, 2);
		acc += w;
	}
	if (i < len) {
		w = 0;
		memcpy(&w, p + i, 1);   /* the byte first in memory: its high byte */
		acc += w;
	}
	while (acc >> 16)
		acc = (acc & 0xffffu) + (acc >> 16);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	acc = (acc & 0xffu) << 8 | acc >> 8;
#endif
	acc += sum;
	return (uint32_t)((acc & 0xffffffffu) + (acc >> 32));
}

/* The folded checksum of len bytes, and with -c the model's beside it. */
static uint16_t csum_of(uint32_t sum, const uint8_t *p, size_t len)
{
	uint16_t c = inc_csum_fold(csum_add_fast(sum, p, len));

	if (xevery && xframe % xevery == 0 && c != inc_csum_fold(inc_csum_add(sum, p, len))) {
		fprintf(stderr, "nic-switch: frame %lu: checksum 0x%04x, the model's 0x%04x\n", xframe,
			c, inc_csum_fold(inc_csum_add(sum, p, len)));
		exit(3);
	}
	return c;
}

/* Offsets of a TCP/IPv4 frame (Ethernet, an optional VLAN tag). */
struct tcp4 {
	unsigned l3, ihl, l4, thl, hlen;
	size_t pay;           /* TCP payload bytes */
};

static int tcp4_parse(const uint8_t *f, size_t n, struct tcp4 *t)
{
	unsigned et, tot;

	if (n < 14)
		return -1;
	t->l3 = 14;
	et = (unsigned)f[12] << 8 | f[13];
	if (et == 0x8100 && n >= 18) {
		t->l3 = 18;
		et = (unsigned)f[16] << 8 | f[17];
	}
	if (et != 0x0800 || n < t->l3 + 20u || f[t->l3] >> 4 != 4 || f[t->l3 + 9] != 6)
		return -1;
	t->ihl = (f[t->l3] & 15u) * 4u;
	tot = (unsigned)f[t->l3 + 2] << 8 | f[t->l3 + 3];
	t->l4 = t->l3 + t->ihl;
	if (t->ihl < 20 || tot < t->ihl + 20u || t->l3 + tot > n)
		return -1;
	t->thl = (f[t->l4 + 12] >> 4) * 4u;
	if (t->thl < 20 || t->ihl + t->thl > tot)
		return -1;
	t->hlen = t->l4 + t->thl;
	t->pay = t->l3 + tot - t->hlen;
	return 0;
}

/* The sum of the TCP pseudo-header: addresses, protocol, TCP length. */
static uint32_t pseudo_sum(const uint8_t *ip, size_t tcp_len)
{
	return inc_csum_add(0, ip + 12, 8) + 6u + (uint32_t)tcp_len;
}

/* A frame whose checksum at start + off is left to fill in (the NIC's
 * checksum offload): the field holds the pseudo-header sum, the rest is
 * summed over the bytes from start to the end of the IP packet. */
static void csum_fill(uint8_t *f, size_t n, unsigned start, unsigned off)
{
	struct tcp4 t;
	size_t end = n;

	if (tcp4_parse(f, n, &t) == 0)
		end = t.hlen + t.pay;
	if (start + off + 2u > end)
		return;
	st_be16(f + start + off, csum_of(0, f + start, end - start));
}

/* What the sending side hands the receiving side: one frame, or the
 * segments of one super-frame, as they left the sender's link. */
struct ring_slot {
	uint64_t arr;              /* one frame: when it finished crossing the sender's link */
	unsigned long frame_no;    /* (of the first segment) */
	int src, dst;
	long w;                    /* wire bytes in data (of every segment) */
	unsigned nseg;             /* 0: one frame; else the segments of a super-frame */
	unsigned mss;
	struct tcp4 t;             /* the super-frame's offsets */
	uint8_t flags;             /* ... and TCP flags */
	long seg_w[GSO_SEGS];
	uint64_t seg_arr[GSO_SEGS];
	uint8_t data[GWIRE];
};

/* ---- The receiving side of the NICs and the delivery -------------------- */

static int nports;
static unsigned long mal, bad_csum;

/* A frame as it left the wire: every receiver's NIC, then its link's
 * queue (paced) or the node (unpaced). src: the sending port; dst: the
 * learnt port of the destination, -1 to flood; arr: when it finished
 * crossing the sender's link. */
static void tx_side(int src, int dst, const uint8_t *wire, long w, uint64_t arr)
{
	static _Thread_local uint8_t out[INC_FRAME_OUT_MAX];
	struct inc_frame_info ri;
	int j;
	long o;

	for (j = 0; j < nports; j++) {
		struct qframe *slot;

		if (j == src || (dst >= 0 && j != dst))
			continue;
		/* Paced: straight into the output queue. */
		slot = ns_per_byte > 0 ? queue_slot(j) : NULL;
		o = slot ? nic_frame(j, 1, wire, (size_t)w, slot->data, sizeof(slot->data), &ri)
			 : nic_frame(j, 1, wire, (size_t)w, out, sizeof(out), &ri);
		if (o <= 0) {
			bad_csum += ri.reason == INC_R_BAD_PAYLOAD_CSUM;
			continue;
		}
		if (ri.outcome == INC_OUT_MALFORMED)
			mal++;
		if (ns_per_byte > 0 && slot)
			enqueue(j, o, w, arr, ri.outcome == INC_OUT_DECOMPRESSED ? ri.l4_off : 0);
		else if (ns_per_byte > 0)
			dropped++;      /* the queue is full */
		else
			port_send(j, out, (size_t)o, ri.outcome == INC_OUT_DECOMPRESSED ? ri.l4_off : 0,
				  0, 0);
	}
}

/* Queue a super-frame (big) of r's segments in port j's slot. Each
 * segment occupies the receiver's link as soon as it has crossed the
 * sender's and the link is free; the super-frame is delivered when the
 * last one has crossed. */
static void enqueue_group(int j, uint8_t *big, size_t len, const struct ring_slot *r)
{
	struct port_q *pq = &q[j];
	struct qframe *x = &pq->f[(pq->head + pq->count++) % QMAX];
	unsigned k;

	for (k = 0; k < r->nseg; k++) {
		uint64_t start = r->seg_arr[k] > pq->tx_free_ns ? r->seg_arr[k] : pq->tx_free_ns;

		pq->tx_free_ns = start + (uint64_t)((double)r->seg_w[k] * ns_per_byte);
		link_bytes[j][1] += (uint64_t)r->seg_w[k];
	}
	x->due_ns = pq->tx_free_ns + lat_ns;
	x->len = (uint32_t)len;
	x->l4 = (uint16_t)r->t.l4;
	x->gso_size = (uint16_t)r->mss;
	x->hdr_len = (uint16_t)r->t.hlen;
	x->big = big;
}

/*
 * A super-frame's segments as they left the wire: every receiver's NIC
 * decompresses them into one buffer, from the last segment to the first,
 * each at its payload's place (a segment's headers land on the bytes just
 * before the next one's payload, already written), and the coalesced
 * packet goes to the link's queue (paced) or the node. A segment a NIC
 * does not restore to its length (dropped, malformed) drops the
 * super-frame at that port, counted as such (TCP sends it again).
 */
static void tx_side_group(const struct ring_slot *r)
{
	size_t len = r->t.hlen + r->t.pay, woff[GSO_SEGS], o = 0;
	struct inc_frame_info ri;
	unsigned k;
	int j;

	for (k = 0; k < r->nseg; k++) {
		woff[k] = o;
		o += (size_t)r->seg_w[k];
	}
	for (j = 0; j < nports; j++) {
		uint8_t *big, *ip, *th;
		int ok = 1;

		if (j == r->src || (r->dst >= 0 && j != r->dst))
			continue;
		big = ns_per_byte > 0 && !queue_slot(j) ? NULL : malloc(len);
		if (!big) {
			dropped += r->nseg;     /* the queue is full */
			continue;
		}
		for (k = r->nseg; ok && k-- > 0;) {
			size_t off = (size_t)k * r->mss;
			size_t sl = r->t.pay - off < r->mss ? r->t.pay - off : r->mss;
			long n;

			xframe = r->frame_no + k;
			n = nic_frame(j, 1, r->data + woff[k], (size_t)r->seg_w[k], big + off,
				      r->t.hlen + sl, &ri);
			if (n != (long)(r->t.hlen + sl) || (ri.outcome != INC_OUT_DECOMPRESSED &&
							      ri.outcome != INC_OUT_BYPASS)) {
				bad_csum += ri.reason == INC_R_BAD_PAYLOAD_CSUM;
				mal += ri.outcome == INC_OUT_MALFORMED;
				ok = 0;
			}
		}
		if (!ok) {
			gso_bad++;
			free(big);
			continue;
		}
		/* The first segment's headers, with the super-frame's length
		 * and flags and the pseudo-header sum as its TCP checksum. */
		ip = big + r->t.l3;
		th = big + r->t.l4;
		st_be16(ip + 2, (unsigned)(r->t.ihl + r->t.thl + r->t.pay));
		ip[10] = ip[11] = 0;
		st_be16(ip + 10, inc_csum_fold(inc_csum_add(0, ip, r->t.ihl)));
		th[13] = r->flags;
		st_be16(th + 16, (uint16_t)~inc_csum_fold(pseudo_sum(ip, r->t.thl + r->t.pay)));
		if (ns_per_byte > 0) {
			enqueue_group(j, big, len, r);
		} else {
			port_send(j, big, len, r->t.l4, r->mss, r->t.hlen);
			free(big);
			gso_out++;
		}
	}
}

static void tx_slot(const struct ring_slot *r)
{
	if (r->nseg)
		tx_side_group(r);
	else
		tx_side(r->src, r->dst, r->data, r->w, r->arr);
}

/* Send what has crossed both links by t; returns when the next is due
 * (UINT64_MAX: nothing queued). */
static uint64_t deliver_due(uint64_t t)
{
	uint64_t next = UINT64_MAX;
	int j;

	for (j = 0; ns_per_byte > 0 && j < nports; j++) {
		struct port_q *pq = &q[j];

		while (pq->count && pq->f[pq->head].due_ns <= t) {
			struct qframe *x = &pq->f[pq->head];

			if (x->big) {
				port_send(j, x->big, x->len, x->l4, x->gso_size, x->hdr_len);
				free(x->big);
				x->big = NULL;
				gso_out++;
			} else {
				port_send(j, x->data, x->len, x->l4, 0, 0);
			}
			pq->head = (pq->head + 1) % QMAX;
			pq->count--;
		}
		if (pq->count && pq->f[pq->head].due_ns < next)
			next = pq->f[pq->head].due_ns;
	}
	return next;
}

/*
 * Two threads (model NICs): the main thread receives a frame, runs the
 * sender's NIC and the sender's link; a second thread runs the receivers'
 * NICs, the receivers' links and the delivery. They meet in a
 * single-producer single-consumer ring of wire frames; the second thread
 * sleeps on an eventfd when the ring is empty and nothing is due. Each
 * side's state (MAC table and sender links; queues and receiver links) and
 * counters belong to one thread.
 */
#define RING 256u

static struct ring_slot *ring;
static _Atomic unsigned ring_head, ring_tail;   /* consumer, producer */
static _Atomic int tx_sleeping, tx_stop;
static int tx_efd = -1;

static void *tx_thread(void *arg)
{
	(void)arg;
	for (;;) {
		unsigned h = atomic_load_explicit(&ring_head, memory_order_relaxed);
		uint64_t t, next;

		while (h != atomic_load_explicit(&ring_tail, memory_order_acquire)) {
			struct ring_slot *r = &ring[h % RING];

			xframe = r->frame_no;
			tx_slot(r);
			atomic_store_explicit(&ring_head, ++h, memory_order_release);
			deliver_due(now_ns());
		}
		t = now_ns();
		next = deliver_due(t);
		if (atomic_load(&tx_stop))
			break;
		/* Sleep until a frame arrives or one is due. */
		atomic_store(&tx_sleeping, 1);
		if (h == atomic_load(&ring_tail) && !atomic_load(&tx_stop)) {
			struct pollfd pf = { .fd = tx_efd, .events = POLLIN };
			struct timespec to;
			uint64_t d = next == UINT64_MAX ? 200000000u : next > t ? next - t : 0;
			uint64_t junk;

			to.tv_sec = (time_t)(d / 1000000000u);
			to.tv_nsec = (long)(d % 1000000000u);
			if (ppoll(&pf, 1, &to, NULL) > 0)
				(void)!read(tx_efd, &junk, sizeof(junk));
		}
		atomic_store(&tx_sleeping, 0);
	}
	stats_flush();
	return NULL;
}

static int threads = 2;

/* The main thread's hand-over: the ring's next slot, to be filled in
 * place (waits while the ring is full); one slot of its own with one
 * thread. */
static struct ring_slot *slot_get(void)
{
	static struct ring_slot *one;
	unsigned t = atomic_load_explicit(&ring_tail, memory_order_relaxed);

	if (threads == 1) {
		if (!one && !(one = malloc(sizeof(*one)))) {
			fprintf(stderr, "nic-switch: out of memory\n");
			exit(1);
		}
		return one;
	}
	while (t - atomic_load_explicit(&ring_head, memory_order_acquire) >= RING)
		sched_yield();
	return &ring[t % RING];
}

/* The slot from slot_get, filled: to the second thread (or, with one
 * thread, through the receivers' side now). */
static void slot_put(struct ring_slot *r)
{
	unsigned t = atomic_load_explicit(&ring_tail, memory_order_relaxed);
	uint64_t one = 1;

	if (threads == 1) {
		tx_slot(r);
		return;
	}
	atomic_store_explicit(&ring_tail, t + 1, memory_order_release);
	/* Wake the second thread for a batch, not for every frame: when 8
	 * frames wait here, and after each socket's backlog (tx_kick). */
	if (t + 1 - atomic_load_explicit(&ring_head, memory_order_acquire) >= 8 &&
	    atomic_load(&tx_sleeping))
		(void)!write(tx_efd, &one, sizeof(one));
}

/* Wake the second thread if frames wait for it. */
static void tx_kick(void)
{
	uint64_t one = 1;

	if (atomic_load(&tx_sleeping) &&
	    atomic_load(&ring_tail) != atomic_load(&ring_head))
		(void)!write(tx_efd, &one, sizeof(one));
}

/* ---- The sending side: each node's NIC and link -------------------------- */

static unsigned long frames, comp, byp;
static unsigned long long bytes_in, bytes_wire;
static const char *wpath;
static struct inc_pcap wcap;
static uint64_t first_ns, rt_off_ns;
static int wfail;

/* One frame through the NIC of port i (compress) and its link: its wire
 * bytes into out (at most cap), *arr when it finished crossing the link
 * (0: unpaced). Returns the wire bytes, 0 when the NIC dropped it. */
static long sender_nic(int i, const uint8_t *f, size_t n, uint8_t *out, size_t cap,
		       uint64_t *arr)
{
	struct inc_frame_info ti;
	long w;

	frames++;
	xframe = frames;
	if (!first_ns)
		first_ns = now_ns();
	bytes_in += (unsigned long long)n;
	align_check(f, n);
#ifdef INC_NIC_RTL
	frame_no = frames;
	trace_window();
#endif
	*arr = 0;
	w = nic_frame(i, 0, f, n, out, cap, &ti);
	if (w <= 0)
		return 0;   /* dropped (oversize) */
	bytes_wire += (unsigned long long)w;
	if (ti.outcome == INC_OUT_COMPRESSED)
		comp++;
	else
		byp++;
	if (ns_per_byte > 0) {
		/* The frame occupies the sender's link first. */
		uint64_t t0 = now_ns();

		if (q[i].rx_free_ns > t0)
			t0 = q[i].rx_free_ns;
		*arr = t0 + (uint64_t)((double)w * ns_per_byte);
		q[i].rx_free_ns = *arr;
		link_bytes[i][0] += (uint64_t)w;
	}
	if (wpath) {
		uint64_t ts = (*arr ? *arr : now_ns()) + rt_off_ns;

		if (inc_pcap_write(&wcap, out, (size_t)w, (uint32_t)(ts / 1000000000u),
				   (uint32_t)(ts % 1000000000u / 1000u))) {
			fprintf(stderr, "nic-switch: -w %s: write failed\n", wpath);
			wpath = NULL;
			wfail = 1;
		}
	}
	return w;
}

/* A frame from port i: the sender's NIC and link, then the receivers'. */
static void sender_frame(int i, const uint8_t *f, size_t n)
{
	struct ring_slot *r;

	mac_learn(f + 6, i);
	r = slot_get();
	r->w = sender_nic(i, f, n, r->data, sizeof(r->data), &r->arr);
	if (r->w <= 0)
		return;
	r->frame_no = frames;
	r->src = i;
	r->dst = mac_port(r->data);
	r->nseg = 0;
	slot_put(r);
}

/* Segment k of the super-frame whose headers are hdr, built in place at
 * sf (its payload is there already): lengths, IP id, sequence number,
 * flags (FIN and PSH on the last segment only, CWR on the first) and both
 * checksums. */
static void segment_build(uint8_t *sf, const uint8_t *hdr, const struct tcp4 *t, unsigned mss,
			  unsigned k, unsigned nseg, size_t sl)
{
	uint8_t *ip = sf + t->l3, *th = sf + t->l4;

	memcpy(sf, hdr, t->hlen);
	st_be16(ip + 2, (unsigned)(t->ihl + t->thl + sl));
	st_be16(ip + 4, ((unsigned)hdr[t->l3 + 4] << 8 | hdr[t->l3 + 5]) + k);
	ip[10] = ip[11] = 0;
	st_be16(ip + 10, inc_csum_fold(inc_csum_add(0, ip, t->ihl)));
	st_be32(th + 4, be32(hdr + t->l4 + 4) + k * mss);
	if (k + 1 < nseg)
		th[13] &= (uint8_t)~0x09u;
	if (k > 0)
		th[13] &= (uint8_t)~0x80u;
	th[16] = th[17] = 0;
	st_be16(th + 16, csum_of(pseudo_sum(ip, t->thl + sl), th, t->thl + sl));
}

/*
 * A super-frame from port i, TCP segments of mss payload bytes: cut in
 * place (segment k's headers are written over the bytes just before its
 * payload, which belong to segment k - 1, already sent), each segment
 * through the sender's NIC and link, then all of them to the receivers'
 * side as one group. Segments the group cannot hold, or frames over the
 * NICs' limit, go as single frames.
 */
static void sender_gso(int i, uint8_t *f, size_t n, unsigned mss)
{
	uint8_t hdr[18 + 60 + 60];
	struct ring_slot *r;
	struct tcp4 t;
	unsigned nseg, k;
	size_t o = 0;

	if (tcp4_parse(f, n, &t) || !mss || !t.pay) {
		gso_other++;    /* not TCP/IPv4: dropped */
		return;
	}
	gso_in++;
	nseg = (unsigned)((t.pay + mss - 1) / mss);
	memcpy(hdr, f, t.hlen);
	if (nseg > GSO_SEGS || t.hlen + mss > FMAX ||
	    (cfg.max_frame && t.hlen + mss > cfg.max_frame)) {
		for (k = 0; k < nseg; k++) {
			size_t off = (size_t)k * mss, sl = t.pay - off < mss ? t.pay - off : mss;

			xframe = frames + 1;
			segment_build(f + off, hdr, &t, mss, k, nseg, sl);
			sender_frame(i, f + off, t.hlen + sl);
		}
		return;
	}
	mac_learn(f + 6, i);
	r = slot_get();
	r->frame_no = frames + 1;
	r->src = i;
	r->dst = mac_port(f);
	r->nseg = nseg;
	r->mss = mss;
	r->t = t;
	r->flags = f[t.l4 + 13];
	for (k = 0; k < nseg; k++) {
		size_t off = (size_t)k * mss, sl = t.pay - off < mss ? t.pay - off : mss;
		long w;

		xframe = frames + 1;
		segment_build(f + off, hdr, &t, mss, k, nseg, sl);
		w = sender_nic(i, f + off, t.hlen + sl, r->data + o, sizeof(r->data) - o,
			       &r->seg_arr[k]);
		if (w <= 0) {
			gso_bad++;      /* cannot happen: the segments are within the limit */
			return;
		}
		r->seg_w[k] = w;
		o += (size_t)w;
	}
	r->w = (long)o;
	slot_put(r);
}

#define USAGE "usage: nic-switch [-e EB] [-r MBIT [-l USEC]] [-c N] [-w FILE] [-s] [-b model|rtl [-x|-X EB] [-t A-B] [-T REASON] [-d DIR]] PORT...\n"

#ifdef INC_NIC_RTL
int rtl_nic_main(int argc, char **argv)
#else
int main(int argc, char **argv)
#endif
{
	static uint8_t in[GMAX + 64];
	struct pollfd p[MAXPORTS];
	int ifidx[MAXPORTS], np = 0, opt, i, j, rc = 0;
	pthread_t txt;
	const char *backend = "model";
	struct timespec rt;
#ifdef INC_NIC_RTL
	int xeb = 0;
#endif

	inc_frame_config_default(&cfg);
	while ((opt = getopt(argc, argv, "e:r:l:b:c:w:sxX:t:T:d:")) != -1) {
		if (opt == 's') {
			threads = 1;
		} else if (opt == 'e') {
			cfg.eb = (uint8_t)atoi(optarg);
		} else if (opt == 'c') {
			xevery = strtoul(optarg, NULL, 0);
		} else if (opt == 'w') {
			wpath = optarg;
		} else if (opt == 'r') {
			double mbit = atof(optarg);

			ns_per_byte = mbit > 0 ? 8e3 / mbit : 0;
		} else if (opt == 'l') {
			lat_ns = (uint64_t)(atof(optarg) * 1e3);
		} else if (opt == 'b') {
			backend = optarg;
			if (strcmp(backend, "model") && strcmp(backend, "rtl")) {
				fprintf(stderr, "nic-switch: unknown backend '%s' (model, rtl)\n", backend);
				return 2;
			}
#ifdef INC_NIC_RTL
		} else if (opt == 'x') {
			xcheck = 1;
		} else if (opt == 'X') {
			xcheck = 1;
			xeb = atoi(optarg);
		} else if (opt == 't') {
			if (sscanf(optarg, "%lu-%lu", &trace_from, &trace_to) != 2 ||
			    !trace_from || trace_to < trace_from) {
				fprintf(stderr, "nic-switch: -t wants FROM-TO frame numbers, e.g. 100-120\n");
				return 2;
			}
		} else if (opt == 'T') {
			for (i = 0; i < INC_R_COUNT && strcmp(inc_reason_name((enum inc_reason)i), optarg); i++)
				;
			if (i == INC_R_COUNT) {
				fprintf(stderr, "nic-switch: -T: unknown reason '%s'\n", optarg);
				return 2;
			}
			trace_reason = i;
		} else if (opt == 'd') {
			outdir = optarg;
#endif
		} else {
			fprintf(stderr, USAGE);
			return 2;
		}
	}
	if (!strcmp(backend, "rtl")) {
#ifdef INC_NIC_RTL
		use_rtl = 1;
		xcfg = cfg;
		if (xeb)
			xcfg.eb = (uint8_t)xeb;
#else
		fprintf(stderr, "nic-switch: this build has only the model backend; "
			"the RTL one is build/userlib-test/nic-switch-rtl (make nic-switch-rtl)\n");
		return 2;
#endif
	}
	for (i = optind; i < argc && np < MAXPORTS; i++, np++) {
		struct sockaddr_ll sll;
		int one = 1, rcvbuf = RCVBUF;

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
		/* A receive buffer for bursts of super-frames while the
		 * switch is busy: with the default (rmem_default, about 200
		 * KiB, three 64 KiB super-frames) the kernel drops frames
		 * and the nodes' TCP waits out a 200 ms retransmission
		 * timeout. Root may exceed rmem_max; kernel_dropped counts
		 * what is lost all the same. */
		(void)setsockopt(p[np].fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf));
		/* Received frames come with their virtio-net header: a
		 * super-frame's segment size, a checksum left to fill in. */
		if (setsockopt(p[np].fd, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof(one)) < 0) {
			fprintf(stderr, "nic-switch: %s: PACKET_VNET_HDR: %s\n", argv[i], strerror(errno));
			return 1;
		}
		/* The sending socket: protocol 0 (it receives nothing), with
		 * the virtio-net header. */
		txfd[np] = socket(AF_PACKET, SOCK_RAW, 0);
		sll.sll_protocol = 0;
		if (txfd[np] < 0 || bind(txfd[np], (struct sockaddr *)&sll, sizeof(sll)) < 0 ||
		    setsockopt(txfd[np], SOL_PACKET, PACKET_VNET_HDR, &one, sizeof(one)) < 0) {
			fprintf(stderr, "nic-switch: %s: sending socket: %s\n", argv[i], strerror(errno));
			return 1;
		}
		tx_csum[np] = dev_tx_csum(txfd[np], argv[i]);
		p[np].events = POLLIN;
		if (ns_per_byte > 0) {
			q[np].f = calloc(QMAX, sizeof(struct qframe));
			if (!q[np].f)
				return 1;
		}
	}
	if (np < 2 || (lat_ns && ns_per_byte <= 0)) {
		fprintf(stderr, lat_ns ? "nic-switch: -l needs -r (frames are queued only when paced)\n"
				       : USAGE);
		return 2;
	}
#ifdef INC_NIC_RTL
	for (j = 0; use_rtl && j < np; j++) {
		nics[j] = rtl_nic_open(&cfg, trace_from || trace_reason >= 0);
		if (!nics[j]) {
			fprintf(stderr, "nic-switch: the RTL NIC of port %d did not come up\n", j);
			return 1;
		}
	}
#endif
	if (wpath) {
		int e = inc_pcap_create(&wcap, wpath, 65535);

		if (e) {
			fprintf(stderr, "nic-switch: -w %s: %s\n", wpath, inc_pcap_strerror(e));
			return 1;
		}
	}
	/* pcap time stamps: the monotonic clock moved to the wall clock. */
	clock_gettime(CLOCK_REALTIME, &rt);
	rt_off_ns = (uint64_t)rt.tv_sec * 1000000000u + (uint64_t)rt.tv_nsec - now_ns();
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	printf("nic-switch: %d ports, eb %u, %s, latency %.0f us, %s NICs%s\n", np, cfg.eb,
	       ns_per_byte > 0 ? "paced by wire bytes" : "unpaced", (double)lat_ns * 1e-3, backend,
#ifdef INC_NIC_RTL
	       xcheck ? " (cross-checked with the model)" : ""
#else
	       !strcmp(backend, "model") ? (inc_frame_kernels_fast() != &inc_frame_kernels_model ?
					    " (model frame logic, AVX2 kernels)" :
					    " (model frame logic, model kernels)") : ""
#endif
	       );
	for (i = 0, j = 0; i < np; i++)
		j += tx_csum[i];
	printf("nic-switch: NIC-verified segments delivered as checksum-checked on %d of %d ports\n",
	       j, np);
	if (xevery)
		printf("nic-switch: every %lu%s frame also through the model, compared\n", xevery,
		       xevery == 1 ? "st" : xevery == 2 ? "nd" : xevery == 3 ? "rd" : "th");
	fflush(stdout);
#ifdef INC_NIC_RTL
	if (use_rtl)
		threads = 1;    /* the RTL NICs run in this thread */
#endif
	nports = np;
	if (threads == 2) {
		ring = calloc(RING, sizeof(*ring));
		tx_efd = eventfd(0, EFD_NONBLOCK);
		if (!ring || tx_efd < 0 || pthread_create(&txt, NULL, tx_thread, NULL)) {
			fprintf(stderr, "nic-switch: cannot start the second thread\n");
			return 1;
		}
	}
	while (!stop) {
		uint64_t t = now_ns(), next = UINT64_MAX;
		struct timespec to;

		/* Deliver what has crossed both links (one thread). */
		if (threads == 1)
			next = deliver_due(t);
		if (next == UINT64_MAX)
			next = t + 200000000u;
		to.tv_sec = (time_t)((next - t) / 1000000000u);
		to.tv_nsec = (long)((next - t) % 1000000000u);
		if (ppoll(p, (nfds_t)np, &to, NULL) <= 0)
			continue;
		for (i = 0; i < np; i++) {
			for (;;) {
				struct sockaddr_ll from;
				struct virtio_net_hdr vh;
				struct iovec iov[2] = { { &vh, sizeof(vh) }, { in, sizeof(in) } };
				struct msghdr mh;
				ssize_t n;

				memset(&mh, 0, sizeof(mh));
				mh.msg_name = &from;
				mh.msg_namelen = sizeof(from);
				mh.msg_iov = iov;
				mh.msg_iovlen = 2;
				n = recvmsg(p[i].fd, &mh, MSG_DONTWAIT);
				if (n <= 0)
					break;
				n -= (ssize_t)sizeof(vh);
				if (from.sll_pkttype == PACKET_OUTGOING || n < 14 || (mh.msg_flags & MSG_TRUNC))
					continue;
				if (vh.gso_type != VIRTIO_NET_HDR_GSO_NONE) {
					if ((vh.gso_type & ~VIRTIO_NET_HDR_GSO_ECN) == VIRTIO_NET_HDR_GSO_TCPV4)
						sender_gso(i, in, (size_t)n, vh.gso_size);
					else
						gso_other++;
					continue;
				}
				if (vh.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM)
					csum_fill(in, (size_t)n, vh.csum_start, vh.csum_offset);
				sender_frame(i, in, (size_t)n);
			}
			if (threads == 2)
				tx_kick();
		}
	}
	if (threads == 2) {
		atomic_store(&tx_stop, 1);
		{
			uint64_t one = 1;

			(void)!write(tx_efd, &one, sizeof(one));
		}
		pthread_join(txt, NULL);
	}
	stats_flush();
	{
		struct rusage ru;
		uint64_t lmax = 0;
		unsigned long kdrop = 0;
		double cpu_ms;

		/* Frames the kernel dropped before the switch read them (a
		 * receiving socket's buffer full): lost like a tail drop. */
		for (j = 0; j < np; j++) {
			struct tpacket_stats st;
			socklen_t sl = sizeof(st);

			if (getsockopt(p[j].fd, SOL_PACKET, PACKET_STATISTICS, &st, &sl) == 0)
				kdrop += st.tp_drops;
		}
		getrusage(RUSAGE_SELF, &ru);
		cpu_ms = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
			 (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-3;
		for (j = 0; j < np; j++)
			for (i = 0; i < 2; i++)
				if (link_bytes[j][i] > lmax)
					lmax = link_bytes[j][i];
		printf("frames %lu compressed %lu bypassed %lu malformed %lu bytes_in %llu bytes_wire %llu "
		       "dropped %lu bad_payload_csum %lu misaligned %lu cpu_ms %.0f codec_ms %.0f "
		       "xcheck_ms %.0f link_ms %.0f elapsed_ms %.0f segmented %lu coalesced %lu "
		       "gso_dropped %lu gso_other %lu kernel_dropped %lu\n",
		       frames, comp, byp, mal, bytes_in, bytes_wire, dropped, bad_csum, misaligned, cpu_ms,
		       (double)codec_ns_all * 1e-6, (double)xcheck_ns_all * 1e-6,
		       (double)lmax * ns_per_byte * 1e-6,
		       first_ns ? (double)(now_ns() - first_ns) * 1e-6 : 0.0, gso_in, gso_out, gso_bad,
		       gso_other, kdrop);
	}
	if (wfail)
		rc = 1;
	if (xevery)
		printf("nic-switch: %lu frames cross-checked with the model, all equal\n",
		       (unsigned long)xchecked_all);
	if (wpath && inc_pcap_close(&wcap)) {
		fprintf(stderr, "nic-switch: -w %s: write failed\n", wpath);
		rc = 1;
	}
	if (unknown_flow)
		fprintf(stderr, "nic-switch: %lu tagged segments of connections whose SYN it did not see "
			"(alignment not checked)\n", unknown_flow);
#ifdef INC_NIC_RTL
	if (use_rtl) {
		rc = rtl_report(frames, bytes_in) ? 4 : 0;
		for (j = 0; j < np; j++)
			rtl_nic_close(nics[j]);
	}
#endif
	fflush(stdout);
	return rc;
}
