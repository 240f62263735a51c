// SPDX-License-Identifier: MIT
/*
 * codec_sketch.c - lossless homomorphic compression (the seed paper
 * "lossless homomorphic compression", docs/userlib.md "Sketch"): a count
 * sketch of the values plus an index of the non-zero ones, both summable
 * (cells add, index bits OR), recovered by peeling.
 *
 * Layout. Values are cut into batches of w consecutive values (w a power
 * of two, at most INC_SKETCH_BATCH = 1024, the paper's c). The sketch is
 * 3 * rows rows of w float cells: hash j (0..2) of batch b picks one row in
 * its own third, row_j(b) = j * rows + h % rows, a rotation rot_j(b) in
 * [0, w) and a sign s_j(b) in {-1, +1}; value k of the batch adds
 * s_j(b) * x to cell (row_j(b), (k + rot_j(b)) mod w) for j = 0, 1, 2.
 * Values of one batch never share a cell of one row (the rotation is a
 * bijection) and the three cells of a value lie in different thirds.
 *
 * The index is either a bitmap (bit i set: value i non-zero) or a Bloom
 * filter of bloom_rows rows of bloom_w bits, batched the same way: each
 * of bloom_k hashes of a batch picks a row and a rotation and a non-zero
 * value sets the bit at its rotated column in every chosen row. A value is
 * a candidate when all its bits are set; zeros may pass (false positives,
 * recovered as zero), non-zeros always do.
 *
 * Recovery (parallel peeling): a cell that exactly one candidate touches
 * holds that candidate's value times its sign. Each round takes every
 * such cell, recovers its candidate, then subtracts the recovered values
 * from their other cells, which makes new pure cells. What no round can
 * peel is estimated as the median of its three cells (count sketch) and
 * counted. All ranks holding the same sketch and index run the same
 * rounds in the same order, so they produce bit-identical results.
 *
 * Floating point: cells hold sums, so a peeled value equals the exact sum
 * only up to the rounding of the additions and subtractions that touched
 * its cell (exact when every partial sum is representable, e.g. integers
 * below 2^24). Zeros come back as +0.0; a non-finite input makes the
 * values sharing its cells non-finite.
 */
#include <stdlib.h>
#include <string.h>

#include "inc_internal.h"

#define SK_MAGIC   0x31534e49u     /* "INS1" little-endian */
#define BLOOM_WMIN 32u
#define MIN_BATCHES 8192.0    /* see inc_sketch_geom_cells */

/* ------------------------------------------------------------------------ */
/* Hashes                                                                    */
/* ------------------------------------------------------------------------ */
struct slot {
	uint32_t row;        /* absolute row */
	uint32_t rot;        /* rotation in [0, w) */
	float sign;          /* +1 or -1 */
};

static uint64_t bhash(uint64_t key, uint64_t b, unsigned j)
{
	return inc_mix64(key ^ inc_mix64(b * 0x9e3779b97f4a7c15ull + (uint64_t)(j + 1) *
					 0xd1b54a32d192ed03ull));
}

static uint32_t range32(uint64_t h, uint32_t n)
{
	return (uint32_t)(((h >> 32) * (uint64_t)n) >> 32);
}

/* The three sketch slots of batch b. */
static void sketch_slots(const struct inc_sketch_geom *g, uint64_t b, struct slot s[3])
{
	unsigned j;

	for (j = 0; j < 3; j++) {
		uint64_t h = bhash(g->key, b, j);

		s[j].row = j * g->rows + range32(h, g->rows);
		s[j].rot = (uint32_t)h & (g->w - 1);
		s[j].sign = (h >> 20 & 1) ? -1.0f : 1.0f;
	}
}

/* Bloom filter: the row and rotation of hash t of batch b. */
static void bloom_slot(const struct inc_sketch_geom *g, uint64_t b, unsigned t,
		       uint32_t *row, uint32_t *rot)
{
	uint64_t h = bhash(~g->key, b, t + 3);

	*row = range32(h, g->bloom_rows);
	*rot = (uint32_t)h & (g->bloom_w - 1);
}

