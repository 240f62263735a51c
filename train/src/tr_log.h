/* SPDX-License-Identifier: MIT */
/*
 * tr_log.h - the progress line and the JSON-lines log of a run
 * (docs/train.md, "What is measured").
 */
#ifndef TR_LOG_H
#define TR_LOG_H

#include "tr_run.h"

void tr_log_config(struct run *r);
/* The loss record and, on rank 0, the progress line. */
void tr_log_progress(struct run *r, long done, double loss);
void tr_log_eval(struct run *r, long it, double acc, double tloss);
/* Sums the counters over ranks (collective) and writes the summary record. */
int tr_log_summary(struct run *r, long iters, double acc, double tloss, double loss,
		   uint64_t digest);

#endif
