// SPDX-License-Identifier: MIT
/*
 * tr_run.c - the steps the schedules are made of: a worker's computation,
 * the update, the gradients on their way out, the sums over ranks, the
 * evaluation (the Table II timer they lap: tr_timer.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inc_model.h"
#include "inceptionn/inc_frame_fast.h"
#include "tr_optim.h"
#include "tr_run.h"
#include "tr_util.h"

/* ------------------------------------------------------------------------ */
/* Across ranks                                                              */
/* ------------------------------------------------------------------------ */
int tr_fail_comm(const struct run *r, const char *what, int rc)
{
	fprintf(stderr, "inc-train: rank %d: %s: %s\n", r->c.rank, what, inc_strerror(rc));
	return 1;
}

/* Counters cross the ranks exactly: each as four 16-bit limbs in float32
 * (sums below 2^24 for up to 256 ranks), uncompressed, by the ring. */
static void u64_pack(float *f, const uint64_t *v, int n)
{
	int i, k;

	for (i = 0; i < n; i++)
		for (k = 0; k < 4; k++)
			f[4 * i + k] = (float)((v[i] >> (16 * k)) & 0xffffu);
}

static void u64_unpack(uint64_t *v, const float *f, int n)
{
	int i, k;

	for (i = 0; i < n; i++)
		for (v[i] = 0, k = 0; k < 4; k++)
			v[i] += (uint64_t)f[4 * i + k] << (16 * k);
}

static struct inc_allreduce_opts lossless(struct inc_allreduce_opts o)
{
	o.compression = INC_COMP_NONE;
	o.residual = NULL;
	o.scale = NULL;
	return o;
}

static struct inc_allreduce_opts exact_opts(const struct run *r)
{
	struct inc_allreduce_opts o = lossless(r->c.ar);

	o.algo = INC_ALGO_RING;
	return o;
}

/* The warm-up through the codec (--warmup-error-bound E): no residual, no
 * scaling state, the values times 2^(E - error_bound), so the codec's bound
 * (the NIC's in nic mode) bounds them to 2^-E. */
static struct inc_allreduce_opts coded_warmup(struct inc_allreduce_opts o, int exp)
{
	o.error_feedback = INC_EF_OFF;
	o.residual = NULL;
	o.scale = NULL;
	o.scale_exp = exp;
	return o;
}

void tr_warmup(struct run *r, long it)
{
	if (it == 0 && r->o.warmup_iters > 0) {
		r->c.ar_after = r->c.ar;
		r->c.warm_exp = r->o.warmup_error_bound ?
				(int)r->o.warmup_error_bound - (int)r->o.error_bound : 0;
		r->c.ar = r->o.warmup_error_bound ? coded_warmup(r->c.ar, r->c.warm_exp) :
						    lossless(r->c.ar);
		r->c.warm = 1;
	} else if (it == r->o.warmup_iters && r->c.warm) {
		r->c.ar = r->c.ar_after;
		r->c.warm = 0;
	}
}

/* Sum n unsigned 64-bit counters over all ranks exactly. */
int tr_sum_u64(const struct run *r, uint64_t *v, int n)
{
	struct inc_allreduce_opts o = exact_opts(r);
	float *f;
	int rc;

	if (r->c.size == 1)
		return 0;
	f = malloc((size_t)n * 4 * sizeof(float));
	if (!f)
		return INC_E_NOMEM;
	u64_pack(f, v, n);
	rc = inc_allreduce_f32(r->c.comm, f, (size_t)n * 4, &o);
	if (rc == 0)
		u64_unpack(v, f, n);
	free(f);
	return rc;
}

/* Each byte b of h travels with b^2; the sums equal size*b and size*b^2 on
 * every rank only if all bytes are equal (Cauchy-Schwarz), so every rank
 * reaches the same verdict. */
