// SPDX-License-Identifier: MIT
/*
 * tr_schedules.c - the schedule table. Order is the --schedule list's;
 * sync (the first) is the default.
 */
#include <string.h>

#include "tr_schedules.h"

static const struct tr_schedule schedules[] = {
	{ .name = "sync", .summary = "one all-reduce of all gradients after backward",
	  .iteration = tr_sync_iteration,
	  .wa = 1, .sketch = 1, .identical = 1, .sums = 1, .save_grads = 1 },
	{ .name = "wfbp", .summary = "one all-reduce per layer, issued as backward completes it",
	  .setup = tr_wfbp_setup, .iteration = tr_layerwise_iteration,
	  .sketch = 1, .identical = 1, .sums = 1, .overlapped = 1 },
	{ .name = "bucket", .summary = "layers merged into groups of --bucket-kb KiB",
	  .setup = tr_bucket_setup, .iteration = tr_layerwise_iteration,
	  .sketch = 1, .identical = 1, .sums = 1, .overlapped = 1, .bucket = 1 },
	{ .name = "mgwfbp", .summary = "the merge with the least predicted time (MG-WFBP), measured",
	  .setup = tr_mgwfbp_setup, .iteration = tr_layerwise_iteration,
	  .sketch = 1, .identical = 1, .sums = 1, .overlapped = 1 },
	{ .name = "gossip", .summary = "GossipGraD: local steps, models averaged with a partner",
	  .setup = tr_gossip_setup, .iteration = tr_gossip_iteration,
	  .evaluate = tr_gossip_evaluate, .rotate = 1 },
};

const struct tr_schedule *tr_schedule_at(int i)
{
	return i >= 0 && (size_t)i < sizeof(schedules) / sizeof(schedules[0]) ? &schedules[i]
									    : NULL;
}

int tr_schedule_find(const char *s)
{
	int i;

	for (i = 0; tr_schedule_at(i); i++)
		if (!strcmp(s, schedules[i].name))
			return i;
	return -1;
}
