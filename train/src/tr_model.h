/* SPDX-License-Identifier: MIT */
/*
 * tr_model.h - a model as a table of layers over two contiguous buffers:
 * every parameter in `params`, every gradient in `grads`, at the same
 * offsets (w_off/b_off of each layer). An all-reduce is one call on grads,
 * a bucket is a range of offsets, a digest is one pass over params.
 */
#ifndef TR_MODEL_H
#define TR_MODEL_H

#include <stddef.h>
#include <stdint.h>

enum tr_kind { TR_FC, TR_RELU, TR_CONV, TR_POOL };

struct tr_layer {
	enum tr_kind kind;
	char name[8];
	int c, h, w;              /* input shape of one sample (fc: c inputs, h = w = 1) */
	int oc, oh, ow;           /* output shape of one sample */
	int kh, kw;               /* convolution kernel */
	size_t w_off, w_len;      /* weights in params/grads (0 length: none) */
	size_t b_off, b_len;      /* biases */
};

#define TR_MAX_LAYERS 16

struct tr_model {
	char name[16];
	int nlayers;
	int classes;
	size_t in_size;                     /* floats of one input sample */
	struct tr_layer l[TR_MAX_LAYERS];
	size_t nparams;
	float *params;                      /* all parameters, one buffer */
	float *grads;                       /* all gradients, same offsets */
	/* Activations for up to batch_cap samples: act[0] is the input,
	 * act[i + 1] the output of layer i. */
	int batch_cap;
	float *act[TR_MAX_LAYERS + 1];
	float *probs;
	float *dbuf[2];                     /* gradient ping-pong buffers */
	float *col;                         /* im2col scratch of one image */
};

/* Names known to tr_model_init, NULL-terminated. */
extern const char *const tr_model_names[];

/* Build model `name` (hdc, lenet) for batches of up to batch_cap samples
 * of in_size floats (28x28 images: 784). Returns 0, -1 for an unknown
 * name, -2 when memory runs out. */
int tr_model_init(struct tr_model *m, const char *name, int batch_cap);
void tr_model_free(struct tr_model *m);

/* Normal weights of variance 1/fan_in (xavier), zero biases, drawn from `seed` alone. */
void tr_model_init_params(struct tr_model *m, uint64_t seed);

/* Forward pass of batch samples (x: batch * in_size floats, copied into
 * act[0]); returns the mean cross-entropy loss, counts correct
 * predictions into *correct (may be NULL). */
double tr_model_forward(struct tr_model *m, const float *x, const uint8_t *y,
			int batch, int *correct);
/* Backward pass of the last forward: overwrites grads with the gradient
 * of the mean loss. */
void tr_model_backward(struct tr_model *m, const uint8_t *y, int batch);
/* The same, calling hook(arg, i) as soon as the gradients of layer i (one
 * with parameters) are complete: layers from the last to the first. */
void tr_model_backward_hook(struct tr_model *m, const uint8_t *y, int batch,
			    void (*hook)(void *arg, int layer), void *arg);

/* Floats of one sample's output of layer i. */
static inline size_t tr_layer_out_size(const struct tr_layer *l)
{
	return (size_t)l->oc * l->oh * l->ow;
}

/* A learnable layer's parameters, weights then biases, as one range
 * [lo, hi) of params and grads: what a group or a scaling part is made of. */
static inline size_t tr_layer_lo(const struct tr_layer *l)
{
	return l->w_off;
}

static inline size_t tr_layer_hi(const struct tr_layer *l)
{
	return l->b_off + l->b_len;
}

#endif