int tr_agree(const struct run *r, uint64_t h)
{
	uint64_t v[16];
	int k, rc;

	for (k = 0; k < 8; k++) {
		v[2 * k] = h >> (8 * k) & 0xff;
		v[2 * k + 1] = v[2 * k] * v[2 * k];
	}
	rc = tr_sum_u64(r, v, 16);
	if (rc)
		return rc;
	for (k = 0; k < 8; k++) {
		uint64_t b = h >> (8 * k) & 0xff, size = (uint64_t)r->c.size;

		if (v[2 * k] != size * b || v[2 * k + 1] != size * b * b)
			return 0;
	}
	return 1;
}

/* Every byte of the string counts (the last ones name the schedule and the
 * bucket size). */
uint64_t tr_config_hash(const struct run *r)
{
	char buf[512];
	const struct tr_opts *o = &r->o;

	snprintf(buf, sizeof(buf),
		 "%s|%ld|%d|%.17g|%" PRIu64 "|%d|%d|%u|%u|%ld|%.17g|%.17g|%.17g|%ld|%ld|%ld|%ld|%zu|%s|%ld|%d|%d|%.17g|%d|%ld",
		 tr_model_name(o), o->iterations, o->batch, o->sgd.lr, o->seed, o->scheme,
		 o->compression, o->error_bound, o->truncate, o->sgd.step,
		 o->sgd.gamma, o->sgd.momentum, o->sgd.decay, o->eval_every,
		 o->check_every, o->log_every, o->eval_samples, r->m.nparams,
		 r->sched->name, r->sched->bucket ? o->bucket_kb : 0, r->s.ef, o->scale, o->scale_ratio,
		 o->scaling, o->warmup_iters);
	/* appended only when set: the hashes of runs without it are unchanged */
	if (o->warmup_error_bound)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "|web%u",
			 o->warmup_error_bound);
	if (o->scale_step)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "|ss%d", o->scale_step);
	if (o->scale_patience > 1)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "|sp%d", o->scale_patience);
	return tr_digest_bytes(buf, strlen(buf));
}

/* ------------------------------------------------------------------------ */
/* A worker's computation and the update                                     */
/* ------------------------------------------------------------------------ */
void tr_compute(struct run *r, long it, void (*hook)(void *, int), struct tr_timer *t)
{
	struct tr_model *m = &r->m;

	tr_load_batch(&r->d.shard, &r->d.train, it, r->c.worker, r->d.x, r->d.y);
	tr_timer_lap(t, TR_ACC_DATA);
	r->n.last_loss = tr_model_forward(m, r->d.x, r->d.y, r->o.batch, NULL);
	tr_timer_lap(t, TR_ACC_FORWARD);
	tr_model_backward_hook(m, r->d.y, r->o.batch, hook, r);
	if (!hook && r->o.truncate)
		tr_truncate_sent(r, 0, m->nparams);
	tr_timer_lap(t, TR_ACC_BACKWARD);
}

void tr_sgd_step(struct run *r, struct tr_timer *t)
{
	struct tr_model *m = &r->m;

	if (r->o.truncate)
		tr_truncate_values(m->grads, m->nparams, r->o.truncate);
	tr_timer_lap(t, TR_ACC_EXCHANGE);
	tr_sgd_update(&r->o.sgd, r->s.rate, m->params, r->s.mom, m->grads,
		      1.0f / (float)r->c.workers, m->nparams);
	tr_timer_lap(t, TR_ACC_UPDATE);
}

/* ------------------------------------------------------------------------ */
/* Gradients on the way out                                                  */
/* ------------------------------------------------------------------------ */
/* The adaptive scaling's state of the call site that sends [lo, hi) (the
 * layers in it are its parts; docs/train.md, "Scaling"): made at its
 * first call, and again when the site's range changes. */
