// SPDX-License-Identifier: MIT
/*
 * fail_check.c - failure behaviour of the all-reduce: starts N ranks
 * itself (fork + the INC_* environment), lets them run all-reduce in a
 * loop, then kills (SIGKILL), stalls (SIGSTOP) or never starts one victim
 * rank, and checks that every other rank's call returns an error code
 * within the timeout (plus a scheduling margin), without crashing.
 *
 *   fail-check [-n N] [-t TIMEOUT_MS] [-x kill|stop|absent] [-v VICTIM]
 *              [-a ring|wa] [-m none|nic|software] [-c COUNT]
 *   fail-check -x envcheck   (init from the environment, exit with -code)
 *   -x mismatchK: rank VICTIM disagrees about the call (K = 1: one more
 *   value, 2: another compression mode, 3: one extra call, 4: the other
 *   algorithm (ring / WA), 5: scale_exp 3, 6: another seed (the sketch
 *   modes' hashes: -m sketch), 7: an adaptive scaling state whose
 *   exponents differ (-m software)); every rank must fail with
 *   INC_E_PROTOCOL or INC_E_CLOSED within MARGIN_MS, whatever the timeout,
 *   none may hang or succeed.
 *   -x agreeK: rank VICTIM differs only in a setting that does not apply
 *   (K = 8: the error bound in mode none, 9: the seed in mode software);
 *   every rank must keep calling (then the victim is killed as with kill).
 *   -i K: non-blocking: every iteration issues K inc_iallreduce_f32 calls
 *   on K slices of the buffer, then waits for them last to first; a rank
 *   that sees an error waits for every request it issued, checks that a
 *   later call fails fast, destroys the communicator and checks that no
 *   thread is left (exit status 5 otherwise).
 * Last line: "N passed, N failed".
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "inc_test.h"
#include "inceptionn/inceptionn.h"

#define MARGIN_MS 2000

struct report {
	int rank;
	int rc;          /* 1 = ready (an iteration finished), else the error */
	int64_t t_ms;
	long iters;
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int threads_of_self(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int k = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		k += e->d_name[0] != '.';
	closedir(d);
	return k;
}

/* K requests in flight on K slices of buf; the first error, or 0. */
static int call_nonblocking(struct inc_comm *c, float *buf, size_t count,
			    const struct inc_allreduce_opts *o, int k)
{
	struct inc_request *req[64];
	int i, j, rc[64], issue_rc = 0;

	for (i = 0; i < k; i++) {
		size_t lo = count * (size_t)i / (size_t)k, hi = count * (size_t)(i + 1) / (size_t)k;

		issue_rc = inc_iallreduce_f32(c, buf + lo, hi - lo, o, &req[i]);
		if (issue_rc)
			break;
	}
	for (j = i; j-- > 0;)
		rc[j] = inc_wait(req[j]);
	for (j = 0; j < i; j++)   /* the first failing request's error */
		if (rc[j])
			return rc[j];
	return issue_rc;
}

/* bad: 0 = a normal rank; 1 = one more value; 2 = another compression
 * mode; 3 = an extra call with count 0 first (calls out of step).
 * inflight: 0 blocking calls, else K non-blocking ones per iteration. */
