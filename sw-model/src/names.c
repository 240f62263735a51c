// SPDX-License-Identifier: MIT
/* names.c - text for model error codes, outcomes and bypass reasons. */
#include "inc_model.h"

const char *inc_model_strerror(int err)
{
	switch (err) {
	case INC_OK:
		return "success";
	case INC_EINVAL:
		return "invalid argument";
	case INC_ENOSPC:
		return "output buffer too small";
	case INC_ETRUNC:
		return "input truncated inside a group";
	case INC_EMALFORMED:
		return "malformed input";
	default:
		return "unknown error";
	}
}

const char *inc_outcome_name(enum inc_outcome o)
{
	static const char *const names[INC_OUT_COUNT] = {
		"bypass", "compressed", "decompressed", "malformed", "dropped",
	};

	return (unsigned)o < INC_OUT_COUNT ? names[o] : "unknown";
}

const char *inc_reason_name(enum inc_reason r)
{
	static const char *const names[INC_R_COUNT] = {
		"none",         "not_ipv4",     "truncated",
		"bad_ip_header", "bad_ip_csum", "bad_length",
		"fragment",     "tos",          "not_tcp",
		"bad_tcp_header", "no_payload", "not_smaller",
		"not_marked",   "bad_shim",     "bad_stream",
		"oversize",     "disabled",     "old_version",
		"bad_payload_csum",
	};

	return (unsigned)r < INC_R_COUNT ? names[r] : "unknown";
}
