// SPDX-License-Identifier: MIT
/*
 * options.c - the environment: the all-reduce options
 * (inc_allreduce_opts_init: INC_COMPRESSION, INC_ERROR_BOUND, ...) and the
 * bootstrap's variables (timeout, the initial ToS, torchrun-style pairs
 * such as INC_RANK / RANK). Mode names come from the compression table
 * (segc.c).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "inc_internal.h"

const char *inc_env2(const char *a, const char *b)
{
	const char *v = getenv(a);

	if (v && *v)
		return v;
	v = b ? getenv(b) : NULL;
	return v && *v ? v : NULL;
}

static int parse_base(const char *s, int base, long lo, long hi, long *out)
{
	char *end;
	long v;

	if (!s)
		return INC_E_ENV;
	errno = 0;
	v = strtol(s, &end, base);
	if (errno || end == s || *end || v < lo || v > hi)
		return INC_E_ENV;
	*out = v;
	return 0;
}

/* A decimal number in [lo, hi]: 0, or INC_E_ENV (also for NULL). */
int inc_parse_long(const char *s, long lo, long hi, long *out)
{
	return parse_base(s, 10, lo, hi, out);
}

/* An option variable (decimal, 0x hex or 0 octal, as strtol's base 0):
 * 1 absent, 0 read into *out, INC_E_ENV present but invalid. */
static int env_long(const char *name, long lo, long hi, long *out)
{
	const char *v = inc_env2(name, NULL);

	return v ? parse_base(v, 0, lo, hi, out) : 1;
}

int inc_env_timeout_ms(int *ms)
{
	long t;
	int rc = env_long("INC_TIMEOUT_MS", 1, 24L * 3600 * 1000, &t);

	*ms = rc == 0 ? (int)t : 30000;
	return rc < 0 ? rc : 0;
}

int inc_env_initial_tos(uint8_t *tos)
{
	struct inc_allreduce_opts o;
	int rc = inc_allreduce_opts_init(&o);

	if (rc)
		return rc;
	*tos = inc_compression_info(o.compression)->tagged ? o.tos : 0;
	return 0;
}

/* INC_<name>=a|b|...: the index of the word in words[], or INC_E_ENV. */
static int env_word(const char *name, const char *const *words, int *out)
{
	const char *v = inc_env2(name, NULL);
	int i;

	if (!v)
		return 1;
	for (i = 0; words[i]; i++)
		if (!strcmp(v, words[i])) {
			*out = i;
			return 0;
		}
	return INC_E_ENV;
}

int inc_allreduce_opts_init(struct inc_allreduce_opts *o)
{
	static const char *const algos[] = { "ring", "wa", NULL };
	static const char *const indices[] = { "bitmap", "bloom", NULL };
	/* in enum inc_error_feedback order, then the numeric spellings */
	static const char *const ef[] = { "auto", "off", "on", "0", "1", NULL };
	const char *v;
	long x;
	int rc, w;

	if (!o)
		return INC_E_ARG;
	memset(o, 0, sizeof(*o));
	o->compression = INC_COMP_NONE;
	o->algo = INC_ALGO_RING;
	o->error_bound = INC_EB_DEFAULT;
	o->timeout_ms = 30000;
	o->segment_bytes = 0;
	o->tos = INC_TOS_DEFAULT;
	o->error_feedback = INC_EF_AUTO;

	v = inc_env2("INC_COMPRESSION", NULL);
	if (v && inc_compression_parse(v, &o->compression))
		return INC_E_ENV;
	if ((rc = env_word("INC_SKETCH_INDEX", indices, &w)) < 0)
		return rc;
	if (rc == 0)
		o->sketch_index = (unsigned)w;
	v = inc_env2("INC_SKETCH_GAMMA", NULL);
	if (v) {
		char *end;
		double d;

		errno = 0;
		d = strtod(v, &end);
		if (errno || end == v || *end || !(d >= INC_SKETCH_GAMMA_MIN && d <= INC_SKETCH_GAMMA_MAX))
			return INC_E_ENV;
		o->sketch_gamma = d;
	}
	if ((rc = env_word("INC_ALGO", algos, &w)) < 0)
		return rc;
	if (rc == 0)
		o->algo = (enum inc_algo)w;
	if ((rc = env_word("INC_ERROR_FEEDBACK", ef, &w)) < 0)
		return rc;
	if (rc == 0)
		o->error_feedback = w == 3 ? INC_EF_OFF : w == 4 ? INC_EF_ON : w;
	v = inc_env2("INC_ERROR_BOUND", NULL);
	if (v) {
		if (!strncmp(v, "2^-", 3))
			v += 3;
		if (inc_parse_long(v, INC_EB_MIN, INC_EB_MAX, &x))
			return INC_E_ENV;
		o->error_bound = (unsigned)x;
	}
	rc = env_long("INC_TIMEOUT_MS", 1, 24L * 3600 * 1000, &x);
	if (rc < 0)
		return rc;
	if (rc == 0)
		o->timeout_ms = (int)x;
	rc = env_long("INC_SEGMENT_BYTES", 32, INC_SEG_MAX, &x);
	if (rc < 0 || (rc == 0 && x % 32))
		return INC_E_ENV;
	if (rc == 0)
		o->segment_bytes = (size_t)x;
	rc = env_long("INC_TOS", 1, 255, &x);
	if (rc < 0)
		return rc;
	if (rc == 0)
		o->tos = (uint8_t)x;
	rc = env_long("INC_SEED", 0, LONG_MAX, &x);
	if (rc < 0)
		return rc;
	if (rc == 0)
		o->seed = (uint64_t)x;
	return 0;
}
