// SPDX-License-Identifier: MIT
/*
 * tr_log.c - what a run says: the progress line on rank 0's terminal, the
 * JSON-lines log (config, iter, eval, summary records; docs/train.md) and
 * the summary's counters summed over ranks.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tr_log.h"
#include "tr_util.h"

static void fmt_eta(char *buf, size_t len, double s)
{
	if (s >= 3600)
		snprintf(buf, len, "%dh%02dm", (int)(s / 3600), (int)fmod(s / 60, 60));
	else
		snprintf(buf, len, "%dm%02ds", (int)(s / 60), (int)fmod(s, 60));
}

void tr_log_progress(struct run *r, long done, double loss)
{
	double s = (double)r->n.train_ns * 1e-9;
	double ips = s > 0 ? (double)done * r->c.workers * r->o.batch / s : 0;
	double eta = done ? s / done * (r->o.iterations - done) : 0;
	char e[32];
	int tty = isatty(2);

	if (r->log)
		fprintf(r->log, "{\"type\":\"iter\",\"iter\":%ld,\"time\":%.6f,"
			"\"loss\":%.6f,\"lr\":%g}\n", done, s, loss, (double)r->s.rate);
	if (r->c.rank != 0 || r->o.quiet)
		return;
	/* off a terminal, a line per 10% (every fifth log point) */
	if (!tty && done % (5 * r->o.log_every) && done != r->o.iterations)
		return;
	fmt_eta(e, sizeof(e), eta);
	fprintf(stderr, "%sinc-train: iter %ld/%ld  loss %.4f  lr %g  %.0f img/s  eta %s%s",
		tty ? "\r" : "", done, r->o.iterations, loss, (double)r->s.rate, ips, e,
		tty ? "  " : "\n");
	if (tty && done == r->o.iterations)
		fputc('\n', stderr);
}

void tr_log_config(struct run *r)
{
	const struct tr_opts *o = &r->o;

	fprintf(r->log, "{\"type\":\"config\",\"model\":\"%s\",\"scheme\":\"%s\","
		"\"compression\":\"%s\",\"error_bound\":%u,\"truncate\":%u,"
		"\"workers\":%d,\"ranks\":%d,\"batch\":%d,\"lr\":%g,\"lr_step\":%ld,"
		"\"lr_gamma\":%g,\"momentum\":%g,\"weight_decay\":%g,\"iterations\":%ld,"
		"\"seed\":%" PRIu64 ",\"params\":%zu,\"codec\":\"%s\",\"schedule\":\"%s\","
		"\"error_feedback\":%s,\"scaling\":\"%s\",\"scale\":%d,\"scale_ratio\":%g,"
		"\"warmup_iters\":%ld,\"warmup_error_bound\":%u,\"scale_step\":%d,"
		"\"scale_patience\":%d}\n",
		tr_model_name(o), tr_scheme_name(o),
		inc_compression_name((enum inc_compression)o->compression),
		o->error_bound, o->truncate, r->c.workers, r->c.size, o->batch, o->sgd.lr,
		o->sgd.step, o->sgd.gamma, o->sgd.momentum, o->sgd.decay, o->iterations,
		o->seed, r->m.nparams, inc_codec_name(), r->sched->name,
		r->s.ef ? "true" : "false", tr_scaling_name(o), o->scale, o->scale_ratio, o->warmup_iters,
		o->warmup_error_bound, o->scale_step, o->scale_patience);
}

void tr_log_eval(struct run *r, long it, double acc, double tloss)
{
	if (!r->log)
		return;
	fprintf(r->log, "{\"type\":\"eval\",\"iter\":%ld,\"time\":%.6f,"
		"\"accuracy\":%.2f,\"test_loss\":%.6f", it, (double)r->n.train_ns * 1e-9, acc, tloss);
	if (!r->sched->identical)
		fprintf(r->log, ",\"accuracy_rank0\":%.2f,\"spread\":%.6g", r->gossip.acc_rank0,
			r->gossip.spread);
	fprintf(r->log, "}\n");
}

int tr_log_summary(struct run *r, long iters, double acc, double tloss, double loss,
		   uint64_t digest)
{
	uint64_t v[TR_ACC_N];
	struct inc_comm_stats st = { 0 };
	struct tr_summary s;
	int i, rc, e;

	if (r->c.comm)
		inc_comm_stats(r->c.comm, &st);
	memcpy(v, r->n.acc, sizeof(r->n.acc));
	v[TR_ACC_LIB_SUM] = st.sum_ns;
	v[TR_ACC_CODEC] = st.codec_ns;
	v[TR_ACC_BYTES_SENT] = st.bytes_sent;
	if (r->c.worker < 0) {     /* the aggregator's sum is its own row */
		v[TR_ACC_AGG_SUM] = st.sum_ns;
		v[TR_ACC_LIB_SUM] = 0;
	}
	if (r->sched->overlapped || !r->sched->sums)   /* on the progress thread, or none */
		v[TR_ACC_LIB_SUM] = 0;
	rc = tr_sum_u64(r, v, TR_ACC_N);
	if (rc)
		return tr_fail_comm(r, "statistics sum", rc);
	if (!r->log)
		return 0;
	tr_summary_compute(&s, v, r->c.workers, iters, r->o.scheme == TR_SCHEME_WA);
	fprintf(r->log, "{\"type\":\"summary\",\"iterations\":%ld,\"train_s\":%.6f,"
		"\"iter_ms\":%.6f", iters, (double)r->n.train_ns * 1e-9, s.row_ms[TR_ROW_ITER]);
	for (i = 0; i < TR_ROW_N; i++)
		if (i != TR_ROW_ITER)
			fprintf(r->log, ",\"%s_ms\":%.6f", tr_row_names[i], s.row_ms[i]);
	fprintf(r->log, ",\"bytes_sent\":%" PRIu64 ",\"bytes_per_iter\":%.1f,"
		"\"codec_ratio\":%.4f,\"share2\":%.4f,\"share10\":%.4f,\"share18\":%.4f,"
		"\"share34\":%.4f,\"accuracy\":%.2f,\"test_loss\":%.6f,\"loss\":%.6f,"
		"\"weights\":\"%016" PRIx64 "\",\"schedule\":\"%s\",\"predicted_iter_ms\":%.4f,"
		"\"accuracy_rank0\":%.2f,\"spread\":%.6g,\"sketch_candidates\":%" PRIu64 ","
		"\"sketch_peeled\":%" PRIu64 ",\"sketch_estimated\":%" PRIu64 ","
		"\"sketch_retries\":%" PRIu64 "}\n",
		v[TR_ACC_BYTES_SENT], iters ? (double)v[TR_ACC_BYTES_SENT] / iters : 0.0,
		s.codec_ratio, s.share[0], s.share[1], s.share[2], s.share[3], acc, tloss,
		loss, digest, r->sched->name, r->plan.predicted_ms,
		r->sched->identical ? acc : r->gossip.acc_rank0, r->gossip.spread,
		st.sketch_candidates, st.sketch_peeled, st.sketch_estimated, st.sketch_retries);
	/* Every record went through this stream: a write that failed on the
	 * way (a full disk, /dev/full) left the error flag set. */
	e = fflush(r->log) ? errno : 0;
	if (e || ferror(r->log))
		return tr_bad("%s: the log is incomplete: %s", r->o.log,
			      e ? strerror(e) : "a write failed (full disk or I/O error)");
	return 0;
}