/* Sizing arithmetic without libm (the library links without it). */
#define LN2 0.69314718055994531

static double ceil_pos(double x)
{
	double t = (double)(uint64_t)x;

	return t < x ? t + 1.0 : t;
}

/* log2(x) for x >= 1: integer part by halving, then 24 fraction bits by
 * repeated squaring. */
static double log2_ge1(double x)
{
	double r = 0.0, bit = 0.5;
	int i;

	while (x >= 2.0) {
		x /= 2.0;
		r += 1.0;
	}
	for (i = 0; i < 24; i++, bit /= 2.0) {
		x *= x;
		if (x >= 2.0) {
			x /= 2.0;
			r += bit;
		}
	}
	return r;
}

/* x^(1/3) for x >= 0 (Newton). */
static double cbrt_pos(double x)
{
	double r = x > 1.0 ? x / 3.0 : 1.0;
	int i;

	if (x <= 0.0)
		return 0.0;
	for (i = 0; i < 200; i++) {
		double nr = r - (r * r * r - x) / (3.0 * r * r);

		if (nr == r)
			break;
		r = nr;
	}
	return r;
}

static uint32_t pow2_ceil(uint64_t x)
{
	uint32_t p = 1;

	while (p < x && p < INC_SKETCH_BATCH)
		p <<= 1;
	return p;
}

/* ------------------------------------------------------------------------ */
/* Geometry                                                                  */
/* ------------------------------------------------------------------------ */
int inc_sketch_geom_index(struct inc_sketch_geom *g, uint64_t n,
			  enum inc_sketch_index index, uint64_t nnz_bound, uint64_t key)
{
	double lambda, eps, lg, m;

	if (!g || n > INC_SKETCH_N_MAX || (index != INC_SKETCH_BITMAP && index != INC_SKETCH_BLOOM))
		return INC_E_ARG;
	memset(g, 0, sizeof(*g));
	g->n = n;
	g->key = key;
	g->index = INC_SKETCH_BITMAP;
	if (index == INC_SKETCH_BITMAP || nnz_bound == 0 || nnz_bound >= n)
		return 0;
	/* §3.3: eps = 1 / (ln^2 2 * gamma * C * lambda), C = 32 bits, lambda =
	 * zeros per non-zero; m = n / ln 2 * log2(1/eps) bits, log2(1/eps)
	 * hashes. A filter no smaller than the bitmap is not worth it. */
	lambda = (double)(n - nnz_bound) / (double)nnz_bound;
	eps = 1.0 / (LN2 * LN2 * INC_SKETCH_GAMMA * 32.0 * lambda);
	if (eps >= 0.5)
		return 0;
	lg = log2_ge1(1.0 / eps);
	m = (double)nnz_bound / LN2 * lg;
	if (m >= (double)n)
		return 0;
	g->index = INC_SKETCH_BLOOM;
	g->bloom_k = (uint32_t)(lg + 0.5) ? (uint32_t)(lg + 0.5) : 1u;
	g->bloom_w = pow2_ceil((uint64_t)m);
	if (g->bloom_w < BLOOM_WMIN)
		g->bloom_w = BLOOM_WMIN;
	g->bloom_rows = (uint32_t)ceil_pos(m / g->bloom_w);
	if (g->bloom_rows == 0)
		g->bloom_rows = 1;
	if ((uint64_t)g->bloom_rows * g->bloom_w >= n) {   /* rounding made it no smaller */
		g->index = INC_SKETCH_BITMAP;
		g->bloom_w = g->bloom_rows = g->bloom_k = 0;
	}
	return 0;
}

size_t inc_sketch_index_words(const struct inc_sketch_geom *g)
{
	if (g->index == INC_SKETCH_BLOOM)
		return (size_t)g->bloom_rows * (g->bloom_w / 32u);
	return (size_t)((g->n + 31u) / 32u);
}

