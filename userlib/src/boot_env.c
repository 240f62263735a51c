// SPDX-License-Identifier: MIT
/*
 * boot_env.c - the communicator from the environment, torchrun style:
 * INC_RANK, INC_WORLD_SIZE, INC_MASTER_ADDR, INC_MASTER_PORT (or RANK,
 * WORLD_SIZE, MASTER_ADDR, MASTER_PORT), INC_BIND_ADDR. Under mpirun with
 * no rank variable set, inc_comm_init_env hands over to the MPI bootstrap
 * (boot_mpi.c; boot_nompi.c when the library is built without MPI).
 *
 * Control protocol (untagged TCP to INC_MASTER_ADDR:INC_MASTER_PORT): each
 * rank > 0 sends its control hello (hello.c) with its data port; once all
 * are in, rank 0 sends each the table of N data addresses (link.c's
 * entries, INC_ADDR_ENTRY_BYTES each). Rank 0's own entry is left zero:
 * the others use the address they reached it at.
 *
 * Listeners bind to INC_BIND_ADDR, else to the address this rank uses to
 * reach the master (rank 0: the master address itself), never to every
 * interface.
 */
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "inc_internal.h"

static void set_port(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
	else
		((struct sockaddr_in *)ss)->sin_port = htons(port);
}

/* A numeric or named address (port 0) into *ss: 0 or INC_E_ENV. */
static int resolve(const char *addr, const char *port_s, struct sockaddr_storage *ss,
		   socklen_t *len)
{
	struct addrinfo hints, *ai = NULL;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	/* Numeric addresses first: no NSS, so static binaries (e.g. in a
	 * minimal VM image) work too. */
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
	if (getaddrinfo(addr, port_s, &hints, &ai) != 0 || !ai) {
		hints.ai_flags = AI_NUMERICSERV;
		ai = NULL;
		if (getaddrinfo(addr, port_s, &hints, &ai) != 0 || !ai)
			return INC_E_ENV;
	}
	memset(ss, 0, sizeof(*ss));
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*len = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

/* The master's control rendezvous: rank r's hello fills ctrl[r] and its
 * table row (the address it connected from, its data port). */
struct ctrl_rdv {
	struct inc_comm *c;
	uint8_t *table;
};

static int *ctrl_slot(void *arg, const struct inc_hello *h)
{
	struct ctrl_rdv *d = arg;

	if (h->kind != INC_LINK_CTRL || h->rank == 0 || h->port == 0 || h->port > 65535)
		return NULL;
	return &d->c->ctrl[h->rank];
}

static void ctrl_accepted(void *arg, const struct inc_hello *h, int fd)
{
	struct ctrl_rdv *d = arg;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);

	memset(&ss, 0, sizeof(ss));
	(void)getpeername(fd, (struct sockaddr *)&ss, &sl);
	inc_addr_entry_put(d->table + INC_ADDR_ENTRY_BYTES * h->rank, &ss, (uint16_t)h->port);
}

/* The master's address and port and the bind address, each refusal
 * naming its variable. */
static int env_bootstrap(const char *addr, const char *port_s, const char *bind_s, long *port,
			 struct sockaddr_storage *master, socklen_t *mlen,
			 struct sockaddr_storage *bind_ss, socklen_t *blen)
{
	const char *pn = getenv("INC_MASTER_PORT") && *getenv("INC_MASTER_PORT") ?
			 "INC_MASTER_PORT" : "MASTER_PORT";
	const char *an = getenv("INC_MASTER_ADDR") && *getenv("INC_MASTER_ADDR") ?
			 "INC_MASTER_ADDR" : "MASTER_ADDR";
	char dec[16];

	if (!addr)
		return inc_env_refuse("INC_MASTER_ADDR", NULL, "not set (nor MASTER_ADDR)");
	if (!port_s)
		return inc_env_refuse("INC_MASTER_PORT", NULL, "not set (nor MASTER_PORT)");
	if (inc_parse_long(port_s, 1, 65535, port))
		return inc_env_refuse(pn, port_s, "want a port 1..65535 (decimal, or 0x hex)");
	snprintf(dec, sizeof(dec), "%ld", *port);   /* getaddrinfo wants decimal */
	if (resolve(addr, dec, master, mlen))
		return inc_env_refuse(an, addr, "not an address or a name that resolves");
	if (bind_s && resolve(bind_s, "0", bind_ss, blen))
		return inc_env_refuse("INC_BIND_ADDR", bind_s,
				      "not an address or a name that resolves");
	return 0;
}

