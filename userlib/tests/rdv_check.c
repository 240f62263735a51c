// SPDX-License-Identifier: MIT
/*
 * rdv_check.c - the rendezvous against strangers (userlib/tests/userlib-rendezvous.sh).
 *
 *   rdv-check rank [GO_FILE]
 *     one rank from the INC_* environment: an all-reduce whose sums it
 *     checks; with GO_FILE it then waits for that file (the script sends
 *     strangers to its data listener meanwhile), runs an exchange (the
 *     peer links: the listener meets the strangers) and a second
 *     all-reduce. Prints "rank R: bootstrap accepted=A closed_early=E
 *     <reason>=N ..." and "rank R: N passed, N failed". An init failure
 *     exits with -code (INC_E_REFUSED: 44).
 *
 *   rdv-check stranger WHAT ADDR PORT [data] [ARG]
 *     one bad client, in the data links' float form with "data"; exits 0
 *     when the listener treats it as it must, else prints why and exits 1:
 *       http, random  - bytes of another protocol: closed, no reply
 *       truncated     - half a hello, then it closes
 *       version, size, range, job - a hello with another version, world
 *                       size, a rank out of range, another job id: a reply
 *                       refusing it for that reason (job: naming this job)
 *       duplicate R   - a correct hello (and proof) for rank R, already
 *                       there: refused as a duplicate
 *       secret        - a wrong INC_JOB_SECRET: the listener's proof does
 *                       not verify, ours is refused (closed)
 *       silent S      - connects and says nothing: closed within S seconds
 *       flood S       - 80 such connections at once: all closed within S s
 *   The job id, world size and secret of the job come from INC_JOB_ID,
 *   INC_WORLD_SIZE and INC_JOB_SECRET.
 */
#include <errno.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "inc_internal.h"
#include "inc_test.h"

#define COUNT 10007

static int rank_main(const char *go)
{
	struct inc_bootstrap_stats bs;
	struct inc_comm *c;
	float *buf, *rbuf;
	int rc = inc_comm_init_env(&c), r, n, i, round, bad;

	if (rc) {
		fprintf(stderr, "rdv-check: init: %s\n", inc_strerror(rc));
		return -rc;
	}
	r = inc_comm_rank(c);
	n = inc_comm_size(c);
	buf = malloc(COUNT * sizeof(*buf));
	rbuf = malloc(COUNT * sizeof(*rbuf));
	if (!buf || !rbuf)
		return 1;
	for (round = 0; round < (go ? 2 : 1); round++) {
		if (round == 1) {
			struct stat st;

			while (stat(go, &st) != 0)
				usleep(20000);
			/* the peer links: the data listener meets the strangers */
			for (i = 0; i < COUNT; i++)
				buf[i] = (float)(r * 1000 + i % 1000);
			rc = inc_sendrecv_f32(c, buf, (r + 1) % n, rbuf, (r + n - 1) % n, COUNT,
					      NULL);
			CHECK(rc == 0, "rank %d: exchange: %s", r, inc_strerror(rc));
			for (i = 0, bad = 0; rc == 0 && i < COUNT; i++)
				bad += rbuf[i] != (float)(((r + n - 1) % n) * 1000 + i % 1000);
			CHECK(bad == 0, "rank %d: %d values of the exchange differ", r, bad);
		}
		/* Small integers: exact sums in every order. */
		for (i = 0; i < COUNT; i++)
			buf[i] = (float)((r + 1) * (i % 97 + round));
		rc = inc_allreduce_f32(c, buf, COUNT, NULL);
		CHECK(rc == 0, "rank %d: all-reduce %d: %s", r, round, inc_strerror(rc));
		for (i = 0, bad = 0; rc == 0 && i < COUNT; i++)
			bad += buf[i] != (float)(n * (n + 1) / 2 * (i % 97 + round));
		CHECK(bad == 0, "rank %d: %d sums of all-reduce %d differ", r, bad, round);
	}
	inc_comm_bootstrap_stats(c, &bs);
	printf("rank %d: bootstrap accepted=%llu closed_early=%llu", r,
	       (unsigned long long)bs.accepted, (unsigned long long)bs.closed_early);
	for (i = 0; i < INC_REFUSED_COUNT; i++)
		printf(" %s=%llu", inc_refusal_name(i), (unsigned long long)bs.refused[i]);
	printf("\n");
	inc_comm_destroy(c);
	free(buf);
	free(rbuf);
	printf("rank %d: ", r);
	return inc_test_done();
}

