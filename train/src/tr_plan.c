// SPDX-License-Identifier: MIT
/*
 * tr_plan.c - merge plans of the layer-wise schedules and the MG-WFBP
 * planner (tr_plan.h). Pure functions: the trainer measures the inputs,
 * the tests feed synthetic ones.
 */
#include <string.h>

#include "tr_plan.h"
#include "tr_util.h"

static double t_ar(const struct tr_plan_in *in, double m)
{
	return in->a + in->b * m;
}

double tr_plan_time(const struct tr_plan_in *in, const int *cut)
{
	double end = 0, ready = 0, vals = 0;
	int k;

	for (k = 0; k < in->L; k++) {
		ready += in->tb[k];
		vals += in->p[k];
		if (cut[k] || k == in->L - 1) {
			end = (end > ready ? end : ready) + t_ar(in, vals);
			vals = 0;
		}
	}
	return end;
}

double tr_plan_optimal(const struct tr_plan_in *in, int *cut)
{
	double f[TR_PLAN_MAX + 1], ready[TR_PLAN_MAX], pre[TR_PLAN_MAX + 1];
	int from[TR_PLAN_MAX], L = in->L, s, e;

	pre[0] = 0;
	for (e = 0; e < L; e++) {
		ready[e] = (e ? ready[e - 1] : 0) + in->tb[e];
		pre[e + 1] = pre[e] + in->p[e];
	}
	f[0] = 0;              /* f[e + 1]: best end of layers 0..e */
	for (e = 0; e < L; e++) {
		f[e + 1] = -1;
		for (s = 0; s <= e; s++) {
			double start = f[s] > ready[e] ? f[s] : ready[e];
			double t = start + t_ar(in, pre[e + 1] - pre[s]);

			if (f[e + 1] < 0 || t < f[e + 1]) {
				f[e + 1] = t;
				from[e] = s;
			}
		}
	}
	memset(cut, 0, (size_t)L * sizeof(*cut));
	for (e = L - 1; e >= 0; e = from[e] - 1)
		cut[e] = 1;
	return f[L];
}

/* The paper's CALCULATECOMMSTART, layers numbered 1..L from the input. */
static void comm_start(int L, const double *tb, const double *tc, const double *taub,
		       double *tauc)
{
	int l;

	tauc[L] = taub[L] + tb[L];
	for (l = L - 1; l >= 1; l--) {
		double x = tauc[l + 1] + tc[l + 1], y = taub[l] + tb[l];

		tauc[l] = x > y ? x : y;
	}
}

double tr_plan_mgwfbp_paper(const struct tr_plan_in *in, int *cut)
{
	/* Index 1..L as in the paper: layer l is backward step k = L - l. */
	double tb[TR_PLAN_MAX + 1] = { 0 }, p[TR_PLAN_MAX + 1] = { 0 }, tc[TR_PLAN_MAX + 1] = { 0 };
	double taub[TR_PLAN_MAX + 1] = { 0 }, tauc[TR_PLAN_MAX + 1] = { 0 };
	int merged[TR_PLAN_MAX + 1] = { 0 }, L = in->L, l, k;

	for (l = 1; l <= L; l++) {
		tb[l] = in->tb[L - l];
		p[l] = in->p[L - l];
		tc[l] = t_ar(in, p[l]);
	}
	/* Backward starts at 0 here (t_f adds to every plan alike). tau_b[0]
	 * is where the paper's tau_b[l-2] points for l = 2: the end of the
	 * backward pass. */
	taub[L] = 0;
	for (l = L - 1; l >= 1; l--)
		taub[l] = taub[l + 1] + tb[l + 1];
	taub[0] = taub[1] + tb[1];
	comm_start(L, tb, tc, taub, tauc);
	for (l = L; l >= 2; l--) {
		if (taub[l - 2] - tauc[l] < in->a) {
			tc[l] = 0;
			p[l - 1] += p[l];
			tc[l - 1] = t_ar(in, p[l - 1]);
			comm_start(L, tb, tc, taub, tauc);
			merged[l] = 1;
		}
	}
	for (k = 0; k < L; k++)
		cut[k] = k == L - 1 || !merged[L - k];
	return tr_plan_time(in, cut);
}

double tr_plan_brute(const struct tr_plan_in *in, int *cut)
{
	int c[TR_PLAN_MAX], L = in->L, k;
	unsigned long mask, n = 1ul << (L - 1);
	double best = -1, t;

	for (mask = 0; mask < n; mask++) {
		for (k = 0; k < L; k++)
			c[k] = k == L - 1 || (mask >> k & 1);
		t = tr_plan_time(in, c);
		if (best < 0 || t < best) {
			best = t;
			memcpy(cut, c, (size_t)L * sizeof(*c));
		}
	}
	return best;
}

void tr_plan_wfbp(int L, int *cut)
{
	int k;

	for (k = 0; k < L; k++)
		cut[k] = 1;
}

void tr_plan_bucket(const struct tr_plan_in *in, double bucket, int *cut)
{
	double vals = 0;
	int k;

	for (k = 0; k < in->L; k++) {
		vals += in->p[k];
		cut[k] = vals >= bucket || k == in->L - 1;
		if (cut[k])
			vals = 0;
	}
}

int tr_gossip_rounds(int p)
{
	int r = 0;

	while ((1 << r) < p)
		r++;
	return r;
}

void tr_gossip_partners(int p, long k, uint64_t seed, int rank, int *to, int *from)
{
	int order[256], rounds = tr_gossip_rounds(p), i, j, q = 0, t, d;
	long epoch;

	if (p < 2 || p > 256) {
		*to = *from = rank;
		return;
	}
	epoch = k / rounds;
	for (i = 0; i < p; i++)
		order[i] = i;
	if (epoch > 0) {
		struct tr_rng rng;

		tr_rng_seed(&rng, seed, 0x90551b00u + (uint64_t)epoch);
		for (i = p - 1; i > 0; i--) {
			j = (int)tr_rng_below(&rng, (uint64_t)i + 1);
			t = order[i];
			order[i] = order[j];
			order[j] = t;
		}
	}
	for (i = 0; i < p; i++)
		if (order[i] == rank)
			q = i;
	d = 1 << (int)(k % rounds);
	*to = order[(q + d) % p];
	*from = order[((q - d) % p + p) % p];
}

void tr_fit_line(const double *x, const double *y, const double *w, int n, double *a,
		 double *b)
{
	double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, d, wi;
	int i;

	for (i = 0; i < n; i++) {
		wi = w ? w[i] : 1.0;
		sw += wi;
		sx += wi * x[i];
		sy += wi * y[i];
		sxx += wi * x[i] * x[i];
		sxy += wi * x[i] * y[i];
	}
	d = sw * sxx - sx * sx;
	*b = d != 0 ? (sw * sxy - sx * sy) / d : 0;
	*a = sw > 0 ? (sy - *b * sx) / sw : 0;
}