int inc_sketch_geom_cells(struct inc_sketch_geom *g, uint64_t candidates, double gamma)
{
	double per, small;
	uint32_t w;

	if (!g || !(gamma >= INC_SKETCH_GAMMA_MIN && gamma <= INC_SKETCH_GAMMA_MAX) ||
	    candidates > g->n)
		return INC_E_ARG;
	if (candidates == 0) {
		g->w = 1;
		g->rows = 0;
		return 0;
	}
	/* Batch width: values of a dense batch share their three rows, so
	 * the peeling graph has only candidates / w independent parts; keep
	 * at least MIN_BATCHES of them (w a power of two, 1..1024).
	 * Small graphs: two candidates sharing all three cells can never be
	 * peeled, probability ~ n^2 / (2 R^3) for R cells per third; each
	 * third gets at least 8 n^(2/3) cells (pairs stuck with probability
	 * below 1e-3), which only matters below ~10^4 candidates. */
	per = ceil_pos(gamma * (double)candidates / 3.0);
	small = 8.0 * cbrt_pos((double)candidates * (double)candidates);
	if (per < small)
		per = ceil_pos(small);
	for (w = INC_SKETCH_BATCH; w > 1 && (double)candidates / w < MIN_BATCHES; w /= 2)
		;
	g->w = w;
	g->rows = (uint32_t)ceil_pos(per / w);
	return 0;
}

size_t inc_sketch_cells(const struct inc_sketch_geom *g)
{
	return (size_t)3u * g->rows * g->w;
}

/* ------------------------------------------------------------------------ */
/* Index                                                                     */
/* ------------------------------------------------------------------------ */
static inline void bit_set(uint32_t *v, uint64_t i)
{
	v[i >> 5] |= 1u << (i & 31u);
}

static inline int bit_get(const uint32_t *v, uint64_t i)
{
	return (int)(v[i >> 5] >> (i & 31u) & 1u);
}

void inc_sketch_index_add(const struct inc_sketch_geom *g, const float *x, uint32_t *index)
{
	uint64_t i, b, nb;
	uint32_t k, t, row, rot;

	if (g->index == INC_SKETCH_BITMAP) {
		/* whole words without branches; NaN counts as non-zero */
		for (i = 0; i < g->n; i += 32) {
			uint32_t wd = 0, k2, len = g->n - i < 32 ? (uint32_t)(g->n - i) : 32u;

			for (k2 = 0; k2 < len; k2++)
				wd |= (uint32_t)inc_sketch_nonzero(x[i + k2]) << k2;
			index[i / 32] |= wd;
		}
		return;
	}
	nb = (g->n + g->bloom_w - 1) / g->bloom_w;
	for (b = 0; b < nb; b++) {
		uint64_t base = b * g->bloom_w;
		uint32_t len = g->n - base < g->bloom_w ? (uint32_t)(g->n - base) : g->bloom_w;

		for (t = 0; t < g->bloom_k; t++) {
			bloom_slot(g, b, t, &row, &rot);
			for (k = 0; k < len; k++)
				if (inc_sketch_nonzero(x[base + k]))
					bit_set(index, (uint64_t)row * g->bloom_w +
						((k + rot) & (g->bloom_w - 1)));
		}
	}
}

/* Calls fn(arg, i) for every candidate i in increasing order; returns the
 * number of candidates. */
static uint64_t for_candidates(const struct inc_sketch_geom *g, const uint32_t *index,
			       void (*fn)(void *, uint64_t), void *arg)
{
	uint64_t i, b, nb, cnt = 0;
	uint32_t k, t, row[64], rot[64];

	if (g->index == INC_SKETCH_BITMAP) {
		for (i = 0; i < (g->n + 31u) / 32u; i++) {
			uint32_t wd = index[i];

			if (i == g->n / 32u && g->n % 32u)
				wd &= (1u << (g->n % 32u)) - 1u;
			while (wd) {
				if (fn)
					fn(arg, i * 32u + (unsigned)__builtin_ctz(wd));
				cnt++;
				wd &= wd - 1u;
			}
		}
		return cnt;
	}
	nb = (g->n + g->bloom_w - 1) / g->bloom_w;
	for (b = 0; b < nb; b++) {
		uint64_t base = b * g->bloom_w;
		uint32_t len = g->n - base < g->bloom_w ? (uint32_t)(g->n - base) : g->bloom_w;

		for (t = 0; t < g->bloom_k; t++)
			bloom_slot(g, b, t, &row[t], &rot[t]);
		for (k = 0; k < len; k++) {
			for (t = 0; t < g->bloom_k; t++)
				if (!bit_get(index, (uint64_t)row[t] * g->bloom_w +
					     ((k + rot[t]) & (g->bloom_w - 1))))
					break;
			if (t < g->bloom_k)
				continue;
			if (fn)
				fn(arg, base + k);
			cnt++;
		}
	}
	return cnt;
}

