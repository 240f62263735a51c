// SPDX-License-Identifier: MIT
/*
 * env_check.c - the environment parser seen from a program: runs
 * inc_allreduce_opts_init(NULL-free opts) and then inc_comm_init_env (a
 * world of one unless the caller's variables say otherwise), and prints
 *
 *   opts=RC eb=N timeout=N tos=N seg=N
 *   init=RC
 *   strerror=TEXT          (of the first failing call)
 *   log=LINE               (each line the library sent to inc_set_log)
 *
 * for userlib/tests/userlib-env.sh. Exit status: 0.
 */
#include <stdio.h>

#include "inceptionn/inceptionn.h"

static void on_log(void *arg, const char *line)
{
	(void)arg;
	printf("log=%s\n", line);
}

int main(void)
{
	struct inc_allreduce_opts o;
	struct inc_comm *c = NULL;
	int rc, first = 0;

	inc_set_log(on_log, NULL);
	rc = inc_allreduce_opts_init(&o);
	printf("opts=%d eb=%u timeout=%d tos=%u seg=%zu\n", rc, o.error_bound, o.timeout_ms,
	       (unsigned)o.tos, o.segment_bytes);
	if (rc)
		first = rc;
	rc = inc_comm_init_env(&c);
	printf("init=%d\n", rc);
	if (rc && !first)
		first = rc;
	if (first)
		printf("strerror=%s\n", inc_strerror(first));
	inc_comm_destroy(c);
	return 0;
}
