// SPDX-License-Identifier: MIT
/*
 * comm.c - the communicator: allocation with every link unconnected,
 * rank, size, statistics, and the end (every descriptor closed, the
 * bootstrap's last step, memory freed). The links are made by link.c,
 * the bootstraps by boot_env.c and boot_mpi.c.
 */
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "inc_internal.h"

void inc_link_init(struct inc_link *l)
{
	l->fd = -1;
	l->family = AF_INET;
	l->tos_now = 0;
}

int inc_comm_alloc(struct inc_comm **out, int rank, int size)
{
	struct inc_comm *c = calloc(1, sizeof(*c));
	int i;

	if (!c)
		return INC_E_NOMEM;
	c->rank = rank;
	c->size = size;
	c->ctrl_fd = -1;
	c->data_lfd = -1;
	inc_link_init(&c->ring_send);
	inc_link_init(&c->ring_recv);
	inc_link_init(&c->wa_up);
	if (rank == 0 && size > 1) {
		c->ctrl = malloc(sizeof(int) * (size_t)size);
		c->wa = malloc(sizeof(*c->wa) * (size_t)size);
		if (!c->ctrl || !c->wa) {
			free(c->ctrl);
			free(c->wa);
			free(c);
			return INC_E_NOMEM;
		}
		for (i = 0; i < size; i++) {
			c->ctrl[i] = -1;
			inc_link_init(&c->wa[i]);
		}
	}
	*out = c;
	return 0;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

void inc_comm_free(struct inc_comm *c)
{
	int i;

	if (!c)
		return;
	close_fd(&c->ctrl_fd);
	close_fd(&c->data_lfd);
	if (c->peer_send)
		for (i = 0; i < c->size; i++) {
			close_fd(&c->peer_send[i].fd);
			close_fd(&c->peer_recv[i].fd);
		}
	free(c->peer_send);
	free(c->peer_recv);
	free(c->addrs);
	free(c->alens);
	close_fd(&c->ring_send.fd);
	close_fd(&c->ring_recv.fd);
	close_fd(&c->wa_up.fd);
	if (c->ctrl)
		for (i = 0; i < c->size; i++)
			close_fd(&c->ctrl[i]);
	if (c->wa)
		for (i = 0; i < c->size; i++)
			close_fd(&c->wa[i].fd);
	if (c->boot_end)
		c->boot_end(c);
	free(c->ctrl);
	free(c->wa);
	free(c->scratch);
	free(c->sk_arena);
	free(c);
}

int inc_comm_rank(const struct inc_comm *c)
{
	return c ? c->rank : INC_E_ARG;
}

int inc_comm_size(const struct inc_comm *c)
{
	return c ? c->size : INC_E_ARG;
}

int inc_comm_stats(const struct inc_comm *c, struct inc_comm_stats *st)
{
	if (!c || !st)
		return INC_E_ARG;
	*st = c->st;
	return 0;
}

int inc_comm_bootstrap_stats(const struct inc_comm *c, struct inc_bootstrap_stats *st)
{
	if (!c || !st)
		return INC_E_ARG;
	*st = c->bst;
	return 0;
}
