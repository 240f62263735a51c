// SPDX-License-Identifier: MIT
/*
 * tr_opts.c - the option table of inc-train and what is made from it: the
 * getopt table, the parser, the usage text and the errors; then the
 * checks of combinations.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "inc_model.h"
#include "inceptionn/inceptionn.h"
#include "tr_data.h"
#include "tr_model.h"
#include "tr_opts.h"
#include "tr_schedules.h"
#include "tr_util.h"

enum kind {
	K_LONG,      /* integer in [lo, hi] into a long */
	K_INT,       /* ... into an int */
	K_UINT,      /* ... into an unsigned */
	K_U64,       /* ... into a uint64_t */
	K_NUM,       /* number in [lo, hi] into a double */
	K_STR,       /* the argument itself */
	K_SET,       /* no argument: the int field becomes lo */
	K_CHOICE,    /* one of names(0), names(1), ...: its index into an int */
};

struct opt {
	const char *name;
	enum kind kind;
	size_t off;                       /* the field in struct tr_opts */
	double lo, hi;
	const char *(*names)(int i);      /* K_CHOICE: i-th name, NULL past the last */
	const char *arg;                  /* the argument's name in the usage */
	const char *help;
};

static const char *model_at(int i)
{
	int n;

	for (n = 0; tr_model_names[n]; n++)
		;
	return i >= 0 && i < n ? tr_model_names[i] : NULL;
}

static const char *const schemes[] = { [TR_SCHEME_INC] = "inc", [TR_SCHEME_WA] = "wa" };

static const char *scheme_at(int i)
{
	return i >= 0 && i < 2 ? schemes[i] : NULL;
}

static const char *const scalings[] = { "off", "balanced", "each", "least-error", "headroom" };

static const char *scaling_at(int i)
{
	return i >= 0 && i < 4 ? scalings[i] : NULL;   /* headroom: through --scale */
}

const char *tr_scaling_name(const struct tr_opts *o)
{
	return scalings[o->scaling];
}

static const char *compression_at(int i)
{
	return i >= 0 ? inc_compression_name((enum inc_compression)i) : NULL;
}

static const char *schedule_at(int i)
{
	const struct tr_schedule *s = tr_schedule_at(i);

	return s ? s->name : NULL;
}

#define F(field) offsetof(struct tr_opts, field)
#define ALL 100000000

