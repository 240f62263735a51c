// SPDX-License-Identifier: MIT
/*
 * inc-train - distributed data-parallel training over libinceptionn.
 *
 *   inc-train [--model hdc|lenet] [--scheme wa|inc] [--compression MODE]
 *             [--schedule NAME] ... (inc-train --help; tr_opts.c)
 *   inc-train report LOG... --out DIR
 *
 * Schemes (docs/train.md):
 *   inc  every rank is a worker; gradients are summed with the ring
 *        all-reduce (Algorithm 1) and every rank applies the same update.
 *   wa   rank 0 is the aggregator: workers send gradients, the aggregator
 *        sums them, updates the master weights and sends the weights back
 *        (inc_wa_update_f32; only the gradient direction is compressed).
 * Schedules (when gradients travel) are a table, tr_schedules.c; an
 * iteration is the schedule's (tr_sched_*.c) over the steps of tr_run.c.
 *
 * One process without the INC_* environment (or mpirun) trains alone.
 * Exit status: 0 done, 2 bad command line or data, 1 any other failure.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tr_log.h"
#include "tr_run.h"
#include "tr_util.h"

/* OpenBLAS: one thread per rank unless --threads says otherwise (ranks
 * share the machine's cores). */
void openblas_set_num_threads(int n);

/* ------------------------------------------------------------------------ */
/* Set-up                                                                    */
/* ------------------------------------------------------------------------ */
static int distributed_env(void)
{
	static const char *const vars[] = { "INC_RANK", "RANK", "INC_WORLD_SIZE",
		"WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", NULL };
	int i;

	for (i = 0; vars[i]; i++)
		if (getenv(vars[i]))
			return 1;
	return 0;
}

/* The communicator (or one process alone), who is a worker, the
 * all-reduce options of the run. */
static int setup_ranks(struct run *r)
{
	struct tr_ranks *c = &r->c;
	int rc;

	c->size = 1;
	if (distributed_env()) {
		rc = inc_comm_init_env(&c->comm);
		if (rc)
			return tr_fail_comm(r, "communicator", rc);
		c->rank = inc_comm_rank(c->comm);
		c->size = inc_comm_size(c->comm);
	}
	if (r->o.scheme == TR_SCHEME_WA && c->size < 2) {
		fprintf(stderr, "inc-train: --scheme wa needs at least 2 ranks (aggregator + "
			"workers), have %d\n", c->size);
		return 2;
	}
	c->workers = r->o.scheme == TR_SCHEME_WA ? c->size - 1 : c->size;
	c->worker = r->o.scheme == TR_SCHEME_WA ? c->rank - 1 : c->rank;
	rc = inc_allreduce_opts_init(&c->ar);
	if (rc)
		return tr_fail_comm(r, "INC_* options", rc);
	c->ar.compression = (enum inc_compression)r->o.compression;
	c->ar.algo = r->o.scheme == TR_SCHEME_WA ? INC_ALGO_WA : INC_ALGO_RING;
	c->ar.error_bound = r->o.error_bound;
	c->ar.seed = r->o.seed;
	return 0;
}

/*
 * Error feedback (docs/train.md): --error-feedback / --no-error-feedback,
 * else INC_ERROR_FEEDBACK, else on for the lossy INCEPTIONN modes and for
 * truncation. One residual per gradient value; the layer-wise schedules
 * pass each group its slice, so every call site keeps its own. Truncation
 * keeps it here (the library sends exact floats); the lossy modes hand it
 * to the library. Schedules that exchange models, not sums: never.
 */
