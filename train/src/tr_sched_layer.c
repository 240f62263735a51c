// SPDX-License-Identifier: MIT
/*
 * tr_sched_layer.c - the layer-wise schedules wfbp, bucket and mgwfbp: the
 * learnable layers, in backward order, cut into groups (tr_plan.h's
 * planners); a group's all-reduce is issued the moment backward completes
 * it and runs on the progress thread while backward computes the layers
 * below. What is left after backward is the non-overlapped communication
 * (the MG-WFBP paper's t_c^no), counted as the exchange.
 */
#include <stdio.h>
#include <string.h>

#include "tr_run.h"
#include "tr_util.h"

/* The learnable layers in backward order, and their sizes into in. */
static void learnable(struct run *r, struct tr_plan_in *in)
{
	struct tr_plan *p = &r->plan;
	int i, k;

	p->nl = 0;
	for (i = r->m.nlayers - 1; i >= 0; i--)
		if (r->m.l[i].w_len + r->m.l[i].b_len)
			p->lidx[p->nl++] = i;
	in->L = p->nl;
	for (k = 0; k < p->nl; k++)
		in->p[k] = (double)(tr_layer_hi(&r->m.l[p->lidx[k]]) - tr_layer_lo(&r->m.l[p->lidx[k]]));
}

/* Groups of plan cut (backward order) as parameter ranges. */
static void plan_apply(struct run *r, const int *cut)
{
	struct tr_plan *p = &r->plan;
	int k, s = 0, i;

	for (i = 0; i < TR_MAX_LAYERS; i++)
		p->grp_of_layer[i] = -1;
	p->ngroups = 0;
	for (k = 0; k < p->nl; k++) {
		if (!cut[k] && k < p->nl - 1)
			continue;
		/* backward steps s..k: model layers lidx[s] (highest) .. lidx[k] */
		p->grp_lo[p->ngroups] = tr_layer_lo(&r->m.l[p->lidx[k]]);
		p->grp_hi[p->ngroups] = tr_layer_hi(&r->m.l[p->lidx[s]]);
		p->grp_of_layer[p->lidx[k]] = p->ngroups++;
		s = k + 1;
	}
}

/* "fc5 | fc4+fc3 | ..." in backward order. */
static void plan_str(const struct run *r, const int *cut, char *buf, size_t len)
{
	const struct tr_plan *p = &r->plan;
	size_t n = 0;
	int k;

	buf[0] = 0;
	for (k = 0; k < p->nl && n < len; k++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", r->m.l[p->lidx[k]].name,
				      k == p->nl - 1 ? "" : cut[k] ? " | " : "+");
}

/* The plan in effect, named on rank 0's terminal. */
static int plan_install(struct run *r, const int *cut)
{
	char s[256];

	plan_apply(r, cut);
	if (r->c.rank == 0 && !r->o.quiet) {
		plan_str(r, cut, s, sizeof(s));
		fprintf(stderr, "inc-train: %s: groups (backward order) %s\n", r->sched->name, s);
	}
	return 0;
}

int tr_wfbp_setup(struct run *r)
{
	struct tr_plan_in in = { 0 };
	int cut[TR_PLAN_MAX];

	learnable(r, &in);
	tr_plan_wfbp(r->plan.nl, cut);
	return plan_install(r, cut);
}

int tr_bucket_setup(struct run *r)
{
	struct tr_plan_in in = { 0 };
	int cut[TR_PLAN_MAX];

	learnable(r, &in);
	tr_plan_bucket(&in, (double)r->o.bucket_kb * 1024 / sizeof(float), cut);
	return plan_install(r, cut);
}

/* The plan with the least predicted time on this communicator's measured
 * costs (tr_calib.c), with the paper's Algorithm 1, wfbp and sync beside
 * it on the terminal and in the log's plan record. */