uint64_t inc_sketch_candidates(const struct inc_sketch_geom *g, const uint32_t *index)
{
	return for_candidates(g, index, NULL, NULL);
}

/* ------------------------------------------------------------------------ */
/* Sketch                                                                    */
/* ------------------------------------------------------------------------ */
void inc_sketch_encode(const struct inc_sketch_geom *g, const float *x, float *cells)
{
	uint64_t b, nb;
	uint32_t k, j;
	struct slot s[3];

	if (g->rows == 0)
		return;
	nb = (g->n + g->w - 1) / g->w;
	for (b = 0; b < nb; b++) {
		const float *v = x + b * g->w;
		uint32_t len = g->n - b * g->w < g->w ? (uint32_t)(g->n - b * g->w) : g->w;

		for (k = 0; k < len && v[k] == 0.0f; k++)
			;
		if (k == len)
			continue;     /* an all-zero batch adds nothing */
		sketch_slots(g, b, s);
		for (j = 0; j < 3; j++) {
			float *row = cells + (size_t)s[j].row * g->w, sg = s[j].sign;
			uint32_t split = g->w - s[j].rot;

			/* Two straight runs (the rotation wraps once); zeros add
			 * nothing, so there is no test in the loop. */
			split = split < len ? split : len;
			for (k = 0; k < split; k++)
				row[s[j].rot + k] += sg * v[k];
			for (; k < len; k++)
				row[s[j].rot + k - g->w] += sg * v[k];
		}
	}
}

/* ------------------------------------------------------------------------ */
/* Peeling                                                                   */
/* ------------------------------------------------------------------------ */
struct peel {
	const struct inc_sketch_geom *g;
	uint64_t *id;        /* candidate -> value index */
	uint32_t *cell;      /* candidate -> its three cells */
	float *sign;         /* candidate -> its three signs */
	uint64_t nc;
	unsigned lw;         /* log2(w) */
	uint64_t last_b;     /* the batch whose slots are in s */
	struct slot s[3];
};

/* Per cell: how many candidates touch it, and the XOR of their numbers,
 * which is the candidate itself once the count is one. */
struct cellstate {
	float v;             /* the cell's value (peeled values taken out) */
	uint32_t cnt, who;
};

static void add_cand(void *arg, uint64_t i)
{
	struct peel *p = arg;
	uint64_t b = i >> p->lw;
	uint32_t k = (uint32_t)i & (p->g->w - 1), j;

	if (b != p->last_b) {     /* candidates come in order: once per batch */
		sketch_slots(p->g, b, p->s);
		p->last_b = b;
	}
	for (j = 0; j < 3; j++) {
		p->cell[p->nc * 3 + j] = p->s[j].row * p->g->w +
					 ((k + p->s[j].rot) & (p->g->w - 1));
		p->sign[p->nc * 3 + j] = p->s[j].sign;
	}
	p->id[p->nc++] = i;
}

static void set_bit(void *arg, uint64_t i)
{
	bit_set(arg, i);
}

static float median3(float a, float b, float c)
{
	if (a > b) {
		float t = a;

		a = b;
		b = t;
	}
	/* a <= b */
	if (c <= a)
		return a;
	return c < b ? c : b;
}

/* Carve n bytes (64-aligned) from an arena. */
static void *carve(uint8_t **at, size_t n)
{
	void *p = *at;

	*at += (n + 63u) & ~(size_t)63u;
	return p;
}