static const struct opt opts[] = {
	{ "model", K_CHOICE, F(model), 0, 0, model_at, NULL, "the network (docs/train.md)" },
	{ "data", K_STR, F(data), 0, 0, NULL, "DIR", "directory of IDX files" },
	{ "iterations", K_LONG, F(iterations), 1, ALL, NULL, "N", "iterations to train" },
	{ "batch", K_INT, F(batch), 1, 65536, NULL, "B", "samples per worker and iteration" },
	{ "lr", K_NUM, F(sgd.lr), 0, 100, NULL, "X", "learning rate" },
	{ "seed", K_U64, F(seed), 0, (double)LONG_MAX, NULL, "S",
	  "initial weights, data order and every random draw" },
	{ "scheme", K_CHOICE, F(scheme), 0, 0, scheme_at, NULL,
	  "ring all-reduce (inc) or worker-aggregator (wa)" },
	{ "compression", K_CHOICE, F(compression), 0, 0, compression_at, NULL,
	  "libinceptionn's compression mode" },
	{ "error-bound", K_UINT, F(error_bound), INC_EB_MIN, INC_EB_MAX, NULL, "N",
	  "the codec's error bound 2^-N" },
	{ "truncate", K_UINT, F(truncate), 0, 31, NULL, "BITS",
	  "drop the low BITS of every gradient value sent" },
	{ "eval-every", K_LONG, F(eval_every), 0, ALL, NULL, "N",
	  "test accuracy every N iterations (0: at the end)" },
	{ "log", K_STR, F(log), 0, 0, NULL, "FILE", "JSON-lines log (rank 0)" },
	{ "lr-step", K_LONG, F(sgd.step), 1, ALL, NULL, "N", "iterations per learning-rate step" },
	{ "lr-gamma", K_NUM, F(sgd.gamma), 0, 1, NULL, "X", "learning-rate factor per step" },
	{ "momentum", K_NUM, F(sgd.momentum), 0, 0.999999, NULL, "X", "SGD momentum" },
	{ "weight-decay", K_NUM, F(sgd.decay), 0, 1, NULL, "X", "SGD weight decay" },
	{ "check-every", K_LONG, F(check_every), 0, ALL, NULL, "K",
	  "compare the replicas' weights every K iterations (0: at the end)" },
	{ "log-every", K_LONG, F(log_every), 0, ALL, NULL, "N",
	  "loss records and progress (0: iterations / 50)" },
	{ "stats-every", K_LONG, F(stats_every), 0, ALL, NULL, "N",
	  "codec statistics of what is sent every N iterations (0: never)" },
	{ "eval-samples", K_LONG, F(eval_samples), 0, ALL, NULL, "N",
	  "test samples per evaluation (0: all)" },
	{ "threads", K_INT, F(threads), 1, 256, NULL, "N", "OpenBLAS threads per rank" },
	{ "save", K_STR, F(save), 0, 0, NULL, "FILE", "the final weights, raw float32 (rank 0)" },
	{ "save-grads", K_STR, F(save_grads), 0, 0, NULL, "FILE",
	  "worker 0's last gradient, raw float32 (schedules that sum after backward)" },
	{ "quiet", K_SET, F(quiet), 1, 0, NULL, NULL, "no progress lines" },
	{ "schedule", K_CHOICE, F(schedule), 0, 0, schedule_at, NULL,
	  "when gradients travel (docs/train.md, \"Schedules\")" },
	{ "bucket-kb", K_LONG, F(bucket_kb), 1, 4194304, NULL, "N",
	  "--schedule bucket: KiB of gradients per group" },
	{ "error-feedback", K_SET, F(error_feedback), 1, 0, NULL, NULL,
	  "keep what the lossy step dropped and send it next time" },
	{ "no-error-feedback", K_SET, F(error_feedback), 0, 0, NULL, NULL,
	  "no error feedback (default: INC_ERROR_FEEDBACK, else the mode's)" },
	{ "scaling", K_CHOICE, F(scaling), 0, 0, scaling_at, NULL,
	  "adaptive scaling of each layer's gradients (default balanced where it applies)" },
	{ "scale-ratio", K_NUM, F(scale_ratio), 1, INC_SCALE_RATIO_MAX, NULL, "R",
	  "the scaling's target compression ratio (default the library's, 8)" },
	{ "scale-step", K_INT, F(scale_step), 0, 128, NULL, "S",
	  "the scaling's exponents move at most S binades a call (default 0: any)" },
	{ "scale-patience", K_INT, F(scale_patience), 0, INC_SCALE_PATIENCE_MAX, NULL, "P",
	  "an exponent moves only when P calls in a row asked it to move the same way "
	  "(default 0: at once)" },
	{ "scale", K_INT, F(scale), 0, 30, NULL, "K",
	  "headroom scaling: each layer's largest sum per worker in [2^-(K+1), 2^-K)" },
	{ "warmup-iters", K_LONG, F(warmup_iters), 0, ALL, NULL, "N",
	  "the first N iterations uncompressed (default INC_WARMUP_ITERS, else 2 % of "
	  "--iterations with the scaling)" },
	{ "warmup-error-bound", K_UINT, F(warmup_error_bound), INC_EB_MIN, INC_EB_MAX, NULL, "E",
	  "the warm-up through the codec without feedback or scaling, values bounded by 2^-E "
	  "(default: uncompressed)" },
	{ "help", K_SET, 0, 0, 0, NULL, NULL, "this text" },
};
#define N_OPTS (int)(sizeof(opts) / sizeof(opts[0]))

/* "a, b or c" (sep ", ", last " or ") or "a|b|c" (sep "|", last "|"). */
static void join(char *buf, size_t len, const char *(*names)(int), const char *sep,
		 const char *last)
{
	size_t n = 0;
	int i, k;

	for (k = 0; names(k); k++)
		;
	buf[0] = 0;
	for (i = 0; i < k && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i == 0 ? "" : i == k - 1 ? last : sep,
				      names(i));
}

