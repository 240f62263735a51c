// SPDX-License-Identifier: MIT
/*
 * inc_vm_tcp.c - TCP transfer checker for the driver test in QEMU.
 *
 *   inc-vm-tcp recv PORT TOS MODE NBYTES SEED EB[,EB2]
 *   inc-vm-tcp send ADDR PORT TOS MODE NBYTES SEED
 *
 * Both sides generate the same data from SEED: MODE "bytes" is random bytes
 * (any length) and must arrive bit-exact; MODE "floats" is gradient-like
 * float32 data (inc_fg_payload) and every value must arrive as its codec
 * round trip at error bound 2^-EB, inc_decompress_value(inc_compress_value(x)),
 * (or at 2^-EB2 when given: a sender whose error bound changed during the
 * transfer), or unchanged when its segment was sent uncompressed (a frame the codec
 * would not shrink; the driver counts those as tx_bypass_not_smaller).
 * The receiver prints one line with the counts and exits 0 only if every
 * byte/value is as expected. IP_TOS is set before connect() and on the
 * listener, so every segment of the connection carries it.
 *
 * With INC_VM_TS=1 in the environment the sender also asks for software TX
 * timestamps (SO_TIMESTAMPING) and, once the receiver has everything,
 * reports how many came back on the error queue and the socket's write
 * memory (SO_MEMINFO) after the device freed the last skb:
 *   send: N bytes, tx timestamps T, wmem_alloc W
 * Both depend on the skbs keeping their socket owner down to the NIC
 * driver: a compressed copy without it gives no timestamps and releases
 * the memory before the frame left.
 */
#include "inc_framegen.h"
#include "inc_model.h"
#include "inc_vm.h"

#include <arpa/inet.h>
#include <linux/net_tstamp.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <sys/socket.h>
#include <unistd.h>

#define PROG "inc-vm-tcp"
#define CHUNK 65536u

/* x through the codec at error bound 2^-eb. */
static uint32_t round_trip(uint32_t x, unsigned eb)
{
	uint32_t p;
	unsigned tag = inc_compress_value(x, eb, &p);

	return inc_decompress_value(tag, p);
}

/* Chunk k of the data (CHUNK bytes, the last one may be shorter). */
static void gen_chunk(uint8_t *buf, size_t len, int floats, uint64_t seed,
		      uint64_t k)
{
	uint64_t rng = (seed ^ (k * 0x9e3779b97f4a7c15ull)) | 1u;
	size_t i;

	if (floats) {
		inc_fg_payload(buf, len, INC_FG_GRADIENT, &rng);
		return;
	}
	for (i = 0; i < len; i++)
		buf[i] = (uint8_t)(inc_fg_rand(&rng) >> 56);
}

static void set_tos(int fd, int tos)
{
	if (setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos)) < 0)
		inc_vm_die(PROG, "IP_TOS: %s", strerror(errno));
}

/* Timestamps waiting on the error queue, drained. */
static unsigned long drain_tstamps(int fd)
{
	char data[256], ctl[512];
	unsigned long n = 0;
	struct cmsghdr *cm;

	for (;;) {
		struct iovec iov = { data, sizeof(data) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
				     .msg_control = ctl, .msg_controllen = sizeof(ctl) };

		if (recvmsg(fd, &mh, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
			return n;
		for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
			if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_TIMESTAMPING)
				n++;
	}
}

static int do_send(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	static uint8_t buf[CHUNK];
	unsigned long port, tos, nbytes, seed, k, sent = 0;
	int floats, fd, tries, ts = getenv("INC_VM_TS") && !strcmp(getenv("INC_VM_TS"), "1");
	unsigned long nts = 0;
	ssize_t w;
	char c;

	if (argc != 8)
		inc_vm_die(PROG, "usage: send ADDR PORT TOS MODE NBYTES SEED");
	if (inet_pton(AF_INET, argv[2], &sa.sin_addr) != 1)
		inc_vm_die(PROG, "bad address '%s'", argv[2]);
	port = inc_vm_num(PROG, argv[3]);
	tos = inc_vm_num(PROG, argv[4]);
	floats = strcmp(argv[5], "floats") == 0;
	nbytes = inc_vm_num(PROG, argv[6]);
	seed = inc_vm_num(PROG, argv[7]);
	sa.sin_port = htons((uint16_t)port);

	for (tries = 0;; tries++) {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0)
			inc_vm_die(PROG, "socket: %s", strerror(errno));
		set_tos(fd, (int)tos);
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
			break;
		if (errno != ECONNREFUSED || tries > 100)
			inc_vm_die(PROG, "connect: %s", strerror(errno));
		close(fd);
		usleep(100000);
	}
	if (ts) {
		int v = SOF_TIMESTAMPING_TX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE |
			SOF_TIMESTAMPING_OPT_ID | SOF_TIMESTAMPING_OPT_TSONLY;

		if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &v, sizeof(v)) < 0)
			inc_vm_die(PROG, "SO_TIMESTAMPING: %s", strerror(errno));
	}
	for (k = 0; sent < nbytes; k++) {
		size_t len = nbytes - sent < CHUNK ? nbytes - sent : CHUNK;
		size_t off = 0;

		if (ts)
			nts += drain_tstamps(fd);

		gen_chunk(buf, len, floats, seed, k);
		while (off < len) {
			w = write(fd, buf + off, len - off);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				inc_vm_die(PROG, "write: %s", strerror(errno));
			off += (size_t)w;
		}
		sent += len;
	}
	shutdown(fd, SHUT_WR);
	while (read(fd, &c, 1) > 0)     /* the receiver closes when done */
		;
	if (ts) {
		uint32_t mem[SK_MEMINFO_VARS];
		socklen_t ml = sizeof(mem);
		int i;

		/* everything is acknowledged; the NIC frees its last skbs */
		for (i = 0; i < 50; i++) {
			nts += drain_tstamps(fd);
			ml = sizeof(mem);
			if (getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mem, &ml) < 0)
				inc_vm_die(PROG, "SO_MEMINFO: %s", strerror(errno));
			if (mem[SK_MEMINFO_WMEM_ALLOC] == 0)
				break;
			usleep(20000);
		}
		nts += drain_tstamps(fd);
		printf("send: %lu bytes, tx timestamps %lu, wmem_alloc %u\n", sent, nts,
		       mem[SK_MEMINFO_WMEM_ALLOC]);
	} else {
		printf("send: %lu bytes\n", sent);
	}
	close(fd);
	return 0;
}

