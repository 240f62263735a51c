/* SPDX-License-Identifier: MIT */
/*
 * tr_opts.h - inc-train's command line: one table of options (name, field,
 * range, help) from which the parser, the usage text and the errors are
 * made, and the checks that refuse combinations that would do nothing.
 * Names of compression modes come from libinceptionn's compression table,
 * names of schedules from the schedule table (tr_schedules.h), names of
 * models from the model table (tr_model.h).
 */
#ifndef TR_OPTS_H
#define TR_OPTS_H

#include <stdint.h>
#include <stdio.h>

#include "tr_model.h"
#include "tr_optim.h"

enum tr_scheme { TR_SCHEME_INC, TR_SCHEME_WA };

struct tr_opts {
	int model;                /* index in tr_model_names */
	const char *data;
	long iterations;
	int batch;
	uint64_t seed;
	int scheme;               /* enum tr_scheme */
	int compression;          /* enum inc_compression */
	unsigned error_bound;
	unsigned truncate;        /* LSBs dropped from each sent gradient value */
	long eval_every;          /* 0: only at the end */
	const char *log;
	const char *save;         /* final weights, raw float32 (rank 0) */
	const char *save_grads;   /* last gradient of the first worker, raw float32 */
	long check_every;         /* replica digest check period */
	long log_every;           /* progress/log period (0: iterations / 50) */
	long stats_every;         /* codec statistics sample period */
	long eval_samples;        /* test samples used (0: all) */
	int threads;
	int quiet;
	int schedule;             /* index in the schedule table */
	long bucket_kb;           /* bucket schedule: group size, KiB of gradients */
	int error_feedback;       /* -1 default (INC_ERROR_FEEDBACK, else the mode's), 0, 1 */
	int scaling;              /* enum tr_scaling: the library's adaptive scaling */
	int scale;                /* -1, or K: the headroom policy (--scale K) */
	double scale_ratio;       /* the target ratio of balanced / each (0: the library's) */
	int scale_step;           /* the most an exponent moves per call (0: any) */
	int scale_patience;       /* calls in a row that must ask an exponent to move (0: one) */
	long warmup_iters;        /* the first N iterations exchange lossless sums */
	unsigned warmup_error_bound; /* 0, or E: those iterations through the plain
				     * codec, values bounded by 2^-E */
	struct tr_sgd sgd;
};

/* The default warm-up where the adaptive scaling is in effect: this share
 * of --iterations, per cent (docs/results.md, "Equal accuracy by default"). */
#define TR_WARMUP_PERCENT 2

/* --scaling: the library's adaptive scaling policies (docs/train.md,
 * "Scaling"). The default is balanced where it applies (--scheme inc, a
 * schedule that sums, an INCEPTIONN compression, no --truncate), else off. */
enum tr_scaling {
	TR_SCALING_OFF = 0,
	TR_SCALING_BALANCED,      /* inc_scale_create */
	TR_SCALING_EACH,          /* inc_scale_create_each */
	TR_SCALING_LEAST_ERROR,   /* inc_scale_create_least_error */
	TR_SCALING_HEADROOM,      /* inc_scale_create_headroom (--scale K) */
};

/* Parse argv into o (defaults first). Returns 0, 2 after printing one line
 * (or the usage) to stderr, or exits 0 after --help. */
int tr_opts_parse(struct tr_opts *o, int argc, char **argv);
/* The synopsis; full: and a line per option (--help). */
void tr_opts_usage(FILE *f, int full);

/* Inline: the schedules' files name the model (tr_config_hash) without
 * calling into the parser, which reads the schedule table. */
static inline const char *tr_model_name(const struct tr_opts *o)
{
	return tr_model_names[o->model];
}
const char *tr_scheme_name(const struct tr_opts *o);
const char *tr_scaling_name(const struct tr_opts *o);

#endif