static void child(int rank, int n, int port, int timeout, int wfd, int algo,
		  int mode, size_t count, int bad, int inflight)
{
	struct inc_allreduce_opts o;
	struct inc_comm *c;
	struct report r = { .rank = rank };
	char b[32];
	float *buf = malloc((count + 1) * 4);
	size_t i;
	int rc;

	snprintf(b, sizeof(b), "%d", rank);
	setenv("INC_RANK", b, 1);
	snprintf(b, sizeof(b), "%d", n);
	setenv("INC_WORLD_SIZE", b, 1);
	setenv("INC_MASTER_ADDR", "127.0.0.1", 1);
	snprintf(b, sizeof(b), "%d", port);
	setenv("INC_MASTER_PORT", b, 1);
	snprintf(b, sizeof(b), "%d", timeout);
	setenv("INC_TIMEOUT_MS", b, 1);
	for (i = 0; i <= count; i++)
		buf[i] = (float)(i % 100) * 1e-3f;
	rc = inc_comm_init_env(&c);
	if (rc) {
		r.rc = rc;
		r.t_ms = now_ms();
		if (write(wfd, &r, sizeof(r)) < 0)
			_exit(3);
		_exit(0);
	}
	inc_allreduce_opts_init(&o);
	o.algo = (enum inc_algo)algo;
	o.compression = (enum inc_compression)mode;
	o.timeout_ms = timeout;
	if (bad == 1)
		count++;
	if (bad == 2)
		o.compression = mode == INC_COMP_SOFTWARE ? INC_COMP_NONE : INC_COMP_SOFTWARE;
	if (bad == 3)
		(void)inc_allreduce_f32(c, buf, 0, &o);
	if (bad == 4)
		o.algo = o.algo == INC_ALGO_RING ? INC_ALGO_WA : INC_ALGO_RING;
	if (bad == 5)
		o.scale_exp = 3;
	if (mode == 6)
		o.compression = INC_COMP_SKETCH;
	if (bad == 6)
		o.seed = 12345;
	if (bad == 8)
		o.error_bound = 14;
	if (bad == 9)
		o.seed = 999;
	if (mode == INC_COMP_SOFTWARE) {
		/* every rank a scaling state; the victim's exponents differ */
		struct inc_scale *sc;
		int e = bad == 7 ? 2 : 0;

		if (inc_scale_create(&sc, 1, NULL, 0) == 0) {
			(void)inc_scale_set(sc, &e, 1);
			o.scale = sc;       /* freed at _exit */
		}
	}
	for (;;) {
		rc = inflight ? call_nonblocking(c, buf, count, &o, inflight)
			      : inc_allreduce_f32(c, buf, count, &o);
		r.t_ms = now_ms();
		if (rc) {
			r.rc = rc;
			if (write(wfd, &r, sizeof(r)) < 0)
				_exit(3);
			/* Later calls must fail fast, not hang. */
			rc = inflight ? call_nonblocking(c, buf, count, &o, inflight)
				      : inc_allreduce_f32(c, buf, count, &o);
			inc_comm_destroy(c);
			free(buf);
			if (rc != INC_E_BROKEN)
				_exit(4);
			_exit(threads_of_self() == 1 ? 0 : 5);
		}
		if (r.iters++ == 0) {
			r.rc = 1;
			if (write(wfd, &r, sizeof(r)) < 0)
				_exit(3);
		}
	}
}