int tr_scale_for(struct run *r, int site, size_t lo, size_t hi, struct inc_scale **out)
{
	struct tr_step *s = &r->s;
	size_t ends[TR_MAX_LAYERS], n = 0;
	int i, rc;

	*out = NULL;
	if (r->o.scaling == TR_SCALING_OFF || r->c.warm)
		return 0;
	if (s->scale[site] && s->scale_lo[site] == lo && s->scale_hi[site] == hi) {
		*out = s->scale[site];
		return 0;
	}
	inc_scale_destroy(s->scale[site]);
	s->scale[site] = NULL;
	for (i = 0; i < r->m.nlayers; i++) {
		size_t end = tr_layer_hi(&r->m.l[i]);

		if (r->m.l[i].w_len && end > lo && end < hi)
			ends[n++] = end - lo;
	}
	ends[n++] = hi - lo;
	for (i = 0; i < (int)n; i++)
		s->scale_part_end[site][i] = lo + ends[i];
	rc = r->o.scaling == TR_SCALING_HEADROOM ?
	     inc_scale_create_headroom(&s->scale[site], n, ends, r->o.scale) :
	     r->o.scaling == TR_SCALING_EACH ?
	     inc_scale_create_each(&s->scale[site], n, ends, r->o.scale_ratio) :
	     r->o.scaling == TR_SCALING_LEAST_ERROR ?
	     inc_scale_create_least_error(&s->scale[site], n, ends, r->o.scale_ratio) :
	     inc_scale_create(&s->scale[site], n, ends, r->o.scale_ratio);
	if (!rc && r->o.scale_step)
		rc = inc_scale_set_step(s->scale[site], r->o.scale_step);
	if (!rc && r->o.scale_patience)
		rc = inc_scale_set_patience(s->scale[site], r->o.scale_patience);
	if (rc)
		return rc;
	s->scale_lo[site] = lo;
	s->scale_hi[site] = hi;
	*out = s->scale[site];
	return 0;
}

void tr_truncate_values(float *v, size_t n, unsigned bits)
{
	uint32_t mask = ~((1u << bits) - 1u), u;
	size_t i;

	for (i = 0; i < n; i++) {
		memcpy(&u, &v[i], 4);
		u &= mask;
		memcpy(&v[i], &u, 4);
	}
}

/* With error feedback the residual of these positions is added first and
 * keeps what the truncation took. */
void tr_truncate_sent(struct run *r, size_t off, size_t n)
{
	float *v = r->m.grads + off, *e = r->s.res ? r->s.res + off : NULL;
	size_t i;

	for (i = 0; e && i < n; i++) {
		v[i] += e[i];
		e[i] = v[i];
	}
	tr_truncate_values(v, n, r->o.truncate);
	for (i = 0; e && i < n; i++)
		e[i] -= v[i];
}