/* The integer range's ends (hi: LONG_MAX at most). */
static long ilo(const struct opt *p) { return (long)p->lo; }
static long ihi(const struct opt *p) { return p->hi >= (double)LONG_MAX ? LONG_MAX : (long)p->hi; }

void tr_opts_usage(FILE *f, int full)
{
	char line[256], item[512], arg[256];
	int i, col;

	snprintf(line, sizeof(line), "usage: inc-train");
	col = (int)strlen(line);
	fputs(line, f);
	for (i = 0; i < N_OPTS; i++) {
		const struct opt *p = &opts[i];

		if (p->kind == K_CHOICE)
			join(arg, sizeof(arg), p->names, "|", "|");
		snprintf(item, sizeof(item), " [--%s%s%s]", p->name,
			 p->kind == K_SET ? "" : " ", p->kind == K_CHOICE ? arg :
			 p->kind == K_SET ? "" : p->arg);
		if (col + (int)strlen(item) > 79) {
			fputs("\n                ", f);
			col = 16;
		}
		fputs(item, f);
		col += (int)strlen(item);
	}
	fputs("\n       inc-train report LOG... --out DIR\n", f);
	if (!full) {
		fputs("(inc-train --help: every option)\n", f);
		return;
	}
	fputc('\n', f);
	for (i = 0; i < N_OPTS; i++) {
		const struct opt *p = &opts[i];

		snprintf(item, sizeof(item), "--%s%s%s", p->name, p->arg ? " " : "",
			 p->arg ? p->arg : "");
		fprintf(f, "  %-22s %s", item, p->help);
		if (p->kind == K_LONG || p->kind == K_INT || p->kind == K_UINT || p->kind == K_U64)
			fprintf(f, " [%ld, %ld]", ilo(p), ihi(p));
		else if (p->kind == K_NUM)
			fprintf(f, " [%g, %g]", p->lo, p->hi);
		fputc('\n', f);
		if (p->kind == K_CHOICE && p->names == compression_at) {
			const struct inc_compression_info *ci;
			int k;

			for (k = 0; (ci = inc_compression_info((enum inc_compression)k)); k++)
				fprintf(f, "  %22s   %-10s %s\n", "", ci->name, ci->summary);
		} else if (p->kind == K_CHOICE && p->names == schedule_at) {
			const struct tr_schedule *s;
			int k;

			for (k = 0; (s = tr_schedule_at(k)); k++)
				fprintf(f, "  %22s   %-10s %s\n", "", s->name, s->summary);
		}
	}
	fputs("Launch several ranks with inc-run -n N, the INC_* environment, mpirun or\n"
	      "cluster/train-cluster.sh; see docs/train.md.\n", f);
}

/* One option's argument into its field; 0 or 2 after the error. */
static int set(struct tr_opts *o, const struct opt *p, const char *s)
{
	char *field = (char *)o + p->off, *end, list[256];
	double x;
	long v;
	int i;

	switch (p->kind) {
	case K_STR:
		*(const char **)(void *)field = s;
		return 0;
	case K_SET:
		*(int *)(void *)field = (int)p->lo;
		return 0;
	case K_NUM:
		errno = 0;
		x = strtod(s, &end);
		if (errno || end == s || *end || !(x >= p->lo && x <= p->hi))
			return tr_bad("--%s: '%s' is not a number in [%g, %g]", p->name, s, p->lo, p->hi);
		*(double *)(void *)field = x;
		return 0;
	case K_CHOICE:
		for (i = 0; p->names(i) && strcmp(s, p->names(i)); i++)
			;
		if (!p->names(i)) {
			join(list, sizeof(list), p->names, ", ", " or ");
			return tr_bad("--%s: '%s' is not %s", p->name, s, list);
		}
		*(int *)(void *)field = i;
		return 0;
	default:
		break;
	}
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < ilo(p) || v > ihi(p))
		return tr_bad("--%s: '%s' is not an integer in [%ld, %ld]", p->name, s, ilo(p), ihi(p));
	if (p->kind == K_LONG)
		*(long *)(void *)field = v;
	else if (p->kind == K_INT)
		*(int *)(void *)field = (int)v;
	else if (p->kind == K_UINT)
		*(unsigned *)(void *)field = (unsigned)v;
	else
		*(uint64_t *)(void *)field = (uint64_t)v;
	return 0;
}

