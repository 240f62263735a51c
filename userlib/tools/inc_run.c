// SPDX-License-Identifier: MIT
/*
 * inc-run - start N local ranks of a program with the torchrun-style
 * environment of libinceptionn (INC_RANK, INC_WORLD_SIZE, INC_MASTER_ADDR,
 * INC_MASTER_PORT, and LOCAL_RANK), on 127.0.0.1 and a port from
 * inc_free_port() (outside the ephemeral range). Each launch is its own
 * job: INC_JOB_ID is set to a fresh "run-<16 hex digits>" unless it is set
 * already, so a stale rank of an earlier launch that reaches the port is
 * refused (docs/userlib.md, "Bootstrap").
 *
 *   inc-run [-n N] [-a ADDR] [-p PORT] [-k] PROGRAM ARGS...
 *
 * Exit status: 0 when every rank exits 0; otherwise the status of the first
 * rank that failed (128+signal if it was killed). When a rank fails the
 * others get SIGTERM, then SIGKILL after 2 s, unless -k (keep going).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "inceptionn/inceptionn.h"

static const char usage_text[] =
"usage: inc-run [-n N] [-a ADDR] [-p PORT] [-k] PROGRAM ARGS...\n"
"\n"
"Starts N copies of PROGRAM on this machine as the ranks of one job: each\n"
"gets INC_RANK, INC_WORLD_SIZE, INC_MASTER_ADDR, INC_MASTER_PORT and a\n"
"fresh INC_JOB_ID (kept if already set) in its environment. Exits with the\n"
"first failing rank's status (0 when all succeed).\n"
"\n"
"  -n N     ranks, 1..1024 (default 1)\n"
"  -a ADDR  rendezvous address (default 127.0.0.1)\n"
"  -p PORT  rendezvous port (default: a free one)\n"
"  -k       keep the other ranks running when one fails\n"
"  -h, --help  this text\n";

static void usage(void)
{
	fputs(usage_text, stderr);
	exit(2);
}

/* A fresh job id: 64 random bits (time and pid if /dev/urandom fails). */
static void set_job_id(void)
{
	unsigned long long v = 0;
	struct timespec ts;
	char id[32];
	int fd;

	if (getenv("INC_JOB_ID") && *getenv("INC_JOB_ID"))
		return;
	fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v)) {
		clock_gettime(CLOCK_REALTIME, &ts);
		v = (unsigned long long)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^
		    (unsigned long long)ts.tv_sec << 20 ^ (unsigned long long)getpid();
	}
	if (fd >= 0)
		close(fd);
	snprintf(id, sizeof(id), "run-%016llx", v);
	setenv("INC_JOB_ID", id, 1);
}

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	got_signal = sig;
}

int main(int argc, char **argv)
{
	const char *addr = "127.0.0.1";
	int n = 1, port = 0, keep = 0, opt, i, status, alive, rc = 0, failed = 0;
	pid_t *pids;
	char buf[32];
	struct timespec t0 = { 0, 0 };

	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs(usage_text, stdout);
		return 0;
	}
	while ((opt = getopt(argc, argv, "+n:a:p:kh")) != -1) {
		switch (opt) {
		case 'n':
			n = atoi(optarg);
			break;
		case 'a':
			addr = optarg;
			break;
		case 'p':
			port = atoi(optarg);
			break;
		case 'k':
			keep = 1;
			break;
		default:
			usage();
		}
	}
	if (optind >= argc)
		usage();
	if (n < 1 || n > 1024) {
		fprintf(stderr, "inc-run: -n must be 1..1024\n");
		return 2;
	}
	if (port == 0)
		port = inc_free_port();
	if (port <= 0 || port > 65535) {
		fprintf(stderr, "inc-run: no usable port\n");
		return 2;
	}
	set_job_id();
	pids = calloc((size_t)n, sizeof(*pids));
	if (!pids)
		return 1;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			fprintf(stderr, "inc-run: fork: %s\n", strerror(errno));
			rc = 1;
			failed = 1;
			break;
		}
		if (pid == 0) {
			signal(SIGINT, SIG_DFL);
			signal(SIGTERM, SIG_DFL);
			snprintf(buf, sizeof(buf), "%d", i);
			setenv("INC_RANK", buf, 1);
			setenv("LOCAL_RANK", buf, 1);
			snprintf(buf, sizeof(buf), "%d", n);
			setenv("INC_WORLD_SIZE", buf, 1);
			setenv("INC_MASTER_ADDR", addr, 1);
			snprintf(buf, sizeof(buf), "%d", port);
			setenv("INC_MASTER_PORT", buf, 1);
			execvp(argv[optind], argv + optind);
			fprintf(stderr, "inc-run: %s: %s\n", argv[optind], strerror(errno));
			_exit(127);
		}
		pids[i] = pid;
	}
	alive = i;
	while (alive > 0) {
		pid_t pid = waitpid(-1, &status, WNOHANG);
		struct timespec now, nap = { 0, 10 * 1000 * 1000 };
		int code, r = -1;

		if (got_signal && !failed) {
			failed = 1;
			rc = 128 + got_signal;
			for (i = 0; i < n; i++)
				if (pids[i] > 0)
					kill(pids[i], SIGTERM);
			clock_gettime(CLOCK_MONOTONIC, &t0);
		}
		if (pid <= 0) {
			if (pid < 0 && errno != EINTR)
				break;
			/* Ranks that ignore SIGTERM get SIGKILL after 2 s. */
			clock_gettime(CLOCK_MONOTONIC, &now);
			if (t0.tv_sec && now.tv_sec - t0.tv_sec >= 2)
				for (i = 0; i < n; i++)
					if (pids[i] > 0)
						kill(pids[i], SIGKILL);
			nanosleep(&nap, NULL);
			continue;
		}
		for (i = 0; i < n; i++)
			if (pids[i] == pid) {
				pids[i] = 0;
				r = i;
			}
		alive--;
		code = WIFEXITED(status) ? WEXITSTATUS(status) :
		       WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
		if (code == 0 || failed)
			continue;
		failed = 1;
		rc = code;
		fprintf(stderr, "inc-run: rank %d exited with status %d\n", r, code);
		if (keep)
			continue;
		for (i = 0; i < n; i++)
			if (pids[i] > 0)
				kill(pids[i], SIGTERM);
		clock_gettime(CLOCK_MONOTONIC, &t0);
	}
	free(pids);
	return rc;
}
