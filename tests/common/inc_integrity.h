/* SPDX-License-Identifier: MIT */
/*
 * inc_integrity.h - what becomes of a corrupted compressed frame, for the
 * integrity tests of frame format v2 (docs/wire-format.md, "Integrity"):
 * the model suite (sw-model/tests/test_integrity.c) and the RTL bench
 * (sim/rx_engine_tb.c +flips) classify every corrupted frame the same way.
 *
 * A frame's fate is decided from the decompressor's outcome and output and,
 * when the output goes on to the host, from what a receiving TCP/IP stack
 * accepts: an IPv4 header with a valid checksum and length, not a fragment,
 * protocol 6, a complete TCP header and a valid TCP checksum. An accepted
 * segment is compared with the one the uncorrupted frame restores
 * (addresses, TCP header and payload); a difference is the failure the
 * format must make impossible short of a checksum collision.
 */
#ifndef INC_INTEGRITY_H
#define INC_INTEGRITY_H

#include "inc_model.h"

#include <stddef.h>
#include <stdint.h>

enum inc_fate {
	INC_FATE_DROPPED = 0,   /* the decompressor dropped it (a counted reason) */
	INC_FATE_MALFORMED,     /* passed on unchanged as protocol 253, counted; the stack drops it */
	INC_FATE_STACK_DROPS,   /* passed on, but not a TCP segment the stack accepts */
	INC_FATE_DELIVERED,     /* delivered: the same segment as the uncorrupted frame's */
	INC_FATE_CORRUPT,       /* delivered with different contents: the failure */
	INC_FATE_COUNT
};

/* Parts of a compressed frame, for reporting where a corruption landed. */
enum inc_region {
	INC_REG_ETH = 0,        /* Ethernet (and VLAN) header */
	INC_REG_IP,             /* IPv4 header */
	INC_REG_TCP,            /* TCP header */
	INC_REG_SHIM,           /* the 4-byte shim */
	INC_REG_STREAM,         /* tag words and payloads */
	INC_REG_TAIL,           /* raw tail bytes */
	INC_REG_COUNT
};

const char *inc_fate_name(enum inc_fate f);
const char *inc_region_name(enum inc_region r);

/*
 * Region of byte off of a compressed frame (comp, clen bytes, as the
 * compressor produced it).
 */
enum inc_region inc_region_of(const uint8_t *comp, size_t clen, size_t off);

/*
 * 1 when a receiving stack would accept frame f (len bytes) as a TCP
 * segment; then *seg and *seg_len give the TCP segment (header + payload)
 * and *addr the 8 address bytes of the IPv4 header.
 */
int inc_stack_accepts(const uint8_t *f, size_t len, const uint8_t **seg,
		      size_t *seg_len, const uint8_t **addr);

/*
 * Fate of a frame whose decompression gave outcome info->outcome and
 * output out (out_len bytes; none when dropped). ref/ref_len: the frame the
 * uncorrupted compressed frame decompresses to.
 */
enum inc_fate inc_fate_of(const struct inc_frame_info *info, const uint8_t *out,
			  size_t out_len, const uint8_t *ref, size_t ref_len);

/* A compressed frame of a capture and what it decompresses to. */
struct inc_int_frame {
	uint8_t *comp, *ref;
	size_t clen, rlen;
	char src[256];          /* capture file name */
};

/*
 * The tagged TCP frames of the captures DIR/ *.pcap that compress (default
 * configuration) and decompress again, at most per_file from each (distinct
 * compressed lengths), at most max in all, into out (malloc'd buffers; free
 * with inc_int_free). Returns the number kept, or -1 if DIR cannot be read.
 */
long inc_int_collect(const char *dir, struct inc_int_frame *out, size_t max,
		     size_t per_file);
void inc_int_free(struct inc_int_frame *f, size_t n);

/* Print a fate-per-region table (counts t[region][fate]) to stdout. */
void inc_int_print_table(const char *title,
			 unsigned long t[INC_REG_COUNT][INC_FATE_COUNT]);

#endif /* INC_INTEGRITY_H */