/* The modes whose table flag at offset `flag` (a uint8_t of struct
 * inc_compression_info) is set, "a, b, c". */
static void names(char *buf, size_t len, size_t flag)
{
	const struct inc_compression_info *ci;
	size_t n = 0;
	int i;

	buf[0] = 0;
	for (i = 0; (ci = inc_compression_info((enum inc_compression)i)); i++)
		if (*((const uint8_t *)ci + flag) && n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", ci->name);
}

/* Combinations: what the scheme, the schedule and the compression mode
 * allow (their tables say), and options that would do nothing. */
static int find(const char *name);

/* --warmup-iters unless given: INC_WARMUP_ITERS, else TR_WARMUP_PERCENT of
 * the iterations where the adaptive scaling is in effect (the library's
 * defaults; docs/train.md, "Warm-up"); none where nothing is lossy. */
static int default_warmup(struct tr_opts *o)
{
	const struct inc_compression_info *c = inc_compression_info((enum inc_compression)o->compression);
	const char *env = getenv("INC_WARMUP_ITERS");
	char *end;

	o->warmup_iters = o->scaling != TR_SCALING_OFF ? o->iterations * TR_WARMUP_PERCENT / 100 : 0;
	if (env && *env) {
		errno = 0;
		o->warmup_iters = strtol(env, &end, 10);
		if (*end || errno || o->warmup_iters < 0)
			return tr_bad("INC_WARMUP_ITERS: a count of iterations >= 0, got '%s'", env);
	}
	if (!c->lossy || o->truncate)
		o->warmup_iters = 0;
	return 0;
}

static int check(struct tr_opts *o, const unsigned char *given)
{
	const struct tr_schedule *s = tr_schedule_at(o->schedule);
	const struct inc_compression_info *c = inc_compression_info((enum inc_compression)o->compression);
	char list[256];
	int applies, rc;

	if (o->scheme == TR_SCHEME_WA && !s->wa)
		return tr_bad("--schedule %s needs --scheme inc (the worker-aggregator exchange "
			      "pipelines its own segments)", s->name);
	if (c->whole_call && o->scheme == TR_SCHEME_WA)
		return tr_bad("--compression %s needs --scheme inc (sketches are summed; the "
			      "aggregator sends back weights, which are not sparse)", c->name);
	if (o->error_feedback == 1 && !s->sums)
		return tr_bad("--error-feedback does not go with --schedule %s (the exchange "
			      "sends models, not sums: there is no residual to keep)", s->name);
	if (o->error_feedback == 1 && !c->lossy && !o->truncate) {
		names(list, sizeof(list), offsetof(struct inc_compression_info, lossy));
		return tr_bad("--error-feedback needs a lossy compression (%s) or --truncate", list);
	}
	if (c->whole_call && !s->sketch)
		return tr_bad("--compression %s does not go with --schedule %s (sketches are "
			      "summed, %s exchanges models)", c->name, s->name, s->name);
	if (o->truncate && !s->sums)
		return tr_bad("--truncate does not go with --schedule %s (it exchanges models; "
			      "no gradient travels to truncate)", s->name);
	if (given[find("bucket-kb")] && !s->bucket)
		return tr_bad("--bucket-kb needs --schedule bucket (--schedule %s makes no "
			      "buckets)", s->name);
	if (o->scale >= 0 && (given[find("scale-ratio")] || given[find("scaling")]))
		return tr_bad("--scale K is the headroom scaling: it goes without --scaling and "
			      "--scale-ratio");
	if (o->scale >= 0)
		o->scaling = TR_SCALING_HEADROOM;
	applies = o->scheme == TR_SCHEME_INC && s->sums && c->error_bound && !o->truncate;
	if (!given[find("scaling")] && o->scale < 0)
		o->scaling = applies ? TR_SCALING_BALANCED : TR_SCALING_OFF;
	if (o->scaling != TR_SCALING_OFF && !applies) {
		names(list, sizeof(list), offsetof(struct inc_compression_info, error_bound));
		return tr_bad("--scaling %s, --scale and --scale-ratio need --scheme inc, a schedule "
			      "that sums, an INCEPTIONN compression (%s) and no --truncate (it moves "
			      "values into the codec's finer classes; nothing else is changed by it)",
			      tr_scaling_name(o), list);
	}
	if (given[find("scale-ratio")] && o->scaling == TR_SCALING_OFF)
		return tr_bad("--scale-ratio needs the scaling (--scaling balanced or each)");
	if (o->scale_step && o->scaling == TR_SCALING_OFF)
		return tr_bad("--scale-step needs the scaling (--scaling balanced, each or --scale K)");
	if (o->scale_patience && o->scaling == TR_SCALING_OFF)
		return tr_bad("--scale-patience needs the scaling (--scaling balanced, each or "
			      "--scale K)");
	if (given[find("warmup-iters")] && o->warmup_iters && (!c->lossy || o->truncate)) {
		names(list, sizeof(list), offsetof(struct inc_compression_info, lossy));
		return tr_bad("--warmup-iters needs a lossy compression mode (%s) and no "
			      "--truncate: its first iterations go without the library's codec",
			      list);
	}
	if (!given[find("warmup-iters")] && (rc = default_warmup(o)))
		return rc;
	if (o->warmup_error_bound && (!c->error_bound || o->truncate || !o->warmup_iters ||
				      o->warmup_error_bound < o->error_bound)) {
		names(list, sizeof(list), offsetof(struct inc_compression_info, error_bound));
		return tr_bad("--warmup-error-bound %u needs a warm-up (--warmup-iters, here %ld), an "
			      "INCEPTIONN compression (%s), no --truncate, and a bound at least "
			      "--error-bound's (%u): the warm-up's values are bounded by 2^-E",
			      o->warmup_error_bound, o->warmup_iters, list, o->error_bound);
	}
	if (o->save_grads && !s->save_grads)
		return tr_bad("--save-grads needs --schedule sync (with --schedule %s the "
			      "gradients leave during backward; there is no whole gradient "
			      "before the exchange to save)", s->name);
	return 0;
}

static int find(const char *name)
{
	int i;

	for (i = 0; i < N_OPTS && strcmp(opts[i].name, name); i++)
		;
	return i;
}

int tr_opts_parse(struct tr_opts *o, int argc, char **argv)
{
	struct option lo[N_OPTS + 1];
	unsigned char given[N_OPTS] = { 0 };
	int c, i, rc;

	*o = (struct tr_opts){
		.data = TR_DATA_DEFAULT_DIR, .iterations = 10000, .batch = 25, .seed = 1,
		.scheme = TR_SCHEME_INC, .compression = INC_COMP_NONE, .error_bound = 10,
		.check_every = 100, .stats_every = 10, .threads = 1, .bucket_kb = 512,
		.error_feedback = -1,
		.scale = -1,
		.sgd = { .lr = 0.1, .momentum = 0.9, .decay = 5e-5, .step = 2000, .gamma = 0.2 },
	};
	for (i = 0; i < N_OPTS; i++)
		lo[i] = (struct option){ opts[i].name, opts[i].kind == K_SET ? no_argument
									  : required_argument,
					 NULL, 256 + i };
	lo[N_OPTS] = (struct option){ 0, 0, 0, 0 };
	while ((c = getopt_long(argc, argv, "qh", lo, NULL)) != -1) {
		if (c == 'q' || c == 'h')      /* -q, -h: --quiet, --help */
			c = 256 + find(c == 'q' ? "quiet" : "help");
		if (c >= 256 && c < 256 + N_OPTS && !strcmp(opts[c - 256].name, "help")) {
			tr_opts_usage(stdout, 1);
			exit(0);
		}
		if (c < 256 || c >= 256 + N_OPTS) {
			tr_opts_usage(stderr, 0);
			return 2;
		}
		rc = set(o, &opts[c - 256], optarg);
		if (rc)
			return rc;
		given[c - 256] = 1;
	}
	if (optind < argc)
		return tr_bad("unexpected argument '%s' (see --help)", argv[optind]);
	if (!o->log_every)
		o->log_every = o->iterations / 50 > 0 ? o->iterations / 50 : 1;
	return check(o, given);
}

const char *tr_scheme_name(const struct tr_opts *o)
{
	return schemes[o->scheme];
}
