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

/*
 * Output files. inc_out_open opens PATH for writing through a temporary in
 * the same directory (PATH.XXXXXX, mode 0666 & ~umask); inc_out_commit,
 * called after the caller has flushed and closed the FILE without error,
 * renames it over PATH. Until then PATH is untouched: if the program exits
 * (inc_die) or is killed by SIGINT/SIGTERM/SIGHUP first, the temporary is
 * removed. "-" is stdout (no temporary). IN (may be NULL) is the program's
 * input: an output that is the same file (same device and inode) is a
 * usage error. One output per program.
 */
FILE *inc_out_open(const char *path, const char *in);
void inc_out_commit(void);
/* fsync(f) when f is a regular file; 0 for a device or a FIFO (an output
 * such as /dev/null is written in place, never through a temporary). */
int inc_out_sync(FILE *f);
/* 1 when both paths name the same existing file (device and inode). */
int inc_same_file(const char *a, const char *b);
/* 1 when stdin and stdout are the same regular file (tools that filter
 * stdin to stdout refuse this). */
int inc_stdio_same_file(void);

/*
 * Frames of a capture. inc_tcp_csum_bad: 1 when the frame is a well-formed
 * IPv4 TCP frame whose ToS matches cfg and whose TCP checksum does not
 * verify (a capture taken on a sender with checksum offload, where the NIC
 * fills it later). The compress tools count such frames under
 * "input_tcp_csum" and carry on (the model and the RTL compress them alike;
 * the receiver will drop them). inc_out_snaplen: the snapshot length of an
 * output capture: the input's, raised in decompress mode to the largest
 * frame decompression can restore (max_frame, or INC_FRAME_OUT_MAX when 0),
 * so no restored frame is cut.
 */
int inc_tcp_csum_bad(const uint8_t *f, size_t len,
		     const struct inc_frame_config *cfg);
int inc_out_snaplen(int in_snaplen, int decompress, unsigned max_frame);

#endif
