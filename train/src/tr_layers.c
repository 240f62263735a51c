// SPDX-License-Identifier: MIT
/*
 * tr_layers.c - forward and backward of the trainer's layers. Matrix
 * products go to BLAS (cblas_sgemm); the rest is plain loops that read as
 * the formulas in tr_layers.h.
 */
#include <cblas.h>
#include <math.h>
#include <string.h>

#include "tr_layers.h"

/* ------------------------------------------------------------------------ */
/* Fully connected                                                           */
/* ------------------------------------------------------------------------ */
void fc_forward(float *out, const float *in, const float *w, const float *bias,
		int batch, int n_in, int n_out)
{
	int b, o;

	/* out[B x O] = in[B x I] * w^T[I x O] */
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, batch, n_out, n_in,
		    1.0f, in, n_in, w, n_in, 0.0f, out, n_out);
	for (b = 0; b < batch; b++)
		for (o = 0; o < n_out; o++)
			out[(size_t)b * n_out + o] += bias[o];
}

void fc_backward(float *din, float *dw, float *dbias, const float *dout,
		 const float *in, const float *w, int batch, int n_in, int n_out)
{
	int b, o;

	/* dw[O x I] = dout^T[O x B] * in[B x I] */
	cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, n_out, n_in, batch,
		    1.0f, dout, n_out, in, n_in, 0.0f, dw, n_in);
	for (o = 0; o < n_out; o++) {
		float s = 0.0f;

		for (b = 0; b < batch; b++)
			s += dout[(size_t)b * n_out + o];
		dbias[o] = s;
	}
	/* din[B x I] = dout[B x O] * w[O x I] */
	if (din)
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, batch, n_in,
			    n_out, 1.0f, dout, n_out, w, n_in, 0.0f, din, n_in);
}

/* ------------------------------------------------------------------------ */
/* ReLU                                                                      */
/* ------------------------------------------------------------------------ */
void relu_forward(float *out, const float *in, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		out[i] = in[i] > 0.0f ? in[i] : 0.0f;
}

void relu_backward(float *din, const float *dout, const float *out, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		din[i] = out[i] > 0.0f ? dout[i] : 0.0f;
}

/* ------------------------------------------------------------------------ */
/* Convolution (im2col + GEMM)                                               */
/* ------------------------------------------------------------------------ */
/* col[(ci*kh + y)*kw + x][oy*ow + ox] = img[ci][oy + y][ox + x] */
static void im2col(float *col, const float *img, const struct conv_dims *d)
{
	int oh = conv_oh(d), ow = conv_ow(d), ci, y, x, oy;
	float *row = col;

	for (ci = 0; ci < d->c; ci++)
		for (y = 0; y < d->kh; y++)
			for (x = 0; x < d->kw; x++)
				for (oy = 0; oy < oh; oy++) {
					memcpy(row, img + ((size_t)ci * d->h + oy + y) * d->w + x,
					       (size_t)ow * sizeof(float));
					row += ow;
				}
}

/* The adjoint of im2col: img[ci][oy + y][ox + x] += col[...][oy*ow + ox]. */
static void col2im(float *img, const float *col, const struct conv_dims *d)
{
	int oh = conv_oh(d), ow = conv_ow(d), ci, y, x, oy, ox;
	const float *row = col;

	memset(img, 0, (size_t)d->c * d->h * d->w * sizeof(float));
	for (ci = 0; ci < d->c; ci++)
		for (y = 0; y < d->kh; y++)
			for (x = 0; x < d->kw; x++)
				for (oy = 0; oy < oh; oy++) {
					float *dst = img + ((size_t)ci * d->h + oy + y) * d->w + x;

					for (ox = 0; ox < ow; ox++)
						dst[ox] += row[ox];
					row += ow;
				}
}

void conv_forward(float *out, const float *in, const float *w, const float *bias,
		  int batch, const struct conv_dims *d, float *col)
{
	int ckk = d->c * d->kh * d->kw, ohw = conv_oh(d) * conv_ow(d), b, k, p;
	size_t in_sz = (size_t)d->c * d->h * d->w, out_sz = (size_t)d->k * ohw;

	for (b = 0; b < batch; b++) {
		float *o = out + b * out_sz;

		im2col(col, in + b * in_sz, d);
		/* o[K x OHW] = w[K x CKK] * col[CKK x OHW] */
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, d->k, ohw, ckk,
			    1.0f, w, ckk, col, ohw, 0.0f, o, ohw);
		for (k = 0; k < d->k; k++)
			for (p = 0; p < ohw; p++)
				o[(size_t)k * ohw + p] += bias[k];
	}
}

