// SPDX-License-Identifier: MIT
/* tr_timer.c - the Table II timer (see tr_timer.h). */
#include "tr_timer.h"
#include "tr_util.h"

void tr_timer_start(struct tr_timer *t, uint64_t *acc, int count)
{
	*t = (struct tr_timer){ .acc = acc, .count = count };
	t->start = t->last = tr_now_ns();
}

void tr_timer_lap(struct tr_timer *t, enum tr_acc row)
{
	uint64_t now = tr_now_ns();

	if (t->count)
		t->acc[row] += now - t->last - t->pending;
	t->excluded += t->pending;
	t->pending = 0;
	t->last = now;
}

void tr_timer_exclude(struct tr_timer *t, uint64_t ns)
{
	t->pending += ns;
}

void tr_timer_skip(struct tr_timer *t)
{
	uint64_t now = tr_now_ns();

	t->excluded += now - t->last;
	t->last = now;
}

uint64_t tr_timer_end(struct tr_timer *t)
{
	return t->last - t->start - t->excluded;
}
