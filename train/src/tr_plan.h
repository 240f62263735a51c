/* SPDX-License-Identifier: MIT */
/*
 * tr_plan.h - the planners of inc-train's communication schedules:
 * which layers' gradients travel together, and when (docs/train.md,
 * "Schedules"); gossip's partners; the line fit of the measured costs.
 * Pure functions (tr_plan.c); the schedules' table is tr_schedules.h.
 *
 * A plan cuts the L learnable layers, taken in backward order (k = 0 is the
 * last layer, whose gradients backward produces first), into consecutive
 * groups; a group's all-reduce starts once backward has produced its last
 * layer k and the previous group's all-reduce has ended (one communicator
 * runs one call at a time). cut[k] = 1: a group ends at layer k; cut[L-1]
 * is always 1. sync is one group started after backward; wfbp cuts after
 * every layer; bucket fills groups up to a byte size; mgwfbp is the plan
 * with the least predicted time under the MG-WFBP paper's cost model.
 */
#ifndef TR_PLAN_H
#define TR_PLAN_H

#include <stddef.h>
#include <stdint.h>

#define TR_PLAN_MAX 16

/* The cost model (MG-WFBP paper, Section II-D and III): backward time
 * tb[k] of each layer in backward order, its gradient values p[k], and the
 * all-reduce time T_ar(M) = a + b*M of M values. Times in any one unit. */
struct tr_plan_in {
	int L;
	double tb[TR_PLAN_MAX];
	double p[TR_PLAN_MAX];
	double a, b;
};

/* Time from the start of backward until the last all-reduce of plan cut
 * ends. */
double tr_plan_time(const struct tr_plan_in *in, const int *cut);

/* The optimal plan: exact dynamic programme over the last group's start
 * (the end time of a plan is non-decreasing in the end of its previous
 * groups, so the best plan for layers 0..e extends a best plan for
 * 0..s-1). Fills cut, returns its time. O(L^2). */
double tr_plan_optimal(const struct tr_plan_in *in, int *cut);

/* The paper's Algorithm 1 (Theorem 1: merge layer l into l-1 while
 * tau_b[l-2] - tau_c[l] < a, from the top layer down, recomputing the
 * communication start times after every merge). Fills cut, returns the
 * plan's time. */
double tr_plan_mgwfbp_paper(const struct tr_plan_in *in, int *cut);

/* Every one of the 2^(L-1) plans (for tests; L <= 16). */
double tr_plan_brute(const struct tr_plan_in *in, int *cut);

/* wfbp: cut after every layer; bucket: a group ends once it holds at least
 * bucket values (and at the last layer). */
void tr_plan_wfbp(int L, int *cut);
void tr_plan_bucket(const struct tr_plan_in *in, double bucket, int *cut);

/*
 * GossipGraD's partners (its Section 4.4-4.5): rounds = ceil(log2 p) steps
 * of the dissemination pattern over a virtual order of the ranks — at step
 * k, j = k mod rounds, the rank at position q sends to position
 * (q + 2^j) mod p and receives from (q - 2^j) mod p — and the virtual order
 * rotated after every `rounds` steps: epoch e = k / rounds uses a seeded
 * shuffle of 0..p-1 (epoch 0: the identity), the same on every rank. Any
 * p >= 2. p = 1: to = from = 0.
 */
int tr_gossip_rounds(int p);
void tr_gossip_partners(int p, long k, uint64_t seed, int rank, int *to, int *from);

/* Least-squares line y = a + b*x through n points; w: weights (NULL: all
 * 1; 1/y^2 makes it a fit of relative errors, so that small messages,
 * which set the start-up cost a, count as much as large ones). */
void tr_fit_line(const double *x, const double *y, const double *w, int n, double *a,
		 double *b);

#endif