int inc_sketch_decode_ws(const struct inc_sketch_geom *g, const uint32_t *index, float *cells,
			 float *x, struct inc_sketch_stats *st, void **arena, size_t *cap)
{
	size_t ncell = inc_sketch_cells(g), nq = 0, nn, q;
	struct inc_sketch_geom bm = *g;
	struct peel p = { .g = g, .last_b = UINT64_MAX,
			  .lw = (unsigned)__builtin_ctz(g->w ? g->w : 1) };
	struct cellstate *cs = NULL;
	uint32_t *queue = NULL, *next = NULL, *cand = NULL, rounds = 0;
	uint8_t *done = NULL;
	float *val = NULL;
	uint64_t nc, c;
	size_t need, cw = (size_t)((g->n + 31) / 32 + 1) * sizeof(*cand);
	uint8_t *at;

	if (st)
		memset(st, 0, sizeof(*st));
	/* One arena, kept by the caller across calls (no page faults in the
	 * steady state): the Bloom candidates' bitmap, then per candidate its
	 * value index, cells, signs, value and flag, then per cell its state
	 * and two queues. */
	if (g->index == INC_SKETCH_BLOOM) {
		/* A Bloom index is queried once, into a bitmap of the candidates. */
		if (*cap < cw + 64) {
			void *m = malloc(cw + 64);

			if (!m)
				return INC_E_NOMEM;
			free(*arena);
			*arena = m;
			*cap = cw + 64;
		}
		cand = *arena;
		memset(cand, 0, cw);
		for_candidates(g, index, set_bit, cand);
		bm.index = INC_SKETCH_BITMAP;
		index = cand;
	}
	nc = inc_sketch_candidates(&bm, index);
	if (nc > 0 && (ncell == 0 || ncell > UINT32_MAX || nc > UINT32_MAX))
		return INC_E_ARG;
	memset(x, 0, g->n * sizeof(float));
	if (st) {
		st->values = g->n;
		st->candidates = nc;
	}
	if (nc == 0)
		return 0;
	need = (cand ? cw : 0) + 64 * 9 + (size_t)nc * (8 + 12 + 12 + 4 + 1) +
	       ncell * (sizeof(*cs) + 4 + 4);
	if (*cap < need) {
		uint8_t *m = malloc(need);

		if (!m)
			return INC_E_NOMEM;
		if (cand) {
			memcpy(m, cand, cw);
			index = cand = (uint32_t *)(void *)m;
		}
		free(*arena);
		*arena = m;
		*cap = need;
	}
	at = (uint8_t *)*arena + (cand ? ((cw + 63u) & ~(size_t)63u) : 0);
	p.id = carve(&at, nc * sizeof(*p.id));
	p.cell = carve(&at, nc * 3 * sizeof(*p.cell));
	p.sign = carve(&at, nc * 3 * sizeof(*p.sign));
	val = carve(&at, nc * sizeof(*val));
	done = carve(&at, nc);
	cs = carve(&at, ncell * sizeof(*cs));
	queue = carve(&at, ncell * sizeof(*queue));
	next = carve(&at, ncell * sizeof(*next));
	memset(done, 0, nc);
	memset(cs, 0, ncell * sizeof(*cs));
	for_candidates(&bm, index, add_cand, &p);
	for (c = 0; c < nc * 3; c++) {
		cs[p.cell[c]].cnt++;
		cs[p.cell[c]].who ^= (uint32_t)(c / 3);
	}
	for (q = 0; q < ncell; q++) {
		cs[q].v = cells[q];
		if (cs[q].cnt == 1)
			queue[nq++] = (uint32_t)q;
	}
	while (nq) {
		rounds++;
		/* Recover every candidate that sits alone in a cell... */
		for (q = 0, nn = 0; q < nq; q++) {
			uint32_t cl = queue[q], k = cs[cl].who, j;

			if (cs[cl].cnt != 1 || done[k])
				continue;
			for (j = 0; j < 3; j++)
				if (p.cell[k * 3 + j] == cl)
					break;
			val[k] = p.sign[k * 3 + j] * cs[cl].v;
			done[k] = 1;
			next[nn++] = k;
		}
		/* ...then take them out of their cells. */
		for (q = 0, nq = 0; q < nn; q++) {
			uint32_t k = next[q], j;

			for (j = 0; j < 3; j++) {
				uint32_t cl = p.cell[k * 3 + j];

				cs[cl].v -= p.sign[k * 3 + j] * val[k];
				cs[cl].who ^= k;
				if (--cs[cl].cnt == 1)
					queue[nq++] = cl;
			}
		}
		if (st)
			st->peeled += nn;
	}
	for (c = 0; c < nc; c++) {
		if (!done[c]) {
			const uint32_t *cl = &p.cell[c * 3];
			const float *sg = &p.sign[c * 3];

			val[c] = median3(sg[0] * cs[cl[0]].v, sg[1] * cs[cl[1]].v,
					 sg[2] * cs[cl[2]].v);
			if (st)
				st->estimated++;
		}
		x[p.id[c]] = val[c] + 0.0f;   /* -0.0 -> +0.0 */
	}
	if (st)
		st->rounds = rounds;
	return 0;
}

