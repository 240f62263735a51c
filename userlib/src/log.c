// SPDX-License-Identifier: MIT
/*
 * log.c - the library's one way out for text, at the bottom of its layers
 * (it calls nothing of the library): the log hook (inc_set_log; with no
 * hook and INC_LOG=stderr, stderr) and the text of this thread's last
 * environment refusal, which inc_strerror(INC_E_ENV) returns.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inc_internal.h"

static inc_log_fn log_fn;
static void *log_arg;
static _Thread_local char env_err[320];

void inc_set_log(inc_log_fn fn, void *arg)
{
	log_fn = fn;
	log_arg = arg;
}

void inc_log(const char *fmt, ...)
{
	const char *env = getenv("INC_LOG");
	char line[512];
	va_list ap;

	if (!log_fn && !(env && !strcmp(env, "stderr")))
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (log_fn)
		log_fn(log_arg, line);
	else
		fprintf(stderr, "libinceptionn: %s\n", line);
}

const char *inc_env_error(void)
{
	return env_err;
}

void inc_env_error_set(const char *text)
{
	snprintf(env_err, sizeof(env_err), "%s", text);
}
