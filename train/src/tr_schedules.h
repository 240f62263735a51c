/* SPDX-License-Identifier: MIT */
/*
 * tr_schedules.h - the communication schedules of inc-train as a table
 * (docs/train.md, "Schedules"). An entry names the schedule, its set-up,
 * its iteration and its evaluation, and what it allows; the trainer asks
 * the entry, never the name. A new schedule is one entry (tr_schedules.c)
 * and one file with its functions.
 */
#ifndef TR_SCHEDULES_H
#define TR_SCHEDULES_H

struct run;

struct tr_schedule {
	const char *name;
	const char *summary;      /* one line for the usage text */
	/* after the communicator, model and log exist; 0 or an exit status */
	int (*setup)(struct run *r);
	/* one iteration (time counted into the run's counters) */
	int (*iteration)(struct run *r, long it);
	/* test accuracy and loss, collective; NULL: tr_evaluate */
	int (*evaluate)(struct run *r, double *acc, double *loss);
	unsigned wa : 1;          /* runs with --scheme wa */
	unsigned sketch : 1;      /* the whole-call (sketch) modes */
	unsigned identical : 1;   /* replicas stay bit-identical (checked) */
	unsigned sums : 1;        /* gradients are summed: truncation, error feedback apply */
	unsigned save_grads : 1;  /* --save-grads */
	unsigned overlapped : 1;  /* the library's sums run on the progress thread */
	unsigned rotate : 1;      /* data slots rotate along the ring (tr_shard) */
	unsigned bucket : 1;      /* reads --bucket-kb */
};

/* Entry i, NULL past the last; the entry named s, or NULL. */
const struct tr_schedule *tr_schedule_at(int i);
int tr_schedule_find(const char *s);

/* The entries' functions (one file each). */
int tr_sync_iteration(struct run *r, long it);
int tr_wfbp_setup(struct run *r);
int tr_bucket_setup(struct run *r);
int tr_mgwfbp_setup(struct run *r);
int tr_layerwise_iteration(struct run *r, long it);
int tr_gossip_setup(struct run *r);
int tr_gossip_iteration(struct run *r, long it);
int tr_gossip_evaluate(struct run *r, double *acc, double *loss);

#endif
