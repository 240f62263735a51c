// SPDX-License-Identifier: MIT
/* inc_axis.c - AXI4-Stream source and sink for the testbenches; see inc_axis.h. */
#include "inc_axis.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t inc_sim_rand(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dULL;
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		fprintf(stderr, "out of memory\n");
		abort();
	}
	return p;
}

struct inc_axis_frame *inc_axis_frame_new(const uint8_t *data, size_t len,
					  uint64_t id)
{
	struct inc_axis_frame *f = xmalloc(sizeof(*f));

	f->next = NULL;
	f->data = xmalloc(len);
	if (len)
		memcpy(f->data, data, len);
	f->len = len;
	f->id = id;
	return f;
}

void inc_axis_frame_free(struct inc_axis_frame *f)
{
	if (f) {
		free(f->data);
		free(f);
	}
}

void inc_axis_fifo_push(struct inc_axis_fifo *q, struct inc_axis_frame *f)
{
	f->next = NULL;
	if (q->tail)
		q->tail->next = f;
	else
		q->head = f;
	q->tail = f;
	q->count++;
}

struct inc_axis_frame *inc_axis_fifo_pop(struct inc_axis_fifo *q)
{
	struct inc_axis_frame *f = q->head;

	if (!f)
		return NULL;
	q->head = f->next;
	if (!q->head)
		q->tail = NULL;
	q->count--;
	f->next = NULL;
	return f;
}

void inc_axis_fifo_clear(struct inc_axis_fifo *q)
{
	struct inc_axis_frame *f;

	while ((f = inc_axis_fifo_pop(q)))
		inc_axis_frame_free(f);
}

static void put_bytes(void *dst, unsigned n, uint64_t v)
{
	uint8_t b[8];
	unsigned i;

	for (i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	memset(dst, 0, n);
	memcpy(dst, b, n < 8 ? n : 8);
}

static uint64_t get_keep(const struct inc_axis_if *io)
{
	uint8_t b[8] = { 0 };
	uint64_t v = 0;
	unsigned i;

	memcpy(b, io->tkeep, io->keep_bytes < 8 ? io->keep_bytes : 8);
	for (i = 0; i < 8; i++)
		v |= (uint64_t)b[i] << (8 * i);
	return v;
}

static void garbage(uint8_t *p, size_t n, uint64_t *rng)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)inc_sim_rand(rng);
}

void inc_axis_src_init(struct inc_axis_src *s, const struct inc_axis_if *io,
		       uint64_t seed)
{
	memset(s, 0, sizeof(*s));
	s->io = *io;
	s->rng = seed ? seed : 1;
	*s->io.tvalid = 0;
	*s->io.tlast = 0;
}

void inc_axis_src_push(struct inc_axis_src *s, const uint8_t *data, size_t len,
		       uint64_t id)
{
	inc_axis_fifo_push(&s->q, inc_axis_frame_new(data, len, id));
}

void inc_axis_src_drive(struct inc_axis_src *s)
{
	const unsigned db = s->io.data_bytes;
	struct inc_axis_frame *f = s->q.head;
	size_t n;

	if (s->holding) {
		s->active_cycles++;
		return;         /* the beat stays on the bus until taken */
	}
	if (!f || (s->gap_pct && inc_sim_rand(&s->rng) % 100 < s->gap_pct)) {
		*s->io.tvalid = 0;
		*s->io.tlast = (uint8_t)(inc_sim_rand(&s->rng) & 1);
		garbage(s->io.tdata, db, &s->rng);
		return;
	}
	n = f->len - s->pos < db ? f->len - s->pos : db;
	garbage(s->io.tdata, db, &s->rng);
	memcpy(s->io.tdata, f->data + s->pos, n);
	put_bytes(s->io.tkeep, s->io.keep_bytes,
		  n >= 64 ? ~0ULL : ((1ULL << n) - 1));
	*s->io.tlast = s->pos + n >= f->len;
	*s->io.tvalid = 1;
	s->holding = 1;
	s->active_cycles++;
}

int inc_axis_src_handshake(struct inc_axis_src *s)
{
	struct inc_axis_frame *f;
	int last;

	if (!s->holding || !*s->io.tready)
		return 0;
	s->holding = 0;
	s->beats++;
	last = *s->io.tlast;
	s->pos += s->io.data_bytes;
	if (last) {
		f = inc_axis_fifo_pop(&s->q);
		inc_axis_frame_free(f);
		s->pos = 0;
		s->frames++;
		return 2;
	}
	return 1;
}

void inc_axis_src_flush(struct inc_axis_src *s)
{
	inc_axis_fifo_clear(&s->q);
	s->pos = 0;
	s->holding = 0;
	*s->io.tvalid = 0;
}

void inc_axis_sink_init(struct inc_axis_sink *k, const struct inc_axis_if *io,
			uint64_t seed)
{
	memset(k, 0, sizeof(*k));
	k->io = *io;
	k->rng = seed ? seed : 1;
	k->cap = 65536 + 256;
	k->buf = xmalloc(k->cap);
	*k->io.tready = 0;
}

void inc_axis_sink_drive(struct inc_axis_sink *k)
{
	*k->io.tready = !(k->stall_pct &&
			  inc_sim_rand(&k->rng) % 100 < k->stall_pct);
}

static void proto_err(struct inc_axis_sink *k, const char *what)
{
	if (!k->protocol_errors++)
		snprintf(k->first_error, sizeof(k->first_error),
			 "%s (beat %llu of frame %llu)", what,
			 (unsigned long long)k->beats,
			 (unsigned long long)k->frames);
}

int inc_axis_sink_handshake(struct inc_axis_sink *k)
{
	const unsigned db = k->io.data_bytes;
	uint64_t keep;
	unsigned n;
	int valid = *k->io.tvalid, ready = *k->io.tready;

	if (k->was_stalled) {
		if (!valid)
			proto_err(k, "tvalid dropped before the beat was taken");
		else if (memcmp(k->last_data, k->io.tdata, db < 256 ? db : 256) ||
			 k->last_keep != get_keep(&k->io) ||
			 k->last_last != *k->io.tlast)
			proto_err(k, "beat changed while stalled");
	}
	k->was_stalled = valid && !ready;
	if (k->was_stalled) {
		memcpy(k->last_data, k->io.tdata, db < 256 ? db : 256);
		k->last_keep = get_keep(&k->io);
		k->last_last = *k->io.tlast;
	}
	if (!valid || !ready)
		return 0;
	keep = get_keep(&k->io);
	for (n = 0; n < db && n < 64 && (keep >> n) & 1; n++)
		;
	if (n == 0)
		proto_err(k, "beat with empty tkeep");
	else if (n < 64 && n < db && (keep >> n) != 0)
		proto_err(k, "tkeep not contiguous from lane 0");
	else if (n < db && !*k->io.tlast)
		proto_err(k, "partial beat without tlast");
	k->beats++;
	if (k->len + n > k->cap) {
		proto_err(k, "frame longer than 64 KiB");
		k->len = 0;
	}
	memcpy(k->buf + k->len, k->io.tdata, n);
	k->len += n;
	if (!*k->io.tlast)
		return 0;
	inc_axis_fifo_push(&k->done, inc_axis_frame_new(k->buf, k->len, k->frames));
	k->frames++;
	k->len = 0;
	return 1;
}

void inc_axis_sink_reset(struct inc_axis_sink *k)
{
	k->len = 0;
	k->was_stalled = 0;
}

void inc_axis_sink_free(struct inc_axis_sink *k)
{
	inc_axis_fifo_clear(&k->done);
	free(k->buf);
	k->buf = NULL;
}
