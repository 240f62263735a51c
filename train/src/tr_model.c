// SPDX-License-Identifier: MIT
/*
 * tr_model.c - the two models and their forward/backward passes.
 *
 *   hdc    the paper's handwritten-digit classifier (Section VII-A): five
 *          fully connected layers 784-500-500-500-500-10, ReLU between
 *   lenet  LeNet-5 style: conv 5x5 x6, pool 2, conv 5x5 x16, pool 2,
 *          fully connected 256-120-84-10, ReLU after each conv/fc but the last
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tr_layers.h"
#include "tr_model.h"
#include "tr_util.h"

const char *const tr_model_names[] = { "hdc", "lenet", NULL };

/* Append a layer taking the previous layer's output shape (or the input
 * shape c x h x w for the first). */
static struct tr_layer *add(struct tr_model *m, enum tr_kind kind, const char *name)
{
	struct tr_layer *l = &m->l[m->nlayers], *prev = m->nlayers ? l - 1 : NULL;

	memset(l, 0, sizeof(*l));
	l->kind = kind;
	strncpy(l->name, name, sizeof(l->name) - 1);
	if (prev) {
		l->c = prev->oc;
		l->h = prev->oh;
		l->w = prev->ow;
	} else {
		l->c = 1;
		l->h = 28;
		l->w = 28;
	}
	l->oc = l->c;
	l->oh = l->h;
	l->ow = l->w;
	m->nlayers++;
	return l;
}

static void add_params(struct tr_model *m, struct tr_layer *l, size_t wl, size_t bl)
{
	l->w_off = m->nparams;
	l->w_len = wl;
	l->b_off = l->w_off + wl;
	l->b_len = bl;
	m->nparams += wl + bl;
}

static void add_fc(struct tr_model *m, const char *name, int n_out, int relu)
{
	struct tr_layer *l = add(m, TR_FC, name);

	l->c = l->c * l->h * l->w;   /* flatten */
	l->h = l->w = 1;
	l->oc = n_out;
	l->oh = l->ow = 1;
	add_params(m, l, (size_t)n_out * l->c, (size_t)n_out);
	if (relu)
		add(m, TR_RELU, "relu");
}

static void add_conv(struct tr_model *m, const char *name, int k, int ks)
{
	struct tr_layer *l = add(m, TR_CONV, name);

	l->kh = l->kw = ks;
	l->oc = k;
	l->oh = l->h - ks + 1;
	l->ow = l->w - ks + 1;
	add_params(m, l, (size_t)k * l->c * ks * ks, (size_t)k);
	add(m, TR_RELU, "relu");
	l = add(m, TR_POOL, "pool");
	l->oh = l->h / 2;
	l->ow = l->w / 2;
}

static struct conv_dims conv_of(const struct tr_layer *l)
{
	struct conv_dims d = { l->c, l->h, l->w, l->oc, l->kh, l->kw };

	return d;
}

int tr_model_init(struct tr_model *m, const char *name, int batch_cap)
{
	size_t maxact = 0, col = 1, n;
	int i;

	memset(m, 0, sizeof(*m));
	if (!strcmp(name, "hdc")) {
		add_fc(m, "fc1", 500, 1);
		add_fc(m, "fc2", 500, 1);
		add_fc(m, "fc3", 500, 1);
		add_fc(m, "fc4", 500, 1);
		add_fc(m, "fc5", 10, 0);
	} else if (!strcmp(name, "lenet")) {
		add_conv(m, "conv1", 6, 5);
		add_conv(m, "conv2", 16, 5);
		add_fc(m, "fc1", 120, 1);
		add_fc(m, "fc2", 84, 1);
		add_fc(m, "fc3", 10, 0);
	} else {
		return -1;
	}
	strncpy(m->name, name, sizeof(m->name) - 1);
	m->classes = 10;
	m->in_size = 28 * 28;
	m->batch_cap = batch_cap;
	maxact = m->in_size;
	for (i = 0; i < m->nlayers; i++) {
		struct tr_layer *l = &m->l[i];

		if (tr_layer_out_size(l) > maxact)
			maxact = tr_layer_out_size(l);
		if (l->kind == TR_CONV) {
			struct conv_dims d = conv_of(l);

			if (conv_col_size(&d) > col)
				col = conv_col_size(&d);
		}
	}
	m->params = tr_alloc(m->nparams * sizeof(float));
	m->grads = tr_alloc(m->nparams * sizeof(float));
	m->probs = tr_alloc((size_t)batch_cap * m->classes * sizeof(float));
	m->col = tr_alloc(col * sizeof(float));
	m->dbuf[0] = tr_alloc((size_t)batch_cap * maxact * sizeof(float));
	m->dbuf[1] = tr_alloc((size_t)batch_cap * maxact * sizeof(float));
	n = m->in_size;
	m->act[0] = tr_alloc((size_t)batch_cap * n * sizeof(float));
	for (i = 0; i < m->nlayers; i++)
		m->act[i + 1] = tr_alloc((size_t)batch_cap * tr_layer_out_size(&m->l[i]) *
					 sizeof(float));
	if (!m->params || !m->grads || !m->probs || !m->col || !m->dbuf[0] ||
	    !m->dbuf[1] || !m->act[m->nlayers]) {
		tr_model_free(m);
		return -2;
	}
	for (i = 0; i < m->nlayers; i++)
		if (!m->act[i]) {
			tr_model_free(m);
			return -2;
		}
	return 0;
}