int tr_mgwfbp_setup(struct run *r)
{
	struct tr_plan_in in = { 0 };
	struct tr_plan *p = &r->plan;
	int cut[TR_PLAN_MAX], cp[TR_PLAN_MAX], cw[TR_PLAN_MAX], cs[TR_PLAN_MAX] = { 0 };
	double t_other = 0, t_opt, t_paper, t_wfbp, t_sync;
	char s1[256], s2[256];
	int k, rc;

	learnable(r, &in);
	rc = tr_calibrate(r, &in, &t_other);
	if (rc)
		return tr_fail_comm(r, "mgwfbp calibration", rc);
	t_opt = tr_plan_optimal(&in, cut);
	t_paper = tr_plan_mgwfbp_paper(&in, cp);
	tr_plan_wfbp(p->nl, cw);
	cs[p->nl - 1] = 1;
	t_wfbp = tr_plan_time(&in, cw);
	t_sync = tr_plan_time(&in, cs);
	p->predicted_ms = t_other + t_opt;
	plan_str(r, cut, s1, sizeof(s1));
	plan_str(r, cp, s2, sizeof(s2));
	if (r->c.rank == 0 && !r->o.quiet) {
		fprintf(stderr, "inc-train: mgwfbp: T_ar(M) = %.3f ms + %.3f ns x M values "
			"(%s, %d ranks); backward per layer (ms):", in.a, in.b * 1e6,
			inc_compression_name((enum inc_compression)r->o.compression), r->c.size);
		for (k = 0; k < p->nl; k++)
			fprintf(stderr, " %s %.3f", r->m.l[p->lidx[k]].name, in.tb[k]);
		fprintf(stderr, "\ninc-train: mgwfbp: plan %s; predicted backward+communication "
			"%.2f ms (paper's Algorithm 1: %.2f ms, plan %s; wfbp %.2f; sync %.2f); "
			"predicted iteration %.2f ms\n", s1, t_opt, t_paper, s2, t_wfbp, t_sync,
			p->predicted_ms);
	}
	if (r->log) {
		fprintf(r->log, "{\"type\":\"plan\",\"a_ms\":%.6f,\"b_ms_per_value\":%.6g,"
			"\"plan\":\"%s\",\"paper_plan\":\"%s\",\"predicted_bc_ms\":%.4f,"
			"\"paper_bc_ms\":%.4f,\"wfbp_bc_ms\":%.4f,\"sync_bc_ms\":%.4f,"
			"\"predicted_iter_ms\":%.4f,\"tb_ms\":[", in.a, in.b, s1, s2, t_opt,
			t_paper, t_wfbp, t_sync, p->predicted_ms);
		for (k = 0; k < p->nl; k++)
			fprintf(r->log, "%s%.4f", k ? "," : "", in.tb[k]);
		fprintf(r->log, "],\"ar_points\":[");
		for (k = 0; k < TR_CAL_SIZES; k++)
			fprintf(r->log, "%s[%.0f,%.4f]", k ? "," : "", p->cal.x[k], p->cal.y[k]);
		fprintf(r->log, "]}\n");
	}
	plan_apply(r, cut);
	return 0;
}

/* Backward hook: layer `layer` is complete; if it completes a group, the
 * group's all-reduce starts now. */
static void grad_ready(void *arg, int layer)
{
	struct run *r = arg;
	struct tr_plan *p = &r->plan;
	int g = p->grp_of_layer[layer];
	size_t lo, n;

	if (g < 0)
		return;
	lo = p->grp_lo[g];
	n = p->grp_hi[g] - lo;
	if (r->o.truncate)
		tr_truncate_sent(r, lo, n);
	if (p->stats_now) {
		uint64_t t = tr_now_ns();

		tr_codec_stats(r, r->m.grads, lo, n, g);
		tr_timer_exclude(p->timer, tr_now_ns() - t);   /* measurement */
	}
	if (r->c.comm && !p->issue_rc) {
		struct inc_allreduce_opts o = r->c.ar;

		o.residual = o.residual ? o.residual + lo : NULL;   /* the group's slice */
		p->issue_rc = tr_scale_for(r, g, lo, lo + n, &o.scale);
		if (!p->issue_rc)
			p->issue_rc = inc_iallreduce_f32(r->c.comm, r->m.grads + lo, n, &o,
							 &p->req[g]);
	}
}

int tr_layerwise_iteration(struct run *r, long it)
{
	struct tr_plan *p = &r->plan;
	struct tr_timer t;
	int rc = 0, g, w;

	tr_timer_start(&t, r->n.acc, 1);
	r->s.rate = tr_sgd_rate(&r->o.sgd, it);
	p->issue_rc = 0;
	p->timer = &t;
	p->stats_now = r->o.stats_every && it % r->o.stats_every == 0;
	tr_compute(r, it, grad_ready, &t);
	for (g = 0; g < p->ngroups; g++) {
		if (!p->req[g])
			continue;
		w = inc_wait(p->req[g]);
		p->req[g] = NULL;
		if (w && !rc)
			rc = w;
	}
	if (!rc)
		rc = p->issue_rc;
	if (rc)
		return tr_fail_comm(r, "all-reduce", rc);
	tr_sgd_step(r, &t);
	r->n.train_ns += tr_timer_end(&t);
	p->timer = NULL;
	return 0;
}