/* ------------------------------------------------------------------------ */
static int data_form;

static int dial(const char *addr, int port)
{
	struct sockaddr_in sin;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)port);
	if (fd < 0 || inet_pton(AF_INET, addr, &sin.sin_addr) != 1 ||
	    connect(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0) {
		printf("stranger: cannot connect to %s:%d: %s\n", addr, port, strerror(errno));
		exit(1);
	}
	return fd;
}

static void put(int fd, const void *p, size_t n)
{
	if (write(fd, p, n) != (ssize_t)n) {
		printf("stranger: write: %s\n", strerror(errno));
		exit(1);
	}
}

/* A message of n bytes in the link's form. */
static void put_msg(int fd, const uint8_t *m, size_t n)
{
	float f[INC_REPLY_BYTES / 2];

	if (!data_form) {
		put(fd, m, n);
		return;
	}
	inc_words_to_floats(f, m, n);
	put(fd, f, 2 * n);
}

/* Read n bytes within ms: 1 read, 0 closed first (or reset), -1 timeout. */
static int get(int fd, void *buf, size_t n, int ms)
{
	uint8_t *p = buf;
	struct pollfd pf = { .fd = fd, .events = POLLIN };

	while (n) {
		ssize_t k;

		if (poll(&pf, 1, ms) <= 0)
			return -1;
		k = read(fd, p, n);
		if (k <= 0)
			return 0;
		p += k;
		n -= (size_t)k;
	}
	return 1;
}

