/* SPDX-License-Identifier: MIT */
/*
 * tr_run.h - the state of one inc-train run, by concern, and the steps the
 * schedules are made of (tr_run.c): a worker's computation, the update,
 * the gradients on their way out (truncation, error feedback, codec
 * statistics), the sums over ranks, evaluation. The steps lap the Table II
 * timer (tr_timer.h).
 */
#ifndef TR_RUN_H
#define TR_RUN_H

#include <stdint.h>
#include <stdio.h>

#include "inceptionn/inceptionn.h"
#include "tr_data.h"
#include "tr_model.h"
#include "tr_opts.h"
#include "tr_plan.h"
#include "tr_schedules.h"
#include "tr_timer.h"
#include "tr_train.h"

/* The ranks: communicator, who is who, the all-reduce options of the run. */
struct tr_ranks {
	struct inc_comm *comm;    /* NULL: one process */
	int rank, size;
	int workers;              /* ranks that compute gradients */
	int worker;               /* this rank's worker index, -1: aggregator */
	struct inc_allreduce_opts ar;
	/* --warmup-iters: while warm, ar is lossless and the run's own options
	 * wait in ar_after (tr_warmup) */
	struct inc_allreduce_opts ar_after;
	int warm;
	int warm_exp;             /* --warmup-error-bound: the warm-up's scale_exp, 0 none */
};

/* The training and test sets, the data order, one batch. */
struct tr_data {
	struct tr_dataset train, test;
	struct tr_shard shard;
	float *x;                 /* one batch of inputs */
	uint8_t *y;
};

/* What the update carries from iteration to iteration. */
struct tr_step {
	float *mom;               /* momentum (inc: every rank; wa: aggregator) */
	float rate;               /* learning rate of the current iteration */
	int ef;                   /* error feedback in effect */
	float *res;               /* its residual, one per gradient value (slices per group) */
	/* adaptive scaling: one library state per call site (sync: site 0,
	 * the whole model; layer-wise: one per group), and its range */
	struct inc_scale *scale[TR_MAX_LAYERS];
	size_t scale_lo[TR_MAX_LAYERS], scale_hi[TR_MAX_LAYERS];
	size_t scale_part_end[TR_MAX_LAYERS][TR_MAX_LAYERS];   /* absolute ends of its parts */
};

/* Measurement scratch. */
struct tr_scratch {
	float *sent;              /* codec statistics of what is sent: gradient + residual */
	uint8_t *cstream;         /* codec statistics: the compressed stream */
};

/* Per-rank counters, summed over ranks at the end (tr_train.h names the
 * fields). */
struct tr_counters {
	uint64_t acc[TR_ACC_N];
	uint64_t train_ns;        /* time inside iterations (no eval/log/check) */
	double last_loss;         /* this worker's loss of the last iteration */
};

/* MG-WFBP's measured inputs (tr_calib.c). */
#define TR_CAL_SIZES 7
struct tr_calib {
	double x[TR_CAL_SIZES], y[TR_CAL_SIZES];   /* the measured T_ar points */
};

/* Layer-wise schedules: the learnable layers in backward order, the plan's
 * groups (parameter ranges), the group each layer completes, and the
 * requests in flight during backward. */
struct tr_plan {
	int nl;
	int lidx[TR_PLAN_MAX];
	int ngroups;
	size_t grp_lo[TR_PLAN_MAX], grp_hi[TR_PLAN_MAX];
	int grp_of_layer[TR_MAX_LAYERS];
	struct inc_request *req[TR_PLAN_MAX];
	int issue_rc;             /* first error issuing a request this iteration */
	int stats_now;            /* sample codec statistics in this backward */
	struct tr_timer *timer;   /* this iteration's (the hook's measurement is left out) */
	double predicted_ms;      /* mgwfbp: predicted iteration time */
	struct tr_calib cal;
};

/* Gossip: the partner's weights, the last evaluation's extras. */
struct tr_gossip {
	float *peer;
	double acc_rank0, spread;
};

struct run {
	struct tr_opts o;
	const struct tr_schedule *sched;
	struct tr_ranks c;
	struct tr_model m;
	struct tr_data d;
	struct tr_step s;
	struct tr_scratch scratch;
	struct tr_counters n;
	struct tr_plan plan;
	struct tr_gossip gossip;
	FILE *log;
};

/* Iteration it's exchange options: the first --warmup-iters iterations
 * send lossless sums (no codec, residual or scaling; their codec
 * statistics are not sampled), then the run's own. Called before each
 * iteration. */
void tr_warmup(struct run *r, long it);
/* One line "rank R: what: the library's error"; returns 1. */
int tr_fail_comm(const struct run *r, const char *what, int rc);
/* Sum n counters over all ranks exactly. 0 or a library error. */
int tr_sum_u64(const struct run *r, uint64_t *v, int n);
/* Do all ranks hold the same h? 1 equal, 0 different, or a library error. */
int tr_agree(const struct run *r, uint64_t h);
/* Everything that must be equal on every rank, hashed. */
uint64_t tr_config_hash(const struct run *r);

/* A worker's computation of iteration it: its batch, forward, backward
 * (with the hook of a layer-wise schedule, which truncates per group, or
 * else the truncation of all gradients), timed into t. */
void tr_compute(struct run *r, long it, void (*hook)(void *, int), struct tr_timer *t);
/* inc: the summed gradients (truncated again, as the all-gather carried
 * them) into SGD; the time before it is the exchange lap. */
void tr_sgd_step(struct run *r, struct tr_timer *t);
/* Truncation of the outgoing gradients [off, off + n), with error feedback. */
void tr_truncate_sent(struct run *r, size_t off, size_t n);
/* The adaptive scaling's state of call site `site` (0..TR_MAX_LAYERS-1),
 * which sends [lo, hi): its layers are the state's parts. *out NULL when
 * the run does not scale. 0 or a library error. */
int tr_scale_for(struct run *r, int site, size_t lo, size_t hi, struct inc_scale **out);
void tr_truncate_values(float *v, size_t n, unsigned bits);
/* Table III: how the codec encodes v[off, off + n) (with error feedback:
 * plus the residual; with the scaling: times call site site's exponents,
 * site -1: none), into the counters. */
void tr_codec_stats(struct run *r, const float *v, size_t off, size_t n, int site);
/* Test accuracy and loss of the current weights, summed over ranks. */
int tr_evaluate(struct run *r, double *acc, double *loss);
/* n floats as raw float32 into path; 0 or 1 after one line. */
int tr_save_floats(const char *path, const float *v, size_t n);

/* MG-WFBP's inputs measured on this communicator (tr_calib.c), for the
 * learnable layers of the run's plan (p->nl, p->lidx): in's times, sizes
 * and line, *t_other the rest of an iteration (data, forward, update), ms;
 * the T_ar points into the plan's struct tr_calib. Collective: 0 or a
 * library error. */
int tr_calibrate(struct run *r, struct tr_plan_in *in, double *t_other);

#endif
