// SPDX-License-Identifier: MIT
/*
 * test_layers.c - every layer's backward against central finite
 * differences, and the two models end to end.
 *
 * Each layer is checked through the scalar L = sum(out * R) for a random R,
 * so dL/dout = R exactly. FC, convolution, ReLU and max pooling are
 * piecewise linear: with inputs kept away from the kinks (ReLU: |x| > 4h;
 * pooling: window values at least 4h apart) the central difference is
 * exact but for float rounding, so the tolerance is tight (1e-3 relative):
 * the self-test below shows that a gradient 2% off, or with one weight's
 * gradient moved to its neighbour, fails it. Softmax cross-entropy and the
 * whole models are smooth but not linear, checked with h = 1e-3 in
 * double-accumulated loss and a 2% + 1e-4 tolerance; for a whole model a
 * few entries whose step crosses a kink may miss it (at most 10%: a
 * mis-wired layer misses nearly all).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tr_layers.h"
#include "tr_model.h"
#include "tr_util.h"

static int passed, failed;
static struct tr_rng rng;

static double uni(double lo, double hi)
{
	return lo + (hi - lo) * (double)(tr_rng_next(&rng) >> 11) * 0x1p-53;
}

static void fill(float *v, size_t n, double lo, double hi)
{
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = (float)uni(lo, hi);
}

/* Values with |x| in [m, 1], random sign (away from the ReLU kink). */
static void fill_away(float *v, size_t n, double m)
{
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = (float)((tr_rng_next(&rng) & 1 ? 1 : -1) * uni(m, 1.0));
}

static double dot(const float *a, const float *b, size_t n)
{
	double s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += (double)a[i] * b[i];
	return s;
}

/* The layer under test: computes L for the current inputs/params. */
typedef double (*loss_fn)(void *ctx);

static int check_frac(const char *what, loss_fn f, void *ctx, float *x, const float *g,
		      size_t n, float h, double rel_tol, double abs_tol, int quiet,
		      double max_bad);

/* Compare analytic gradient g of L with respect to x[0..n) with central
 * differences at step h. Returns the number of entries off by more than
 * abs_tol + rel_tol * |numeric|. Checks at most 150 entries (spread). */
static int check(const char *what, loss_fn f, void *ctx, float *x, const float *g,
		 size_t n, float h, double rel_tol, double abs_tol, int quiet)
{
	return check_frac(what, f, ctx, x, g, n, h, rel_tol, abs_tol, quiet, 0.0);
}

/* As check(), passing when at most max_bad of the checked entries are off
 * (whole models: a step of h moves some activations across a ReLU or
 * pooling kink, where no finite difference matches; a wiring error puts
 * nearly every entry off). */
static int check_frac(const char *what, loss_fn f, void *ctx, float *x, const float *g,
		      size_t n, float h, double rel_tol, double abs_tol, int quiet,
		      double max_bad)
{
	size_t stride = n > 150 ? n / 150 : 1, i, checked = 0;
	int bad = 0;
	double worst = 0;

	for (i = 0; i < n; i += stride) {
		float keep = x[i];
		double lp, lm, num, err;

		x[i] = keep + h;
		lp = f(ctx);
		x[i] = keep - h;
		lm = f(ctx);
		x[i] = keep;
		num = (lp - lm) / (2.0 * (double)h);
		checked++;
		err = fabs(num - g[i]);
		if (err > worst)
			worst = err;
		if (err > abs_tol + rel_tol * fabs(num)) {
			if (!quiet && bad < 3)
				printf("  %s[%zu]: analytic %.7g numeric %.7g\n", what, i,
				       (double)g[i], num);
			bad++;
		}
	}
	if (!quiet) {
		/* at least one entry may miss when any may */
		int ok = (double)bad <= max_bad * (double)checked || (max_bad > 0 && bad <= 1);

		printf("%s %s (%d of %zu entries off, worst abs error %.3g)\n",
		       ok ? "ok  " : "FAIL", what, bad, checked, worst);
		if (ok)
			passed++;
		else
			failed++;
	}
	return bad;
}

/* ------------------------------------------------------------------------ */
struct fc_ctx {
	int b, i, o;
	float *in, *w, *bias, *out, *r;
};

