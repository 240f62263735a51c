// SPDX-License-Identifier: MIT
/*
 * inc-tcpgen - traffic for real captures: float32 gradient-like data over
 * TCP on sockets tagged with IP_TOS (set before connect() and on the
 * listening socket, checked with getsockopt), UDP datagrams, and the raw
 * data itself. Used by experiments/capture.sh and experiments/demo-capture.sh.
 *
 *   inc-tcpgen gen    --bytes N [--seed S]                    > data.f32
 *   inc-tcpgen server --port P [--bind A] [--tos V] [--reply N] [--conns N] [--ready FILE]
 *   inc-tcpgen client --addr A --port P [--tos V] --bytes N [--write N] [--seed S]
 *   inc-tcpgen udp    --addr A --port P [--tos V] --count N --size N [--seed S]
 *
 * Every TCP write is a multiple of 4 bytes, so with an MSS that is a
 * multiple of 4 every segment starts on a float boundary, as the user
 * library guarantees.
 */
#include "inc_tool.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static const char usage[] =
"usage: inc-tcpgen gen    --bytes N [--seed S]                   > data.f32\n"
"       inc-tcpgen server --port P [--bind ADDR] [--tos V] [--reply N] [--conns N] [--ready FILE]\n"
"       inc-tcpgen client --addr A --port P [--tos V] --bytes N [--write N] [--seed S]\n"
"       inc-tcpgen udp    --addr A --port P [--tos V] --count N --size N [--seed S]\n"
"\n"
"gen     write N bytes (multiple of 4) of gradient-like float32 data to stdout.\n"
"server  accept --conns connections (default 1) one after the other, read each\n"
"        to EOF, then send --reply bytes of gradient-like data back and close.\n"
"        IP_TOS is set on the listening socket before bind() and checked on\n"
"        it and on every accepted socket. --ready FILE is created once the\n"
"        socket listens.\n"
"client  connect (IP_TOS set and checked before connect()), send --bytes of\n"
"        gradient-like data in writes of --write bytes (default 65536; both\n"
"        multiples of 4), shut down the write side and read the reply.\n"
"udp     send --count datagrams of --size bytes of gradient-like data.\n"
"\n"
"--tos V  IP ToS byte, 0..255 (default 0: untagged; the NIC matches 0x28).\n"
"Gradient-like data: a scale mixture of normal distributions (75% with\n"
"sigma 3e-4, 20% 1e-2, 4.8% 8e-2, 0.2% 0.5), peaked at zero and almost all\n"
"within (-1, 1), as the AlexNet gradients of the paper's Fig. 5.\n";

/* ---- gradient-like data -------------------------------------------------- */

static uint64_t rng_next(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dULL;
}

/* Uniform in (0, 1). */
static double rng_unit(uint64_t *s)
{
	return ((double)(rng_next(s) >> 11) + 0.5) / 9007199254740992.0;
}

static float gradient_value(uint64_t *s)
{
	static const struct { double p, sigma; } mix[] = {
		{ 0.750, 3e-4 }, { 0.950, 1e-2 }, { 0.998, 8e-2 }, { 1.0, 0.5 },
	};
	double u = rng_unit(s), z;
	unsigned k = 0;

	while (u > mix[k].p)
		k++;
	/* Box-Muller: one normal deviate. */
	z = sqrt(-2.0 * log(rng_unit(s))) * cos(2.0 * M_PI * rng_unit(s));
	return (float)(z * mix[k].sigma);
}

static void gradient_fill(uint8_t *p, size_t len, uint64_t *s)
{
	size_t i;
	uint32_t u;
	float f;

	for (i = 0; i + 4 <= len; i += 4) {
		f = gradient_value(s);
		memcpy(&u, &f, 4);
		p[i] = (uint8_t)u;
		p[i + 1] = (uint8_t)(u >> 8);
		p[i + 2] = (uint8_t)(u >> 16);
		p[i + 3] = (uint8_t)(u >> 24);
	}
}

/* ---- sockets ------------------------------------------------------------- */

/*
 * The socket's IP_TOS must read back as tos. The two ECN bits belong to the
 * stack (TCP keeps them itself and sets ECT once ECN is negotiated), so
 * only the DSCP part is compared.
 */
static void check_tos(int fd, unsigned tos, const char *what)
{
	int got = -1;
	socklen_t len = sizeof(got);

	if (getsockopt(fd, IPPROTO_IP, IP_TOS, &got, &len))
		inc_die("%s: getsockopt(IP_TOS): %s", what, strerror(errno));
	if (((unsigned)got & 0xfcu) != (tos & 0xfcu))
		inc_die("%s: IP_TOS is 0x%02x, want 0x%02x", what,
			(unsigned)got, tos);
}