static int setup_error_feedback(struct run *r)
{
	struct inc_allreduce_opts *a = &r->c.ar;

	if (r->o.error_feedback >= 0)
		a->error_feedback = r->o.error_feedback ? INC_EF_ON : INC_EF_OFF;
	if (!r->sched->sums)
		a->error_feedback = INC_EF_OFF;
	if (r->o.truncate) {
		r->s.ef = a->error_feedback == INC_EF_ON ||
			  (a->error_feedback == INC_EF_AUTO && r->sched->sums);
		/* one lossy step fed back: the truncation's */
		a->error_feedback = INC_EF_OFF;
	} else {
		a->residual = &r->s.rate;   /* any non-NULL pointer: is it in effect? */
		r->s.ef = inc_error_feedback_active(a);
		a->residual = NULL;
	}
	if (r->o.scaling != TR_SCALING_OFF) {   /* the codec statistics' scaled copy */
		r->scratch.sent = tr_alloc(r->m.nparams * sizeof(float));
		if (!r->scratch.sent)
			return tr_bad("out of memory");
	}
	if (!r->s.ef)
		return 0;
	r->s.res = tr_alloc(r->m.nparams * sizeof(float));
	if (!r->scratch.sent)
		r->scratch.sent = tr_alloc(r->m.nparams * sizeof(float));
	if (!r->s.res || !r->scratch.sent)
		return tr_bad("out of memory");
	memset(r->s.res, 0, r->m.nparams * sizeof(float));
	if (!r->o.truncate)
		a->residual = r->s.res;
	return 0;
}

/* Data, ranks, model, optimizer state, the check that every rank was
 * started alike, the log, and the schedule's own set-up. */
static int setup(struct run *r)
{
	char err[4608];
	int rc, cap;

	r->sched = tr_schedule_at(r->o.schedule);
	if (tr_dataset_load(&r->d.train, r->o.data, "train", 10, err, sizeof(err)) ||
	    tr_dataset_load(&r->d.test, r->o.data, "t10k", 10, err, sizeof(err)))
		return tr_bad("%s", err);
	if ((rc = setup_ranks(r)))
		return rc;
	cap = r->o.batch > 256 ? r->o.batch : 256;
	if (tr_model_init(&r->m, tr_model_name(&r->o), cap))
		return tr_bad("out of memory for model %s", tr_model_name(&r->o));
	tr_model_init_params(&r->m, r->o.seed);
	r->s.mom = tr_alloc(r->m.nparams * sizeof(float));
	r->d.x = tr_alloc((size_t)cap * r->m.in_size * sizeof(float));
	r->d.y = malloc((size_t)cap);
	r->scratch.cstream = malloc(inc_codec_max_size(r->m.nparams));
	if (!r->s.mom || !r->d.x || !r->d.y || !r->scratch.cstream ||
	    tr_shard_init(&r->d.shard, (uint32_t)r->d.train.n, r->o.seed, r->c.workers,
			  r->o.batch, r->sched->rotate))
		return tr_bad("out of memory");
	memset(r->s.mom, 0, r->m.nparams * sizeof(float));
	if ((rc = setup_error_feedback(r)))
		return rc;

	rc = tr_agree(r, tr_config_hash(r));
	if (rc < 0)
		return tr_fail_comm(r, "configuration check", rc);
	if (rc == 0) {
		fprintf(stderr, "inc-train: rank %d: the ranks were started with different "
			"models or hyperparameters\n", r->c.rank);
		return 2;
	}
	if (r->o.log && r->c.rank == 0) {
		r->log = fopen(r->o.log, "w");
		if (!r->log)
			return tr_bad("%s: %s", r->o.log, strerror(errno));
		setvbuf(r->log, NULL, _IOLBF, 0);
		tr_log_config(r);
	}
	return r->sched->setup ? r->sched->setup(r) : 0;
}

static void teardown(struct run *r)
{
	if (r->log)
		fclose(r->log);
	inc_comm_destroy(r->c.comm);   /* finishes or fails what is queued */
	tr_model_free(&r->m);
	tr_dataset_free(&r->d.train);
	tr_dataset_free(&r->d.test);
	tr_shard_free(&r->d.shard);
	free(r->d.x);
	free(r->d.y);
	free(r->s.mom);
	free(r->s.res);
	for (int i = 0; i < TR_MAX_LAYERS; i++)
		inc_scale_destroy(r->s.scale[i]);
	free(r->scratch.sent);
	free(r->scratch.cstream);
	free(r->gossip.peer);
}

/* ------------------------------------------------------------------------ */
/* Checks along the way                                                      */
/* ------------------------------------------------------------------------ */
/* Mean training loss of iteration `done` over the workers; a loss that is
 * not finite on any worker stops the run. */
