// SPDX-License-Identifier: MIT
/*
 * tr_report.c - Table II rows from a run's counters, and
 * `inc-train report LOG... --out DIR`: reads the JSON-lines logs of runs
 * (written by --log; parsed with jansson, a malformed line named by file
 * and line) and writes, with gnuplot, the paper's figures as PNG plus a
 * Markdown table:
 *
 *   fig12-breakdown.png   computation / communication per iteration (stacked)
 *   fig13-accuracy.png    test accuracy vs training time
 *   fig14-compression.png compression ratio and final accuracy per codec setting
 *   fig15-scaling.png     gradient-exchange time vs workers (when runs differ in it)
 *   report.md             every run's Table II rows, speedup, accuracy, bytes
 *
 * Run labels take the mode's label from libinceptionn's compression table.
 */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "inc_model.h"
#include "inceptionn/inceptionn.h"
#include "tr_model.h"
#include "tr_report.h"
#include "tr_schedules.h"
#include "tr_train.h"

const char *const tr_row_names[TR_ROW_N] = {
	"data", "forward", "backward", "sum", "comm", "update", "codec", "iter",
};

void tr_summary_compute(struct tr_summary *s, const uint64_t *v, int workers,
			long iters, int wa)
{
	double per = workers > 0 && iters > 0 ? 1e-6 / ((double)workers * iters) : 0;
	double one = iters > 0 ? 1e-6 / (double)iters : 0, exch, tags = 0;
	int i;

	memset(s, 0, sizeof(*s));
	s->row_ms[TR_ROW_DATA] = (double)v[TR_ACC_DATA] * per;
	s->row_ms[TR_ROW_FORWARD] = (double)v[TR_ACC_FORWARD] * per;
	s->row_ms[TR_ROW_BACKWARD] = (double)v[TR_ACC_BACKWARD] * per;
	s->row_ms[TR_ROW_CODEC] = (double)v[TR_ACC_CODEC] * per;
	exch = (double)v[TR_ACC_EXCHANGE] * per;
	if (wa) {
		/* the aggregator sums and updates while the workers wait */
		s->row_ms[TR_ROW_SUM] = (double)v[TR_ACC_AGG_SUM] * one;
		s->row_ms[TR_ROW_UPDATE] = (double)v[TR_ACC_AGG_UPDATE] * one +
					   (double)v[TR_ACC_UPDATE] * per;
		s->row_ms[TR_ROW_COMM] = exch - s->row_ms[TR_ROW_SUM] -
					 (double)v[TR_ACC_AGG_UPDATE] * one;
	} else {
		s->row_ms[TR_ROW_SUM] = (double)v[TR_ACC_LIB_SUM] * per;
		s->row_ms[TR_ROW_UPDATE] = (double)v[TR_ACC_UPDATE] * per;
		s->row_ms[TR_ROW_COMM] = exch - s->row_ms[TR_ROW_SUM];
	}
	if (s->row_ms[TR_ROW_COMM] < 0)
		s->row_ms[TR_ROW_COMM] = 0;
	for (i = TR_ROW_DATA; i <= TR_ROW_UPDATE; i++)
		s->row_ms[TR_ROW_ITER] += s->row_ms[i];
	for (i = 0; i < 4; i++)
		tags += (double)v[TR_ACC_TAG0 + i];
	for (i = 0; i < 4 && tags > 0; i++)
		s->share[i] = (double)v[TR_ACC_TAG0 + i] / tags;
	s->codec_ratio = v[TR_ACC_CBYTES] ? (double)v[TR_ACC_CRAW] / (double)v[TR_ACC_CBYTES] : 0;
}

/* ------------------------------------------------------------------------ */
/* Reading logs                                                              */
/* ------------------------------------------------------------------------ */
#define MAX_RUNS  64
#define MAX_EVALS 4096

struct run_log {
	const char *path;
	char label[128];
	char model[16], scheme[8], comp[16], sched[16];
	double predicted;         /* mgwfbp: predicted iteration ms (0: none) */
	double acc_rank0, spread; /* gossip: rank 0's model's accuracy, replica spread */
	int eb, trunc, workers;
	long iterations;
	double row[TR_ROW_N];
	double ratio, share[4], acc, loss, bytes_iter, wire_iter, train_s;
	int ef;                   /* error feedback in effect */
	int has_config, has_summary;
	int nevals;
	double ev_time[MAX_EVALS], ev_acc[MAX_EVALS];
};

/*
 * Fields. Every field a record carries is checked for type and range; an
 * absent field takes its default (logs of older builds lack some). A bad
 * field fails the log with "FILE:LINE: field NAME: ..." (the message is
 * built in struct rd and printed by the caller).
 */
