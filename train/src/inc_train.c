// SPDX-License-Identifier: MIT
/*
 * inc-train - distributed data-parallel training over libinceptionn.
 *
 *   inc-train [--model hdc|lenet] [--data DIR] [--iterations N] [--batch B]
 *             [--lr X] [--seed S] [--scheme wa|inc]
 *             [--compression none|nic|software] [--error-bound N]
 *             [--truncate BITS] [--eval-every N] [--log FILE] ...
 *   inc-train report LOG... --out DIR
 *
 * Schemes (docs/train.md):
 *   inc  every rank is a worker; gradients are summed with the ring
 *        all-reduce (Algorithm 1) and every rank applies the same update.
 *   wa   rank 0 is the aggregator: workers send gradients, the aggregator
 *        sums them, updates the master weights and sends the weights back
 *        (inc_wa_update_f32; only the gradient direction is compressed).
 *
 * One process without the INC_* environment (or mpirun) trains alone.
 * Exit status: 0 done, 2 bad command line or data, 1 any other failure.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inceptionn/inceptionn.h"
#include "inc_model.h"
#include "tr_data.h"
#include "tr_model.h"
#include "tr_optim.h"
#include "tr_sched.h"
#include "tr_train.h"
#include "tr_util.h"

/* OpenBLAS: one thread per rank unless --threads says otherwise (ranks
 * share the machine's cores). */
void openblas_set_num_threads(int n);

/* ------------------------------------------------------------------------ */
/* Options                                                                   */
/* ------------------------------------------------------------------------ */
enum scheme { SCHEME_INC, SCHEME_WA };
/* Communication schedules of the inc scheme (docs/train.md, "Schedules"). */
enum schedule { SCHED_SYNC, SCHED_WFBP, SCHED_BUCKET, SCHED_MGWFBP, SCHED_GOSSIP, SCHED_N };
static const char *const sched_names[SCHED_N] = { "sync", "wfbp", "bucket", "mgwfbp", "gossip" };

struct opts {
	const char *model;
	const char *data;
	long iterations;
	int batch;
	double lr;
	uint64_t seed;
	enum scheme scheme;
	enum inc_compression compression;
	unsigned error_bound;
	unsigned truncate;        /* LSBs dropped from each sent gradient value */
	long eval_every;          /* 0: only at the end */
	const char *log;
	const char *save;         /* final weights, raw float32 (rank 0) */
	const char *save_grads;   /* last gradient of the first worker, raw float32 */
	long check_every;         /* replica digest check period */
	long log_every;           /* progress/log period (0: iterations / 50) */
	long stats_every;         /* codec statistics sample period */
	long eval_samples;        /* test samples used (0: all) */
	int threads;
	int quiet;
	enum schedule schedule;
	long bucket_kb;           /* bucket schedule: group size, KiB of gradients */
	int error_feedback;       /* -1 default (INC_ERROR_FEEDBACK, else the mode's), 0, 1 */
	struct tr_sgd sgd;
};

static const char *const comp_names[] = { "none", "nic", "software", "cnat", "cnat-det",
					   "sketch", "inc+sketch" };
#define N_COMP 7

static int is_sketch(enum inc_compression c)
{
	return c == INC_COMP_SKETCH || c == INC_COMP_INC_SKETCH;
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: inc-train [--model hdc|lenet] [--data DIR] [--iterations N] [--batch B]\n"
"                 [--lr X] [--seed S] [--scheme wa|inc]\n"
"                 [--compression none|nic|software|cnat|cnat-det|sketch|inc+sketch]\n"
"                 [--error-bound N] [--truncate BITS] [--eval-every N] [--log FILE]\n"
"                 [--lr-step N] [--lr-gamma X] [--momentum X] [--weight-decay X]\n"
"                 [--check-every K] [--log-every N] [--stats-every N]\n"
"                 [--eval-samples N] [--threads N] [--save FILE] [--save-grads FILE]\n"
"                 [--quiet]\n"
"                 [--schedule sync|wfbp|bucket|mgwfbp|gossip] [--bucket-kb N]\n"
"                 [--error-feedback | --no-error-feedback]\n"
"       inc-train report LOG... --out DIR\n"
"Launch several ranks with inc-run -n N, the INC_* environment, mpirun or\n"
"scripts/train-cluster.sh; see docs/train.md.\n");
}

static int bad(const char *fmt, ...)
{
	va_list ap;

	fputs("inc-train: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 2;
}

static int num(const char *name, const char *s, double lo, double hi, double *out)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(s, &end);
	if (errno || end == s || *end || !(x >= lo && x <= hi))
		return bad("%s: '%s' is not a number in [%g, %g]", name, s, lo, hi);
	*out = x;
	return 0;
}

static int integer(const char *name, const char *s, long lo, long hi, long *out)
{
	char *end;
	long x;

	errno = 0;
	x = strtol(s, &end, 10);
	if (errno || end == s || *end || x < lo || x > hi)
		return bad("%s: '%s' is not an integer in [%ld, %ld]", name, s, lo, hi);
	*out = x;
	return 0;
}