static double fc_loss(void *p)
{
	struct fc_ctx *c = p;

	fc_forward(c->out, c->in, c->w, c->bias, c->b, c->i, c->o);
	return dot(c->out, c->r, (size_t)c->b * c->o);
}

static void test_fc(void)
{
	struct fc_ctx c = { 5, 13, 7, 0, 0, 0, 0, 0 };
	size_t ni = (size_t)c.b * c.i, nw = (size_t)c.o * c.i, no = (size_t)c.b * c.o;
	float *din = malloc(ni * 4), *dw = malloc(nw * 4), *db = malloc((size_t)c.o * 4);
	float *wrong = malloc(nw * 4);
	size_t k;

	c.in = malloc(ni * 4);
	c.w = malloc(nw * 4);
	c.bias = malloc((size_t)c.o * 4);
	c.out = malloc(no * 4);
	c.r = malloc(no * 4);
	fill(c.in, ni, -1, 1);
	fill(c.w, nw, -1, 1);
	fill(c.bias, (size_t)c.o, -1, 1);
	fill(c.r, no, -1, 1);
	fc_backward(din, dw, db, c.r, c.in, c.w, c.b, c.i, c.o);
	check("fc dW", fc_loss, &c, c.w, dw, nw, 1e-2f, 1e-3, 1e-4, 0);
	check("fc db", fc_loss, &c, c.bias, db, (size_t)c.o, 1e-2f, 1e-3, 1e-4, 0);
	check("fc dx", fc_loss, &c, c.in, din, ni, 1e-2f, 1e-3, 1e-4, 0);

	/* The check must reject gradients that are slightly wrong. */
	for (k = 0; k < nw; k++)
		wrong[k] = dw[k] * 1.02f;
	if (check("fc dW*1.02", fc_loss, &c, c.w, wrong, nw, 1e-2f, 1e-3, 1e-4, 1) > 0)
		passed++, printf("ok   a gradient 2%% off fails the check\n");
	else
		failed++, printf("FAIL a gradient 2%% off passes the check\n");
	memcpy(wrong, dw, nw * 4);
	wrong[1] = dw[0];
	wrong[0] = dw[1];
	if (check("fc dW swapped", fc_loss, &c, c.w, wrong, 2, 1e-2f, 1e-3, 1e-4, 1) > 0)
		passed++, printf("ok   two swapped weight gradients fail the check\n");
	else
		failed++, printf("FAIL two swapped weight gradients pass the check\n");
	free(din), free(dw), free(db), free(wrong);
	free(c.in), free(c.w), free(c.bias), free(c.out), free(c.r);
}

/* ------------------------------------------------------------------------ */
struct relu_ctx {
	size_t n;
	float *in, *out, *r;
};

static double relu_loss(void *p)
{
	struct relu_ctx *c = p;

	relu_forward(c->out, c->in, c->n);
	return dot(c->out, c->r, c->n);
}

static void test_relu(void)
{
	struct relu_ctx c = { 300, 0, 0, 0 };
	float *din = malloc(c.n * 4);

	c.in = malloc(c.n * 4);
	c.out = malloc(c.n * 4);
	c.r = malloc(c.n * 4);
	fill_away(c.in, c.n, 0.05);
	fill(c.r, c.n, -1, 1);
	relu_forward(c.out, c.in, c.n);
	relu_backward(din, c.r, c.out, c.n);
	check("relu dx", relu_loss, &c, c.in, din, c.n, 1e-2f, 1e-3, 1e-4, 0);
	free(din), free(c.in), free(c.out), free(c.r);
}

/* ------------------------------------------------------------------------ */
struct conv_ctx {
	int b;
	struct conv_dims d;
	float *in, *w, *bias, *out, *r, *col;
};

static double conv_loss(void *p)
{
	struct conv_ctx *c = p;

	conv_forward(c->out, c->in, c->w, c->bias, c->b, &c->d, c->col);
	return dot(c->out, c->r, (size_t)c->b * c->d.k * conv_oh(&c->d) * conv_ow(&c->d));
}

