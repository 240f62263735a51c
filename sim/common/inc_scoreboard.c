// SPDX-License-Identifier: MIT
/* inc_scoreboard.c - expected frames and statistics, compared in order
 * (see inc_scoreboard.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inc_scoreboard.h"
#include "inc_simutil.h"

#define MAX_PRINTS 50

static void q_push(struct inc_sb_queue *q, struct inc_sb_entry *e)
{
	e->next = NULL;
	if (q->tail)
		q->tail->next = e;
	else
		q->head = e;
	q->tail = e;
	q->count++;
}

static struct inc_sb_entry *q_pop(struct inc_sb_queue *q)
{
	struct inc_sb_entry *e = q->head;

	if (e) {
		q->head = e->next;
		if (!q->head)
			q->tail = NULL;
		q->count--;
	}
	return e;
}

static void entry_free(struct inc_sb_entry *e)
{
	if (e) {
		free(e->data);
		free(e);
	}
}

static void say(struct inc_scoreboard *sb, const char *fmt, unsigned long idx,
		const char *detail)
{
	if (sb->prints++ < MAX_PRINTS) {
		fprintf(stderr, "FAIL %s: ", sb->name);
		fprintf(stderr, fmt, idx);
		fprintf(stderr, "%s\n", detail ? detail : "");
	}
}

void inc_sb_init(struct inc_scoreboard *sb, const char *name)
{
	memset(sb, 0, sizeof(*sb));
	sb->name = name;
}

void inc_sb_clear(struct inc_scoreboard *sb)
{
	while (sb->out.head)
		entry_free(q_pop(&sb->out));
	while (sb->stat.head)
		entry_free(q_pop(&sb->stat));
}

void inc_sb_free(struct inc_scoreboard *sb)
{
	inc_sb_clear(sb);
}

void inc_sb_expect(struct inc_scoreboard *sb, unsigned long idx, int stat,
		   unsigned outcome, unsigned reason, size_t in_len,
		   const uint8_t *out, size_t out_len)
{
	struct inc_sb_entry *e;

	if (stat) {
		e = calloc(1, sizeof(*e));
		if (!e)
			abort();
		e->idx = idx;
		e->outcome = outcome;
		e->reason = reason;
		e->bytes_in = in_len > 0xffff ? 0xffff : (unsigned)in_len;
		e->bytes_out = (unsigned)out_len;
		q_push(&sb->stat, e);
	}
	if (out_len > 0) {
		e = calloc(1, sizeof(*e));
		if (!e || !(e->data = malloc(out_len)))
			abort();
		memcpy(e->data, out, out_len);
		e->len = out_len;
		e->idx = idx;
		e->outcome = outcome;
		e->reason = reason;
		q_push(&sb->out, e);
	}
}

void inc_sb_expect_info(struct inc_scoreboard *sb, unsigned long idx, int stat,
			const struct inc_frame_info *info, size_t in_len,
			const uint8_t *out, long r)
{
	if (r < 0) {
		sb->frames_bad++;
		say(sb, "model error on frame %lu", idx, NULL);
		return;
	}
	inc_sb_expect(sb, idx, stat, info->outcome, info->reason, in_len, out,
		      (size_t)r);
}

int inc_sb_frame(struct inc_scoreboard *sb, const uint8_t *data, size_t len,
		 unsigned long *idx)
{
	struct inc_sb_entry *e = q_pop(&sb->out);
	char detail[64];
	int ok;

	if (!e) {
		snprintf(detail, sizeof(detail), " (%zu bytes)", len);
		say(sb, "unexpected output frame after frame %lu", 0, detail);
		sb->frames_bad++;
		return 0;
	}
	if (idx)
		*idx = e->idx;
	ok = inc_sim_frame_eq(sb->name, e->idx, e->data, e->len, data, len);
	if (!ok) {
		snprintf(detail, sizeof(detail), " differs (model: %s/%s)",
			 inc_outcome_name((enum inc_outcome)e->outcome),
			 inc_reason_name((enum inc_reason)e->reason));
		say(sb, "frame %lu", e->idx, detail);
	}
	if (ok)
		sb->frames_ok++;
	else
		sb->frames_bad++;
	entry_free(e);
	return ok;
}

int inc_sb_stat(struct inc_scoreboard *sb, unsigned outcome, unsigned reason,
		unsigned bytes_in, unsigned bytes_out)
{
	struct inc_sb_entry *e = q_pop(&sb->stat);
	char detail[160];
	int ok;

	if (!e) {
		say(sb, "unexpected statistics pulse (%lu records matched)",
		    sb->stats_ok + sb->stats_bad, NULL);
		sb->stats_bad++;
		return 0;
	}
	ok = outcome == e->outcome && reason == e->reason && bytes_in == e->bytes_in &&
	     bytes_out == e->bytes_out;
	if (e->reason < INC_R_COUNT)
		sb->reasons[e->reason]++;
	if (e->outcome < INC_OUT_COUNT)
		sb->outcomes[e->outcome]++;
	if (ok) {
		sb->stats_ok++;
	} else {
		snprintf(detail, sizeof(detail),
			 " statistics %s/%s %u->%u, model %s/%s %u->%u",
			 inc_outcome_name((enum inc_outcome)outcome),
			 inc_reason_name((enum inc_reason)reason), bytes_in, bytes_out,
			 inc_outcome_name((enum inc_outcome)e->outcome),
			 inc_reason_name((enum inc_reason)e->reason), e->bytes_in,
			 e->bytes_out);
		say(sb, "frame %lu", e->idx, detail);
		sb->stats_bad++;
	}
	entry_free(e);
	return ok;
}
