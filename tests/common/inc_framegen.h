/* SPDX-License-Identifier: MIT */
/*
 * inc_framegen.h - build Ethernet/802.1Q/IPv4/TCP test frames with correct
 * checksums, gradient-like payloads, and random frames that cover every
 * bypass reason. Shared by the model tests, the fuzz seeds and the RTL
 * testbenches (test code: uses libc).
 */
#ifndef INC_FRAMEGEN_H
#define INC_FRAMEGEN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct inc_fg_frame {
	int vlan;                /* add one 802.1Q tag */
	uint16_t vlan_tci;
	uint8_t tos;
	uint8_t proto;           /* 6 = TCP; anything else gets a UDP-like 8-byte header */
	uint16_t frag;           /* raw flags/fragment-offset field, e.g. 0x4000 (DF) */
	unsigned ip_opt_len;     /* bytes of IP options, multiple of 4, <= 40 */
	unsigned tcp_opt_len;    /* bytes of TCP options, multiple of 4, <= 40 */
	uint32_t saddr, daddr;
	uint16_t sport, dport;
	uint32_t seq;
	const uint8_t *payload;
	size_t payload_len;
};

/* Fill f with a plain tagged TCP frame description (no payload). */
void inc_fg_defaults(struct inc_fg_frame *f);

/* Build the frame into out; returns its length, or 0 if cap is too small
 * or the frame cannot exist (IP total length > 65535). Checksums correct. */
size_t inc_fg_build(uint8_t *out, size_t cap, const struct inc_fg_frame *f);

/* xorshift64* generator; state must be non-zero. */
uint64_t inc_fg_rand(uint64_t *state);

/* Payload classes for inc_fg_payload. */
enum inc_fg_mix {
	INC_FG_ZERO,             /* all values far below every error bound */
	INC_FG_GRADIENT,         /* Table III-like: mostly tiny, some 8/16-bit, few >= 1 */
	INC_FG_INCOMPRESSIBLE,   /* all |v| >= 1 (tag 3) */
	INC_FG_RANDOM_BITS,      /* uniformly random bit patterns (NaN, Inf, subnormals) */
	INC_FG_BOUNDARY,         /* exponents and mantissas at class boundaries */
	INC_FG_MIX_COUNT
};

/* Fill len bytes (any length) with little-endian float32 data of a mix. */
void inc_fg_payload(uint8_t *out, size_t len, enum inc_fg_mix mix,
		    uint64_t *rng);

/*
 * A random frame of total length <= max_len (>= 14 unless the generator
 * picks a runt): VLAN or not, IP/TCP options, fragments, non-TCP, lying
 * lengths, bad checksums, runts, random ToS (mostly matching 0x28), random
 * payload mixes, and already-compressed (marked) frames when
 * allow_marked. Returns the length written (<= cap).
 */
size_t inc_fg_random(uint8_t *out, size_t cap, size_t max_len, int allow_marked,
		     uint64_t *rng);

#ifdef __cplusplus
}
#endif

#endif
