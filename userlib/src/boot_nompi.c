// SPDX-License-Identifier: MIT
/*
 * boot_nompi.c - the MPI bootstrap of a library built without MPI
 * (libinceptionn; boot_mpi.c takes its place in libinceptionn-mpi): the
 * entry point is there and says INC_E_MPI, and no process counts as
 * started by mpirun, so inc_comm_init_env always reads the environment.
 */
#include <stddef.h>

#include "inc_internal.h"

int inc_comm_init_mpi(struct inc_comm **out)
{
	if (out)
		*out = NULL;
	return INC_E_MPI;
}

int inc_boot_under_mpirun(void)
{
	return 0;
}
