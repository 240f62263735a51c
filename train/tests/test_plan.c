// SPDX-License-Identifier: MIT
/*
 * test_plan.c - the merge planners of tr_plan.c on synthetic inputs:
 *   - the MG-WFBP paper's three cases of WFBP (Fig. 3): all communication
 *     hidden (no merge is best), partly hidden (a merge hides it again),
 *     not hidden (merging everything is best), each with its known optimal
 *     plan and time computed by hand;
 *   - the exact planner against a brute-force search over all 2^(L-1) merge
 *     sets on random inputs (L = 1..12), and the paper's Algorithm 1 never
 *     better than the optimum (how often it reaches it is printed);
 *   - the bucket and wfbp plans, the plan-time recurrence, the line fit.
 * Last line "N passed, N failed".
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "inc_test.h"
#include "tr_plan.h"

static int same_cut(const int *a, const int *b, int L)
{
	return !memcmp(a, b, (size_t)L * sizeof(*a));
}

static void cut_str(const int *c, int L, char *s)
{
	int k;

	for (k = 0; k < L; k++) {
		*s++ = (char)('0' + k);
		if (c[k] && k < L - 1)
			*s++ = '|';
	}
	*s = 0;
}

/* One hand-made case: inputs in backward order, the expected plan and its
 * time. The paper's algorithm must return that plan; the exact planner
 * must reach that time, and the plan too when it is the only optimum. */
static void known(const char *name, int L, const double *tb, const double *p, double a,
		  double b, const int *want, double want_t, int unique)
{
	struct tr_plan_in in = { .L = L, .a = a, .b = b };
	int c1[TR_PLAN_MAX], c2[TR_PLAN_MAX], c3[TR_PLAN_MAX];
	double t1, t2, t3;
	char s1[64], s2[64], sw[64];

	memcpy(in.tb, tb, (size_t)L * sizeof(double));
	memcpy(in.p, p, (size_t)L * sizeof(double));
	t1 = tr_plan_optimal(&in, c1);
	t2 = tr_plan_mgwfbp_paper(&in, c2);
	t3 = tr_plan_brute(&in, c3);
	cut_str(c1, L, s1);
	cut_str(c2, L, s2);
	cut_str(want, L, sw);
	CHECK(fabs(tr_plan_time(&in, want) - want_t) < 1e-9, "%s: hand-computed time %g, recurrence %g",
	      name, want_t, tr_plan_time(&in, want));
	CHECK(fabs(t3 - want_t) < 1e-9, "%s: brute force %g, expected %g", name, t3, want_t);
	CHECK(fabs(t1 - want_t) < 1e-9 && (!unique || same_cut(c1, want, L)),
	      "%s: optimal planner %s (%g), expected %s (%g)", name, s1, t1, sw, want_t);
	CHECK(fabs(t2 - want_t) < 1e-9 && same_cut(c2, want, L),
	      "%s: paper's algorithm %s (%g), expected %s (%g)", name, s2, t2, sw, want_t);
	printf("%-40s paper %-8s exact %-8s time %g\n", name, s2, s1, t1);
}

static double rnd01(unsigned long long *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (double)(*s >> 11) / 9007199254740992.0;
}