static void test_conv(void)
{
	struct conv_ctx c = { .b = 2, .d = { 3, 9, 8, 4, 3, 2 } };
	size_t ni = (size_t)c.b * c.d.c * c.d.h * c.d.w;
	size_t nw = (size_t)c.d.k * c.d.c * c.d.kh * c.d.kw;
	size_t no = (size_t)c.b * c.d.k * conv_oh(&c.d) * conv_ow(&c.d);
	float *din = malloc(ni * 4), *dw = malloc(nw * 4), *db = malloc((size_t)c.d.k * 4);

	c.in = malloc(ni * 4);
	c.w = malloc(nw * 4);
	c.bias = malloc((size_t)c.d.k * 4);
	c.out = malloc(no * 4);
	c.r = malloc(no * 4);
	c.col = malloc(conv_col_size(&c.d) * 4);
	fill(c.in, ni, -1, 1);
	fill(c.w, nw, -1, 1);
	fill(c.bias, (size_t)c.d.k, -1, 1);
	fill(c.r, no, -1, 1);
	conv_backward(din, dw, db, c.r, c.in, c.w, c.b, &c.d, c.col);
	check("conv dW", conv_loss, &c, c.w, dw, nw, 1e-2f, 1e-3, 1e-4, 0);
	check("conv db", conv_loss, &c, c.bias, db, (size_t)c.d.k, 1e-2f, 1e-3, 1e-4, 0);
	check("conv dx", conv_loss, &c, c.in, din, ni, 1e-2f, 1e-3, 1e-4, 0);
	free(din), free(dw), free(db);
	free(c.in), free(c.w), free(c.bias), free(c.out), free(c.r), free(c.col);
}

/* ------------------------------------------------------------------------ */
struct pool_ctx {
	int b, c, h, w;
	float *in, *out, *r;
};

static double pool_loss(void *p)
{
	struct pool_ctx *c = p;

	maxpool_forward(c->out, c->in, c->b, c->c, c->h, c->w);
	return dot(c->out, c->r, (size_t)c->b * c->c * (c->h / 2) * (c->w / 2));
}

static void test_pool(void)
{
	struct pool_ctx c = { 2, 3, 6, 8, 0, 0, 0 };
	size_t ni = (size_t)c.b * c.c * c.h * c.w, no = ni / 4, i, j;
	float *din = malloc(ni * 4);

	c.in = malloc(ni * 4);
	c.out = malloc(no * 4);
	c.r = malloc(no * 4);
	/* distinct values 0.1 apart, shuffled: no two within 4h */
	for (i = 0; i < ni; i++)
		c.in[i] = (float)(0.1 * (double)i - 3.0);
	for (i = ni - 1; i > 0; i--) {
		float t;

		j = (size_t)tr_rng_below(&rng, i + 1);
		t = c.in[i];
		c.in[i] = c.in[j];
		c.in[j] = t;
	}
	fill(c.r, no, -1, 1);
	maxpool_backward(din, c.r, c.in, c.b, c.c, c.h, c.w);
	check("maxpool dx", pool_loss, &c, c.in, din, ni, 1e-2f, 1e-3, 1e-4, 0);
	free(din), free(c.in), free(c.out), free(c.r);
}

/* ------------------------------------------------------------------------ */
struct xent_ctx {
	int b, k;
	float *z, *p;
	uint8_t *y;
};

static double xent_loss(void *p)
{
	struct xent_ctx *c = p;

	return softmax_xent_forward(c->p, c->z, c->y, c->b, c->k, NULL);
}

static void test_xent(void)
{
	struct xent_ctx c = { 4, 10, 0, 0, 0 };
	size_t n = (size_t)c.b * c.k;
	float *dz = malloc(n * 4);
	int i, ok;
	double l;

	c.z = malloc(n * 4);
	c.p = malloc(n * 4);
	c.y = malloc((size_t)c.b);
	fill(c.z, n, -3, 3);
	for (i = 0; i < c.b; i++)
		c.y[i] = (uint8_t)tr_rng_below(&rng, (uint64_t)c.k);
	softmax_xent_forward(c.p, c.z, c.y, c.b, c.k, NULL);
	softmax_xent_backward(dz, c.p, c.y, c.b, c.k);
	check("softmax-xent dz", xent_loss, &c, c.z, dz, n, 1e-3f, 2e-2, 1e-4, 0);

	/* Uniform logits: loss log(k), no correct argmax beyond class 0. */
	memset(c.z, 0, n * 4);
	l = softmax_xent_forward(c.p, c.z, c.y, c.b, c.k, &ok);
	if (fabs(l - log(10.0)) < 1e-6)
		passed++, printf("ok   uniform logits give loss log(10)\n");
	else
		failed++, printf("FAIL uniform logits give loss %.9g, not log(10)\n", l);
	free(dz), free(c.z), free(c.p), free(c.y);
}

