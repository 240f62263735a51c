/* SPDX-License-Identifier: MIT */
/*
 * inc_test.h - the minimal check framework of the C tests. Each test
 * program counts checks and ends with inc_test_done(), which prints
 * "N passed, N failed" as its last line and returns the exit status.
 */
#ifndef INC_TEST_H
#define INC_TEST_H

#include <stdio.h>
#include <stdatomic.h>

static atomic_ulong inc_test_passed, inc_test_failed;
static unsigned inc_test_fail_prints;

/* Record one check; print the first 50 failures with their location. */
#define CHECK(cond, ...)                                                     \
	do {                                                                 \
		if (cond) {                                                  \
			atomic_fetch_add(&inc_test_passed, 1);               \
		} else {                                                     \
			atomic_fetch_add(&inc_test_failed, 1);               \
			if (inc_test_fail_prints++ < 50) {                   \
				fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, \
					__LINE__, #cond);                    \
				fprintf(stderr, __VA_ARGS__);                \
				fputc('\n', stderr);                         \
			}                                                    \
		}                                                            \
	} while (0)

/* Add counts gathered elsewhere (e.g. per thread). */
static inline void inc_test_add(unsigned long pass, unsigned long fail)
{
	atomic_fetch_add(&inc_test_passed, pass);
	atomic_fetch_add(&inc_test_failed, fail);
}

static inline int inc_test_done(void)
{
	unsigned long p = atomic_load(&inc_test_passed);
	unsigned long f = atomic_load(&inc_test_failed);

	fflush(stderr);
	printf("%lu passed, %lu failed\n", p, f);
	return f ? 1 : 0;
}

#endif