int main(int argc, char **argv)
{
	int n = 4, timeout = 2000, victim = 1, algo = 0, mode = 0, opt, i, p[2];
	int ready = 0, reported = 0, port, status;
	const char *how = "kill";
	size_t count = 1 << 20;
	pid_t *pids;
	struct report r;
	int64_t t_fault = 0, t_start;
	int got[256] = { 0 }, mism, inflight = 0;

	while ((opt = getopt(argc, argv, "n:t:x:v:a:m:c:i:")) != -1) {
		switch (opt) {
		case 'n': n = atoi(optarg); break;
		case 't': timeout = atoi(optarg); break;
		case 'x': how = optarg; break;
		case 'v': victim = atoi(optarg); break;
		case 'a': algo = !strcmp(optarg, "wa"); break;
		case 'm': mode = !strcmp(optarg, "nic") ? 1 : !strcmp(optarg, "software") ? 2 :
				 !strcmp(optarg, "sketch") ? 6 : 0; break;
		case 'c': count = strtoul(optarg, NULL, 0); break;
		case 'i':
			inflight = atoi(optarg);
			if (inflight < 1 || inflight > 64) {
				fprintf(stderr, "fail-check: -i wants 1..64 requests in flight\n");
				return 2;
			}
			break;
		default:
			fprintf(stderr, "usage: fail-check [-n N] [-t MS] [-x kill|stop|absent] [-v R] [-a ring|wa] [-m MODE]\n");
			return 2;
		}
	}
	if (!strcmp(how, "envcheck")) {
		/* Bootstrap from this process's environment; exit with -code. */
		struct inc_comm *c;
		int rc = inc_comm_init_env(&c);

		if (rc == 0) {
			float x = 1.0f;

			rc = inc_allreduce_f32(c, &x, 1, NULL);
			inc_comm_destroy(c);
		}
		return -rc;
	}
	if (n < 2 || n > 256 || victim < 0 || victim >= n) {
		fprintf(stderr, "fail-check: bad -n/-v\n");
		return 2;
	}
	signal(SIGPIPE, SIG_DFL);   /* the library must not need SIG_IGN */
	port = inc_free_port();
	if (port < 0) {
		fprintf(stderr, "fail-check: no free port\n");
		return 1;
	}
	if (pipe(p) < 0)
		return 1;
	pids = calloc((size_t)n, sizeof(*pids));
	t_start = now_ms();
	for (i = 0; i < n; i++) {
		if (!strcmp(how, "absent") && i == victim)
			continue;
		pids[i] = fork();
		if (pids[i] == 0) {
			close(p[0]);
			child(i, n, port, timeout, p[1], algo, mode, count,
			      i != victim ? 0 : !strncmp(how, "mismatch", 8) ? atoi(how + 8) :
			      !strncmp(how, "agree", 5) ? atoi(how + 5) : 0,
			      inflight);
		}
	}
	close(p[1]);
	if (!strcmp(how, "absent") || !strncmp(how, "mismatch", 8))
		t_fault = t_start;
	mism = !strncmp(how, "mismatch", 8);
	while (reported < n - 1 + mism && read(p[0], &r, sizeof(r)) == sizeof(r)) {
		if (r.rc == 1) {
			CHECK(!mism, "mismatch: rank %d finished a call", r.rank);
			if (++ready == n && !t_fault) {
				t_fault = now_ms();
				kill(pids[victim], !strcmp(how, "stop") ? SIGSTOP : SIGKILL);
			}
			continue;
		}
		if ((r.rank == victim && !mism) || r.rank < 0 || r.rank >= n || got[r.rank]++)
			continue;
		reported++;
		CHECK(t_fault != 0, "rank %d failed before the fault: %s", r.rank, inc_strerror(r.rc));
		CHECK(r.rc == INC_E_CLOSED || r.rc == INC_E_TIMEOUT || r.rc == INC_E_CONNECT ||
		      r.rc == INC_E_PROTOCOL,
		      "rank %d: unexpected code %d (%s)", r.rank, r.rc, inc_strerror(r.rc));
		CHECK(!mism || r.rc == INC_E_PROTOCOL || r.rc == INC_E_CLOSED,
		      "mismatch: rank %d got %s", r.rank, inc_strerror(r.rc));
		CHECK(!mism || r.t_ms - t_fault <= MARGIN_MS + 3000,
		      "mismatch: rank %d failed after %lld ms: it waited for a timeout", r.rank,
		      (long long)(r.t_ms - t_fault));
		CHECK(r.t_ms - t_fault <= timeout + MARGIN_MS,
		      "rank %d: error after %lld ms, timeout %d ms", r.rank,
		      (long long)(r.t_ms - t_fault), timeout);
		printf("%s victim %d: rank %d got \"%s\" after %lld ms (timeout %d ms)\n", how,
		       victim, r.rank, inc_strerror(r.rc), (long long)(r.t_ms - t_fault), timeout);
	}
	CHECK(reported == n - 1 + mism, "only %d of %d ranks reported", reported, n - 1 + mism);
	if (pids[victim] > 0 && !mism) {
		kill(pids[victim], SIGKILL);
		kill(pids[victim], SIGCONT);
	}
	for (i = 0; i < n; i++) {
		if (pids[i] <= 0)
			continue;
		waitpid(pids[i], &status, 0);
		if (i == victim && !mism)
			continue;
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "rank %d ended with status 0x%x (crash, SIGPIPE, a later call not failing fast "
		      "or, 0x500, a thread left after inc_comm_destroy)",
		      i, status);
	}
	free(pids);
	return inc_test_done();
}
