/* SPDX-License-Identifier: MIT */
/*
 * tr_timer.h - the Table II timer of one iteration (tr_timer.c): laps in
 * order (data, forward, backward, ...), each added to its row of the
 * run's counters (tr_train.h's enum tr_acc); time spent measuring is left
 * out of the rows and of the training time. Rows are counted only on a
 * worker (count = 0 on the aggregator).
 */
#ifndef TR_TIMER_H
#define TR_TIMER_H

#include <stdint.h>

#include "tr_train.h"

struct tr_timer {
	uint64_t *acc;
	uint64_t start, last, excluded, pending;
	int count;
};

void tr_timer_start(struct tr_timer *t, uint64_t *acc, int count);
/* The time since the last lap, less what was excluded in it, to row. */
void tr_timer_lap(struct tr_timer *t, enum tr_acc row);
/* ns of measurement inside the current lap (not counted). */
void tr_timer_exclude(struct tr_timer *t, uint64_t ns);
/* The time since the last lap was measurement: not counted. */
void tr_timer_skip(struct tr_timer *t);
/* The iteration's training time: the start to the last lap, less
 * measurement (so the rows add up to it). */
uint64_t tr_timer_end(struct tr_timer *t);

#endif
