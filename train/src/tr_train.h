/* SPDX-License-Identifier: MIT */
/*
 * tr_train.h - what inc-train measures and how a run's counters become the
 * rows of the paper's Table II, shared by the trainer (which writes the
 * summary record of its log) and `inc-train report` (which reads logs).
 */
#ifndef TR_TRAIN_H
#define TR_TRAIN_H

#include <stdint.h>

/* Per-rank accumulators, summed over all ranks at the end of a run. Times
 * in ns; worker rows only on workers, AGG_* only on the aggregator. */
enum tr_acc {
	TR_ACC_DATA,          /* batch gather and conversion */
	TR_ACC_FORWARD,
	TR_ACC_BACKWARD,
	TR_ACC_EXCHANGE,      /* wall time of the all-reduce / WA exchange call */
	TR_ACC_UPDATE,        /* inc: SGD; wa: copying the received weights */
	TR_ACC_LIB_SUM,       /* library: adding received values (workers) */
	TR_ACC_CODEC,         /* library: software codec (all ranks) */
	TR_ACC_AGG_SUM,       /* wa: the aggregator's sum */
	TR_ACC_AGG_UPDATE,    /* wa: the aggregator's SGD on the master weights */
	TR_ACC_BYTES_SENT,    /* payload handed to TCP, all ranks */
	TR_ACC_TAG0,          /* codec statistics: values per tag (2/10/18/34 bits) */
	TR_ACC_TAG1,
	TR_ACC_TAG2,
	TR_ACC_TAG3,
	TR_ACC_CBYTES,        /* sampled gradients: stream bytes */
	TR_ACC_CRAW,          /* sampled gradients: raw bytes */
	TR_ACC_N
};

/* Table II rows, per iteration, averaged over the workers. The first six
 * add up to the iteration time; codec is part of communicate. */
enum tr_row {
	TR_ROW_DATA, TR_ROW_FORWARD, TR_ROW_BACKWARD, TR_ROW_SUM, TR_ROW_COMM,
	TR_ROW_UPDATE, TR_ROW_CODEC, TR_ROW_ITER, TR_ROW_N
};
extern const char *const tr_row_names[TR_ROW_N];

struct tr_summary {
	double row_ms[TR_ROW_N];
	double codec_ratio;       /* raw / compressed bytes of the sampled gradients */
	double share[4];          /* fraction of values per tag */
};

/* v: the summed accumulators (TR_ACC_N of them). */
void tr_summary_compute(struct tr_summary *s, const uint64_t *v, int workers,
			long iters, int wa);

/* `inc-train report LOG... --out DIR` (argv[0] = "report"). */
int tr_report_main(int argc, char **argv);

#endif