/* Set IP_TOS and read it back: the kernel may refuse or alter it. */
static void set_tos(int fd, unsigned tos, const char *what)
{
	int v = (int)tos;

	if (setsockopt(fd, IPPROTO_IP, IP_TOS, &v, sizeof(v)))
		inc_die("%s: setsockopt(IP_TOS, 0x%02x): %s", what, tos,
			strerror(errno));
	check_tos(fd, tos, what);
}

static void send_all(int fd, const uint8_t *p, size_t len)
{
	ssize_t n;

	while (len) {
		n = send(fd, p, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			inc_die("send: %s", n < 0 ? strerror(errno) : "no progress");
		p += n;
		len -= (size_t)n;
	}
}

static uint64_t drain(int fd)
{
	uint8_t b[65536];
	uint64_t total = 0;
	ssize_t n;

	for (;;) {
		n = recv(fd, b, sizeof(b), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			inc_die("recv: %s", strerror(errno));
		if (n == 0)
			return total;
		total += (uint64_t)n;
	}
}

static void parse_addr(const char *a, unsigned port, struct sockaddr_in *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons((uint16_t)port);
	if (inet_pton(AF_INET, a, &sa->sin_addr) != 1)
		inc_usage_error("bad IPv4 address '%s'", a);
}

struct opts {
	const char *addr, *bind, *ready;
	unsigned long long bytes, write, reply, conns, count, size, seed;
	unsigned port, tos;
	int have_bytes;
};

static uint8_t *data_alloc(size_t len, uint64_t seed)
{
	uint8_t *p = malloc(len ? len : 1);
	uint64_t s = seed ? seed : 1;

	if (!p)
		inc_die("out of memory for %zu bytes", len);
	gradient_fill(p, len, &s);
	return p;
}

static int run_gen(const struct opts *o)
{
	uint8_t *p;

	if (!o->have_bytes)
		inc_usage_error("gen needs --bytes N");
	p = data_alloc(o->bytes, o->seed);
	if (inc_write_all(stdout, p, o->bytes) || fflush(stdout))
		inc_die("cannot write stdout: %s", strerror(errno));
	free(p);
	return 0;
}

static int run_server(const struct opts *o)
{
	struct sockaddr_in sa;
	unsigned long long c;
	uint8_t *reply = NULL;
	int fd, cfd, one = 1;
	uint64_t got;
	FILE *rf;

	parse_addr(o->bind ? o->bind : "0.0.0.0", o->port, &sa);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		inc_die("socket: %s", strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	set_tos(fd, o->tos, "listening socket");
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		inc_die("bind port %u: %s", o->port, strerror(errno));
	if (listen(fd, 8))
		inc_die("listen: %s", strerror(errno));
	check_tos(fd, o->tos, "listening socket");
	if (o->ready) {
		rf = fopen(o->ready, "w");
		if (!rf || fclose(rf))
			inc_die("cannot create %s: %s", o->ready, strerror(errno));
	}
	if (o->reply)
		reply = data_alloc(o->reply, o->seed ^ 0x9e3779b97f4a7c15ULL);
	for (c = 0; c < o->conns; c++) {
		cfd = accept(fd, NULL, NULL);
		if (cfd < 0)
			inc_die("accept: %s", strerror(errno));
		check_tos(cfd, o->tos, "accepted socket");
		got = drain(cfd);
		if (reply)
			send_all(cfd, reply, o->reply);
		close(cfd);
		printf("server port %u: connection %llu received %llu bytes, sent %llu, ToS 0x%02x\n",
		       o->port, c + 1, (unsigned long long)got, o->reply, o->tos);
		fflush(stdout);
	}
	close(fd);
	free(reply);
	return 0;
}

static int run_client(const struct opts *o)
{
	struct sockaddr_in sa;
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	uint8_t *data;
	size_t off, n;
	uint64_t got;
	int fd = -1, tries;

	if (!o->addr || !o->have_bytes)
		inc_usage_error("client needs --addr and --bytes");
	parse_addr(o->addr, o->port, &sa);
	data = data_alloc(o->bytes, o->seed);
	/* The server may not listen yet: retry for up to 5 s. */
	for (tries = 0;; tries++) {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0)
			inc_die("socket: %s", strerror(errno));
		set_tos(fd, o->tos, "client socket"); /* before connect() */
		if (!connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
			break;
		if (errno != ECONNREFUSED || tries >= 100)
			inc_die("connect %s:%u: %s", o->addr, o->port,
				strerror(errno));
		close(fd);
		nanosleep(&ts, NULL);
	}
	check_tos(fd, o->tos, "connected socket");
	for (off = 0; off < o->bytes; off += n) {
		n = o->bytes - off < o->write ? o->bytes - off : o->write;
		send_all(fd, data + off, n);
	}
	if (shutdown(fd, SHUT_WR))
		inc_die("shutdown: %s", strerror(errno));
	got = drain(fd);
	close(fd);
	printf("client %s:%u: sent %llu bytes, received %llu, ToS 0x%02x\n",
	       o->addr, o->port, o->bytes, (unsigned long long)got, o->tos);
	free(data);
	return 0;
}

static int run_udp(const struct opts *o)
{
	struct sockaddr_in sa;
	unsigned long long i;
	uint8_t *data;
	int fd;

	if (!o->addr || !o->size)
		inc_usage_error("udp needs --addr and --size");
	parse_addr(o->addr, o->port, &sa);
	data = data_alloc(o->size, o->seed);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		inc_die("socket: %s", strerror(errno));
	set_tos(fd, o->tos, "udp socket");
	for (i = 0; i < o->count; i++)
		if (sendto(fd, data, o->size, 0, (struct sockaddr *)&sa,
			   sizeof(sa)) < 0)
			inc_die("sendto %s:%u: %s", o->addr, o->port,
				strerror(errno));
	close(fd);
	printf("udp %s:%u: sent %llu datagrams of %llu bytes, ToS 0x%02x\n",
	       o->addr, o->port, o->count, o->size, o->tos);
	free(data);
	return 0;
}

static unsigned long long num(const char *opt, const char *v,
			      unsigned long long max)
{
	unsigned long long x;

	if (inc_parse_ull(v, &x) || x > max)
		inc_usage_error("bad %s '%s' (want 0..%llu)", opt, v, max);
	return x;
}

int main(int argc, char **argv)
{
	struct opts o;
	const char *cmd, *v;
	int i;

	inc_tool_name = "inc-tcpgen";
	memset(&o, 0, sizeof(o));
	o.write = 65536;
	o.conns = 1;
	o.count = 1;
	o.seed = 1;
	if (argc < 2)
		inc_usage_error("missing command (gen, server, client or udp); see --help");
	cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		fputs(usage, stdout);
		return 0;
	}
	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--help")) {
			fputs(usage, stdout);
			return 0;
		} else if (inc_opt(argc, argv, &i, "--addr", &v)) {
			o.addr = v;
		} else if (inc_opt(argc, argv, &i, "--bind", &v)) {
			o.bind = v;
		} else if (inc_opt(argc, argv, &i, "--ready", &v)) {
			o.ready = v;
		} else if (inc_opt(argc, argv, &i, "--port", &v)) {
			o.port = (unsigned)num("--port", v, 65535);
		} else if (inc_opt(argc, argv, &i, "--tos", &v)) {
			o.tos = (unsigned)num("--tos", v, 255);
		} else if (inc_opt(argc, argv, &i, "--bytes", &v)) {
			o.bytes = num("--bytes", v, 1ull << 32);
			o.have_bytes = 1;
		} else if (inc_opt(argc, argv, &i, "--write", &v)) {
			o.write = num("--write", v, 1ull << 24);
		} else if (inc_opt(argc, argv, &i, "--reply", &v)) {
			o.reply = num("--reply", v, 1ull << 32);
		} else if (inc_opt(argc, argv, &i, "--conns", &v)) {
			o.conns = num("--conns", v, 1000);
		} else if (inc_opt(argc, argv, &i, "--count", &v)) {
			o.count = num("--count", v, 1000000);
		} else if (inc_opt(argc, argv, &i, "--size", &v)) {
			o.size = num("--size", v, 65507);
		} else if (inc_opt(argc, argv, &i, "--seed", &v)) {
			o.seed = num("--seed", v, ~0ull);
		} else {
			inc_usage_error("unknown option '%s'; see --help", argv[i]);
		}
	}
	if (o.bytes % 4 || o.write % 4 || !o.write || o.reply % 4)
		inc_usage_error("--bytes, --write and --reply must be multiples of 4 (float32 data)");
	if (!strcmp(cmd, "gen"))
		return run_gen(&o);
	if (!strcmp(cmd, "server"))
		return run_server(&o);
	if (!strcmp(cmd, "client"))
		return run_client(&o);
	if (!strcmp(cmd, "udp"))
		return run_udp(&o);
	inc_usage_error("unknown command '%s' (want gen, server, client or udp)", cmd);
}