static int mean_loss(struct run *r, long done, double *loss)
{
	uint64_t v[3] = { 0, 0, 0 };
	int rc;

	if (r->c.worker >= 0) {
		if (isfinite(r->n.last_loss) && r->n.last_loss < 1e9)
			v[0] = (uint64_t)llround(r->n.last_loss * 1e9);
		else
			v[2] = 1;
		v[1] = 1;
	}
	rc = tr_sum_u64(r, v, 3);
	if (rc)
		return tr_fail_comm(r, "loss sum", rc);
	*loss = v[1] && !v[2] ? (double)v[0] * 1e-9 / (double)v[1] : NAN;
	if (!isfinite(*loss)) {
		fprintf(stderr, "inc-train: rank %d: training diverged (loss is not finite at "
			"iteration %ld); lower --lr or raise the batch\n", r->c.rank, done);
		return 1;
	}
	return 0;
}

/* Schedules whose replicas stay bit-identical: are they? */
static int check_replicas(struct run *r, long it)
{
	uint64_t h = tr_digest(r->m.params, r->m.nparams);
	int rc;

	if (!r->sched->identical)     /* replicas differ by design */
		return 0;
	rc = tr_agree(r, h);
	if (rc < 0)
		return tr_fail_comm(r, "replica check", rc);
	if (rc == 0) {
		fprintf(stderr, "inc-train: rank %d: replicas differ after iteration %ld "
			"(weights %016" PRIx64 " here)\n", r->c.rank, it, h);
		return 1;
	}
	return 0;
}

static int evaluate(struct run *r, double *acc, double *loss)
{
	return r->sched->evaluate ? r->sched->evaluate(r, acc, loss) : tr_evaluate(r, acc, loss);
}

/* ------------------------------------------------------------------------ */
/* Training                                                                  */
/* ------------------------------------------------------------------------ */
static int train(struct run *r)
{
	double acc = 0, tloss = 0, loss = NAN;
	uint64_t digest;
	long it;
	int rc;

	for (it = 0; it < r->o.iterations; it++) {
		tr_warmup(r, it);
		if ((rc = r->sched->iteration(r, it)))
			return rc;
		if (r->o.check_every && (it + 1) % r->o.check_every == 0 &&
		    (rc = check_replicas(r, it + 1)))
			return rc;
		if ((it + 1) % r->o.log_every == 0 || it + 1 == r->o.iterations) {
			if ((rc = mean_loss(r, it + 1, &loss)))
				return rc;
			tr_log_progress(r, it + 1, loss);
		}
		if (r->o.eval_every && (it + 1) % r->o.eval_every == 0 && it + 1 != r->o.iterations) {
			if ((rc = evaluate(r, &acc, &tloss)))
				return rc;
			tr_log_eval(r, it + 1, acc, tloss);
		}
	}
	if ((rc = check_replicas(r, it)) || (rc = evaluate(r, &acc, &tloss)))
		return rc;
	tr_log_eval(r, it, acc, tloss);
	if (!r->sched->identical && r->c.rank == 0 && !r->o.quiet)
		fprintf(stderr, "inc-train: %s: averaged model %.2f%%, rank 0's model %.2f%%, "
			"replica spread max|w_i - mean w| %.3g\n", r->sched->name, acc,
			r->gossip.acc_rank0, r->gossip.spread);
	digest = tr_digest(r->m.params, r->m.nparams);
	if ((rc = tr_log_summary(r, it, acc, tloss, loss, digest)))
		return rc;
	if (r->o.save && r->c.rank == 0 && tr_save_floats(r->o.save, r->m.params, r->m.nparams))
		return 1;
	printf("inc-train: rank %d iterations %ld test-accuracy %.2f loss %.6f weights %016"
	       PRIx64 "\n", r->c.rank, it, acc, loss, digest);
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	static struct run r;
	int rc;

	if (argc > 1 && !strcmp(argv[1], "report"))
		return tr_report_main(argc - 1, argv + 1);
	if ((rc = tr_opts_parse(&r.o, argc, argv)))
		return rc;
	openblas_set_num_threads(r.o.threads);
	rc = setup(&r);
	if (rc == 0)
		rc = train(&r);
	teardown(&r);
	return rc;
}
