// SPDX-License-Identifier: MIT
/*
 * fuzz_report_log.c - libFuzzer target: the log reader of `inc-train
 * report` (tr_report_check_log: JSON lines, every field's type and range)
 * on arbitrary bytes. It must return 0 or -1 with a message, never crash,
 * leak or read out of bounds, and take time proportional to the input.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tr_report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512];
	FILE *f;
	int rc;

	if (size == 0)
		return 0;
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	err[0] = '\0';
	rc = tr_report_check_log(f, "fuzz.json", err, sizeof(err));
	fclose(f);
	if (rc != 0 && (rc != -1 || !err[0] || !memchr(err, '\0', sizeof(err))))
		__builtin_trap();   /* a refusal always says why */
	return 0;
}