static int parse(struct opts *o, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "model", 1, 0, 'm' }, { "data", 1, 0, 'd' }, { "iterations", 1, 0, 'i' },
		{ "batch", 1, 0, 'b' }, { "lr", 1, 0, 'l' }, { "seed", 1, 0, 's' },
		{ "scheme", 1, 0, 'S' }, { "compression", 1, 0, 'c' },
		{ "error-bound", 1, 0, 'e' }, { "truncate", 1, 0, 't' },
		{ "eval-every", 1, 0, 'E' }, { "log", 1, 0, 'L' },
		{ "lr-step", 1, 0, 1 }, { "lr-gamma", 1, 0, 2 }, { "momentum", 1, 0, 3 },
		{ "weight-decay", 1, 0, 4 }, { "check-every", 1, 0, 5 },
		{ "log-every", 1, 0, 6 }, { "stats-every", 1, 0, 7 },
		{ "eval-samples", 1, 0, 8 }, { "threads", 1, 0, 9 }, { "quiet", 0, 0, 'q' },
		{ "save", 1, 0, 10 }, { "schedule", 1, 0, 11 }, { "bucket-kb", 1, 0, 12 },
		{ "save-grads", 1, 0, 13 }, { "error-feedback", 0, 0, 14 },
		{ "no-error-feedback", 0, 0, 15 },
		{ "help", 0, 0, 'h' }, { 0, 0, 0, 0 },
	};
	long n;
	int c, i;

	memset(o, 0, sizeof(*o));
	o->model = "hdc";
	o->data = TR_DATA_DEFAULT_DIR;
	o->iterations = 10000;
	o->batch = 25;
	o->seed = 1;
	o->scheme = SCHEME_INC;
	o->compression = INC_COMP_NONE;
	o->error_bound = 10;
	o->check_every = 100;
	o->stats_every = 10;
	o->threads = 1;
	o->schedule = SCHED_SYNC;
	o->bucket_kb = 512;
	o->error_feedback = -1;
	o->sgd = (struct tr_sgd){ .lr = 0.1, .momentum = 0.9, .decay = 5e-5,
				  .step = 2000, .gamma = 0.2 };
	while ((c = getopt_long(argc, argv, "qh", lo, NULL)) != -1) {
		switch (c) {
		case 'm':
			for (i = 0; tr_model_names[i] && strcmp(optarg, tr_model_names[i]); i++)
				;
			if (!tr_model_names[i])
				return bad("--model: unknown model '%s' (hdc, lenet)", optarg);
			o->model = optarg;
			break;
		case 'd': o->data = optarg; break;
		case 'i':
			if (integer("--iterations", optarg, 1, 100000000, &o->iterations))
				return 2;
			break;
		case 'b':
			if (integer("--batch", optarg, 1, 65536, &n))
				return 2;
			o->batch = (int)n;
			break;
		case 'l':
			if (num("--lr", optarg, 0, 100, &o->sgd.lr))
				return 2;
			break;
		case 's':
			if (integer("--seed", optarg, 0, LONG_MAX, &n))
				return 2;
			o->seed = (uint64_t)n;
			break;
		case 'S':
			if (!strcmp(optarg, "inc"))
				o->scheme = SCHEME_INC;
			else if (!strcmp(optarg, "wa"))
				o->scheme = SCHEME_WA;
			else
				return bad("--scheme: '%s' is not wa or inc", optarg);
			break;
		case 'c':
			for (i = 0; i < N_COMP && strcmp(optarg, comp_names[i]); i++)
				;
			if (i == N_COMP)
				return bad("--compression: '%s' is not none, nic, software, cnat, "
					   "cnat-det, sketch or inc+sketch", optarg);
			o->compression = (enum inc_compression)i;
			break;
		case 'e':
			if (integer("--error-bound", optarg, INC_EB_MIN, INC_EB_MAX, &n))
				return 2;
			o->error_bound = (unsigned)n;
			break;
		case 't':
			if (integer("--truncate", optarg, 0, 31, &n))
				return 2;
			o->truncate = (unsigned)n;
			break;
		case 'E':
			if (integer("--eval-every", optarg, 0, 100000000, &o->eval_every))
				return 2;
			break;
		case 'L': o->log = optarg; break;
		case 1:
			if (integer("--lr-step", optarg, 1, 100000000, &o->sgd.step))
				return 2;
			break;
		case 2:
			if (num("--lr-gamma", optarg, 0, 1, &o->sgd.gamma))
				return 2;
			break;
		case 3:
			if (num("--momentum", optarg, 0, 0.999999, &o->sgd.momentum))
				return 2;
			break;
		case 4:
			if (num("--weight-decay", optarg, 0, 1, &o->sgd.decay))
				return 2;
			break;
		case 5:
			if (integer("--check-every", optarg, 0, 100000000, &o->check_every))
				return 2;
			break;
		case 6:
			if (integer("--log-every", optarg, 0, 100000000, &o->log_every))
				return 2;
			break;
		case 7:
			if (integer("--stats-every", optarg, 0, 100000000, &o->stats_every))
				return 2;
			break;
		case 8:
			if (integer("--eval-samples", optarg, 0, 100000000, &o->eval_samples))
				return 2;
			break;
		case 9:
			if (integer("--threads", optarg, 1, 256, &n))
				return 2;
			o->threads = (int)n;
			break;
		case 10: o->save = optarg; break;
		case 13: o->save_grads = optarg; break;
		case 11:
			for (i = 0; i < SCHED_N && strcmp(optarg, sched_names[i]); i++)
				;
			if (i == SCHED_N)
				return bad("--schedule: '%s' is not sync, wfbp, bucket, mgwfbp or gossip",
					   optarg);
			o->schedule = (enum schedule)i;
			break;
		case 12:
			if (integer("--bucket-kb", optarg, 1, 4194304, &o->bucket_kb))
				return 2;
			break;
		case 14: o->error_feedback = 1; break;
		case 15: o->error_feedback = 0; break;
		case 'q': o->quiet = 1; break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc)
		return bad("unexpected argument '%s' (see --help)", argv[optind]);
	if (!o->log_every)
		o->log_every = o->iterations / 50 > 0 ? o->iterations / 50 : 1;
	if (o->schedule != SCHED_SYNC && o->scheme == SCHEME_WA)
		return bad("--schedule %s needs --scheme inc (the worker-aggregator exchange "
			   "pipelines its own segments)", sched_names[o->schedule]);
	if (is_sketch(o->compression) && o->scheme == SCHEME_WA)
		return bad("--compression %s needs --scheme inc (sketches are summed; the "
			   "aggregator sends back weights, which are not sparse)",
			   comp_names[o->compression]);
	if (o->error_feedback == 1 && o->schedule == SCHED_GOSSIP)
		return bad("--error-feedback does not go with --schedule gossip (the exchange "
			   "sends models, not sums: there is no residual to keep)");
	if (o->error_feedback == 1 && !inc_compression_info(o->compression)->lossy &&
	    !o->truncate)
		return bad("--error-feedback needs a lossy compression (nic, software, cnat, "
			   "cnat-det, inc+sketch) or --truncate");
	if (is_sketch(o->compression) && o->schedule == SCHED_GOSSIP)
		return bad("--compression %s does not go with --schedule gossip (sketches are "
			   "summed, gossip exchanges models)", comp_names[o->compression]);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Run state                                                                 */
/* ------------------------------------------------------------------------ */
/* Per-phase times (ns) and counters of this rank, summed over ranks at the
 * end (tr_train.h names the fields). */
struct run {
	struct opts o;
	struct inc_comm *comm;
	int rank, size;
	int workers;              /* ranks that compute gradients */
	int worker;               /* this rank's worker index, -1: aggregator */
	struct inc_allreduce_opts ar;
	struct tr_model m;
	struct tr_dataset train, test;
	float *mom;               /* momentum (inc: every rank; wa: aggregator) */
	int ef;                   /* error feedback in effect */
	float *res;               /* its residual, one per gradient value (slices per group) */
	float *sent;              /* codec statistics of what is sent: gradient + residual */
	float *x;                 /* one batch of inputs */
	uint8_t *y;
	uint32_t *perm;           /* permutation of the current epoch */
	long perm_epoch;
	uint8_t *cstream;         /* codec statistics scratch */
	float rate;               /* learning rate of the current iteration */
	uint64_t acc[TR_ACC_N];
	uint64_t train_ns;        /* time inside iterations (no eval/log/check) */
	double last_loss;         /* this worker's loss of the last iteration */
	FILE *log;
	/* Layer-wise schedules: the learnable layers in backward order, the
	 * plan's groups (parameter ranges), the group each layer completes,
	 * and the requests in flight during backward. */
	int nl;
	int lidx[TR_PLAN_MAX];
	int ngroups;
	size_t grp_lo[TR_PLAN_MAX], grp_hi[TR_PLAN_MAX];
	int grp_of_layer[TR_MAX_LAYERS];
	struct inc_request *req[TR_PLAN_MAX];
	int issue_rc;             /* first error issuing a request this iteration */
	int stats_now;            /* sample codec statistics in this backward */
	uint64_t hook_stats_ns;
	uint64_t *calib_t;        /* calibration: completion time of each layer */
	int calib_k;
	double predicted_ms;      /* mgwfbp: predicted iteration time */
	float *peer;              /* gossip: the partner's weights */
	double acc_rank0, spread; /* gossip: last evaluation's rank-0 accuracy, spread */
};

static int save_floats(const char *path, const float *v, size_t n);

static int fail_comm(struct run *r, const char *what, int rc)
{
	fprintf(stderr, "inc-train: rank %d: %s: %s\n", r->rank, what, inc_strerror(rc));
	return 1;
}

/* Sum n unsigned 64-bit counters over all ranks exactly: each travels as
 * four 16-bit limbs in float32 (sums below 2^24 for up to 256 ranks). */
static int sum_u64(struct run *r, uint64_t *v, int n)
{
	struct inc_allreduce_opts o = r->ar;
	float *f;
	int i, k, rc;

	if (r->size == 1)
		return 0;
	f = malloc((size_t)n * 4 * sizeof(float));
	if (!f)
		return INC_E_NOMEM;
	for (i = 0; i < n; i++)
		for (k = 0; k < 4; k++)
			f[4 * i + k] = (float)((v[i] >> (16 * k)) & 0xffffu);
	o.compression = INC_COMP_NONE;
	o.algo = INC_ALGO_RING;
	rc = inc_allreduce_f32(r->comm, f, (size_t)n * 4, &o);
	for (i = 0; rc == 0 && i < n; i++)
		for (v[i] = 0, k = 0; k < 4; k++)
			v[i] += (uint64_t)f[4 * i + k] << (16 * k);
	free(f);
	return rc;
}

/* Do all ranks hold the same h? Each byte b travels with b^2; the sums
 * equal size*b and size*b^2 on every rank only if all bytes are equal
 * (Cauchy-Schwarz), so every rank reaches the same verdict. Returns 1
 * equal, 0 different, or a negative library error. */
static int agree(struct run *r, uint64_t h)
{
	uint64_t v[16];
	int k, rc;

	for (k = 0; k < 8; k++) {
		v[2 * k] = h >> (8 * k) & 0xff;
		v[2 * k + 1] = v[2 * k] * v[2 * k];
	}
	rc = sum_u64(r, v, 16);
	if (rc)
		return rc;
	for (k = 0; k < 8; k++) {
		uint64_t b = h >> (8 * k) & 0xff;

		if (v[2 * k] != (uint64_t)r->size * b || v[2 * k + 1] != (uint64_t)r->size * b * b)
			return 0;
	}
	return 1;
}

/* Everything that must be equal on every rank, hashed. */
static uint64_t config_hash(const struct run *r)
{
	char buf[512];
	const struct opts *o = &r->o;

	snprintf(buf, sizeof(buf),
		 "%s|%ld|%d|%.17g|%" PRIu64 "|%d|%d|%u|%u|%ld|%.17g|%.17g|%.17g|%ld|%ld|%ld|%ld|%zu|%d|%ld|%d",
		 o->model, o->iterations, o->batch, o->sgd.lr, o->seed, (int)o->scheme,
		 (int)o->compression, o->error_bound, o->truncate, o->sgd.step,
		 o->sgd.gamma, o->sgd.momentum, o->sgd.decay, o->eval_every,
		 o->check_every, o->log_every, o->eval_samples, r->m.nparams,
		 (int)o->schedule, o->schedule == SCHED_BUCKET ? o->bucket_kb : 0, r->ef);
	return tr_digest((const float *)(const void *)buf, strlen(buf) / 4);
}

/* ------------------------------------------------------------------------ */
/* Data order                                                                */
/* ------------------------------------------------------------------------ */
/* Global sample position p (p = iteration * workers * batch + worker *
 * batch + i) maps to permutation[p % n] of epoch p / n: a single process
 * with batch workers*batch sees exactly the union of the workers' batches. */
static uint32_t sample_at(struct run *r, uint64_t p)
{
	uint32_t n = (uint32_t)r->train.n, i, j, t;
	long epoch = (long)(p / n);

	if (epoch != r->perm_epoch) {
		struct tr_rng rng;

		tr_rng_seed(&rng, r->o.seed, 0xda7a0000u + (uint64_t)epoch);
		for (i = 0; i < n; i++)
			r->perm[i] = i;
		for (i = n - 1; i > 0; i--) {
			j = (uint32_t)tr_rng_below(&rng, (uint64_t)i + 1);
			t = r->perm[i];
			r->perm[i] = r->perm[j];
			r->perm[j] = t;
		}
		r->perm_epoch = epoch;
	}
	return r->perm[p % n];
}

static void load_batch(struct run *r, long it)
{
	uint32_t idx[256];
	/* gossip: the workers' slots of the global order rotate along the
	 * ring after every batch (GossipGraD's sample shuffle, docs/train.md) */
	uint64_t w = r->o.schedule == SCHED_GOSSIP ?
		     (uint64_t)((r->worker + it) % r->workers) : (uint64_t)r->worker;
	uint64_t base = ((uint64_t)it * r->workers + w) * r->o.batch;
	int done = 0, i, n;

	while (done < r->o.batch) {
		n = r->o.batch - done < 256 ? r->o.batch - done : 256;
		for (i = 0; i < n; i++)
			idx[i] = sample_at(r, base + (uint64_t)done + (uint64_t)i);
		tr_dataset_gather(&r->train, idx, n, r->x + (size_t)done * r->m.in_size,
				  r->y + done);
		done += n;
	}
}

/* ------------------------------------------------------------------------ */
/* Gradients on the way out                                                  */
/* ------------------------------------------------------------------------ */
static void truncate_values(float *v, size_t n, unsigned bits)
{
	uint32_t mask = ~((1u << bits) - 1u), u;
	size_t i;

	for (i = 0; i < n; i++) {
		memcpy(&u, &v[i], 4);
		u &= mask;
		memcpy(&v[i], &u, 4);
	}
}

/* Truncation of outgoing gradients; with error feedback the residual of
 * these positions is added first and keeps what the truncation took. */
static void truncate_sent(struct run *r, size_t off, size_t n)
{
	float *v = r->m.grads + off, *e = r->res ? r->res + off : NULL;
	size_t i;

	for (i = 0; e && i < n; i++) {
		v[i] += e[i];
		e[i] = v[i];
	}
	truncate_values(v, n, r->o.truncate);
	for (i = 0; e && i < n; i++)
		e[i] -= v[i];
}

/* Table III: how the codec at the run's error bound encodes this worker's
 * gradients (tag shares), and the stream size. */
static void codec_stats(struct run *r, size_t off, size_t n)
{
	const float *g = r->m.grads + off;
	size_t i, nnz = 0, nnzq = 0;

	/* with error feedback the codec sees gradient + residual */
	if (r->ef && !r->o.truncate) {
		for (i = 0; i < n; i++)
			r->sent[off + i] = r->m.grads[off + i] + r->res[off + i];
		g = r->sent + off;
	}
	uint32_t u, pl;
	long len;

	for (i = 0; i < n; i++) {
		unsigned tag;

		memcpy(&u, &g[i], 4);
		tag = inc_compress_value(u, r->o.error_bound, &pl);
		r->acc[TR_ACC_TAG0 + tag]++;
		nnzq += tag != 0;
		nnz += g[i] != 0.0f;
	}
	if (is_sketch(r->o.compression)) {
		/* this worker's gradient as a sketch message of its own (index +
		 * cells for its non-zeros; quantized first in inc+sketch) */
		struct inc_sketch_geom gm;
		size_t k = r->o.compression == INC_COMP_INC_SKETCH ? nnzq : nnz;

		if (!inc_sketch_geom_index(&gm, n, (enum inc_sketch_index)r->ar.sketch_index, k, 0) &&
		    !inc_sketch_geom_cells(&gm, k, r->ar.sketch_gamma > 0 ? r->ar.sketch_gamma
									 : INC_SKETCH_GAMMA)) {
			r->acc[TR_ACC_CBYTES] += (inc_sketch_index_words(&gm) + inc_sketch_cells(&gm)) * 4;
			r->acc[TR_ACC_CRAW] += (uint64_t)n * 4;
		}
		return;
	}
	if (r->o.compression == INC_COMP_CNAT || r->o.compression == INC_COMP_CNAT_DET) {
		r->acc[TR_ACC_CBYTES] += (uint64_t)n;      /* one byte per value */
		r->acc[TR_ACC_CRAW] += (uint64_t)n * 4;
		return;
	}
	len = inc_codec_compress(g, n, r->o.error_bound, r->cstream, inc_codec_max_size(n));
	if (len > 0) {
		r->acc[TR_ACC_CBYTES] += (uint64_t)len;
		r->acc[TR_ACC_CRAW] += (uint64_t)n * 4;
	}
}

/* ------------------------------------------------------------------------ */
/* One iteration                                                             */
/* ------------------------------------------------------------------------ */
/* The aggregator's update of one summed segment: SGD on the master
 * weights, then the weights replace the sum and go back to the workers. */
static void wa_update(void *arg, float *seg, size_t off, size_t n)
{
	struct run *r = arg;
	uint64_t t0 = tr_now_ns();

	tr_sgd_update(&r->o.sgd, r->rate, r->m.params + off, r->mom + off, seg,
		      1.0f / (float)r->workers, n);
	memcpy(seg, r->m.params + off, n * sizeof(float));
	r->acc[TR_ACC_AGG_UPDATE] += tr_now_ns() - t0;
}

/* A worker's computation: this iteration's batch, forward, backward (with
 * the layer-wise schedules' hook, which truncates per group, or else the
 * truncation of all gradients). t[0..2]: when forward, backward and what
 * follows began (t0, the start, is the caller's). */
static void compute(struct run *r, long it, void (*hook)(void *, int), uint64_t t[3])
{
	struct tr_model *m = &r->m;

	load_batch(r, it);
	t[0] = tr_now_ns();
	r->last_loss = tr_model_forward(m, r->x, r->y, r->o.batch, NULL);
	t[1] = tr_now_ns();
	tr_model_backward_hook(m, r->y, r->o.batch, hook, r);
	if (!hook && r->o.truncate)
		truncate_sent(r, 0, m->nparams);
	t[2] = tr_now_ns();
}

/* inc: the summed gradients (truncated again, as the all-gather carried
 * them) into SGD. Returns when the update started. */
static uint64_t sgd_step(struct run *r)
{
	struct tr_model *m = &r->m;
	uint64_t t;

	if (r->o.truncate)
		truncate_values(m->grads, m->nparams, r->o.truncate);
	t = tr_now_ns();
	tr_sgd_update(&r->o.sgd, r->rate, m->params, r->mom, m->grads,
		      1.0f / (float)r->workers, m->nparams);
	return t;
}

/* Backward hook of the layer-wise schedules: layer `layer` is complete;
 * if it completes a group, the group's all-reduce starts now. */
static void grad_ready(void *arg, int layer)
{
	struct run *r = arg;
	int g = r->grp_of_layer[layer];
	size_t lo, n;

	if (r->calib_t) {
		r->calib_t[r->calib_k++] = tr_now_ns();
		return;
	}
	if (g < 0)
		return;
	lo = r->grp_lo[g];
	n = r->grp_hi[g] - lo;
	if (r->o.truncate)
		truncate_sent(r, lo, n);
	if (r->stats_now) {
		uint64_t t = tr_now_ns();

		codec_stats(r, lo, n);
		r->hook_stats_ns += tr_now_ns() - t;
	}
	if (r->comm && !r->issue_rc) {
		struct inc_allreduce_opts o = r->ar;

		o.residual = o.residual ? o.residual + lo : NULL;   /* the group's slice */
		r->issue_rc = inc_iallreduce_f32(r->comm, r->m.grads + lo, n, &o, &r->req[g]);
	}
}

/* One iteration of a layer-wise schedule (wfbp, bucket, mgwfbp): each
 * group's all-reduce runs on the progress thread while backward computes
 * the layers below; what is left after backward is the non-overlapped
 * communication (the MG-WFBP paper's t_c^no), counted as the exchange. */
static int iteration_layerwise(struct run *r, long it)
{
	uint64_t t0 = tr_now_ns(), t[3], t1, t2, t3, t4, t5;
	int rc = 0, g, w;

	r->rate = tr_sgd_rate(&r->o.sgd, it);
	r->issue_rc = 0;
	r->hook_stats_ns = 0;
	r->stats_now = r->o.stats_every && it % r->o.stats_every == 0;
	compute(r, it, grad_ready, t);
	t1 = t[0];
	t2 = t[1];
	t3 = t[2];
	for (g = 0; g < r->ngroups; g++) {
		if (!r->req[g])
			continue;
		w = inc_wait(r->req[g]);
		r->req[g] = NULL;
		if (w && !rc)
			rc = w;
	}
	if (!rc)
		rc = r->issue_rc;
	if (rc)
		return fail_comm(r, "all-reduce", rc);
	t4 = sgd_step(r);
	t5 = tr_now_ns();
	r->acc[TR_ACC_DATA] += t1 - t0;
	r->acc[TR_ACC_FORWARD] += t2 - t1;
	r->acc[TR_ACC_BACKWARD] += t3 - t2 - r->hook_stats_ns;
	r->acc[TR_ACC_EXCHANGE] += t4 - t3;
	r->acc[TR_ACC_UPDATE] += t5 - t4;
	r->train_ns += t5 - t0 - r->hook_stats_ns;
	return 0;
}

/* GossipGraD: local SGD step on this worker's gradient, then the model
 * goes to this step's partner while the model of another arrives, and the
 * two are averaged (w = (W_own + W_from) / 2). The exchange is the
 * communication row; its compression is the run's. */
static int iteration_gossip(struct run *r, long it)
{
	struct tr_model *m = &r->m;
	uint64_t t0 = tr_now_ns(), t[3], t1, t2, t3, t4, t5;
	int to, from, rc;
	size_t i;

	r->rate = tr_sgd_rate(&r->o.sgd, it);
	compute(r, it, NULL, t);
	t1 = t[0];
	t2 = t[1];
	t3 = t[2];
	tr_sgd_update(&r->o.sgd, r->rate, m->params, r->mom, m->grads, 1.0f, m->nparams);
	t4 = tr_now_ns();
	if (r->comm) {
		tr_gossip_partners(r->size, it, r->o.seed, r->rank, &to, &from);
		rc = inc_sendrecv_f32(r->comm, m->params, to, r->peer, from, m->nparams, &r->ar);
		if (rc)
			return fail_comm(r, "gossip exchange", rc);
		for (i = 0; i < m->nparams; i++)
			m->params[i] = 0.5f * (m->params[i] + r->peer[i]);
	}
	t5 = tr_now_ns();
	r->acc[TR_ACC_DATA] += t1 - t0;
	r->acc[TR_ACC_FORWARD] += t2 - t1;
	r->acc[TR_ACC_BACKWARD] += t3 - t2;
	r->acc[TR_ACC_UPDATE] += t4 - t3;
	r->acc[TR_ACC_EXCHANGE] += t5 - t4;
	r->train_ns += t5 - t0;
	return 0;
}

static int iteration(struct run *r, long it)
{
	struct tr_model *m = &r->m;
	uint64_t t0 = tr_now_ns(), t1, t2, t3, t4, t5, stats_ns = 0;
	int rc;

	if (r->o.schedule == SCHED_GOSSIP)
		return iteration_gossip(r, it);
	if (r->o.schedule != SCHED_SYNC)
		return iteration_layerwise(r, it);
	r->rate = tr_sgd_rate(&r->o.sgd, it);
	if (r->worker >= 0) {
		uint64_t t[3];

		compute(r, it, NULL, t);
		t1 = t[0];
		t2 = t[1];
		t3 = t[2];
		r->acc[TR_ACC_DATA] += t1 - t0;
		r->acc[TR_ACC_FORWARD] += t2 - t1;
		r->acc[TR_ACC_BACKWARD] += t3 - t2;
		/* the first worker's last gradient, as the codecs see it
		 * (inc-bench codecs measures them on it) */
		if (r->o.save_grads && r->worker == 0 && it == r->o.iterations - 1 &&
		    save_floats(r->o.save_grads, m->grads, m->nparams))
			return 1;
		if (r->o.stats_every && it % r->o.stats_every == 0) {
			codec_stats(r, 0, m->nparams);   /* measurement: not training time */
			stats_ns = tr_now_ns() - t3;
			t3 += stats_ns;
		}
	} else {
		memset(m->grads, 0, m->nparams * sizeof(float));
		t3 = tr_now_ns();
	}
	if (r->o.scheme == SCHEME_INC) {
		rc = r->comm ? inc_allreduce_f32(r->comm, m->grads, m->nparams, &r->ar) : 0;
		if (rc)
			return fail_comm(r, "all-reduce", rc);
		t4 = sgd_step(r);
	} else {
		rc = inc_wa_update_f32(r->comm, m->grads, m->nparams, &r->ar, wa_update, r);
		if (rc)
			return fail_comm(r, "worker-aggregator exchange", rc);
		t4 = tr_now_ns();
		if (r->worker >= 0)
			memcpy(m->params, m->grads, m->nparams * sizeof(float));
	}
	t5 = tr_now_ns();
	if (r->worker >= 0) {    /* the aggregator's own times: wa_update, library */
		r->acc[TR_ACC_EXCHANGE] += t4 - t3;
		r->acc[TR_ACC_UPDATE] += t5 - t4;
	}
	r->train_ns += t5 - t0 - stats_ns;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Evaluation and reporting                                                  */
/* ------------------------------------------------------------------------ */
/* Test accuracy and loss of the current weights; every rank evaluates its
 * share of the test set and the counts are summed, so all ranks agree. */
static int evaluate(struct run *r, double *acc, double *loss)
{
	long total = r->o.eval_samples && r->o.eval_samples < r->test.n ?
		     r->o.eval_samples : r->test.n;
	long lo = total * r->rank / r->size, hi = total * (r->rank + 1) / r->size, i;
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
		tr_dataset_gather(&r->test, idx, n, r->x, r->y);
		l = tr_model_forward(&r->m, r->x, r->y, n, &ok);
		v[0] += (uint64_t)ok;
		v[1] += (uint64_t)llround(l * n * 1e6);
		v[2] += (uint64_t)n;
	}
	rc = sum_u64(r, v, 3);
	if (rc)
		return fail_comm(r, "evaluation sum", rc);
	*acc = v[2] ? 100.0 * (double)v[0] / (double)v[2] : 0.0;
	*loss = v[2] ? (double)v[1] * 1e-6 / (double)v[2] : 0.0;
	return 0;
}

/* gossip: the replicas differ. Evaluates the average of all ranks' models
 * (what `test-accuracy` reports) and rank 0's model, and measures the
 * spread max over ranks and parameters of |w_i - mean w|; every rank's own
 * weights are restored afterwards. Collective. */
static int evaluate_gossip(struct run *r, double *acc, double *loss)
{
	struct inc_allreduce_opts o = r->ar;
	float *w = r->m.params, *own = r->peer, d, *slots;
	size_t n = r->m.nparams, i;
	double l0;
	int rc;

	if (!r->comm)
		return evaluate(r, acc, loss);
	o.compression = INC_COMP_NONE;
	o.algo = INC_ALGO_RING;
	slots = calloc((size_t)r->size, sizeof(float));
	if (!slots)
		return fail_comm(r, "gossip evaluation", INC_E_NOMEM);
	memcpy(own, w, n * sizeof(float));
	rc = inc_allreduce_f32(r->comm, w, n, &o);
	for (i = 0, d = 0; rc == 0 && i < n; i++) {
		w[i] /= (float)r->size;
		if (fabsf(own[i] - w[i]) > d)
			d = fabsf(own[i] - w[i]);
	}
	slots[r->rank] = d;
	if (rc == 0)
		rc = inc_allreduce_f32(r->comm, slots, (size_t)r->size, &o);
	for (i = 0, r->spread = 0; rc == 0 && i < (size_t)r->size; i++)
		if (slots[i] > r->spread)
			r->spread = slots[i];
	free(slots);
	if (rc)
		return fail_comm(r, "gossip evaluation", rc);
	rc = evaluate(r, acc, loss);
	if (rc)
		return rc;
	for (i = 0; i < n; i++)
		w[i] = r->rank == 0 ? own[i] : 0.0f;
	rc = inc_allreduce_f32(r->comm, w, n, &o);
	if (rc)
		return fail_comm(r, "gossip evaluation", rc);
	rc = evaluate(r, &r->acc_rank0, &l0);
	memcpy(w, own, n * sizeof(float));
	return rc;
}

static int evaluate_any(struct run *r, double *acc, double *loss)
{
	return r->o.schedule == SCHED_GOSSIP ? evaluate_gossip(r, acc, loss)
					     : evaluate(r, acc, loss);
}

/* Mean training loss of the last iteration over the workers (NaN when any
 * worker's loss is not finite). */
static int mean_loss(struct run *r, double *loss)
{
	uint64_t v[3] = { 0, 0, 0 };
	int rc;

	if (r->worker >= 0) {
		if (isfinite(r->last_loss) && r->last_loss < 1e9)
			v[0] = (uint64_t)llround(r->last_loss * 1e9);
		else
			v[2] = 1;
		v[1] = 1;
	}
	rc = sum_u64(r, v, 3);
	if (rc)
		return fail_comm(r, "loss sum", rc);
	*loss = v[1] && !v[2] ? (double)v[0] * 1e-9 / (double)v[1] : NAN;
	return 0;
}

static int check_replicas(struct run *r, long it)
{
	uint64_t h = tr_digest(r->m.params, r->m.nparams);
	int rc;

	if (r->o.schedule == SCHED_GOSSIP)   /* replicas differ by design */
		return 0;
	rc = agree(r, h);

	if (rc < 0)
		return fail_comm(r, "replica check", rc);
	if (rc == 0) {
		fprintf(stderr, "inc-train: rank %d: replicas differ after iteration %ld "
			"(weights %016" PRIx64 " here)\n", r->rank, it, h);
		return 1;
	}
	return 0;
}

static void fmt_eta(char *buf, size_t len, double s)
{
	if (s >= 3600)
		snprintf(buf, len, "%dh%02dm", (int)(s / 3600), (int)fmod(s / 60, 60));
	else
		snprintf(buf, len, "%dm%02ds", (int)(s / 60), (int)fmod(s, 60));
}

static void progress(struct run *r, long done, double loss)
{
	double s = (double)r->train_ns * 1e-9;
	double ips = s > 0 ? (double)done * r->workers * r->o.batch / s : 0;
	double eta = done ? s / done * (r->o.iterations - done) : 0;
	char e[32];
	int tty = isatty(2);


	if (r->rank != 0 || r->o.quiet)
		return;
	/* off a terminal, a line per 10% (every fifth log point) */
	if (!tty && done % (5 * r->o.log_every) && done != r->o.iterations)
		return;
	fmt_eta(e, sizeof(e), eta);
	fprintf(stderr, "%sinc-train: iter %ld/%ld  loss %.4f  lr %g  %.0f img/s  eta %s%s",
		tty ? "\r" : "", done, r->o.iterations, loss, (double)r->rate, ips, e,
		tty ? "  " : "\n");
	if (tty && done == r->o.iterations)
		fputc('\n', stderr);
}

static void log_config(struct run *r)
{
	const struct opts *o = &r->o;

	fprintf(r->log, "{\"type\":\"config\",\"model\":\"%s\",\"scheme\":\"%s\","
		"\"compression\":\"%s\",\"error_bound\":%u,\"truncate\":%u,"
		"\"workers\":%d,\"ranks\":%d,\"batch\":%d,\"lr\":%g,\"lr_step\":%ld,"
		"\"lr_gamma\":%g,\"momentum\":%g,\"weight_decay\":%g,\"iterations\":%ld,"
		"\"seed\":%" PRIu64 ",\"params\":%zu,\"codec\":\"%s\",\"schedule\":\"%s\","
		"\"error_feedback\":%s}\n",
		o->model, o->scheme == SCHEME_WA ? "wa" : "inc", comp_names[o->compression],
		o->error_bound, o->truncate, r->workers, r->size, o->batch, o->sgd.lr,
		o->sgd.step, o->sgd.gamma, o->sgd.momentum, o->sgd.decay, o->iterations,
		o->seed, r->m.nparams, inc_codec_name(), sched_names[o->schedule],
		r->ef ? "true" : "false");
}

/* Sum the per-rank accumulators and write the summary record. */
static int summary(struct run *r, long iters, double acc, double tloss, double loss,
		   uint64_t digest)
{
	uint64_t v[TR_ACC_N];
	struct inc_comm_stats st = { 0 };
	struct tr_summary s;
	int i, rc;

	if (r->comm)
		inc_comm_stats(r->comm, &st);
	memcpy(v, r->acc, sizeof(r->acc));
	v[TR_ACC_LIB_SUM] = st.sum_ns;
	v[TR_ACC_CODEC] = st.codec_ns;
	v[TR_ACC_BYTES_SENT] = st.bytes_sent;
	if (r->worker < 0) {     /* the aggregator's sum is its own row */
		v[TR_ACC_AGG_SUM] = st.sum_ns;
		v[TR_ACC_LIB_SUM] = 0;
	}
	if (r->o.schedule != SCHED_SYNC)   /* on the progress thread, overlapped */
		v[TR_ACC_LIB_SUM] = 0;
	rc = sum_u64(r, v, TR_ACC_N);
	if (rc)
		return fail_comm(r, "statistics sum", rc);
	if (!r->log)
		return 0;
	tr_summary_compute(&s, v, r->workers, iters, r->o.scheme == SCHEME_WA);
	fprintf(r->log, "{\"type\":\"summary\",\"iterations\":%ld,\"train_s\":%.6f,"
		"\"iter_ms\":%.6f", iters, (double)r->train_ns * 1e-9, s.row_ms[TR_ROW_ITER]);
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
		loss, digest, sched_names[r->o.schedule], r->predicted_ms,
		r->o.schedule == SCHED_GOSSIP ? r->acc_rank0 : acc, r->spread,
		st.sketch_candidates, st.sketch_peeled, st.sketch_estimated, st.sketch_retries);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Schedules: plans and the MG-WFBP calibration                              */
/* ------------------------------------------------------------------------ */
static size_t layer_lo(const struct tr_layer *l) { return l->w_off; }
static size_t layer_hi(const struct tr_layer *l) { return l->b_off + l->b_len; }

/* Groups of plan cut (backward order) as parameter ranges. */
static void plan_apply(struct run *r, const int *cut)
{
	int k, s = 0, i;

	for (i = 0; i < TR_MAX_LAYERS; i++)
		r->grp_of_layer[i] = -1;
	r->ngroups = 0;
	for (k = 0; k < r->nl; k++) {
		if (!cut[k] && k < r->nl - 1)
			continue;
		/* backward steps s..k: model layers lidx[s] (highest) .. lidx[k] */
		r->grp_lo[r->ngroups] = layer_lo(&r->m.l[r->lidx[k]]);
		r->grp_hi[r->ngroups] = layer_hi(&r->m.l[r->lidx[s]]);
		r->grp_of_layer[r->lidx[k]] = r->ngroups++;
		s = k + 1;
	}
}

/* "fc5 | fc4+fc3 | ..." in backward order. */
static void plan_str(const struct run *r, const int *cut, char *buf, size_t len)
{
	size_t n = 0;
	int k;

	buf[0] = 0;
	for (k = 0; k < r->nl && n < len; k++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", r->m.l[r->lidx[k]].name,
				      k == r->nl - 1 ? "" : cut[k] ? " | " : "+");
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * MG-WFBP inputs, measured on this communicator as it will train: forward
 * and per-layer backward times over warm-up passes on the first batch, the
 * SGD update on copies, and the all-reduce of real gradients at SIZES sizes
 * (median of REPS calls each) with the run's compression, fitted to
 * T_ar(M) = a + b*M. Every rank measures; the sums over ranks make every
 * rank plan from the same numbers, so all choose the same groups. Times in
 * ms. Nothing of the training state changes.
 */
#define CAL_PASSES 6
#define CAL_SIZES  7
#define CAL_REPS   3
static double cal_x[CAL_SIZES], cal_y[CAL_SIZES];   /* the measured T_ar points */

static int calibrate(struct run *r, struct tr_plan_in *in, double *t_other)
{
	struct tr_model *m = &r->m;
	uint64_t v[2 + TR_PLAN_MAX + 1 + CAL_SIZES], lay[TR_PLAN_MAX], reps[CAL_REPS];
	double x[CAL_SIZES], y[CAL_SIZES], wt[CAL_SIZES], scale;
	size_t sz[CAL_SIZES];
	float *tmp = NULL, *p2 = NULL, *m2 = NULL;
	struct inc_allreduce_opts co = r->ar;
	int pass, k, j, q, rc = 0, nv = 2 + r->nl + 1 + CAL_SIZES;

	memset(v, 0, sizeof(v));
	r->calib_t = lay;
	for (pass = 0; pass < CAL_PASSES; pass++) {
		uint64_t t0 = tr_now_ns(), t1, t2;

		load_batch(r, 0);
		t1 = tr_now_ns();
		(void)tr_model_forward(m, r->x, r->y, r->o.batch, NULL);
		t2 = tr_now_ns();
		r->calib_k = 0;
		tr_model_backward_hook(m, r->y, r->o.batch, grad_ready, r);
		if (pass == 0)
			continue;       /* caches and allocator warm-up */
		v[0] += t1 - t0;
		v[1] += t2 - t1;
		for (k = 0; k < r->nl; k++)
			v[2 + k] += lay[k] - (k ? lay[k - 1] : t2);
	}
	r->calib_t = NULL;
	p2 = tr_alloc(m->nparams * sizeof(float));
	m2 = tr_alloc(m->nparams * sizeof(float));
	tmp = tr_alloc(m->nparams * sizeof(float));
	if (!p2 || !m2 || !tmp) {
		rc = INC_E_NOMEM;
		goto out;
	}
	for (pass = 1; pass < CAL_PASSES; pass++) {
		uint64_t t0;

		memcpy(p2, m->params, m->nparams * sizeof(float));
		memcpy(m2, r->mom, m->nparams * sizeof(float));
		t0 = tr_now_ns();
		tr_sgd_update(&r->o.sgd, r->rate, p2, m2, m->grads, 1.0f / (float)r->workers,
			      m->nparams);
		v[2 + r->nl] += tr_now_ns() - t0;
	}
	/* the training's residual stays untouched: a scratch one (m2) */
	co.residual = r->ar.residual ? m2 : NULL;
	for (j = 0; j < CAL_SIZES; j++) {
		sz[j] = m->nparams >> j > 64 ? m->nparams >> j : 64;
		if (sz[j] > m->nparams)
			sz[j] = m->nparams;
		for (q = 0; q < CAL_REPS; q++) {
			uint64_t t0;

			memcpy(tmp, m->grads, sz[j] * sizeof(float));
			if (co.residual)
				memset(co.residual, 0, sz[j] * sizeof(float));
			t0 = tr_now_ns();
			rc = r->comm ? inc_allreduce_f32(r->comm, tmp, sz[j], &co) : 0;
			reps[q] = tr_now_ns() - t0;
			if (rc)
				goto out;
		}
		qsort(reps, CAL_REPS, sizeof(reps[0]), cmp_u64);
		v[3 + r->nl + j] = reps[CAL_REPS / 2];
	}
	rc = sum_u64(r, v, nv);
	if (rc)
		goto out;
	scale = 1e-6 / ((double)r->size * (CAL_PASSES - 1));
	*t_other = ((double)v[0] + (double)v[1] + (double)v[2 + r->nl]) * scale;
	in->L = r->nl;
	for (k = 0; k < r->nl; k++) {
		const struct tr_layer *l = &m->l[r->lidx[k]];

		in->tb[k] = (double)v[2 + k] * scale;
		in->p[k] = (double)(layer_hi(l) - layer_lo(l));
	}
	for (j = 0; j < CAL_SIZES; j++) {
		x[j] = (double)sz[j];
		y[j] = (double)v[3 + r->nl + j] * 1e-6 / r->size;
		wt[j] = y[j] > 0 ? 1 / (y[j] * y[j]) : 1;
	}
	tr_fit_line(x, y, wt, CAL_SIZES, &in->a, &in->b);
	memcpy(cal_x, x, sizeof(x));
	memcpy(cal_y, y, sizeof(y));
	if (in->a < 0)
		in->a = 0;
	if (in->b < 0)
		in->b = 0;
out:
	r->calib_t = NULL;
	free(p2);
	free(m2);
	free(tmp);
	return rc;
}

static int plan_setup(struct run *r)
{
	struct tr_plan_in in = { 0 };
	int cut[TR_PLAN_MAX], cp[TR_PLAN_MAX], cw[TR_PLAN_MAX], cs[TR_PLAN_MAX] = { 0 };
	double t_other = 0, t_opt, t_paper, t_wfbp, t_sync;
	char s1[256], s2[256];
	int i, k, rc;

	r->nl = 0;
	for (i = r->m.nlayers - 1; i >= 0; i--)
		if (r->m.l[i].w_len + r->m.l[i].b_len)
			r->lidx[r->nl++] = i;
	in.L = r->nl;
	for (k = 0; k < r->nl; k++)
		in.p[k] = (double)(layer_hi(&r->m.l[r->lidx[k]]) - layer_lo(&r->m.l[r->lidx[k]]));
	if (r->o.schedule == SCHED_WFBP)
		tr_plan_wfbp(r->nl, cut);
	if (r->o.schedule == SCHED_BUCKET)
		tr_plan_bucket(&in, (double)r->o.bucket_kb * 1024 / sizeof(float), cut);
	if (r->o.schedule == SCHED_MGWFBP) {
		rc = calibrate(r, &in, &t_other);
		if (rc)
			return fail_comm(r, "mgwfbp calibration", rc);
		t_opt = tr_plan_optimal(&in, cut);
		t_paper = tr_plan_mgwfbp_paper(&in, cp);
		tr_plan_wfbp(r->nl, cw);
		cs[r->nl - 1] = 1;
		t_wfbp = tr_plan_time(&in, cw);
		t_sync = tr_plan_time(&in, cs);
		r->predicted_ms = t_other + t_opt;
		plan_str(r, cut, s1, sizeof(s1));
		plan_str(r, cp, s2, sizeof(s2));
		if (r->rank == 0 && !r->o.quiet) {
			fprintf(stderr, "inc-train: mgwfbp: T_ar(M) = %.3f ms + %.3f ns x M values "
				"(%s, %d ranks); backward per layer (ms):", in.a, in.b * 1e6,
				comp_names[r->o.compression], r->size);
			for (k = 0; k < r->nl; k++)
				fprintf(stderr, " %s %.3f", r->m.l[r->lidx[k]].name, in.tb[k]);
			fprintf(stderr, "\ninc-train: mgwfbp: plan %s; predicted backward+communication "
				"%.2f ms (paper's Algorithm 1: %.2f ms, plan %s; wfbp %.2f; sync %.2f); "
				"predicted iteration %.2f ms\n", s1, t_opt, t_paper, s2, t_wfbp, t_sync,
				r->predicted_ms);
		}
		if (r->log) {
			fprintf(r->log, "{\"type\":\"plan\",\"a_ms\":%.6f,\"b_ms_per_value\":%.6g,"
				"\"plan\":\"%s\",\"paper_plan\":\"%s\",\"predicted_bc_ms\":%.4f,"
				"\"paper_bc_ms\":%.4f,\"wfbp_bc_ms\":%.4f,\"sync_bc_ms\":%.4f,"
				"\"predicted_iter_ms\":%.4f,\"tb_ms\":[", in.a, in.b, s1, s2, t_opt,
				t_paper, t_wfbp, t_sync, r->predicted_ms);
			for (k = 0; k < r->nl; k++)
				fprintf(r->log, "%s%.4f", k ? "," : "", in.tb[k]);
			fprintf(r->log, "],\"ar_points\":[");
			for (k = 0; k < CAL_SIZES; k++)
				fprintf(r->log, "%s[%.0f,%.4f]", k ? "," : "", cal_x[k], cal_y[k]);
			fprintf(r->log, "]}\n");
		}
	}
	plan_apply(r, cut);
	if (r->o.schedule != SCHED_MGWFBP && r->rank == 0 && !r->o.quiet) {
		plan_str(r, cut, s1, sizeof(s1));
		fprintf(stderr, "inc-train: %s: groups (backward order) %s\n",
			sched_names[r->o.schedule], s1);
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Main                                                                      */
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

/*
 * Error feedback (docs/train.md): --error-feedback / --no-error-feedback,
 * else INC_ERROR_FEEDBACK, else on for the lossy INCEPTIONN modes and for
 * truncation. One residual per gradient value; the layer-wise schedules
 * pass each group its slice, so every call site keeps its own. Truncation
 * keeps it here (the library sends exact floats); the lossy modes hand it
 * to the library. Gossip exchanges models: never.
 */
static int setup_error_feedback(struct run *r)
{
	struct inc_allreduce_opts *a = &r->ar;

	if (r->o.error_feedback >= 0)
		a->error_feedback = r->o.error_feedback ? INC_EF_ON : INC_EF_OFF;
	if (r->o.schedule == SCHED_GOSSIP)
		a->error_feedback = INC_EF_OFF;
	if (r->o.truncate) {
		r->ef = a->error_feedback == INC_EF_ON ||
			(a->error_feedback == INC_EF_AUTO && r->o.schedule != SCHED_GOSSIP);
		/* one lossy step fed back: the truncation's */
		a->error_feedback = INC_EF_OFF;
	} else {
		a->residual = &r->rate;   /* any non-NULL pointer: is it in effect? */
		r->ef = inc_error_feedback_active(a);
		a->residual = NULL;
	}
	if (!r->ef)
		return 0;
	r->res = tr_alloc(r->m.nparams * sizeof(float));
	r->sent = tr_alloc(r->m.nparams * sizeof(float));
	if (!r->res || !r->sent)
		return bad("out of memory");
	memset(r->res, 0, r->m.nparams * sizeof(float));
	if (!r->o.truncate)
		a->residual = r->res;
	return 0;
}

static int setup(struct run *r)
{
	char err[4608];
	int rc, cap;
	long i;

	if (tr_dataset_load(&r->train, r->o.data, "train", 10, err, sizeof(err)) ||
	    tr_dataset_load(&r->test, r->o.data, "t10k", 10, err, sizeof(err)))
		return bad("%s", err);
	r->size = 1;
	if (distributed_env()) {
		rc = inc_comm_init_env(&r->comm);
		if (rc)
			return fail_comm(r, "communicator", rc);
		r->rank = inc_comm_rank(r->comm);
		r->size = inc_comm_size(r->comm);
	}
	if (r->o.scheme == SCHEME_WA && r->size < 2) {
		fprintf(stderr, "inc-train: --scheme wa needs at least 2 ranks (aggregator + "
			"workers), have %d\n", r->size);
		return 2;
	}
	r->workers = r->o.scheme == SCHEME_WA ? r->size - 1 : r->size;
	r->worker = r->o.scheme == SCHEME_WA ? r->rank - 1 : r->rank;
	rc = inc_allreduce_opts_init(&r->ar);
	if (rc)
		return fail_comm(r, "INC_* options", rc);
	r->ar.compression = r->o.compression;
	r->ar.algo = r->o.scheme == SCHEME_WA ? INC_ALGO_WA : INC_ALGO_RING;
	r->ar.error_bound = r->o.error_bound;
	r->ar.seed = r->o.seed;

	cap = r->o.batch > 256 ? r->o.batch : 256;
	rc = tr_model_init(&r->m, r->o.model, cap);
	if (rc)
		return bad("out of memory for model %s", r->o.model);
	tr_model_init_params(&r->m, r->o.seed);
	r->mom = tr_alloc(r->m.nparams * sizeof(float));
	r->x = tr_alloc((size_t)cap * r->m.in_size * sizeof(float));
	r->y = malloc((size_t)cap);
	r->perm = malloc((size_t)r->train.n * sizeof(uint32_t));
	r->cstream = malloc(inc_codec_max_size(r->m.nparams));
	if (!r->mom || !r->x || !r->y || !r->perm || !r->cstream)
		return bad("out of memory");
	memset(r->mom, 0, r->m.nparams * sizeof(float));
	rc = setup_error_feedback(r);
	if (rc)
		return rc;
	r->perm_epoch = -1;
	for (i = 0; i < TR_ACC_N; i++)
		r->acc[i] = 0;

	rc = agree(r, config_hash(r));
	if (rc < 0)
		return fail_comm(r, "configuration check", rc);
	if (rc == 0) {
		fprintf(stderr, "inc-train: rank %d: the ranks were started with different "
			"models or hyperparameters\n", r->rank);
		return 2;
	}
	if (r->o.log && r->rank == 0) {
		r->log = fopen(r->o.log, "w");
		if (!r->log)
			return bad("%s: %s", r->o.log, strerror(errno));
		setvbuf(r->log, NULL, _IOLBF, 0);
		log_config(r);
	}
	if (r->o.schedule == SCHED_GOSSIP) {
		r->peer = tr_alloc(r->m.nparams * sizeof(float));
		if (!r->peer)
			return bad("out of memory");
		return 0;
	}
	if (r->o.schedule != SCHED_SYNC)
		return plan_setup(r);
	return 0;
}

/* n floats as raw little-endian float32 into path. */
static int save_floats(const char *path, const float *v, size_t n)
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

/* The parameters in the order of the model's parameter table
 * (docs/train.md). */
static int save_weights(struct run *r)
{
	return save_floats(r->o.save, r->m.params, r->m.nparams);
}

static void log_eval(struct run *r, long it, double acc, double tloss)
{
	if (!r->log)
		return;
	fprintf(r->log, "{\"type\":\"eval\",\"iter\":%ld,\"time\":%.6f,"
		"\"accuracy\":%.2f,\"test_loss\":%.6f", it, (double)r->train_ns * 1e-9, acc, tloss);
	if (r->o.schedule == SCHED_GOSSIP)
		fprintf(r->log, ",\"accuracy_rank0\":%.2f,\"spread\":%.6g", r->acc_rank0, r->spread);
	fprintf(r->log, "}\n");
}

static int train(struct run *r)
{
	double acc = 0, tloss = 0, loss = NAN;
	long it;
	int rc;

	for (it = 0; it < r->o.iterations; it++) {
		rc = iteration(r, it);
		if (rc)
			return rc;
		if (r->o.check_every && (it + 1) % r->o.check_every == 0 &&
		    (rc = check_replicas(r, it + 1)))
			return rc;
		if ((it + 1) % r->o.log_every == 0 || it + 1 == r->o.iterations) {
			if ((rc = mean_loss(r, &loss)))
				return rc;
			if (!isfinite(loss)) {
				fprintf(stderr, "inc-train: rank %d: training diverged (loss is not "
					"finite at iteration %ld); lower --lr or raise the batch\n",
					r->rank, it + 1);
				return 1;
			}
			progress(r, it + 1, loss);
			if (r->log)
				fprintf(r->log, "{\"type\":\"iter\",\"iter\":%ld,\"time\":%.6f,"
					"\"loss\":%.6f,\"lr\":%g}\n", it + 1,
					(double)r->train_ns * 1e-9, loss, (double)r->rate);
		}
		if (r->o.eval_every && (it + 1) % r->o.eval_every == 0 &&
		    it + 1 != r->o.iterations) {
			if ((rc = evaluate_any(r, &acc, &tloss)))
				return rc;
			log_eval(r, it + 1, acc, tloss);
		}
	}
	if ((rc = check_replicas(r, it)) || (rc = evaluate_any(r, &acc, &tloss)))
		return rc;
	log_eval(r, it, acc, tloss);
	if (r->o.schedule == SCHED_GOSSIP && r->rank == 0 && !r->o.quiet)
		fprintf(stderr, "inc-train: gossip: averaged model %.2f%%, rank 0's model %.2f%%, "
			"replica spread max|w_i - mean w| %.3g\n", acc, r->acc_rank0, r->spread);
	rc = summary(r, it, acc, tloss, loss, tr_digest(r->m.params, r->m.nparams));
	if (rc)
		return rc;
	if (r->o.save && r->rank == 0 && save_weights(r))
		return 1;
	printf("inc-train: rank %d iterations %ld test-accuracy %.2f loss %.6f weights %016"
	       PRIx64 "\n", r->rank, it, acc, loss, tr_digest(r->m.params, r->m.nparams));
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	static struct run r;
	int rc;

	if (argc > 1 && !strcmp(argv[1], "report"))
		return tr_report_main(argc - 1, argv + 1);
	rc = parse(&r.o, argc, argv);
	if (rc)
		return rc;
	openblas_set_num_threads(r.o.threads);
	rc = setup(&r);
	if (rc == 0)
		rc = train(&r);
	if (r.log)
		fclose(r.log);
	inc_comm_destroy(r.comm);
	tr_model_free(&r.m);
	tr_dataset_free(&r.train);
	tr_dataset_free(&r.test);
	free(r.mom);
	free(r.x);
	free(r.y);
	free(r.perm);
	free(r.cstream);
	free(r.peer);
	free(r.res);
	free(r.sent);
	return rc;
}
