/* SPDX-License-Identifier: MIT */
/*
 * inc_simutil.h - comparison and dump helpers of the testbenches. The
 * pass/fail counting is tests/common/inc_test.h (CHECK, inc_test_done: the
 * last line is "N passed, N failed").
 */
#ifndef INC_SIMUTIL_H
#define INC_SIMUTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Hex dump of len bytes (16 a line, offsets on the left) to out. */
void inc_sim_hexdump(FILE *out, const char *title, const uint8_t *p, size_t len);

/*
 * Compare one frame with its expectation. Returns 1 when equal. Otherwise
 * (for the first max_dumps mismatches of a run) prints the test name, frame
 * index, first differing byte offset with the expected and actual bytes
 * (or the lengths), and dumps both frames to stderr; returns 0.
 */
int inc_sim_frame_eq(const char *test, unsigned long idx, const uint8_t *exp,
		     size_t exp_len, const uint8_t *act, size_t act_len);

/* Parse "+name=value" / "+name" plusargs: value or def. */
const char *inc_sim_arg(int argc, char **argv, const char *name, const char *def);
long inc_sim_arg_long(int argc, char **argv, const char *name, long def);

#ifdef __cplusplus
}
#endif

#endif
