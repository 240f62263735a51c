// SPDX-License-Identifier: MIT
/*
 * inc_list.h - comma-separated option lists of the test and benchmark
 * programs ("-m none,sketch,inc+sketch"): whole entries only, so that
 * "sketch" does not match "inc+sketch". Header-only.
 */
#ifndef INC_LIST_H
#define INC_LIST_H

#include <string.h>

/* Is name one of the comma-separated entries of list? */
static inline int inc_listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	for (p = list; (p = strstr(p, name)); p++)
		if ((p == list || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return 1;
	return 0;
}

#endif
