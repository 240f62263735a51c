// SPDX-License-Identifier: MIT
/*
 * options.c - the environment: the all-reduce options
 * (inc_allreduce_opts_init: INC_COMPRESSION, INC_ERROR_BOUND, ...) and the
 * bootstrap's variables (timeout, the initial ToS, torchrun-style pairs
 * such as INC_RANK / RANK). Mode names come from the compression table
 * (segc.c). One parser for every variable: numbers are decimal or 0x hex
 * (parse_num), and every refusal names the variable and its value
 * (inc_env_refuse; inc_strerror(INC_E_ENV) returns that text).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
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

/* Every INC_E_ENV of the library comes from here: the text goes to
 * log.c (inc_strerror's text of this thread's last refusal, and the log
 * hook). */
int inc_env_refuse(const char *name, const char *value, const char *fmt, ...)
{
	char why[200], text[320];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (value)
		snprintf(text, sizeof(text), "environment variable %s='%.64s'%s: %s", name, value,
			 strlen(value) > 64 ? "..." : "", why);
	else
		snprintf(text, sizeof(text), "environment variable %s: %s", name, why);
	inc_env_error_set(text);
	inc_log("%s", text);
	return INC_E_ENV;
}

/*
 * The one number rule of every INC_* variable (docs/userlib.md): decimal
 * digits, or 0x / 0X and hex digits; no sign, no spaces, no octal (a
 * leading zero is still decimal: 010 is ten). 0, or -1.
 */
static int parse_num(const char *s, unsigned long long *out)
{
	int base = 10;
	char *end;

	if (!s || !*s)
		return -1;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!isxdigit((unsigned char)*s) || (base == 10 && !isdigit((unsigned char)*s)))
		return -1;
	errno = 0;
	*out = strtoull(s, &end, base);
	return errno || *end ? -1 : 0;
}

int inc_parse_long(const char *s, long lo, long hi, long *out)
{
	unsigned long long v;

	if (parse_num(s, &v) || lo < 0 || v < (unsigned long long)lo ||
	    v > (unsigned long long)hi)
		return INC_E_ENV;
	*out = (long)v;
	return 0;
}

int inc_env_long(const char *name, const char *alt, long lo, long hi, long *out)
{
	const char *v = inc_env2(name, alt);
	const char *which = v && getenv(name) && *getenv(name) ? name : alt;

	if (!v)
		return 1;
	if (inc_parse_long(v, lo, hi, out))
		return inc_env_refuse(which, v, "want a number %ld..%ld (decimal, or 0x hex)",
				      lo, hi);
	return 0;
}

/* An option variable: 1 absent, 0 read into *out, INC_E_ENV invalid. */
static int env_long(const char *name, long lo, long hi, long *out)
{
	return inc_env_long(name, NULL, lo, hi, out);
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
	{
		char list[128] = "";

		for (i = 0; words[i]; i++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				 i ? ", " : "", words[i]);
		return inc_env_refuse(name, v, "want one of %s", list);
	}
}

int inc_allreduce_opts_init(struct inc_allreduce_opts *o)
{
	static const char *const algos[] = { "ring", "wa", NULL };
	/* INC_CODEC is read by codec_dispatch.c; here it is only checked */
	static const char *const codecs[] = { "auto", "portable", "avx2", "avx512", NULL };
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
	if (v && inc_compression_parse(v, &o->compression)) {
		char names[160];

		inc_compression_list(names, sizeof(names), ", ");
		return inc_env_refuse("INC_COMPRESSION", v, "want one of %s", names);
	}
	if ((rc = env_word("INC_CODEC", codecs, &w)) < 0)
		return rc;
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
			return inc_env_refuse("INC_SKETCH_GAMMA", v, "want a number %g..%g",
					      INC_SKETCH_GAMMA_MIN, INC_SKETCH_GAMMA_MAX);
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
		if (inc_parse_long(!strncmp(v, "2^-", 3) ? v + 3 : v, INC_EB_MIN, INC_EB_MAX, &x))
			return inc_env_refuse("INC_ERROR_BOUND", v,
					      "want an exponent %d..%d (or 2^-N)", INC_EB_MIN,
					      INC_EB_MAX);
		o->error_bound = (unsigned)x;
	}
	rc = env_long("INC_TIMEOUT_MS", 1, 24L * 3600 * 1000, &x);
	if (rc < 0)
		return rc;
	if (rc == 0)
		o->timeout_ms = (int)x;
	rc = env_long("INC_SEGMENT_BYTES", 32, INC_SEG_MAX, &x);
	if (rc < 0)
		return rc;
	if (rc == 0 && x % 32)
		return inc_env_refuse("INC_SEGMENT_BYTES", inc_env2("INC_SEGMENT_BYTES", NULL),
				      "want a multiple of 32");
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
