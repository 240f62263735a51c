/* SPDX-License-Identifier: MIT */
/*
 * inc_tool.h - small helpers shared by the command-line tools: one-line
 * errors, option parsing, whole-file I/O and the tag-class report.
 */
#ifndef INC_TOOL_H
#define INC_TOOL_H

#include "inc_model.h"

#include <stdio.h>

/* Program name printed before every error ("inc-codec: ..."). */
extern const char *inc_tool_name;

/* Print "<name>: <message>" on stderr and exit 1 (bad input) or 2 (usage). */
__attribute__((noreturn, format(printf, 1, 2)))
void inc_die(const char *fmt, ...);
__attribute__((noreturn, format(printf, 1, 2)))
void inc_usage_error(const char *fmt, ...);

/*
 * If argv[*i] is "NAME VALUE" or "NAME=VALUE", store VALUE in *val, advance
 * *i past it and return 1; a missing value is a usage error. Else return 0.
 */
int inc_opt(int argc, char **argv, int *i, const char *name, const char **val);

/* Error-bound exponent: "10" or "2^-10", 1..126. Returns 0 or -1. */
int inc_parse_eb(const char *s, unsigned *eb);
/* Unsigned decimal (or 0x hex) integer, whole string, no sign. Returns 0 or -1. */
int inc_parse_ull(const char *s, unsigned long long *v);
/* ToS "VALUE[/MASK]" (decimal or 0x hex, each 0..255). Returns 0 or -1. */
int inc_parse_tos(const char *s, uint8_t *value, uint8_t *mask);

/* Read a whole stream into a malloc'd buffer. Returns 0 or -1 (errno). */
int inc_read_all(FILE *f, uint8_t **buf, size_t *len);
/* Write len bytes. Returns 0 or -1 (errno). */
int inc_write_all(FILE *f, const uint8_t *buf, size_t len);

/* Count the tags of a valid stream of n values (walks the tag words). */
void inc_stream_classes(const uint8_t *s, size_t len, size_t n,
			struct inc_class_counts *cc);

/* Percent of values with tag t (0 when there are no values). */
double inc_class_share(const struct inc_class_counts *cc, unsigned t);

/* "values N  2-bit x%  10-bit x%  18-bit x%  34-bit x%" and the sizes. */
void inc_print_classes(FILE *f, const struct inc_class_counts *cc,
		       size_t raw_bytes, size_t packed_bytes);

#endif
