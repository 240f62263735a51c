/* SPDX-License-Identifier: MIT */
/*
 * tr_report.h - the log reader of `inc-train report` on its own, for the
 * fuzz target (train/tests/fuzz_report_log.c) and tests.
 */
#ifndef TR_REPORT_H
#define TR_REPORT_H

#include <stddef.h>
#include <stdio.h>

/*
 * Read one inc-train JSON-lines log from f (name: the file name used in
 * messages) with every check `inc-train report` makes. Returns 0, or -1
 * with a one-line message ("NAME:LINE: field workers: ...") in err.
 */
int tr_report_check_log(FILE *f, const char *name, char *err, size_t len);

#endif