int inc_sketch_decode(const struct inc_sketch_geom *g, const uint32_t *index, float *cells,
		      float *x, struct inc_sketch_stats *st)
{
	void *arena = NULL;
	size_t cap = 0;
	int rc = inc_sketch_decode_ws(g, index, cells, x, st, &arena, &cap);

	free(arena);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* Self-contained messages                                                   */
/* ------------------------------------------------------------------------ */
/* Header: 10 little-endian 32-bit words, docs/userlib.md "Sketch message". */
#define HDR_WORDS 10u

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

size_t inc_sketch_msg_max(size_t n, enum inc_sketch_index index, double gamma)
{
	struct inc_sketch_geom g;

	if (inc_sketch_geom_index(&g, n, INC_SKETCH_BITMAP, 0, 0) ||
	    inc_sketch_geom_cells(&g, n, gamma))
		return 0;
	(void)index;   /* a Bloom filter is only chosen when smaller than the bitmap */
	return HDR_WORDS * 4u + inc_sketch_index_words(&g) * 4u + inc_sketch_cells(&g) * 4u;
}

long inc_sketch_compress(const float *x, size_t n, enum inc_sketch_index index, double gamma,
			 uint64_t key, void *out, size_t cap, struct inc_sketch_stats *st)
{
	struct inc_sketch_geom g;
	uint64_t nnz = 0, i, cand;
	size_t iw, cw, need;
	uint8_t *o = out;
	uint32_t *idx;
	float *cells;
	int rc;

	if ((!x && n) || !out)
		return INC_E_ARG;
	for (i = 0; i < n; i++)
		nnz += (uint64_t)inc_sketch_nonzero(x[i]);
	if ((rc = inc_sketch_geom_index(&g, n, index, nnz, key)))
		return rc;
	iw = inc_sketch_index_words(&g);
	idx = calloc(iw ? iw : 1, 4);
	if (!idx)
		return INC_E_NOMEM;
	inc_sketch_index_add(&g, x, idx);
	cand = inc_sketch_candidates(&g, idx);
	rc = inc_sketch_geom_cells(&g, cand, gamma);
	cw = inc_sketch_cells(&g);
	need = HDR_WORDS * 4u + iw * 4u + cw * 4u;
	if (rc || need > cap) {
		free(idx);
		return rc ? rc : INC_ENOSPC;
	}
	cells = calloc(cw ? cw : 1, 4);
	if (!cells) {
		free(idx);
		return INC_E_NOMEM;
	}
	inc_sketch_encode(&g, x, cells);
	put32(o + 0, SK_MAGIC);
	put32(o + 4, g.index);
	put32(o + 8, (uint32_t)g.n);
	put32(o + 12, (uint32_t)(g.n >> 32));
	put32(o + 16, (uint32_t)g.key);
	put32(o + 20, (uint32_t)(g.key >> 32));
	put32(o + 24, g.w);
	put32(o + 28, g.rows);
	put32(o + 32, g.bloom_w);
	put32(o + 36, g.index == INC_SKETCH_BLOOM ? g.bloom_rows | g.bloom_k << 24 : 0);
	for (i = 0; i < iw; i++)
		put32(o + HDR_WORDS * 4 + i * 4, idx[i]);
	memcpy(o + HDR_WORDS * 4 + iw * 4, cells, cw * 4);
	if (st) {
		memset(st, 0, sizeof(*st));
		st->values = n;
		st->candidates = cand;
		st->index_bytes = iw * 4;
		st->sketch_bytes = cw * 4;
	}
	free(idx);
	free(cells);
	return (long)need;
}

int inc_sketch_msg_geom(const void *msg, size_t len, struct inc_sketch_geom *g)
{
	const uint8_t *p = msg;
	uint32_t br;
	uint64_t need;

	if (!msg || !g)
		return INC_E_ARG;
	if (len < HDR_WORDS * 4)
		return INC_ETRUNC;
	memset(g, 0, sizeof(*g));
	if (get32(p) != SK_MAGIC)
		return INC_EMALFORMED;
	g->index = get32(p + 4);
	g->n = get32(p + 8) | (uint64_t)get32(p + 12) << 32;
	g->key = get32(p + 16) | (uint64_t)get32(p + 20) << 32;
	g->w = get32(p + 24);
	g->rows = get32(p + 28);
	br = get32(p + 36);
	if (g->index > INC_SKETCH_BLOOM || g->n > INC_SKETCH_N_MAX ||
	    g->w == 0 || g->w > INC_SKETCH_BATCH || (g->w & (g->w - 1)) ||
	    g->rows > INC_SKETCH_N_MAX / 3u)
		return INC_EMALFORMED;
	if (g->index == INC_SKETCH_BLOOM) {
		g->bloom_w = get32(p + 32);
		g->bloom_rows = br & 0xffffffu;
		g->bloom_k = br >> 24;
		if (g->bloom_w < BLOOM_WMIN || g->bloom_w > INC_SKETCH_BATCH ||
		    (g->bloom_w & (g->bloom_w - 1)) || g->bloom_rows == 0 ||
		    g->bloom_k == 0 || g->bloom_k > 32)
			return INC_EMALFORMED;
	} else if (get32(p + 32) || br) {
		return INC_EMALFORMED;
	}
	need = HDR_WORDS * 4ull + (uint64_t)inc_sketch_index_words(g) * 4u +
	       (uint64_t)inc_sketch_cells(g) * 4u;
	if (len < need)
		return INC_ETRUNC;
	if (len > need)
		return INC_EMALFORMED;
	return 0;
}

int inc_sketch_decompress(const void *msg, size_t len, float *x, size_t n,
			  struct inc_sketch_stats *st)
{
	struct inc_sketch_geom g;
	const uint8_t *p = msg;
	size_t iw, cw, i;
	uint32_t *idx;
	float *cells;
	int rc = inc_sketch_msg_geom(msg, len, &g);

	if (rc)
		return rc;
	if (!x || g.n != n)
		return INC_E_ARG;
	iw = inc_sketch_index_words(&g);
	cw = inc_sketch_cells(&g);
	if (g.index == INC_SKETCH_BITMAP && g.n % 32u && iw &&
	    get32(p + HDR_WORDS * 4 + (iw - 1) * 4) >> (g.n % 32u))
		return INC_EMALFORMED;   /* bits past the last value */
	idx = malloc(iw ? iw * 4 : 4);
	cells = malloc(cw ? cw * 4 : 4);
	if (!idx || !cells) {
		free(idx);
		free(cells);
		return INC_E_NOMEM;
	}
	for (i = 0; i < iw; i++)
		idx[i] = get32(p + HDR_WORDS * 4 + i * 4);
	memcpy(cells, p + HDR_WORDS * 4 + iw * 4, cw * 4);
	rc = inc_sketch_candidates(&g, idx) && cw == 0 ? INC_EMALFORMED
						       : inc_sketch_decode(&g, idx, cells, x, st);
	if (st && rc == 0) {
		st->index_bytes = iw * 4;
		st->sketch_bytes = cw * 4;
	}
	free(idx);
	free(cells);
	return rc;
}