void tr_model_free(struct tr_model *m)
{
	int i;

	free(m->params);
	free(m->grads);
	free(m->probs);
	free(m->col);
	free(m->dbuf[0]);
	free(m->dbuf[1]);
	for (i = 0; i <= TR_MAX_LAYERS; i++)
		free(m->act[i]);
	memset(m, 0, sizeof(*m));
}

void tr_model_init_params(struct tr_model *m, uint64_t seed)
{
	struct tr_rng rng;
	int i;
	size_t j;

	tr_rng_seed(&rng, seed, 0x1417u);   /* stream: parameter init */
	memset(m->params, 0, m->nparams * sizeof(float));
	for (i = 0; i < m->nlayers; i++) {
		const struct tr_layer *l = &m->l[i];
		double fan_in = (double)l->c * (l->kind == TR_CONV ? l->kh * l->kw : 1);
		double sd = sqrt(1.0 / fan_in);

		for (j = 0; j < l->w_len; j++)
			m->params[l->w_off + j] = (float)(sd * tr_rng_normal(&rng));
	}
}

double tr_model_forward(struct tr_model *m, const float *x, const uint8_t *y,
			int batch, int *correct)
{
	int i;

	memcpy(m->act[0], x, (size_t)batch * m->in_size * sizeof(float));
	for (i = 0; i < m->nlayers; i++) {
		const struct tr_layer *l = &m->l[i];
		const float *in = m->act[i];
		float *out = m->act[i + 1];
		struct conv_dims d;

		switch (l->kind) {
		case TR_FC:
			fc_forward(out, in, m->params + l->w_off, m->params + l->b_off,
				   batch, l->c, l->oc);
			break;
		case TR_RELU:
			relu_forward(out, in, (size_t)batch * tr_layer_out_size(l));
			break;
		case TR_CONV:
			d = conv_of(l);
			conv_forward(out, in, m->params + l->w_off, m->params + l->b_off,
				     batch, &d, m->col);
			break;
		case TR_POOL:
			maxpool_forward(out, in, batch, l->c, l->h, l->w);
			break;
		}
	}
	return softmax_xent_forward(m->probs, m->act[m->nlayers], y, batch,
				    m->classes, correct);
}

void tr_model_backward(struct tr_model *m, const uint8_t *y, int batch)
{
	tr_model_backward_hook(m, y, batch, NULL, NULL);
}

void tr_model_backward_hook(struct tr_model *m, const uint8_t *y, int batch,
			    void (*hook)(void *arg, int layer), void *arg)
{
	float *dout = m->dbuf[0], *din = m->dbuf[1], *t;
	int i;

	softmax_xent_backward(dout, m->probs, y, batch, m->classes);
	for (i = m->nlayers - 1; i >= 0; i--) {
		const struct tr_layer *l = &m->l[i];
		float *dn = i > 0 ? din : NULL;    /* no input gradient for the data */
		struct conv_dims d;

		switch (l->kind) {
		case TR_FC:
			fc_backward(dn, m->grads + l->w_off, m->grads + l->b_off, dout,
				    m->act[i], m->params + l->w_off, batch, l->c, l->oc);
			break;
		case TR_RELU:
			if (dn)
				relu_backward(dn, dout, m->act[i + 1],
					      (size_t)batch * tr_layer_out_size(l));
			break;
		case TR_CONV:
			d = conv_of(l);
			conv_backward(dn, m->grads + l->w_off, m->grads + l->b_off, dout,
				      m->act[i], m->params + l->w_off, batch, &d, m->col);
			break;
		case TR_POOL:
			if (dn)
				maxpool_backward(dn, dout, m->act[i], batch, l->c, l->h, l->w);
			break;
		}
		if (hook && l->w_len + l->b_len)
			hook(arg, i);
		t = dout;
		dout = din;
		din = t;
	}
}
