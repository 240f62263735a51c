// SPDX-License-Identifier: MIT
/* errors.c - text for the library's and the model's error codes. */
#include "inc_internal.h"

const char *inc_strerror(int err)
{
	switch (err) {
	case INC_E_ARG:
		return "invalid argument";
	case INC_E_ENV:
		if (*inc_env_error())   /* the variable and value at fault */
			return inc_env_error();
		return "environment variable missing or invalid (INC_RANK/RANK, INC_WORLD_SIZE/WORLD_SIZE, "
		       "INC_MASTER_ADDR/MASTER_ADDR, INC_MASTER_PORT/MASTER_PORT, INC_COMPRESSION, "
		       "INC_ERROR_BOUND, INC_ALGO, INC_TIMEOUT_MS, INC_SEGMENT_BYTES, INC_TOS, INC_JOB_ID, "
		       "INC_JOB_SECRET, INC_BIND_ADDR, INC_HELLO_TIMEOUT_MS)";
	case INC_E_NOMEM:
		return "out of memory";
	case INC_E_SOCKET:
		return "socket system call failed";
	case INC_E_CONNECT:
		return "could not connect to a peer or the master within the timeout";
	case INC_E_TIMEOUT:
		return "a peer stalled: no progress within the timeout";
	case INC_E_CLOSED:
		return "a peer closed its connection or died";
	case INC_E_PROTOCOL:
		return "a peer sent an unexpected message";
	case INC_E_BROKEN:
		return "communicator broken by an earlier failure";
	case INC_E_TOS:
		return "could not set or verify the IP ToS / traffic class";
	case INC_E_MPI:
		return "MPI bootstrap failed or library built without MPI";
	case INC_E_NOSUPPORT:
		return "not supported on this machine";
	case INC_E_REFUSED:
		return "the job refused this rank (another job id or world size, a wrong secret, "
		       "a rank in use or out of range; INC_LOG=stderr names it)";
	default:
		if (err <= 0 && err >= INC_EMALFORMED)
			return inc_model_strerror(err);
		return "unknown error";
	}
}