/* Environment bootstrap. */
static int init_env(struct inc_comm **out, int rank, int size)
{
	const char *addr = inc_env2("INC_MASTER_ADDR", "MASTER_ADDR");
	const char *port_s = inc_env2("INC_MASTER_PORT", "MASTER_PORT");
	const char *bind_s = inc_env2("INC_BIND_ADDR", NULL);
	struct sockaddr_storage *addrs = NULL, master, bind_ss, local;
	socklen_t *alens = NULL, mlen, blen, llen;
	struct inc_comm *c = NULL;
	uint8_t *table = NULL;
	int timeout, rc, lfd = -1, cfd = -1, i;
	char job_id[INC_JOB_ID_MAX + 1];
	struct inc_rdv rv;
	long port;
	uint16_t dport, cport;
	uint8_t tos;
	int64_t deadline;

	rc = inc_env_timeout_ms(&timeout);
	if (rc)
		return rc;
	rc = inc_env_initial_tos(&tos);
	if (rc)
		return rc;
	rc = inc_comm_alloc(&c, rank, size);
	if (rc)
		return rc;
	/* The default job id: the master's address and port. */
	snprintf(job_id, sizeof(job_id), "%s:%s", addr ? addr : "", port_s ? port_s : "");
	rc = inc_job_init(&c->job, rank, size, job_id);
	if (rc)
		goto out;
	if (size == 1) {
		*out = c;
		return 0;
	}
	deadline = inc_now_ms() + timeout;
	rc = env_bootstrap(addr, port_s, bind_s, &port, &master, &mlen, &bind_ss, &blen);
	if (rc)
		goto out;
	rc = inc_addr_tables_alloc(size, &addrs, &alens, &table);
	if (rc)
		goto out;

	if (rank == 0) {
		struct ctrl_rdv d = { c, table };

		/* Listen where the others reach us. */
		local = bind_s ? bind_ss : master;
		rc = inc_sock_listen(&local, 0, 0, tos, 1, &dport);
		if (rc < 0)
			goto out;
		lfd = rc;
		rc = inc_sock_listen(&local, 0, (uint16_t)port, 0, 0, &cport);
		if (rc < 0)
			goto out;
		cfd = rc;
		inc_comm_rdv_init(&rv, c, "master port", cfd, 0, deadline);
		rv.slot = ctrl_slot;
		rv.accepted = ctrl_accepted;
		rv.arg = &d;
		rc = inc_rdv_run(&rv, NULL, 0, size - 1);
		if (rc)
			goto out;
		close(cfd);
		cfd = -1;
		inc_addr_entry_put(table, &master, dport);
		table[0] = 0;   /* rank 0: "the address you reached me at" */
		for (i = 1; i < size; i++) {
			rc = inc_sock_write_all(c->ctrl[i], table,
						(size_t)size * INC_ADDR_ENTRY_BYTES, deadline);
			if (rc)
				goto out;
		}
	} else {
		struct inc_rdv_out o;

		for (;;) {
			rc = inc_sock_connect((struct sockaddr *)&master, mlen,
					      bind_s ? &bind_ss : NULL, 0, 0, deadline, &c->ctrl_fd);
			if (rc)
				goto out;
			/* Listen on the address the master sees us at. */
			llen = sizeof(local);
			if (lfd < 0 && getsockname(c->ctrl_fd, (struct sockaddr *)&local, &llen) < 0) {
				rc = INC_E_SOCKET;
				goto out;
			}
			if (lfd < 0) {
				rc = inc_sock_listen(bind_s ? &bind_ss : &local, 0, 0, tos, 1, &dport);
				if (rc < 0)
					goto out;
				lfd = rc;
			}
			inc_comm_rdv_init(&rv, c, "master port", -1, 0, deadline);
			o.fd = c->ctrl_fd;
			rc = inc_hello_out(&rv, &o, INC_LINK_CTRL, dport);
			if (!rc)
				rc = inc_rdv_run(&rv, &o, 1, 0);
			/* Closed with no answer: the master made room for a
			 * newer connection in a flood (or was not up). Again. */
			if (rc != INC_E_CLOSED || inc_now_ms() + 50 >= deadline)
				break;
			close(c->ctrl_fd);
			c->ctrl_fd = -1;
			usleep(50000);
		}
		if (rc)
			goto out;
		rc = inc_sock_read_all(c->ctrl_fd, table, (size_t)size * INC_ADDR_ENTRY_BYTES,
				       deadline);
		if (rc)
			goto out;
	}
	for (i = 0; i < size; i++) {
		if (i == 0) {
			addrs[0] = master;
			alens[0] = mlen;
			set_port(&addrs[0], (uint16_t)(table[2] << 8 | table[3]));
			continue;
		}
		rc = inc_addr_entry_get(table + INC_ADDR_ENTRY_BYTES * i, &addrs[i], &alens[i]);
		if (rc)
			goto out;
	}
	rc = inc_comm_connect_data(c, lfd, addrs, alens, tos, deadline);
out:
	if (cfd >= 0)
		close(cfd);
	return inc_comm_boot_done(c, rc, lfd, addrs, alens, table, out);
}

int inc_comm_init_env(struct inc_comm **out)
{
	long rank, size;
	int rc;

	if (!out)
		return INC_E_ARG;
	*out = NULL;
	if (!inc_env2("INC_RANK", "RANK") && !inc_env2("INC_WORLD_SIZE", "WORLD_SIZE") &&
	    inc_boot_under_mpirun())
		return inc_comm_init_mpi(out);
	rc = inc_env_long("INC_WORLD_SIZE", "WORLD_SIZE", 1, 65536, &size);
	if (rc == 1)
		return inc_env_refuse("INC_WORLD_SIZE", NULL, "not set (nor WORLD_SIZE)");
	if (rc)
		return rc;
	rc = inc_env_long("INC_RANK", "RANK", 0, size - 1, &rank);
	if (rc == 1)
		return inc_env_refuse("INC_RANK", NULL, "not set (nor RANK)");
	if (rc)
		return rc;
	return init_env(out, (int)rank, (int)size);
}