void tr_codec_stats(struct run *r, const float *v, size_t off, size_t n, int site)
{
	const struct inc_compression_info *ci =
		inc_compression_info((enum inc_compression)r->o.compression);
	const float *g = v + off;
	size_t i, nnz = 0, nnzq;
	uint64_t *acc = r->n.acc;
	struct inc_stream_sums sums;
	struct inc_scale *sc = NULL;
	unsigned t;
	long len;

	if (r->c.warm && !r->o.warmup_error_bound)   /* nothing goes through the codec */
		return;
	/* with error feedback the codec sees gradient + residual, with the
	 * scaling each layer times 2^e (the exponents this call will use); a
	 * coded warm-up, the values times 2^warm_exp */
	if (site >= 0 && tr_scale_for(r, site, off, off + n, &sc))
		sc = NULL;
	if (r->c.warm) {
		float *x = r->scratch.sent + off;

		for (i = 0; i < n; i++)
			x[i] = ldexpf(v[off + i], r->c.warm_exp);
		g = x;
	} else if ((r->s.ef && !r->o.truncate) || sc) {
		float *x = r->scratch.sent + off;
		int e[TR_MAX_LAYERS], np = 0, k = 0;

		for (i = 0; i < n; i++)
			x[i] = v[off + i] + (r->s.ef && !r->o.truncate ? r->s.res[off + i] : 0.0f);
		if (sc)
			np = inc_scale_get(sc, e, TR_MAX_LAYERS);
		for (i = 0; np > 0 && i < n; i++) {
			/* part k: the layers in [off, off + n), in order */
			while (k + 1 < np && off + i >= r->s.scale_part_end[site][k])
				k++;
			x[i] = ldexpf(x[i], e[k]);
		}
		g = x;
	}
	/* the INCEPTIONN stream of these values, with its tag counts, in one
	 * pass of the SIMD kernels (the model's bytes and counts) */
	len = inc_frame_kernels_fast()->stream_compress((const uint8_t *)g, n, r->o.error_bound,
							 r->scratch.cstream, inc_codec_max_size(n),
							 &sums);
	if (len < 0)
		return;
	for (t = 0; t < 4; t++)
		acc[TR_ACC_TAG0 + t] += sums.counts.n[t];
	nnzq = n - sums.counts.n[0];
	if (ci->summable) {
		/* this worker's gradient as a sketch message of its own (index +
		 * cells for its non-zeros; quantized first when the mode is lossy) */
		struct inc_sketch_geom gm;
		size_t k;

		for (i = 0; !ci->lossy && i < n; i++)
			nnz += g[i] != 0.0f;
		k = ci->lossy ? nnzq : nnz;

		if (!inc_sketch_geom_index(&gm, n, (enum inc_sketch_index)r->c.ar.sketch_index, k, 0) &&
		    !inc_sketch_geom_cells(&gm, k, r->c.ar.sketch_gamma > 0 ? r->c.ar.sketch_gamma
									    : INC_SKETCH_GAMMA)) {
			acc[TR_ACC_CBYTES] += (inc_sketch_index_words(&gm) + inc_sketch_cells(&gm)) * 4;
			acc[TR_ACC_CRAW] += (uint64_t)n * 4;
		}
		return;
	}
	if (r->o.compression == INC_COMP_CNAT || r->o.compression == INC_COMP_CNAT_DET) {
		acc[TR_ACC_CBYTES] += (uint64_t)n;      /* one byte per value */
		acc[TR_ACC_CRAW] += (uint64_t)n * 4;
		return;
	}
	if (len > 0) {
		acc[TR_ACC_CBYTES] += (uint64_t)len;
		acc[TR_ACC_CRAW] += (uint64_t)n * 4;
	}
}

/* ------------------------------------------------------------------------ */
/* Evaluation                                                                */
/* ------------------------------------------------------------------------ */
/* Every rank evaluates its share of the test set and the counts are
 * summed, so all ranks agree. */
int tr_evaluate(struct run *r, double *acc, double *loss)
{
	long total = r->o.eval_samples && r->o.eval_samples < r->d.test.n ?
		     r->o.eval_samples : r->d.test.n;
	long lo = total * r->c.rank / r->c.size, hi = total * (r->c.rank + 1) / r->c.size, i;
	uint64_t v[3] = { 0, 0, 0 };
	uint32_t idx[256];
	int rc, n, k, ok;
	double l;

	for (i = lo; i < hi; i += n) {
		n = hi - i < r->m.batch_cap ? (int)(hi - i) : r->m.batch_cap;
		if (n > 256)
			n = 256;
		for (k = 0; k < n; k++)
			idx[k] = (uint32_t)(i + k);
		tr_dataset_gather(&r->d.test, idx, n, r->d.x, r->d.y);
		l = tr_model_forward(&r->m, r->d.x, r->d.y, n, &ok);
		v[0] += (uint64_t)ok;
		v[1] += (uint64_t)llround(l * n * 1e6);
		v[2] += (uint64_t)n;
	}
	rc = tr_sum_u64(r, v, 3);
	if (rc)
		return tr_fail_comm(r, "evaluation sum", rc);
	*acc = v[2] ? 100.0 * (double)v[0] / (double)v[2] : 0.0;
	*loss = v[2] ? (double)v[1] * 1e-6 / (double)v[2] : 0.0;
	return 0;
}

int tr_save_floats(const char *path, const float *v, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(v, sizeof(float), n, f) != n) {
		fprintf(stderr, "inc-train: %s: %s\n", path, strerror(errno));
		if (f)
			fclose(f);
		return 1;
	}
	if (fclose(f)) {
		fprintf(stderr, "inc-train: %s: %s\n", path, strerror(errno));
		return 1;
	}
	return 0;
}