int main(void)
{
	/* Case 1: every layer's all-reduce (a + b p = 2) is shorter than the
	 * next backward step (5): all hidden but the last layer's. Backward
	 * ends at 20, the last all-reduce at 22. The paper merges nothing
	 * (tau_b[l-2] - tau_c[l] = 5 > a); merging hidden layers would tie. */
	{
		double tb[] = { 5, 5, 5, 5 }, p[] = { 1, 1, 1, 1 };
		int want[] = { 1, 1, 1, 1 };

		known("case 1 (all hidden): wfbp", 4, tb, p, 1, 1, want, 22, 0);
	}
	/* Case 2: layer 0's all-reduce (1 + 8 = 9, from t = 4 to 13) outlasts
	 * the backward steps after it (ready at 6, 10, 11), so the others
	 * queue; merged into one all-reduce (1 + 9 = 10, 13 to 23) they pay a
	 * once instead of three times. WFBP ends at 25, one group (sync) at
	 * 11 + 1 + 17 = 29. */
	{
		double tb[] = { 4, 2, 4, 1 }, p[] = { 8, 1, 4, 4 };
		int want[] = { 1, 0, 0, 1 };

		known("case 2 (partly hidden): 0 | 1+2+3", 4, tb, p, 1, 1, want, 23, 1);
	}
	/* Case 3: start-up cost a = 10 dominates and backward steps are short
	 * (1): nothing hides, every merge saves a. One group: backward ends at
	 * 4, then 10 + 4 = 14: 18 (WFBP: 45). */
	{
		double tb[] = { 1, 1, 1, 1 }, p[] = { 1, 1, 1, 1 };
		int want[] = { 0, 0, 0, 1 };

		known("case 3 (not hidden): one group", 4, tb, p, 10, 1, want, 18, 1);
	}
	/* Random inputs: the exact planner equals the brute force. */
	{
		unsigned long long s = 12345;
		int i, L, c1[TR_PLAN_MAX], c2[TR_PLAN_MAX], c3[TR_PLAN_MAX], paper_opt = 0, bad = 0;
		int n = 3000;

		for (i = 0; i < n; i++) {
			struct tr_plan_in in = { 0 };
			double t1, t2, t3;
			int k;

			L = 1 + i % 12;
			in.L = L;
			in.a = rnd01(&s) * (i % 3 == 0 ? 10 : 1);
			in.b = rnd01(&s) * 2;
			for (k = 0; k < L; k++) {
				in.tb[k] = rnd01(&s) * 3;
				in.p[k] = rnd01(&s) < 0.3 ? rnd01(&s) * 10 : rnd01(&s);
			}
			t1 = tr_plan_optimal(&in, c1);
			t2 = tr_plan_mgwfbp_paper(&in, c2);
			t3 = tr_plan_brute(&in, c3);
			if (fabs(t1 - t3) > 1e-9 * (1 + t3) ||
			    fabs(tr_plan_time(&in, c1) - t1) > 1e-9 * (1 + t1))
				bad++;
			CHECK(t2 >= t3 - 1e-9 * (1 + t3), "paper's plan %g beats brute force %g", t2, t3);
			paper_opt += fabs(t2 - t3) <= 1e-9 * (1 + t3);
		}
		CHECK(bad == 0, "exact planner differs from brute force on %d of %d inputs", bad, n);
		printf("random inputs, L = 1..12: exact planner = brute force on %d/%d; "
		       "the paper's Algorithm 1 optimal on %d/%d\n", n - bad, n, paper_opt, n);
	}
	/* Bucket and wfbp plans. */
	{
		struct tr_plan_in in = { .L = 5, .p = { 3, 3, 3, 10, 1 } };
		int c[5], want_b[] = { 0, 1, 0, 1, 1 }, k;

		tr_plan_bucket(&in, 5, c);
		CHECK(same_cut(c, want_b, 5), "bucket 5 over 3,3,3,10,1: %d%d%d%d%d", c[0], c[1], c[2],
		      c[3], c[4]);
		tr_plan_wfbp(5, c);
		for (k = 0; k < 5; k++)
			CHECK(c[k] == 1, "wfbp cuts after every layer");
	}
	/* GossipGraD partners, p = 2..9: within an epoch of ceil(log2 p)
	 * steps the dissemination pattern over one virtual order (the same
	 * order for every step of the epoch: positions differ by 2^j), every
	 * step a permutation without fixed points whose inverse is `from`,
	 * after an epoch every rank has heard (transitively) from every rank,
	 * and the order changes between epochs (p >= 3). */
	{
		int p;

		for (p = 2; p <= 9; p++) {
			int rounds = tr_gossip_rounds(p), e, j, i, ok_perm = 1, ok_inv = 1, ok_diss = 1;
			int ok_heard = 1, rotated = 0, first_order[9], to[9], from[9];

			CHECK((1 << rounds) >= p && (1 << (rounds - 1)) < p, "p=%d rounds %d", p, rounds);
			for (e = 0; e < 6; e++) {
				int heard[9][9] = { { 0 } }, order[9], pos[9], x;

				for (j = 0; j < rounds; j++) {
					long k = (long)e * rounds + j;
					int seen[9] = { 0 };

					for (i = 0; i < p; i++) {
						tr_gossip_partners(p, k, 77, i, &to[i], &from[i]);
						ok_perm &= to[i] != i && !seen[to[i]]++;
					}
					for (i = 0; i < p; i++)
						ok_inv &= from[to[i]] == i;
					/* Reconstruct the virtual order from step 0's
					 * +1 pattern, then check +2^j within it. */
					if (j == 0) {
						x = 0;
						for (i = 0; i < p; i++) {
							order[i] = x;
							pos[x] = i;
							x = to[x];
						}
						if (e == 0)
							memcpy(first_order, order, sizeof(order));
						else
							rotated |= memcmp(first_order, order, sizeof(order)) != 0;
					}
					for (i = 0; i < p; i++)
						ok_diss &= to[i] == order[(pos[i] + (1 << j)) % p];
					/* heard[i][s]: i has s's information */
					for (i = 0; i < p; i++)
						heard[i][i] = 1;
					{
						int nh[9][9], a, s;

						memcpy(nh, heard, sizeof(nh));
						for (a = 0; a < p; a++)
							for (s = 0; s < p; s++)
								nh[a][s] |= heard[from[a]][s];
						memcpy(heard, nh, sizeof(nh));
					}
				}
				for (i = 0; i < p; i++)
					for (x = 0; x < p; x++)
						ok_heard &= heard[i][x];
			}
			CHECK(ok_perm, "p=%d: a step is not a permutation without fixed points", p);
			CHECK(ok_inv, "p=%d: from is not the inverse of to", p);
			CHECK(ok_diss, "p=%d: not the dissemination pattern over one order per epoch", p);
			CHECK(ok_heard, "p=%d: some rank did not hear from all after an epoch", p);
			CHECK(p < 3 || rotated, "p=%d: the order never rotated in 6 epochs", p);
		}
		printf("gossip partners p = 2..9: dissemination, rotation, diffusion in ceil(log2 p) steps\n");
	}
	/* Line fit: exact on a line, least squares on noise-free pairs. */
	{
		double x[] = { 1, 2, 4, 8 }, y[] = { 3.5, 4, 5, 7 }, w[4], a, b;
		double y2[] = { 1.1, 1.9, 4.2, 7.8 };
		int i;

		tr_fit_line(x, y, NULL, 4, &a, &b);
		CHECK(fabs(a - 3) < 1e-12 && fabs(b - 0.5) < 1e-12, "fit a %g b %g, want 3 0.5", a, b);
		for (i = 0; i < 4; i++)
			w[i] = 1 / (y[i] * y[i]);
		tr_fit_line(x, y, w, 4, &a, &b);
		CHECK(fabs(a - 3) < 1e-12 && fabs(b - 0.5) < 1e-12, "weighted fit a %g b %g", a, b);
		/* Off the line, weights move the line towards the heavy points:
		 * unweighted, means 3.75 and 3.75, Sxx = 28.75, Sxy = 27.85, so
		 * b = 27.85 / 28.75 and a = 3.75 (1 - b); weighting the first
		 * point only gives a line through it (a + b = 1.1). */
		tr_fit_line(x, y2, NULL, 4, &a, &b);
		CHECK(fabs(b - 27.85 / 28.75) < 1e-9 && fabs(a - 3.75 * (1 - 27.85 / 28.75)) < 1e-9,
		      "fit a %g b %g", a, b);
		w[0] = 1e9;
		w[1] = w[2] = w[3] = 1;
		tr_fit_line(x, y2, w, 4, &a, &b);
		CHECK(fabs(a + b - 1.1) < 1e-6, "heavy first point: a + b = %g, want 1.1", a + b);
	}
	return inc_test_done();
}
