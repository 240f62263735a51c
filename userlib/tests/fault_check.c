// SPDX-License-Identifier: MIT
/*
 * fault_check.c - a local failure inside a collective spreads: N ranks
 * (forked here, INC_* environment) run a warm-up call, then rank VICTIM's
 * next large allocation fails inside the following call (ring, WA or
 * sketch). The victim must get INC_E_NOMEM; every other rank must fail
 * within 1 s of it (the timeout is 30 s, so a failure that does not spread
 * would take that long); a later call fails fast with INC_E_BROKEN;
 * nothing crashes (ASan/UBSan build) and nothing leaks.
 *
 *   fault-check [-n N] [-v VICTIM] [-a ring|wa] [-m none|nic|software|sketch|inc+sketch]
 *
 * The failure point: this program is linked with -Wl,--wrap=malloc
 * -Wl,--wrap=calloc, so every allocation of the library goes through the
 * wrappers below; armed, they fail the first one of at least ARM_BYTES.
 * The faulty call is sized so that the victim must allocate that much:
 * ring and WA with 8 MiB segments (the scratch grows from the warm-up's
 * 64 KiB segments), sketch with 4 Mi values (its result buffer).
 * Last line: "N passed, N failed".
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "inc_test.h"
#include "inceptionn/inceptionn.h"

#define ARM_BYTES   (4u << 20)
#define SPREAD_MS   1000
#define TIMEOUT_MS  30000

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);

static size_t armed;   /* fail the next allocation of at least this many bytes */
static int fired;

void *__wrap_malloc(size_t n)
{
	if (armed && n >= armed) {
		armed = 0;
		fired = 1;
		return NULL;
	}
	return __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t m)
{
	if (armed && m && n >= armed / m) {
		armed = 0;
		fired = 1;
		return NULL;
	}
	return __real_calloc(n, m);
}