static int get_msg(int fd, uint8_t *m, size_t n, int ms)
{
	float f[INC_REPLY_BYTES / 2];
	int rc;

	if (!data_form)
		return get(fd, m, n, ms);
	rc = get(fd, f, 2 * n, ms);
	if (rc == 1 && inc_words_from_floats(m, f, 2 * n / 2))
		return -2;
	return rc;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Closed by the listener within ms, having sent nothing? */
static int expect_close(int fd, int ms, const char *what)
{
	uint8_t b[16];
	int rc = get(fd, b, 1, ms);

	if (rc == 0)
		return 0;
	printf("stranger %s: %s\n", what, rc < 0 ? "still open" : "got an answer");
	return 1;
}

static void hmac(const char *secret, char who, const uint8_t *hello, const uint8_t *nonce_a,
		 uint8_t out[32])
{
	uint8_t msg[1 + INC_HELLO_BYTES + INC_NONCE_BYTES];
	unsigned len = 32;

	msg[0] = (uint8_t)who;
	memcpy(msg + 1, hello, INC_HELLO_BYTES);
	memcpy(msg + 1 + INC_HELLO_BYTES, nonce_a, INC_NONCE_BYTES);
	HMAC(EVP_sha256(), secret, (int)strlen(secret), msg, sizeof(msg), out, &len);
}

static int stranger_main(int argc, char **argv)
{
	const char *what = argv[2], *addr = argv[3], *job = getenv("INC_JOB_ID");
	const char *secret = getenv("INC_JOB_SECRET"), *ws = getenv("INC_WORLD_SIZE");
	int port = atoi(argv[4]), argi = 5, fd, size = ws ? atoi(ws) : 2, want, rc;
	long arg = 0;
	struct inc_hello h;
	uint8_t m[INC_HELLO_BYTES], rep[INC_REPLY_BYTES], mac[32];

	if (argi < argc && !strcmp(argv[argi], "data")) {
		data_form = 1;
		argi++;
	}
	if (argi < argc)
		arg = atol(argv[argi]);
	fd = dial(addr, port);
	if (!strcmp(what, "http")) {
		const char *req = "GET / HTTP/1.1\r\nHost: localhost\r\nUser-Agent: probe\r\n\r\n";

		put(fd, req, strlen(req));
		return expect_close(fd, 3000, what);
	}
	if (!strcmp(what, "random")) {
		uint8_t b[300];
		unsigned x = (unsigned)time(NULL) * 2654435761u + (unsigned)getpid();

		for (size_t i = 0; i < sizeof(b); i++) {
			x = x * 1103515245u + 12345u;
			b[i] = (uint8_t)(x >> 16);
		}
		b[0] = 'R';   /* whatever the draw, not the hello's magic */
		put(fd, b, sizeof(b));
		return expect_close(fd, 3000, what);
	}
	if (!strcmp(what, "flood")) {
		/* 80 silent connections at once: all closed within arg s */
		int fds[80], k, open_n = 80;
		int64_t end;
		struct timespec ts;

		fds[0] = fd;
		for (k = 1; k < 80; k++)
			fds[k] = dial(addr, port);
		clock_gettime(CLOCK_MONOTONIC, &ts);
		end = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 + (arg > 0 ? arg : 20) * 1000;
		for (k = 0; k < 80 && open_n; k++) {
			int64_t now;

			clock_gettime(CLOCK_MONOTONIC, &ts);
			now = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
			if (now >= end || expect_close(fds[k], (int)(end - now), "flood"))
				break;
			open_n--;
		}
		if (open_n)
			printf("stranger flood: %d of 80 connections still open\n", open_n);
		return open_n != 0;
	}
	if (!strcmp(what, "silent")) {
		rc = expect_close(fd, (int)(arg > 0 ? arg : 10) * 1000, what);
		return rc;
	}
	/* Everything else starts from a hello that is right but for one field. */
	memset(&h, 0, sizeof(h));
	h.version = INC_HELLO_VERSION;
	h.kind = data_form ? INC_LINK_PEER : INC_LINK_CTRL;
	h.rank = data_form ? 0 : 1;   /* scripts aim data-link strangers at ranks > 0 */
	h.size = (uint32_t)size;
	h.port = 9;
	h.flags = secret && *secret ? 1 : 0;
	snprintf(h.job, sizeof(h.job), "%s", job ? job : "");
	want = -1;
	if (!strcmp(what, "truncated")) {
		inc_hello_pack(m, &h);
		put_msg(fd, m, 50);
		return 0;
	} else if (!strcmp(what, "version")) {
		h.version = INC_HELLO_VERSION + 1;
		want = INC_REFUSED_VERSION;
	} else if (!strcmp(what, "size")) {
		h.size = (uint32_t)size + 1;
		want = INC_REFUSED_SIZE;
	} else if (!strcmp(what, "range")) {
		h.rank = (uint32_t)size + 3;
		want = INC_REFUSED_RANK;
	} else if (!strcmp(what, "job")) {
		snprintf(h.job, sizeof(h.job), "another-job-%d", (int)getpid());
		want = INC_REFUSED_JOB;
	} else if (!strcmp(what, "duplicate")) {
		h.rank = (uint32_t)arg;
		want = INC_REFUSED_DUPLICATE;
	} else if (!strcmp(what, "secret")) {
		secret = "not-the-secret";
		h.flags = 1;
	} else {
		printf("stranger: unknown kind '%s'\n", what);
		return 2;
	}
	inc_hello_pack(m, &h);
	put_msg(fd, m, sizeof(m));
	rc = get_msg(fd, rep, sizeof(rep), 5000);
	if (rc != 1 || be32(rep) != 0x494e4372u) {
		printf("stranger %s: no reply (%d)\n", what, rc);
		return 1;
	}
	if (want >= 0) {
		char id[INC_JOB_ID_MAX + 1];

		memcpy(id, rep + 64, INC_JOB_ID_MAX);
		id[INC_JOB_ID_MAX] = '\0';
		if (be32(rep + 4) != (uint32_t)want + 1) {
			printf("stranger %s: reply status %u, want %d (%s)\n", what, be32(rep + 4),
			       want + 1, inc_refusal_name(want));
			return 1;
		}
		if (want == INC_REFUSED_JOB && strcmp(id, job ? job : "")) {
			printf("stranger job: the refusal names job '%s', not '%s'\n", id, job);
			return 1;
		}
		return expect_close(fd, 3000, what);
	}
	/* secret: the listener's proof must not verify under our secret */
	if (be32(rep + 4) != 0) {
		printf("stranger secret: refused before the proof (status %u)\n", be32(rep + 4));
		return 1;
	}
	hmac(secret, 'A', m, rep + 16, mac);
	if (!memcmp(mac, rep + 32, 32)) {
		printf("stranger secret: the listener's proof verifies under a wrong secret\n");
		return 1;
	}
	hmac(secret, 'C', m, rep + 16, mac);
	put_msg(fd, mac, sizeof(mac));
	return expect_close(fd, 3000, what);
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "rank"))
		return rank_main(argc >= 3 ? argv[2] : NULL);
	if (argc >= 5 && !strcmp(argv[1], "stranger"))
		return stranger_main(argc, argv);
	fprintf(stderr, "usage: rdv-check rank [GO_FILE] | rdv-check stranger WHAT ADDR PORT [data] [ARG]\n");
	return 2;
}