static int do_recv(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	static uint8_t exp[CHUNK], got[CHUNK];
	unsigned long port, tos, nbytes, seed, eb, eb2, total = 0, k;
	char *comma;
	unsigned long exact = 0, rt = 0, raw = 0, bad = 0, lossy = 0;
	long first_bad = -1;
	int floats, lfd, fd, one = 1;
	double t0, secs;

	if (argc != 8)
		inc_vm_die(PROG, "usage: recv PORT TOS MODE NBYTES SEED EB[,EB2]");
	port = inc_vm_num(PROG, argv[2]);
	tos = inc_vm_num(PROG, argv[3]);
	floats = strcmp(argv[4], "floats") == 0;
	nbytes = inc_vm_num(PROG, argv[5]);
	seed = inc_vm_num(PROG, argv[6]);
	comma = strchr(argv[7], ',');
	if (comma)
		*comma = 0;
	eb = inc_vm_num(PROG, argv[7]);
	eb2 = comma ? inc_vm_num(PROG, comma + 1) : eb;
	if (floats && nbytes % 4)
		inc_vm_die(PROG, "floats: NBYTES must be a multiple of 4");
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_ANY);

	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0)
		inc_vm_die(PROG, "socket: %s", strerror(errno));
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	set_tos(lfd, (int)tos);
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(lfd, 1) < 0)
		inc_vm_die(PROG, "bind/listen: %s", strerror(errno));
	fd = accept(lfd, NULL, NULL);
	if (fd < 0)
		inc_vm_die(PROG, "accept: %s", strerror(errno));
	t0 = inc_vm_now();

	for (k = 0;; k++) {
		size_t want = CHUNK, have = 0, i;
		ssize_t r = 0;

		while (have < want) {
			r = read(fd, got + have, want - have);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			have += (size_t)r;
		}
		if (r < 0)
			inc_vm_die(PROG, "read: %s", strerror(errno));
		if (have == 0)
			break;
		/* Compare what the sender's chunk k holds at these offsets. */
		if (total + have > nbytes) {
			bad += total + have - nbytes;
			have = nbytes > total ? nbytes - total : 0;
		}
		gen_chunk(exp, have, floats, seed, k);
		if (!floats) {
			for (i = 0; i < have; i++) {
				if (got[i] == exp[i]) {
					exact++;
				} else {
					if (first_bad < 0)
						first_bad = (long)(total + i);
					bad++;
				}
			}
		} else {
			for (i = 0; i + 4 <= have; i += 4) {
				uint32_t x, y, p, r32;
				unsigned tag;

				memcpy(&x, exp + i, 4);
				memcpy(&y, got + i, 4);
				tag = inc_compress_value(x, (unsigned)eb, &p);
				r32 = inc_decompress_value(tag, p);
				if (r32 != x)
					lossy++;
				if (y == r32) {
					rt++;
				} else if (eb2 != eb && round_trip(x, (unsigned)eb2) == y) {
					rt++;
				} else if (y == x) {
					raw++;
				} else {
					if (first_bad < 0)
						first_bad = (long)(total + i);
					bad++;
				}
			}
			if (have % 4) {
				if (first_bad < 0)
					first_bad = (long)(total + i);
				bad++;
			}
		}
		total += have;
		if (have < want)
			break;
	}
	secs = inc_vm_now() - t0;
	close(fd);
	close(lfd);
	if (total != nbytes)
		bad++;
	if (floats)
		printf("recv floats: %lu bytes in %.2f s (%.1f MB/s), values: %lu round-trip "
		       "(%lu of them lossy), %lu unchanged, %lu bad, first bad at %ld\n",
		       total, secs, secs > 0 ? total / secs / 1e6 : 0.0, rt, lossy,
		       raw, bad, first_bad);
	else
		printf("recv bytes: %lu bytes in %.2f s (%.1f MB/s), %lu exact, %lu bad, "
		       "first bad at %ld\n",
		       total, secs, secs > 0 ? total / secs / 1e6 : 0.0, exact, bad,
		       first_bad);
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	alarm(90);
	if (argc >= 2 && strcmp(argv[1], "send") == 0)
		return do_send(argc, argv);
	if (argc >= 2 && strcmp(argv[1], "recv") == 0)
		return do_recv(argc, argv);
	inc_vm_die(PROG, "usage: inc-vm-tcp send|recv ...");
	return 2;
}
