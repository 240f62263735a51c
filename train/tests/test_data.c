// SPDX-License-Identifier: MIT
/*
 * test_data.c - the data order of tr_data.c (tr_shard): for several set
 * sizes, worker counts and batch sizes, with and without gossip's
 * rotation,
 *   - the workers' batches of one iteration are disjoint;
 *   - every epoch (n consecutive global positions) holds every sample
 *     exactly once, also when an epoch ends inside a batch;
 *   - a single process with batch workers*batch sees exactly the union of
 *     the workers' batches, iteration by iteration;
 *   - the same seed gives the same order, another seed another one.
 * Last line "N passed, N failed".
 */
#include <stdlib.h>
#include <string.h>

#include "inc_test.h"
#include "tr_data.h"

/* Iterations it0..it1 of all workers: every sample at most once within an
 * iteration, and counts per sample into cnt. */
static void one_config(uint32_t n, int workers, int batch, int rotate)
{
	struct tr_shard s, one;
	uint8_t *seen = calloc(n, 1);
	uint32_t *cnt = calloc(n, sizeof(uint32_t));
	long iters = (long)((3ull * n + (uint64_t)workers * batch - 1) / ((uint64_t)workers * batch));
	long it, bad_disjoint = 0, bad_union = 0;
	uint64_t p = 0, epoch_bad = 0;
	uint32_t i;
	int w, k;

	if (!seen || !cnt || tr_shard_init(&s, n, 11, workers, batch, rotate) ||
	    tr_shard_init(&one, n, 11, 1, workers * batch, 0)) {
		CHECK(0, "out of memory");
		return;
	}
	for (it = 0; it < iters; it++) {
		uint32_t *mine = malloc((size_t)workers * batch * sizeof(uint32_t));
		uint32_t *all = malloc((size_t)workers * batch * sizeof(uint32_t));

		if (!mine || !all) {
			CHECK(0, "out of memory");
			free(mine);
			free(all);
			break;
		}
		for (w = 0; w < workers; w++)
			for (k = 0; k < batch; k++)
				mine[w * batch + k] = tr_shard_sample(&s, it, w, k);
		/* disjoint within the iteration (a set smaller than one
		 * iteration's batches wraps into the next epoch: skip) */
		if ((uint64_t)workers * batch <= n) {
			memset(seen, 0, n);
			for (k = 0; k < workers * batch; k++) {
				if (seen[mine[k]] && (uint64_t)(it + 1) * workers * batch / n ==
				    (uint64_t)it * workers * batch / n)
					bad_disjoint++;
				seen[mine[k]] = 1;
			}
		}
		/* the one process's batch is the same multiset */
		for (k = 0; k < workers * batch; k++)
			all[k] = tr_shard_sample(&one, it, 0, k);
		for (k = 0; k < workers * batch; k++) {
			int j;

			for (j = 0; j < workers * batch && all[j] != mine[k]; j++)
				;
			if (j == workers * batch)
				bad_union++;
			else
				all[j] = UINT32_MAX;
		}
		free(mine);
		free(all);
	}
	/* epochs: global positions in order, n at a time */
	for (p = 0; p + n <= (uint64_t)iters * workers * batch; p += n) {
		memset(cnt, 0, n * sizeof(uint32_t));
		for (i = 0; i < n; i++)
			cnt[tr_sample_at(&s, p + i)]++;
		for (i = 0; i < n; i++)
			epoch_bad += cnt[i] != 1;
	}
	CHECK(bad_disjoint == 0, "n %u, %d workers x %d%s: %ld samples twice in one iteration", n,
	      workers, batch, rotate ? " rotating" : "", bad_disjoint);
	CHECK(epoch_bad == 0, "n %u, %d workers x %d%s: %lu samples not exactly once per epoch", n,
	      workers, batch, rotate ? " rotating" : "", (unsigned long)epoch_bad);
	CHECK(bad_union == 0, "n %u, %d workers x %d%s: %ld samples not in one process's batch", n,
	      workers, batch, rotate ? " rotating" : "", bad_union);
	/* every worker's shard over an epoch: the epoch's positions split
	 * among the workers without overlap (counts summed above are 1) and
	 * each worker's positions within an epoch distinct */
	for (w = 0; w < workers; w++) {
		long dup = 0;

		memset(cnt, 0, n * sizeof(uint32_t));
		for (it = 0; (uint64_t)(it + 1) * workers * batch <= n; it++)
			for (k = 0; k < batch; k++)
				dup += cnt[tr_shard_sample(&s, it, w, k)]++ != 0;
		CHECK(dup == 0, "n %u, worker %d of %d: %ld repeats within the first epoch", n, w,
		      workers, dup);
	}
	tr_shard_free(&s);
	tr_shard_free(&one);
	free(seen);
	free(cnt);
}

int main(void)
{
	static const struct { uint32_t n; int workers, batch; } cf[] = {
		{ 1000, 4, 25 }, { 1000, 3, 25 }, { 997, 4, 25 }, { 60, 1, 7 },
		{ 100, 5, 9 }, { 50, 4, 20 }, { 6000, 7, 64 },
	};
	struct tr_shard a, b;
	size_t c;
	int i, same = 1, differ = 0;

	for (c = 0; c < sizeof(cf) / sizeof(cf[0]); c++) {
		one_config(cf[c].n, cf[c].workers, cf[c].batch, 0);
		one_config(cf[c].n, cf[c].workers, cf[c].batch, 1);
	}
	if (tr_shard_init(&a, 500, 3, 2, 10, 0) || tr_shard_init(&b, 500, 3, 2, 10, 0))
		return 1;
	for (i = 0; i < 1500; i++)
		same &= tr_sample_at(&a, (uint64_t)i) == tr_sample_at(&b, (uint64_t)i);
	tr_shard_free(&b);
	if (tr_shard_init(&b, 500, 4, 2, 10, 0))
		return 1;
	for (i = 0; i < 500; i++)
		differ += tr_sample_at(&a, (uint64_t)i) != tr_sample_at(&b, (uint64_t)i);
	CHECK(same, "the same seed gives another order");
	CHECK(differ > 400, "seeds 3 and 4 differ at only %d of 500 positions", differ);
	tr_shard_free(&a);
	tr_shard_free(&b);
	return inc_test_done();
}
