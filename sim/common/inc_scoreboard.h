/* SPDX-License-Identifier: MIT */
/*
 * inc_scoreboard.h - the one scoreboard of the testbenches. A bench queues,
 * for every frame it sends, what the model says must come out (the output
 * frame, if any, and the statistics record), and hands the scoreboard each
 * frame and statistics pulse the RTL produces; the scoreboard compares them
 * in order, byte for byte, counts a check for each, and on a mismatch
 * prints the test name, frame index, first differing byte offset with the
 * expected and actual bytes, and dumps both frames (inc_sim_frame_eq).
 * Any backend that produces frames in order (a Verilated engine, the
 * offload top, a live-traffic switch, a wider variant) uses it the same way.
 * The bench adds the scoreboard's counts to its own at the end
 * (inc_sb_counts + inc_test_add), so its last line "N passed, N failed"
 * includes every comparison.
 */
#ifndef INC_SCOREBOARD_H
#define INC_SCOREBOARD_H

#include <stddef.h>
#include <stdint.h>

#include "inc_model.h"

#ifdef __cplusplus
extern "C" {
#endif

struct inc_sb_entry {
	struct inc_sb_entry *next;
	unsigned long idx;          /* the bench's frame index */
	unsigned outcome, reason;   /* statistics record */
	unsigned bytes_in, bytes_out;
	uint8_t *data;              /* expected output frame */
	size_t len;
};

struct inc_sb_queue {
	struct inc_sb_entry *head, *tail;
	size_t count;
};

struct inc_scoreboard {
	const char *name;
	struct inc_sb_queue out;    /* expected output frames */
	struct inc_sb_queue stat;   /* expected statistics records */
	unsigned long frames_ok, frames_bad, stats_ok, stats_bad;
	unsigned long outcomes[INC_OUT_COUNT], reasons[INC_R_COUNT]; /* of the records compared */
	unsigned prints;            /* mismatch messages printed so far */
};

void inc_sb_init(struct inc_scoreboard *sb, const char *name);
void inc_sb_free(struct inc_scoreboard *sb);
/* Forget everything queued (after a reset). */
void inc_sb_clear(struct inc_scoreboard *sb);

/* Queue the model's verdict on frame idx: an output frame when out_len > 0
 * (out copied), a statistics record when stat is set. The record's byte
 * count in saturates at 0xffff, as the RTL's does. */
void inc_sb_expect(struct inc_scoreboard *sb, unsigned long idx, int stat,
		   unsigned outcome, unsigned reason, size_t in_len,
		   const uint8_t *out, size_t out_len);
/* The same from the model's frame info and result (r < 0: model error,
 * counted as a failed check). */
void inc_sb_expect_info(struct inc_scoreboard *sb, unsigned long idx, int stat,
			const struct inc_frame_info *info, size_t in_len,
			const uint8_t *out, long r);

/* An output frame arrived: compare it with the next expected one. Returns
 * 1 when equal; on a mismatch (or an unexpected frame) reports and returns
 * 0. *idx (may be NULL) gets the expected frame's index. */
int inc_sb_frame(struct inc_scoreboard *sb, const uint8_t *data, size_t len,
		 unsigned long *idx);
/* A statistics pulse arrived: compare it with the next expected record. */
int inc_sb_stat(struct inc_scoreboard *sb, unsigned outcome, unsigned reason,
		unsigned bytes_in, unsigned bytes_out);

/* Frames / records still expected. */
static inline int inc_sb_pending(const struct inc_scoreboard *sb)
{
	return sb->out.count != 0 || sb->stat.count != 0;
}
/* The oldest expected statistics record (NULL: none). */
static inline const struct inc_sb_entry *inc_sb_next_stat(const struct inc_scoreboard *sb)
{
	return sb->stat.head;
}
/* Checks made: passed and failed. */
static inline void inc_sb_counts(const struct inc_scoreboard *sb,
				 unsigned long *pass, unsigned long *fail)
{
	*pass = sb->frames_ok + sb->stats_ok;
	*fail = sb->frames_bad + sb->stats_bad;
}

#ifdef __cplusplus
}
#endif

#endif
