// SPDX-License-Identifier: MIT
/*
 * boot_mpi.c - the communicator from MPI_COMM_WORLD (the library's MPI
 * flavour, libinceptionn-mpi; boot_nompi.c stands in for this file
 * elsewhere). Rank and size come from MPI, the data addresses (link.c's
 * table entries) are exchanged with MPI_Allgather, then the data links are
 * connected as in the environment bootstrap. MPI_Init is called when
 * nobody has, and then MPI_Finalize when the communicator ends.
 */
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <mpi.h>

#include "inc_internal.h"

/* This host's address for the others: INC_ADDR, else the first IPv4 of
 * an interface that is up and not loopback, else 127.0.0.1. */
static int local_addr(struct sockaddr_in *sin)
{
	const char *env = getenv("INC_ADDR");
	struct ifaddrs *ifa, *i;

	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (env && *env)
		return inet_pton(AF_INET, env, &sin->sin_addr) == 1 ? 0 :
		       inc_env_refuse("INC_ADDR", env, "not an IPv4 address");
	if (getifaddrs(&ifa) < 0)
		return 0;
	for (i = ifa; i; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET ||
		    !(i->ifa_flags & IFF_UP) || (i->ifa_flags & IFF_LOOPBACK))
			continue;
		sin->sin_addr = ((struct sockaddr_in *)i->ifa_addr)->sin_addr;
		break;
	}
	freeifaddrs(ifa);
	return 0;
}

/* The communicator's end when this bootstrap called MPI_Init. */
static void mpi_end(struct inc_comm *c)
{
	int fin = 0;

	(void)c;
	MPI_Finalized(&fin);
	if (!fin)
		MPI_Finalize();
}

int inc_comm_init_mpi(struct inc_comm **out)
{
	struct sockaddr_storage *addrs = NULL;
	struct sockaddr_in me;
	socklen_t *alens = NULL;
	struct inc_comm *c = NULL;
	uint8_t entry[INC_ADDR_ENTRY_BYTES], *table = NULL;
	int init = 0, rank, size, rc, timeout, lfd = -1, i, fin = 0;
	uint16_t dport;
	uint8_t tos;

	if (!out)
		return INC_E_ARG;
	*out = NULL;
	rc = inc_env_timeout_ms(&timeout);
	if (!rc)
		rc = inc_env_initial_tos(&tos);
	if (rc)
		return rc;
	MPI_Initialized(&init);
	if (!init) {
		if (MPI_Init(NULL, NULL) != MPI_SUCCESS)
			return INC_E_MPI;
		fin = 1;
	}
	if (MPI_Comm_rank(MPI_COMM_WORLD, &rank) != MPI_SUCCESS ||
	    MPI_Comm_size(MPI_COMM_WORLD, &size) != MPI_SUCCESS)
		return INC_E_MPI;
	rc = inc_comm_alloc(&c, rank, size);
	if (rc)
		return rc;
	if (fin)
		c->boot_end = mpi_end;
	/* MPI vouches for the membership; the handshakes still keep
	 * strangers off the data listeners. */
	rc = inc_job_init(&c->job, rank, size, "mpi");
	if (rc)
		goto out;
	rc = inc_addr_tables_alloc(size, &addrs, &alens, &table);
	if (rc)
		goto out;
	rc = local_addr(&me);
	if (rc)
		goto out;
	{
		struct sockaddr_storage ss;

		memset(&ss, 0, sizeof(ss));
		memcpy(&ss, &me, sizeof(me));
		rc = inc_sock_listen(&ss, 0, 0, tos, 1, &dport);
		if (rc < 0)
			goto out;
		lfd = rc;
		inc_addr_entry_put(entry, &ss, dport);
	}
	rc = INC_E_MPI;
	if (MPI_Allgather(entry, INC_ADDR_ENTRY_BYTES, MPI_BYTE, table, INC_ADDR_ENTRY_BYTES,
			  MPI_BYTE, MPI_COMM_WORLD) != MPI_SUCCESS)
		goto out;
	for (i = 0; i < size; i++) {
		rc = inc_addr_entry_get(table + INC_ADDR_ENTRY_BYTES * i, &addrs[i], &alens[i]);
		if (rc)
			goto out;
	}
	rc = inc_comm_connect_data(c, lfd, addrs, alens, tos,
				   inc_now_ms() + timeout);
out:
	return inc_comm_boot_done(c, rc, lfd, addrs, alens, table, out);
}

int inc_boot_under_mpirun(void)
{
	return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") ||
	       getenv("PMIX_RANK");
}