struct rd {
	const char *path;
	long line;
	char err[512];
};

__attribute__((format(printf, 3, 4)))
static int bad_field(struct rd *d, const char *key, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(d->err, sizeof(d->err), "%s:%ld: field %s: ", d->path, d->line, key);
	if (n < 0 || (size_t)n >= sizeof(d->err))
		return -1;
	va_start(ap, fmt);
	vsnprintf(d->err + n, sizeof(d->err) - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

/* A number in [lo, hi] (integer or real), or dflt when absent. */
static int jnum(struct rd *d, const json_t *o, const char *key, double lo, double hi,
		double dflt, double *out)
{
	const json_t *v = json_object_get(o, key);
	double x;

	if (!v) {
		*out = dflt;
		return 0;
	}
	if (!json_is_number(v))
		return bad_field(d, key, "not a number (want %g..%g)", lo, hi);
	x = json_number_value(v);
	if (!isfinite(x) || x < lo || x > hi)
		return bad_field(d, key, "%g out of range (want %g..%g)", x, lo, hi);
	*out = x;
	return 0;
}

/* An integer in [lo, hi], or dflt when absent. */
static int jint(struct rd *d, const json_t *o, const char *key, long lo, long hi, long dflt,
		long *out)
{
	const json_t *v = json_object_get(o, key);
	json_int_t x;

	if (!v) {
		*out = dflt;
		return 0;
	}
	if (!json_is_integer(v)) {
		if (json_is_number(v))
			return bad_field(d, key, "%g is not an integer (want %ld..%ld)",
					 json_number_value(v), lo, hi);
		return bad_field(d, key, "not an integer (want %ld..%ld)", lo, hi);
	}
	x = json_integer_value(v);
	if (x < lo || x > hi)
		return bad_field(d, key, "%lld out of range (want %ld..%ld)", (long long)x, lo, hi);
	*out = (long)x;
	return 0;
}

/* A string that fits out (len bytes with the NUL), or dflt when absent. */
static int jstr(struct rd *d, const json_t *o, const char *key, char *out, size_t len,
		const char *dflt)
{
	const json_t *v = json_object_get(o, key);
	const char *sv;

	if (!v) {
		snprintf(out, len, "%s", dflt);
		return 0;
	}
	if (!json_is_string(v))
		return bad_field(d, key, "not a string");
	sv = json_string_value(v);
	if (strlen(sv) >= len || strlen(sv) != json_string_length(v))
		return bad_field(d, key, "'%.32s' is not a name this build knows", sv);
	snprintf(out, len, "%s", sv);
	return 0;
}

/* Limits of the numbers a real run writes (docs/train.md). */
#define MAX_WORKERS 65536L
#define MAX_ITERS   1000000000000L  /* 10^12 iterations */
#define MAX_MS      1e12            /* times in ms or s: ~30 years */
#define MAX_BYTES   1e18

static int read_config(struct rd *d, struct run_log *r, const json_t *o)
{
	const json_t *ef = json_object_get(o, "error_feedback");
	enum inc_compression m;
	long eb, trunc, workers, iters;
	int i, known = 0;

	r->has_config = 1;
	if (jstr(d, o, "model", r->model, sizeof(r->model), "") ||
	    jstr(d, o, "scheme", r->scheme, sizeof(r->scheme), "") ||
	    jstr(d, o, "compression", r->comp, sizeof(r->comp), "") ||
	    jstr(d, o, "schedule", r->sched, sizeof(r->sched), tr_schedule_at(0)->name) ||
	    jint(d, o, "error_bound", INC_EB_MIN, INC_EB_MAX, 10, &eb) ||
	    jint(d, o, "truncate", 0, 31, 0, &trunc) ||
	    jint(d, o, "workers", 1, MAX_WORKERS, 1, &workers) ||
	    jint(d, o, "iterations", 0, MAX_ITERS, 0, &iters))
		return -1;
	for (i = 0; tr_model_names[i]; i++)
		known |= !strcmp(r->model, tr_model_names[i]);
	if (!known)
		return bad_field(d, "model", "'%s' is not a model (want hdc or lenet)", r->model);
	if (strcmp(r->scheme, "wa") && strcmp(r->scheme, "inc"))
		return bad_field(d, "scheme", "'%s' is not a scheme (want wa or inc)", r->scheme);
	if (inc_compression_parse(r->comp, &m)) {
		char names[256];

		inc_compression_list(names, sizeof(names), ", ");
		return bad_field(d, "compression", "'%s' is not in the compression table (%s)",
				 r->comp, names);
	}
	if (tr_schedule_find(r->sched) < 0)
		return bad_field(d, "schedule", "'%s' is not a schedule", r->sched);
	if (ef && !json_is_boolean(ef))
		return bad_field(d, "error_feedback", "not true or false");
	r->eb = (int)eb;
	r->trunc = (int)trunc;
	r->workers = (int)workers;
	r->iterations = iters;
	r->ef = json_is_true(ef);
	return 0;
}

static int read_summary(struct rd *d, struct run_log *r, const json_t *o)
{
	static const char *const shares[4] = { "share2", "share10", "share18", "share34" };
	char key[32];
	long iters;
	int i;

	r->has_summary = 1;
	if (jnum(d, o, "iter_ms", 0, MAX_MS, 0, &r->row[TR_ROW_ITER]))
		return -1;
	for (i = 0; i < TR_ROW_N; i++)
		if (i != TR_ROW_ITER) {
			snprintf(key, sizeof(key), "%s_ms", tr_row_names[i]);
			if (jnum(d, o, key, 0, MAX_MS, 0, &r->row[i]))
				return -1;
		}
	for (i = 0; i < 4; i++)
		if (jnum(d, o, shares[i], 0, 1, 0, &r->share[i]))
			return -1;
	if (jnum(d, o, "codec_ratio", 0, 1e6, 0, &r->ratio) ||
	    jnum(d, o, "accuracy", 0, 100, 0, &r->acc) ||
	    jnum(d, o, "loss", 0, 1e30, 0, &r->loss) ||
	    jnum(d, o, "predicted_iter_ms", 0, MAX_MS, 0, &r->predicted) ||
	    jnum(d, o, "accuracy_rank0", 0, 100, 0, &r->acc_rank0) ||
	    jnum(d, o, "spread", 0, 1e30, 0, &r->spread) ||
	    jnum(d, o, "bytes_per_iter", 0, MAX_BYTES, 0, &r->bytes_iter) ||
	    jnum(d, o, "train_s", 0, MAX_MS, 0, &r->train_s) ||
	    jint(d, o, "iterations", 0, MAX_ITERS, r->iterations, &iters))
		return -1;
	r->iterations = iters;
	return 0;
}

static int read_eval(struct rd *d, struct run_log *r, const json_t *o)
{
	long it;

	if (r->nevals == MAX_EVALS)
		return bad_field(d, "type", "more than %d eval records", MAX_EVALS);
	if (jint(d, o, "iter", 0, MAX_ITERS, 0, &it) ||
	    jnum(d, o, "time", 0, MAX_MS, 0, &r->ev_time[r->nevals]) ||
	    jnum(d, o, "accuracy", 0, 100, 0, &r->ev_acc[r->nevals]))
		return -1;
	r->nevals++;
	return 0;
}

/* One record; -1 with d->err set when it is not a valid one. */
static int read_record(struct rd *d, struct run_log *r, const char *line)
{
	json_error_t jerr;
	const char *type;
	json_t *o;
	int rc = 0;

	o = json_loads(line, JSON_REJECT_DUPLICATES, &jerr);
	if (!o || !json_is_object(o)) {
		snprintf(d->err, sizeof(d->err), "%s:%ld: malformed record (%s)", d->path, d->line,
			 o ? "not a JSON object" : jerr.text);
		rc = -1;
	} else if (!json_is_string(json_object_get(o, "type"))) {
		snprintf(d->err, sizeof(d->err), "%s:%ld: malformed record (no \"type\")", d->path,
			 d->line);
		rc = -1;
	} else {
		type = json_string_value(json_object_get(o, "type"));
		if (!strcmp(type, "config"))
			rc = read_config(d, r, o);
		else if (!strcmp(type, "eval"))
			rc = read_eval(d, r, o);
		else if (!strcmp(type, "summary"))
			rc = read_summary(d, r, o);
		else if (!strcmp(type, "wire"))
			/* bytes the emulated wire carried (cluster/train-cluster.sh) */
			rc = jnum(d, o, "bytes_wire_per_iter", 0, MAX_BYTES, 0, &r->wire_iter);
	}
	json_decref(o);
	return rc;
}

/* A whole log from f: one JSON object per line (blank lines pass), a
 * config and a summary record. 0, or -1 with err (len bytes) set. */
static int read_log_stream(struct run_log *r, FILE *f, const char *path, char *err, size_t len)
{
	struct rd d = { path, 0, "" };
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int rc = 0;

	memset(r, 0, sizeof(*r));
	r->path = path;
	while (rc == 0 && (n = getline(&line, &cap, f)) > 0) {
		d.line++;
		if (strspn(line, " \t\r\n") == (size_t)n)
			continue;
		if (strlen(line) != (size_t)n) {
			snprintf(d.err, sizeof(d.err), "%s:%ld: malformed record (a NUL byte)", path,
				 d.line);
			rc = -1;
		} else {
			rc = read_record(&d, r, line);
		}
	}
	free(line);
	if (rc == 0 && ferror(f)) {
		snprintf(d.err, sizeof(d.err), "%s: %s", path, strerror(errno));
		rc = -1;
	}
	if (rc == 0 && (!r->has_config || !r->has_summary)) {
		snprintf(d.err, sizeof(d.err), "%s: not a complete inc-train log (no %s record)",
			 path, r->has_config ? "summary" : "config");
		rc = -1;
	}
	snprintf(err, len, "%s", d.err);
	return rc;
}

static int read_log(struct run_log *r, const char *path)
{
	char err[512];
	FILE *f = fopen(path, "r");
	int rc;

	if (!f) {
		fprintf(stderr, "inc-train report: %s: %s\n", path, strerror(errno));
		return -1;
	}
	rc = read_log_stream(r, f, path, err, sizeof(err));
	fclose(f);
	if (rc)
		fprintf(stderr, "inc-train report: %s\n", err);
	return rc;
}

int tr_report_check_log(FILE *f, const char *name, char *err, size_t len)
{
	static struct run_log r;

	return read_log_stream(&r, f, name, err, len);
}

/* Fig. 12's split of an iteration: computation (data, forward, backward,
 * update) and communication (gradient sum and transfer; for a layer-wise
 * schedule the part left after backward). */
static double comp_ms(const struct run_log *r)
{
	return r->row[TR_ROW_DATA] + r->row[TR_ROW_FORWARD] + r->row[TR_ROW_BACKWARD] +
	       r->row[TR_ROW_UPDATE];
}

static double comm_ms(const struct run_log *r)
{
	return r->row[TR_ROW_SUM] + r->row[TR_ROW_COMM];
}

static const struct inc_compression_info *comp_info(const struct run_log *r);

static int compressed(const struct run_log *r)
{
	const struct inc_compression_info *ci = comp_info(r);

	return ci ? ci->mode != INC_COMP_NONE : r->comp[0] != 0;
}

/* The library's table entry of a run's compression mode (NULL: unknown). */
static const struct inc_compression_info *comp_info(const struct run_log *r)
{
	enum inc_compression m;

	return inc_compression_parse(r->comp, &m) ? NULL : inc_compression_info(m);
}

/* The paper's names: WA, INC, WA+C, INC+C, the mode's label from the
 * library's table; other bounds, truncation and error feedback are
 * spelled out. */
static void make_label(struct run_log *r, int models_differ, int show_sched)
{
	const struct inc_compression_info *ci = comp_info(r);
	char model[sizeof(r->model)], sched[sizeof(r->sched)], eb[16] = "", tr[16] = "";
	int c = compressed(r);

	/* copies: the label lives in the same struct as its sources */
	memcpy(model, r->model, sizeof(model));
	memcpy(sched, r->sched, sizeof(sched));
	if (c && r->eb != 10 && ci && ci->error_bound)
		snprintf(eb, sizeof(eb), " 2^-%d", r->eb);
	if (r->trunc)
		snprintf(tr, sizeof(tr), " %db-T", r->trunc);
	snprintf(r->label, sizeof(r->label), "%s%s%s%s%s%s%s%s%s%s",
		 models_differ ? model : "", models_differ ? " " : "",
		 !strcmp(r->scheme, "wa") ? "WA" : "INC", c ? "+C" : "",
		 c && ci ? ci->label : c ? r->comp : "", eb, tr, r->ef ? " EF" : "",
		 show_sched ? " " : "", show_sched ? sched : "");
}

/* The run's schedule entry (NULL: unknown to this build). */
static const struct tr_schedule *schedule(const struct run_log *r)
{
	return tr_schedule_at(tr_schedule_find(r->sched));
}

/* Any schedule other than the default (sync, the table's first). */
static int layerwise(const struct run_log *r)
{
	return schedule(r) != tr_schedule_at(0);
}

/* Replicas that differ by design (gossip): accuracy of rank 0, spread. */
static int replicas_differ(const struct run_log *r)
{
	return schedule(r) && !schedule(r)->identical;
}

/* Ratio of the bytes a run's gradients need: the codec's, or 32/(32-T). */
static double run_ratio(const struct run_log *r)
{
	if (compressed(r))
		return r->ratio;
	if (r->trunc)
		return 32.0 / (32 - r->trunc);
	return 1.0;
}

/* ------------------------------------------------------------------------ */
/* Output                                                                    */
/* ------------------------------------------------------------------------ */
static FILE *open_out(const char *dir, const char *name, char *path, size_t len)
{
	FILE *f;

	snprintf(path, len, "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		fprintf(stderr, "inc-train report: %s: %s\n", path, strerror(errno));
	return f;
}

static int gnuplot(const char *script)
{
	char cmd[4200];
	int rc;

	snprintf(cmd, sizeof(cmd), "gnuplot '%s'", script);
	rc = system(cmd);
	if (rc != 0) {
		fprintf(stderr, "inc-train report: gnuplot failed on %s (install the Debian "
			"package gnuplot-nox)\n", script);
		return -1;
	}
	return 0;
}

#define TERM "set terminal pngcairo size 960,600 font 'Sans,11'\n"

static int plot_breakdown(const char *dir, struct run_log *r, int n)
{
	char dat[4096], gp[4096];
	FILE *f = open_out(dir, "fig12-breakdown.dat", dat, sizeof(dat)), *g;
	int i;

	if (!f)
		return -1;
	fprintf(f, "# label computation_ms communication_ms\n");
	for (i = 0; i < n; i++)
		fprintf(f, "\"%s\" %.4f %.4f\n", r[i].label,
			comp_ms(&r[i]), comm_ms(&r[i]));
	fclose(f);
	g = open_out(dir, "fig12-breakdown.gp", gp, sizeof(gp));
	if (!g)
		return -1;
	fprintf(g, TERM "set output '%s/fig12-breakdown.png'\n"
		"set title 'Time per iteration: computation and communication (Fig. 12 form)'\n"
		"set ylabel 'ms per iteration'\nset style data histograms\n"
		"set style histogram rowstacked\nset style fill solid 0.8 border -1\n"
		"set boxwidth 0.6\nset key top right\nset grid ytics\nset yrange [0:*]\n"
		"set xtics rotate by -20 noenhanced\n"
		"plot '%s' using 2:xtic(1) title 'computation (data, forward, backward, update)' lc rgb '#4477aa', \\\n"
		"     '' using 3 title 'communication (gradient sum, transfer, codec)' lc rgb '#ee6677'\n",
		dir, dat);
	fclose(g);
	return gnuplot(gp);
}

static int plot_accuracy(const char *dir, struct run_log *r, int n)
{
	char dat[4096], gp[4096], name[64];
	FILE *g;
	int i, j;

	for (i = 0; i < n; i++) {
		FILE *f;

		snprintf(name, sizeof(name), "fig13-run%d.dat", i);
		f = open_out(dir, name, dat, sizeof(dat));
		if (!f)
			return -1;
		fprintf(f, "# training_time_s test_accuracy_percent (%s)\n", r[i].label);
		for (j = 0; j < r[i].nevals; j++)
			fprintf(f, "%.4f %.2f\n", r[i].ev_time[j], r[i].ev_acc[j]);
		fclose(f);
	}
	g = open_out(dir, "fig13-accuracy.gp", gp, sizeof(gp));
	if (!g)
		return -1;
	fprintf(g, TERM "set output '%s/fig13-accuracy.png'\n"
		"set title 'Test accuracy vs training time (Fig. 13 form)'\n"
		"set xlabel 'training time (s, evaluation excluded)'\n"
		"set ylabel 'test accuracy (%%)'\nset grid\nset key bottom right\nplot ", dir);
	for (i = 0; i < n; i++)
		fprintf(g, "%s'%s/fig13-run%d.dat' using 1:2 with linespoints lw 2 pt %d dt %d "
			"title '%s'", i ? ", \\\n     " : "", dir, i, 5 + i % 8,
			compressed(&r[i]) ? 2 : 1, r[i].label);
	fprintf(g, "\n");
	fclose(g);
	return gnuplot(gp);
}

static int plot_compression(const char *dir, struct run_log *r, int n)
{
	char dat[4096], gp[4096];
	FILE *f = open_out(dir, "fig14-compression.dat", dat, sizeof(dat)), *g;
	int i;

	if (!f)
		return -1;
	fprintf(f, "# label ratio accuracy\n");
	for (i = 0; i < n; i++)
		fprintf(f, "\"%s\" %.4f %.2f\n", r[i].label, run_ratio(&r[i]), r[i].acc);
	fclose(f);
	g = open_out(dir, "fig14-compression.gp", gp, sizeof(gp));
	if (!g)
		return -1;
	fprintf(g, TERM "set output '%s/fig14-compression.png'\n"
		"set title 'Compression ratio and final accuracy (Fig. 14 form)'\n"
		"set style data histograms\nset style fill solid 0.8 border -1\n"
		"set boxwidth 0.6\nset ylabel 'compression ratio of the gradients (x)'\n"
		"set y2label 'final test accuracy (%%)'\nset ytics nomirror\nset y2tics\nset y2range [0:100]\n"
		"set yrange [0:*]\nset grid ytics\nset key top left\nset xtics rotate by -20 noenhanced\n"
		"plot '%s' using 2:xtic(1) title 'compression ratio' lc rgb '#228833', \\\n"
		"     '' using 0:3 axes x1y2 with linespoints lw 2 pt 7 ps 1.5 lc rgb '#aa3377' title 'accuracy'\n",
		dir, dat);
	fclose(g);
	return gnuplot(gp);
}

/* Iteration time per run split into computation and the communication
 * left after backward (t_c^no), with the MG-WFBP prediction where a run
 * has one. Only when some run uses a layer-wise schedule. */
static int plot_schedules(const char *dir, struct run_log *r, int n, int *made)
{
	char dat[4096], gp[4096];
	FILE *f, *g;
	int i, any = 0, predicted = 0;

	*made = 0;
	for (i = 0; i < n; i++) {
		any |= layerwise(&r[i]);
		predicted |= r[i].predicted > 0;
	}
	if (!any)
		return 0;
	f = open_out(dir, "schedules.dat", dat, sizeof(dat));
	if (!f)
		return -1;
	fprintf(f, "# label computation_ms tcno_ms predicted_ms(NaN: none)\n");
	for (i = 0; i < n; i++) {
		fprintf(f, "\"%s\" %.4f %.4f ", r[i].label, comp_ms(&r[i]), comm_ms(&r[i]));
		if (r[i].predicted > 0)
			fprintf(f, "%.4f\n", r[i].predicted);
		else
			fprintf(f, "NaN\n");
	}
	fclose(f);
	g = open_out(dir, "schedules.gp", gp, sizeof(gp));
	if (!g)
		return -1;
	fprintf(g, TERM "set output '%s/schedules.png'\n"
		"set title 'Iteration time per schedule: computation and non-overlapped communication'\n"
		"set ylabel 'ms per iteration'\nset style data histograms\n"
		"set style histogram rowstacked\nset style fill solid 0.8 border -1\n"
		"set boxwidth 0.6\nset key outside bottom center horizontal\nset grid ytics\n"
		"set yrange [0:*]\nset datafile missing 'NaN'\nset xtics rotate by -25 noenhanced\n"
		"plot '%s' using 2:xtic(1) title 'computation (data, forward, backward, update)' lc rgb '#4477aa', \\\n"
		"     '' using 3 title 'communication left after backward (t_c^{no})' lc rgb '#ee6677'%s\n",
		dir, dat, predicted ? ", \\\n     '' using 0:4 with points pt 9 ps 2.5 lc rgb '#222222' "
				      "title 'MG-WFBP predicted iteration'" : "");
	fclose(g);
	*made = 1;
	return gnuplot(gp);
}

/* The curve of Fig. 15 a run belongs to: WA, INC, WA+C or INC+C. */
static void scaling_key(const struct run_log *r, char *key, size_t len)
{
	snprintf(key, len, "%s%s", !strcmp(r->scheme, "wa") ? "WA" : "INC",
		 compressed(r) ? "+C" : "");
}

/* Exchange time (sum + communicate) vs workers, one line per scheme and
 * compression. Only when the logs cover at least two worker counts. */
static int plot_scaling(const char *dir, struct run_log *r, int n, int *made)
{
	char dat[4096], gp[4096], name[64], keys[8][64];
	int nk = 0, i, j, k, w, lo = 1 << 30, hi = 0;
	FILE *g;

	*made = 0;
	for (i = 0; i < n; i++) {
		if (r[i].workers < lo)
			lo = r[i].workers;
		if (r[i].workers > hi)
			hi = r[i].workers;
	}
	if (lo == hi)
		return 0;
	for (i = 0; i < n; i++) {
		char key[64];

		scaling_key(&r[i], key, sizeof(key));
		for (k = 0; k < nk && strcmp(keys[k], key); k++)
			;
		if (k == nk && nk < 8)
			strcpy(keys[nk++], key);
	}
	g = open_out(dir, "fig15-scaling.gp", gp, sizeof(gp));
	if (!g)
		return -1;
	fprintf(g, TERM "set output '%s/fig15-scaling.png'\n"
		"set title 'Gradient exchange time vs number of workers (Fig. 15 form)'\n"
		"set xlabel 'workers'\nset ylabel 'exchange time per iteration (ms)'\n"
		"set grid\nset key top left\nset xtics 1\nset yrange [0:*]\nplot ", dir);
	for (k = 0; k < nk; k++) {
		FILE *f;

		snprintf(name, sizeof(name), "fig15-%d.dat", k);
		f = open_out(dir, name, dat, sizeof(dat));
		if (!f) {
			fclose(g);
			return -1;
		}
		fprintf(f, "# workers exchange_ms (%s)\n", keys[k]);
		/* The curve's runs by increasing workers, the first run of
		 * each count: at most n points, whatever the counts are. */
		for (w = 0;;) {
			int best = -1;

			for (j = 0; j < n; j++) {
				char key[64];

				scaling_key(&r[j], key, sizeof(key));
				if (r[j].workers > w && !strcmp(key, keys[k]) &&
				    (best < 0 || r[j].workers < r[best].workers))
					best = j;
			}
			if (best < 0)
				break;
			w = r[best].workers;
			fprintf(f, "%d %.4f\n", w, comm_ms(&r[best]));
		}
		fclose(f);
		fprintf(g, "%s'%s' using 1:2 with linespoints lw 2 pt %d title '%s'",
			k ? ", \\\n     " : "", dat, 5 + k, keys[k]);
	}
	fprintf(g, "\n");
	fclose(g);
	*made = 1;
	return gnuplot(gp);
}

/* The uncompressed WA run of the same model and workers, if any. */
static const struct run_log *baseline(const struct run_log *r, int n, const struct run_log *x)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(r[i].scheme, "wa") && !compressed(&r[i]) && !r[i].trunc &&
		    r[i].workers == x->workers && !strcmp(r[i].model, x->model))
			return &r[i];
	return NULL;
}

static int write_table(const char *dir, struct run_log *r, int n, int scaling, int scheds)
{
	char path[4096];
	FILE *f = open_out(dir, "report.md", path, sizeof(path));
	int i, j;

	if (!f)
		return -1;
	fprintf(f, "# inc-train report\n\n"
		"Per-iteration times averaged over the workers (Table II rows; `comm` is\n"
		"the exchange minus the gradient sum, and includes the software codec).\n"
		"Speedup is over the uncompressed WA run of the same model and workers.\n"
		"Wire bytes: what the emulated links carried, where the cluster script\n"
		"recorded it; else the payload the ranks handed to TCP.\n\n");
	fprintf(f, "| run | model | workers | iters | iter ms | data | forward | backward | "
		"sum | comm | update | comm %% | speedup | accuracy %% | loss | "
		"bytes/iter | ratio | 2/10/18/34-bit %% | log |\n");
	fprintf(f, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (i = 0; i < n; i++) {
		const struct run_log *b = baseline(r, n, &r[i]);
		double it = r[i].row[TR_ROW_ITER];

		fprintf(f, "| %s | %s | %d | %ld | %.2f |", r[i].label, r[i].model,
			r[i].workers, r[i].iterations, it);
		for (j = TR_ROW_DATA; j <= TR_ROW_UPDATE; j++)
			fprintf(f, " %.2f |", r[i].row[j]);
		fprintf(f, " %.0f |", it > 0 ? 100 * comm_ms(&r[i]) / it : 0);
		if (b && it > 0)
			fprintf(f, " %.2fx |", b->row[TR_ROW_ITER] / it);
		else
			fprintf(f, " - |");
		fprintf(f, " %.2f | %.4f | %.0f%s | %.2fx | %.1f/%.1f/%.1f/%.1f | `%s` |\n",
			r[i].acc, r[i].loss, r[i].wire_iter > 0 ? r[i].wire_iter : r[i].bytes_iter,
			r[i].wire_iter > 0 ? " (wire)" : "", run_ratio(&r[i]),
			100 * r[i].share[0], 100 * r[i].share[1], 100 * r[i].share[2],
			100 * r[i].share[3], r[i].path);
	}
	fprintf(f, "\nTable II normalised: each row as a share of the iteration.\n\n"
		"| run | data %% | forward %% | backward %% | sum %% | comm %% | update %% |\n"
		"|---|---|---|---|---|---|---|\n");
	for (i = 0; i < n; i++) {
		double it = r[i].row[TR_ROW_ITER];

		fprintf(f, "| %s |", r[i].label);
		for (j = TR_ROW_DATA; j <= TR_ROW_UPDATE; j++)
			fprintf(f, " %.1f |", it > 0 ? 100 * r[i].row[j] / it : 0);
		fprintf(f, "\n");
	}
	fprintf(f, "\n![breakdown](fig12-breakdown.png)\n\n![accuracy](fig13-accuracy.png)\n\n"
		"![compression](fig14-compression.png)\n");
	if (scaling)
		fprintf(f, "\n![scaling](fig15-scaling.png)\n");
	if (scheds) {
		fprintf(f, "\nSchedules: computation, the communication left after backward\n"
			"(t_c^no, the exchange row of a layer-wise schedule; gossip: the exchange),\n"
			"for mgwfbp the planner's predicted iteration time, and the final accuracy\n"
			"(gossip: of the averaged model, of rank 0's own model, and the replicas'\n"
			"spread max|w_i - mean w|).\n\n"
			"| run | schedule | iter ms | computation | t_c^no | predicted | predicted/measured | "
			"accuracy %% | rank 0 %% | spread |\n"
			"|---|---|---|---|---|---|---|---|---|---|\n");
		for (i = 0; i < n; i++) {
			double it = r[i].row[TR_ROW_ITER];

			fprintf(f, "| %s | %s | %.2f | %.2f | %.2f |", r[i].label, r[i].sched, it,
				comp_ms(&r[i]), comm_ms(&r[i]));
			if (r[i].predicted > 0 && it > 0)
				fprintf(f, " %.2f | %.2f |", r[i].predicted, r[i].predicted / it);
			else
				fprintf(f, " - | - |");
			if (replicas_differ(&r[i]))
				fprintf(f, " %.2f | %.2f | %.3g |\n", r[i].acc, r[i].acc_rank0, r[i].spread);
			else
				fprintf(f, " %.2f | - | - |\n", r[i].acc);
		}
		fprintf(f, "\n![schedules](schedules.png)\n");
	}
	fclose(f);
	return 0;
}

/* A log that sits in the output directory under a name the report
 * writes (report.md, fig12-..., schedules....) would be overwritten: its
 * path, else NULL. */
static const char *log_in_output(const char *out, struct run_log *runs, int n)
{
	static const char *const names[] = { "report.md", "fig1[2-5]*", "schedules.*" };
	struct stat so, sd;
	char dir[4096];
	const char *base;
	int i;
	size_t k;

	if (stat(out, &so))
		return NULL;             /* made afresh: nothing in it yet */
	for (i = 0; i < n; i++) {
		base = strrchr(runs[i].path, '/');
		snprintf(dir, sizeof(dir), "%.*s", base ? (int)(base - runs[i].path) : 1,
			 base ? runs[i].path : ".");
		if (base && base == runs[i].path)
			snprintf(dir, sizeof(dir), "/");
		base = base ? base + 1 : runs[i].path;
		if (stat(dir, &sd) || sd.st_dev != so.st_dev || sd.st_ino != so.st_ino)
			continue;
		for (k = 0; k < sizeof(names) / sizeof(names[0]); k++)
			if (!fnmatch(names[k], base, 0))
				return runs[i].path;
	}
	return NULL;
}

int tr_report_main(int argc, char **argv)
{
	static struct run_log runs[MAX_RUNS];
	const char *out = NULL;
	int n = 0, i, models_differ = 0, scaling = 0, scheds = 0, show_sched = 0, rc = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--out") && i + 1 < argc) {
			out = argv[++i];
		} else if (argv[i][0] == '-') {
			fprintf(stderr, "usage: inc-train report LOG... --out DIR\n");
			return 2;
		} else if (n == MAX_RUNS) {
			fprintf(stderr, "inc-train report: at most %d logs\n", MAX_RUNS);
			return 2;
		} else if (read_log(&runs[n++], argv[i])) {
			return 2;
		}
	}
	if (!out || n == 0) {
		fprintf(stderr, "usage: inc-train report LOG... --out DIR\n");
		return 2;
	}
	if (log_in_output(out, runs, n)) {
		fprintf(stderr, "inc-train report: the log %s is in %s under a name the report "
			"writes; choose another --out\n", log_in_output(out, runs, n), out);
		return 2;
	}
	if (mkdir(out, 0755) && errno != EEXIST) {
		fprintf(stderr, "inc-train report: %s: %s\n", out, strerror(errno));
		return 2;
	}
	for (i = 1; i < n; i++)
		if (strcmp(runs[i].model, runs[0].model))
			models_differ = 1;
	for (i = 0; i < n; i++)
		show_sched |= layerwise(&runs[i]);
	for (i = 0; i < n; i++)
		make_label(&runs[i], models_differ, show_sched);
	if (plot_breakdown(out, runs, n) || plot_accuracy(out, runs, n) ||
	    plot_compression(out, runs, n) || plot_scaling(out, runs, n, &scaling) ||
	    plot_schedules(out, runs, n, &scheds))
		rc = 1;
	if (write_table(out, runs, n, scaling, scheds))
		rc = 1;
	if (rc == 0)
		printf("inc-train report: %d runs -> %s/report.md and PNG plots\n", n, out);
	return rc;
}
