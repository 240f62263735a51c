/* SPDX-License-Identifier: MIT */
/*
 * inc_vm.h - small helpers shared by the programs that run inside the QEMU
 * test VM (statically linked, no shared libraries there).
 */
#ifndef INC_VM_H
#define INC_VM_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline void inc_vm_die(const char *prog, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static inline unsigned long inc_vm_num(const char *prog, const char *s)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *s == '\0' || *end != '\0')
		inc_vm_die(prog, "bad number '%s'", s);
	return v;
}

static inline double inc_vm_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#endif