/* ------------------------------------------------------------------------ */
struct model_ctx {
	struct tr_model *m;
	float *x;
	uint8_t *y;
	int b;
};

static double model_loss(void *p)
{
	struct model_ctx *c = p;

	return tr_model_forward(c->m, c->x, c->y, c->b, NULL);
}

/* Whole models: step and absolute tolerance between float rounding of the
 * loss (grows as h shrinks) and kink crossings (grow with h). */
#define MODEL_H   5e-4f
#define MODEL_ABS 5e-4

static void test_model(const char *name)
{
	struct tr_model m;
	struct model_ctx c = { &m, 0, 0, 3 };
	float *g;
	char what[64];
	int i;

	if (tr_model_init(&m, name, 8)) {
		failed++, printf("FAIL model %s does not build\n", name);
		return;
	}
	tr_model_init_params(&m, 7);
	c.x = malloc((size_t)c.b * m.in_size * 4);
	c.y = malloc((size_t)c.b);
	fill(c.x, (size_t)c.b * m.in_size, 0, 1);
	for (i = 0; i < c.b; i++)
		c.y[i] = (uint8_t)(i * 3 % 10);
	tr_model_forward(&m, c.x, c.y, c.b, NULL);
	tr_model_backward(&m, c.y, c.b);
	g = malloc(m.nparams * 4);
	memcpy(g, m.grads, m.nparams * 4);
	for (i = 0; i < m.nlayers; i++) {
		const struct tr_layer *l = &m.l[i];
		size_t n = l->w_len - 1;

		if (!l->w_len)
			continue;
		snprintf(what, sizeof(what), "%s %s dW", name, l->name);
		check_frac(what, model_loss, &c, m.params + l->w_off, g + l->w_off,
			   l->w_len, MODEL_H, 2e-2, MODEL_ABS, 0, 0.10);
		snprintf(what, sizeof(what), "%s %s db", name, l->name);
		check_frac(what, model_loss, &c, m.params + l->b_off, g + l->b_off,
			   l->b_len, MODEL_H, 2e-2, MODEL_ABS, 0, 0.10);
		/* Negative control: each weight compared with its neighbour's
		 * gradient (a wiring error) must fail the same tolerance. */
		if (check_frac(what, model_loss, &c, m.params + l->w_off, g + l->w_off + 1,
			       n, MODEL_H, 2e-2, MODEL_ABS, 1, 0.10) > (int)(0.10 * 150))
			passed++, printf("ok   %s %s: shifted gradients fail the check\n", name, l->name);
		else
			failed++, printf("FAIL %s %s: shifted gradients pass the check\n", name, l->name);
	}
	free(g), free(c.x), free(c.y);
	tr_model_free(&m);
}

static void test_model_shapes(void)
{
	struct tr_model m;

	/* hdc: 784*500+500 + 3*(500*500+500) + 500*10+10 */
	if (!tr_model_init(&m, "hdc", 1) && m.nparams == 392500 + 3 * 250500 + 5010)
		passed++, printf("ok   hdc has %zu parameters (784-500-500-500-500-10)\n", m.nparams);
	else
		failed++, printf("FAIL hdc parameter count %zu\n", m.nparams);
	tr_model_free(&m);
	/* lenet: 6*25+6 + 16*6*25+16 + 256*120+120 + 120*84+84 + 84*10+10 */
	if (!tr_model_init(&m, "lenet", 1) && m.nparams == 156 + 2416 + 30840 + 10164 + 850)
		passed++, printf("ok   lenet has %zu parameters\n", m.nparams);
	else
		failed++, printf("FAIL lenet parameter count %zu\n", m.nparams);
	tr_model_free(&m);
	if (tr_model_init(&m, "resnet", 1) == -1)
		passed++, printf("ok   an unknown model is refused\n");
	else
		failed++, printf("FAIL an unknown model is accepted\n");
}

int main(void)
{
	tr_rng_seed(&rng, 12345, 1);
	test_fc();
	test_relu();
	test_conv();
	test_pool();
	test_xent();
	test_model_shapes();
	test_model("lenet");
	test_model("hdc");
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
