// SPDX-License-Identifier: MIT
/*
 * sketch_ar.c - the `sketch` and `inc+sketch` compression modes: a
 * homomorphic all-reduce (docs/userlib.md, "Sketch").
 *
 *   1. (inc+sketch) quantize the local values at the error bound with the
 *      INCEPTIONN codec's value map: every value below 2^-eb becomes an
 *      exact zero, the rest lose the mantissa bits the NIC would drop.
 *   2. (Bloom index) all-reduce each rank's non-zero count (saturating
 *      sum): a bound on the summed gradient's non-zeros that sizes the
 *      filter alike on every rank.
 *   3. all-reduce the index (bitwise OR): the summed gradient's index.
 *   4. size the sketch from the candidates it marks (gamma cells per
 *      candidate), encode the local values, all-reduce the sketch (float
 *      sum: the ring's reduce-scatter adds sketches without decoding).
 *   5. every rank peels the summed sketch once. The ranks hold the same
 *      index and cells, so they peel alike and end bit-identical; if
 *      peeling leaves values to the estimate (all ranks see it), steps
 *      4-5 run again with 1.5x the cells, at most twice, then the
 *      estimate stands (counted in the stats).
 *
 * The phases travel as raw 32-bit words on untagged sockets with the
 * call's algorithm (ring or worker-aggregator), each behind a call header
 * that names the mode and phase, so ranks in different phases fail with
 * INC_E_PROTOCOL rather than mixing words. The sketch itself is lossless,
 * so error feedback (inc+sketch) concerns step 1 alone. A local failure
 * (memory, a geometry) breaks the communicator like a peer's death, so
 * the other ranks fail at once instead of waiting out the timeout.
 */
#include <stdlib.h>
#include <string.h>

#include "inc_internal.h"

#define RETRIES 2

static int reduce(struct inc_comm *c, void *buf, size_t count,
		  const struct inc_allreduce_opts *o, enum inc_red op, enum inc_hdr_algo hdr_algo)
{
	if (count == 0)
		return 0;
	return o->algo == INC_ALGO_WA
	       ? inc_wa_reduce(c, buf, count, o, op, hdr_algo, NULL, NULL)
	       : inc_ring_reduce(c, buf, count, o, op, hdr_algo);
}

/* inc+sketch: the INCEPTIONN value map at eb, in place: the software
 * codec's round trip (SIMD, the model's values) in chunks staged in the
 * communicator's scratch. With error feedback (res) the residual is added
 * first and keeps what the quantization took. */
#define QCHUNK 16384u

static int quantize(struct inc_comm *c, float *v, size_t n, unsigned eb, float *res)
{
	const struct inc_seg_codec *sc = inc_seg_codec(INC_COMP_SOFTWARE);
	size_t i, len;
	int rc = inc_scratch_reserve(c, inc_seg_stage_max(QCHUNK));

	if (rc)
		return rc;
	for (i = 0; i < n; i += len) {
		len = n - i < QCHUNK ? n - i : QCHUNK;
		if (inc_round_trip_ef(sc, v + i, len, res ? res + i : NULL, eb, c->scratch, 0) < 0)
			return INC_E_PROTOCOL;
	}
	return 0;
}

int inc_sketch_allreduce(struct inc_comm *c, float *buf, size_t count,
			 const struct inc_allreduce_opts *opts)
{
	/* the phases carry index words and cells: no residual of theirs */
	struct inc_allreduce_opts po = *opts, *o = &po;
	/* The same hashes on every rank and every call (from the seed alone),
	 * so a call's result depends only on the data: a non-blocking call
	 * equals the blocking one bit for bit. */
	uint64_t key = inc_mix64(o->seed ^ 0x736b657463680000ull);
	double gamma = o->sketch_gamma > 0 ? o->sketch_gamma : INC_SKETCH_GAMMA;
	struct inc_sketch_geom g;
	struct inc_sketch_stats st;
	uint32_t *idx = NULL, nnz32;
	float *cells = NULL, *out = NULL;
	uint64_t nnz = 0, t0, cand;
	size_t i, iw;
	int rc, a;

	po.residual = NULL;
	t0 = inc_now_ns();
	if (o->compression == INC_COMP_INC_SKETCH &&
	    (rc = quantize(c, buf, count, o->error_bound, opts->residual)))
		return inc_fail(c, rc);
	c->st.codec_ns += inc_now_ns() - t0;
	if (o->sketch_index == INC_SKETCH_BLOOM) {
		/* only the Bloom filter is sized by the non-zeros */
		t0 = inc_now_ns();
		for (i = 0; i < count; i++)
			nnz += (uint64_t)inc_sketch_nonzero(buf[i]);
		c->st.codec_ns += inc_now_ns() - t0;
		nnz32 = nnz > UINT32_MAX ? UINT32_MAX : (uint32_t)nnz;
		rc = reduce(c, &nnz32, 1, o, INC_RED_SUM_U32, INC_HDR_SKETCH);
		if (rc)
			return rc;
		nnz = nnz32;
	}
	rc = inc_sketch_geom_index(&g, count, (enum inc_sketch_index)o->sketch_index, nnz, key);
	if (rc)
		return inc_fail(c, rc);
	iw = inc_sketch_index_words(&g);
	idx = calloc(iw, sizeof(*idx));
	out = malloc(count * sizeof(*out));
	if (!idx || !out) {
		rc = INC_E_NOMEM;
		goto done;
	}
	t0 = inc_now_ns();
	inc_sketch_index_add(&g, buf, idx);
	c->st.codec_ns += inc_now_ns() - t0;
	rc = reduce(c, idx, iw, o, INC_RED_OR_U32, INC_HDR_SKETCH);
	if (rc)
		goto done;
	cand = inc_sketch_candidates(&g, idx);
	for (a = 0; a <= RETRIES; a++, gamma *= 1.5) {
		size_t nc;

		if (gamma > INC_SKETCH_GAMMA_MAX)
			gamma = INC_SKETCH_GAMMA_MAX;
		rc = inc_sketch_geom_cells(&g, cand, gamma);
		if (rc)
			goto done;
		nc = inc_sketch_cells(&g);
		free(cells);
		cells = calloc(nc ? nc : 1, sizeof(*cells));
		if (!cells) {
			rc = INC_E_NOMEM;
			goto done;
		}
		t0 = inc_now_ns();
		inc_sketch_encode(&g, buf, cells);
		c->st.codec_ns += inc_now_ns() - t0;
		rc = reduce(c, cells, nc, o, INC_RED_SUM_F32, (enum inc_hdr_algo)o->algo);
		if (rc)
			goto done;
		t0 = inc_now_ns();
		rc = inc_sketch_decode_ws(&g, idx, cells, out, &st, &c->sk_arena, &c->sk_cap);
		c->st.codec_ns += inc_now_ns() - t0;
		if (rc)
			goto done;
		if (st.estimated == 0)
			break;
		if (a < RETRIES)
			c->st.sketch_retries++;
	}
	memcpy(buf, out, count * sizeof(*buf));
	c->st.sketch_values += count;
	c->st.sketch_candidates += st.candidates;
	c->st.sketch_peeled += st.peeled;
	c->st.sketch_estimated += st.estimated;
done:
	free(idx);
	free(cells);
	free(out);
	/* the phases failed the communicator themselves; a local failure
	 * here must reach the others too */
	return rc && !c->broken ? inc_fail(c, rc) : rc;
}
