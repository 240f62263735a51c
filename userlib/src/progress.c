// SPDX-License-Identifier: MIT
/*
 * progress.c - non-blocking all-reduce: one progress thread per
 * communicator runs the queued calls one after another, in issue order, on
 * the same code path as the blocking calls (inc_call_run). Every rank
 * issues the same sequence, so the ranks' threads meet call by call exactly
 * as blocking callers would; a failure breaks the communicator as usual and
 * the requests behind it fail with INC_E_BROKEN. Blocking calls made while
 * the thread exists are queued too, so the order stays the issue order.
 */
#include <pthread.h>
#include <stdlib.h>

#include "inc_internal.h"

struct inc_request {
	struct inc_call call;
	struct inc_request *next;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int done, rc;
};

struct inc_progress {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct inc_request *head, *tail;
	int stopping;
};

static void *progress_main(void *p)
{
	struct inc_comm *c = p;
	struct inc_progress *g = c->prog;
	struct inc_request *r;

	for (;;) {
		pthread_mutex_lock(&g->mu);
		while (!g->head && !g->stopping)
			pthread_cond_wait(&g->cv, &g->mu);
		r = g->head;
		if (r) {
			g->head = r->next;
			if (!g->head)
				g->tail = NULL;
		}
		pthread_mutex_unlock(&g->mu);
		if (!r)
			return NULL;          /* stopping, queue empty */
		r->rc = inc_call_run(c, &r->call);
		pthread_mutex_lock(&r->mu);
		r->done = 1;
		pthread_cond_signal(&r->cv);
		pthread_mutex_unlock(&r->mu);
	}
}

static int progress_start(struct inc_comm *c)
{
	struct inc_progress *g;

	if (c->prog)
		return 0;
	g = calloc(1, sizeof(*g));
	if (!g)
		return INC_E_NOMEM;
	pthread_mutex_init(&g->mu, NULL);
	pthread_cond_init(&g->cv, NULL);
	c->prog = g;
	if (pthread_create(&g->thread, NULL, progress_main, c)) {
		pthread_cond_destroy(&g->cv);
		pthread_mutex_destroy(&g->mu);
		free(g);
		c->prog = NULL;
		return INC_E_NOMEM;
	}
	return 0;
}

static struct inc_request *request_new(const struct inc_call *k)
{
	struct inc_request *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->call = *k;
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->cv, NULL);
	return r;
}

static void enqueue(struct inc_progress *g, struct inc_request *r)
{
	pthread_mutex_lock(&g->mu);
	if (g->tail)
		g->tail->next = r;
	else
		g->head = r;
	g->tail = r;
	pthread_cond_signal(&g->cv);
	pthread_mutex_unlock(&g->mu);
}

int inc_iallreduce_f32(struct inc_comm *c, float *buf, size_t count,
		       const struct inc_allreduce_opts *opts,
		       struct inc_request **req)
{
	struct inc_call k = { .kind = INC_CALL_ALLREDUCE, .buf = buf, .count = count };
	struct inc_request *r;
	int rc;

	if (!req)
		return INC_E_ARG;
	*req = NULL;
	rc = inc_call_check(c, &k, opts, &k.o);
	if (rc)
		return rc;
	rc = progress_start(c);
	if (rc)
		return rc;
	r = request_new(&k);
	if (!r)
		return INC_E_NOMEM;
	enqueue(c->prog, r);
	*req = r;
	return 0;
}

int inc_test(struct inc_request *r, int *done)
{
	if (!r || !done)
		return INC_E_ARG;
	pthread_mutex_lock(&r->mu);
	*done = r->done;
	pthread_mutex_unlock(&r->mu);
	return 0;
}

int inc_wait(struct inc_request *r)
{
	int rc;

	if (!r)
		return INC_E_ARG;
	pthread_mutex_lock(&r->mu);
	while (!r->done)
		pthread_cond_wait(&r->cv, &r->mu);
	rc = r->rc;
	pthread_mutex_unlock(&r->mu);
	pthread_cond_destroy(&r->cv);
	pthread_mutex_destroy(&r->mu);
	free(r);
	return rc;
}

int inc_progress_blocking(struct inc_comm *c, const struct inc_call *k, int *queued)
{
	struct inc_request *r;

	*queued = c->prog != NULL;
	if (!c->prog)
		return 0;
	r = request_new(k);
	if (!r)
		return INC_E_NOMEM;
	enqueue(c->prog, r);
	return inc_wait(r);
}

void inc_progress_stop(struct inc_comm *c)
{
	struct inc_progress *g = c->prog;

	if (!g)
		return;
	pthread_mutex_lock(&g->mu);
	g->stopping = 1;
	pthread_cond_signal(&g->cv);
	pthread_mutex_unlock(&g->mu);
	pthread_join(g->thread, NULL);
	pthread_cond_destroy(&g->cv);
	pthread_mutex_destroy(&g->mu);
	free(g);
	c->prog = NULL;
}
