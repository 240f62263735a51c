/* SPDX-License-Identifier: MIT */
/*
 * tr_layers.h - the trainer's layers as plain forward/backward functions
 * over caller-owned arrays (row-major, batch first, images as
 * [batch][channel][height][width]). No allocation, no hidden state: every
 * buffer and every shape is an argument. Backward functions overwrite
 * (never accumulate into) the parameter gradients they are given, and
 * skip the input gradient when din is NULL (the first layer).
 */
#ifndef TR_LAYERS_H
#define TR_LAYERS_H

#include <stddef.h>
#include <stdint.h>

/* Fully connected: out[b][o] = sum_i in[b][i] * w[o][i] + bias[o]. */
void fc_forward(float *out, const float *in, const float *w, const float *bias,
		int batch, int n_in, int n_out);
void fc_backward(float *din, float *dw, float *dbias, const float *dout,
		 const float *in, const float *w, int batch, int n_in, int n_out);

/* ReLU over n values; backward reads the forward output. */
void relu_forward(float *out, const float *in, size_t n);
void relu_backward(float *din, const float *dout, const float *out, size_t n);

/* Convolution, stride 1, no padding: in [b][c][h][w], weights
 * [k][c][kh][kw], out [b][k][h-kh+1][w-kw+1]. col is scratch of
 * c*kh*kw * oh*ow floats (im2col of one image). */
struct conv_dims {
	int c, h, w;      /* input channels, height, width */
	int k, kh, kw;    /* filters, kernel height, width */
};
static inline int conv_oh(const struct conv_dims *d) { return d->h - d->kh + 1; }
static inline int conv_ow(const struct conv_dims *d) { return d->w - d->kw + 1; }
static inline size_t conv_col_size(const struct conv_dims *d)
{
	return (size_t)d->c * d->kh * d->kw * conv_oh(d) * conv_ow(d);
}
void conv_forward(float *out, const float *in, const float *w, const float *bias,
		  int batch, const struct conv_dims *d, float *col);
void conv_backward(float *din, float *dw, float *dbias, const float *dout,
		   const float *in, const float *w, int batch,
		   const struct conv_dims *d, float *col);

/* 2x2 max pooling, stride 2, over [b][c][h][w] (h, w even). Backward sends
 * each output gradient to the first maximum of its window. */
void maxpool_forward(float *out, const float *in, int batch, int c, int h, int w);
void maxpool_backward(float *din, const float *dout, const float *in,
		      int batch, int c, int h, int w);

/* Softmax cross-entropy: probs = softmax(logits); returns the mean loss
 * over the batch and counts correct argmax predictions into *correct. */
double softmax_xent_forward(float *probs, const float *logits,
			    const uint8_t *labels, int batch, int classes,
			    int *correct);
/* dlogits = (probs - onehot(labels)) / batch: the gradient of the mean. */
void softmax_xent_backward(float *dlogits, const float *probs,
			   const uint8_t *labels, int batch, int classes);

#endif