void conv_backward(float *din, float *dw, float *dbias, const float *dout,
		   const float *in, const float *w, int batch,
		   const struct conv_dims *d, float *col)
{
	int ckk = d->c * d->kh * d->kw, ohw = conv_oh(d) * conv_ow(d), b, k, p;
	size_t in_sz = (size_t)d->c * d->h * d->w, out_sz = (size_t)d->k * ohw;

	memset(dbias, 0, (size_t)d->k * sizeof(float));
	for (b = 0; b < batch; b++) {
		const float *go = dout + b * out_sz;

		for (k = 0; k < d->k; k++)
			for (p = 0; p < ohw; p++)
				dbias[k] += go[(size_t)k * ohw + p];
		im2col(col, in + b * in_sz, d);
		/* dw[K x CKK] (+)= go[K x OHW] * col^T[OHW x CKK] */
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, d->k, ckk, ohw,
			    1.0f, go, ohw, col, ohw, b ? 1.0f : 0.0f, dw, ckk);
		if (din) {
			/* dcol[CKK x OHW] = w^T[CKK x K] * go[K x OHW] */
			cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, ckk, ohw,
				    d->k, 1.0f, w, ckk, go, ohw, 0.0f, col, ohw);
			col2im(din + b * in_sz, col, d);
		}
	}
}

/* ------------------------------------------------------------------------ */
/* Max pooling 2x2                                                           */
/* ------------------------------------------------------------------------ */
/* Index (within the plane) of the first maximum of the window at (oy, ox). */
static size_t pool_argmax(const float *plane, int w, int oy, int ox)
{
	size_t best = (size_t)(2 * oy) * w + 2 * ox, i;
	int y, x;

	for (y = 0; y < 2; y++)
		for (x = 0; x < 2; x++) {
			i = (size_t)(2 * oy + y) * w + 2 * ox + x;
			if (plane[i] > plane[best])
				best = i;
		}
	return best;
}

void maxpool_forward(float *out, const float *in, int batch, int c, int h, int w)
{
	int oh = h / 2, ow = w / 2, pl, oy, ox;

	for (pl = 0; pl < batch * c; pl++) {
		const float *plane = in + (size_t)pl * h * w;
		float *o = out + (size_t)pl * oh * ow;

		for (oy = 0; oy < oh; oy++)
			for (ox = 0; ox < ow; ox++)
				o[oy * ow + ox] = plane[pool_argmax(plane, w, oy, ox)];
	}
}

void maxpool_backward(float *din, const float *dout, const float *in,
		      int batch, int c, int h, int w)
{
	int oh = h / 2, ow = w / 2, pl, oy, ox;

	memset(din, 0, (size_t)batch * c * h * w * sizeof(float));
	for (pl = 0; pl < batch * c; pl++) {
		const float *plane = in + (size_t)pl * h * w;
		float *dplane = din + (size_t)pl * h * w;
		const float *go = dout + (size_t)pl * oh * ow;

		for (oy = 0; oy < oh; oy++)
			for (ox = 0; ox < ow; ox++)
				dplane[pool_argmax(plane, w, oy, ox)] += go[oy * ow + ox];
	}
}

/* ------------------------------------------------------------------------ */
/* Softmax cross-entropy                                                     */
/* ------------------------------------------------------------------------ */
double softmax_xent_forward(float *probs, const float *logits,
			    const uint8_t *labels, int batch, int classes,
			    int *correct)
{
	double loss = 0.0;
	int b, j, ok = 0;

	for (b = 0; b < batch; b++) {
		const float *z = logits + (size_t)b * classes;
		float *p = probs + (size_t)b * classes, mx = z[0], sum = 0.0f;
		int arg = 0;

		for (j = 1; j < classes; j++)
			if (z[j] > mx) {
				mx = z[j];
				arg = j;
			}
		for (j = 0; j < classes; j++) {
			p[j] = expf(z[j] - mx);
			sum += p[j];
		}
		for (j = 0; j < classes; j++)
			p[j] /= sum;
		/* -log p[label] = log(sum) - (z[label] - mx), without underflow */
		loss += (double)logf(sum) - (double)(z[labels[b]] - mx);
		ok += arg == labels[b];
	}
	if (correct)
		*correct = ok;
	return loss / batch;
}

void softmax_xent_backward(float *dlogits, const float *probs,
			   const uint8_t *labels, int batch, int classes)
{
	float inv = 1.0f / (float)batch;
	int b, j;

	for (b = 0; b < batch; b++)
		for (j = 0; j < classes; j++)
			dlogits[(size_t)b * classes + j] =
				(probs[(size_t)b * classes + j] -
				 (j == labels[b] ? 1.0f : 0.0f)) * inv;
}