struct report {
	int rank;
	int rc;          /* the faulty call's result */
	int later;       /* a later call's */
	int fired;       /* the victim's allocation did fail */
	int64_t t_ms;
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void child(int rank, int n, int port, int victim, int wfd, int gofd, int algo, int mode)
{
	size_t warm = 5000, count = mode >= INC_COMP_SKETCH ? (4u << 20) : 20000, i;
	struct inc_allreduce_opts o;
	struct report r = { .rank = rank };
	struct inc_comm *c;
	float *buf = malloc(count * sizeof(*buf));
	char b[32];
	int rc;

	snprintf(b, sizeof(b), "%d", rank);
	setenv("INC_RANK", b, 1);
	snprintf(b, sizeof(b), "%d", n);
	setenv("INC_WORLD_SIZE", b, 1);
	setenv("INC_MASTER_ADDR", "127.0.0.1", 1);
	snprintf(b, sizeof(b), "%d", port);
	setenv("INC_MASTER_PORT", b, 1);
	snprintf(b, sizeof(b), "%d", TIMEOUT_MS);
	setenv("INC_TIMEOUT_MS", b, 1);
	if (!buf)
		_exit(6);
	for (i = 0; i < count; i++)
		buf[i] = (float)((i * 7 + (size_t)rank) % 100) * 1e-2f;
	rc = inc_comm_init_env(&c);
	if (rc) {
		fprintf(stderr, "rank %d: init: %s\n", rank, inc_strerror(rc));
		_exit(7);
	}
	inc_allreduce_opts_init(&o);
	o.algo = (enum inc_algo)algo;
	o.compression = (enum inc_compression)mode;
	o.timeout_ms = TIMEOUT_MS;
	/* Warm-up: every rank is connected and in step. */
	rc = inc_allreduce_f32(c, buf, warm, &o);
	if (rc) {
		fprintf(stderr, "rank %d: warm-up: %s\n", rank, inc_strerror(rc));
		_exit(8);
	}
	/* Every rank has finished the warm-up (a rank that fails resets links
	 * a slower rank may still be finishing it on). */
	r.rc = 1;
	if (write(wfd, &r, sizeof(r)) < 0 || read(gofd, b, 1) != 1)
		_exit(3);
	if (mode < INC_COMP_SKETCH)
		o.segment_bytes = 8u << 20;
	if (rank == victim)
		armed = ARM_BYTES;
	r.rc = inc_allreduce_f32(c, buf, count, &o);
	r.t_ms = now_ms();
	armed = 0;
	r.fired = fired;
	r.later = inc_allreduce_f32(c, buf, warm, &o);
	inc_comm_destroy(c);
	free(buf);
	if (write(wfd, &r, sizeof(r)) < 0)
		_exit(3);
	_exit(0);
}

int main(int argc, char **argv)
{
	int n = 4, victim = 1, algo = 0, mode = 0, opt, i, p[2], g[2], port, status, got = 0;
	int warm = 0;
	struct report rep[64], r;
	const char *mname = "none";
	int64_t worst = -1, t_victim = -1;
	pid_t pids[64];

	while ((opt = getopt(argc, argv, "n:v:a:m:")) != -1) {
		switch (opt) {
		case 'n': n = atoi(optarg); break;
		case 'v': victim = atoi(optarg); break;
		case 'a': algo = !strcmp(optarg, "wa"); break;
		case 'm':
			mname = optarg;
			if (inc_compression_parse(optarg, (enum inc_compression *)&mode)) {
				fprintf(stderr, "fault-check: unknown mode %s\n", optarg);
				return 2;
			}
			break;
		default:
			fprintf(stderr, "usage: fault-check [-n N] [-v VICTIM] [-a ring|wa] [-m MODE]\n");
			return 2;
		}
	}
	if (n < 2 || n > 64 || victim < 0 || victim >= n) {
		fprintf(stderr, "fault-check: bad -n/-v\n");
		return 2;
	}
	port = inc_free_port();
	if (port < 0 || pipe(p) < 0 || pipe(g) < 0)
		return 1;
	for (i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			close(p[0]);
			close(g[1]);
			child(i, n, port, victim, p[1], g[0], algo, mode);
		}
	}
	close(p[1]);
	close(g[0]);
	memset(rep, 0, sizeof(rep));
	alarm(TIMEOUT_MS / 1000 + 30);   /* a rank that hangs ends the test */
	while (got < n && read(p[0], &r, sizeof(r)) == sizeof(r)) {
		if (r.rc == 1) {
			if (++warm == n)
				for (i = 0; i < n; i++)
					if (write(g[1], "g", 1) != 1)
						return 1;
			continue;
		}
		if (r.rank >= 0 && r.rank < n && !rep[r.rank].t_ms) {
			rep[r.rank] = r;
			got++;
		}
	}
	close(g[1]);
	CHECK(got == n, "only %d of %d ranks reported", got, n);
	for (i = 0; i < n; i++) {
		waitpid(pids[i], &status, 0);
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "rank %d ended with status 0x%x (a crash, a sanitizer report, or exit 6-8: "
		      "allocation, init or warm-up failed)", i, status);
	}
	if (rep[victim].t_ms) {
		t_victim = rep[victim].t_ms;
		CHECK(rep[victim].fired, "the victim's allocation never failed");
		CHECK(rep[victim].rc == INC_E_NOMEM, "victim: %s, want INC_E_NOMEM",
		      inc_strerror(rep[victim].rc));
	}
	for (i = 0; i < n; i++) {
		if (!rep[i].t_ms)
			continue;
		CHECK(rep[i].later == INC_E_BROKEN, "rank %d: a later call: %s, want INC_E_BROKEN", i,
		      inc_strerror(rep[i].later));
		if (i == victim)
			continue;
		CHECK(rep[i].rc == INC_E_CLOSED || rep[i].rc == INC_E_PROTOCOL,
		      "rank %d: %s, want a reset link", i, inc_strerror(rep[i].rc));
		if (t_victim >= 0) {
			int64_t d = rep[i].t_ms - t_victim;

			CHECK(d <= SPREAD_MS, "rank %d failed %lld ms after the victim", i, (long long)d);
			if (d > worst)
				worst = d;
		}
	}
	printf("fault %s/%s, %d ranks, victim %d: the others failed within %lld ms of it "
	       "(timeout %d ms)\n", algo ? "wa" : "ring", mname, n, victim, (long long)worst,
	       TIMEOUT_MS);
	return inc_test_done();
}
