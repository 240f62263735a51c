/* SPDX-License-Identifier: MIT */
/*
 * inc_model.h - bit-exact reference model of the INCEPTIONN gradient codec,
 * group/stream format and frame (wire) format.
 *
 * This header and the sources in sw-model/src are the single source of truth
 * for the formats. They are freestanding C: no allocation, no floating point,
 * no libc beyond memcpy/memset/memcmp, so the same files build into the
 * user-space library (build/lib/libincmodel.a), the Linux kernel module and
 * the Verilator testbenches.
 *
 * Normative specs: docs/codec.md (per-value codec, group and stream format)
 * and docs/wire-format.md (frame format).
 */
#ifndef INC_MODEL_H
#define INC_MODEL_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/string.h>
#else
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Error codes: every function returns a size/count >= 0 or one of these.   */
/* ------------------------------------------------------------------------ */
#define INC_OK            0
#define INC_EINVAL       (-1)  /* bad argument (NULL pointer, eb out of range) */
#define INC_ENOSPC       (-2)  /* output capacity too small */
#define INC_ETRUNC       (-3)  /* input ends inside a group */
#define INC_EMALFORMED   (-4)  /* input violates the format (e.g. padding lanes not tag 0) */

/* Text for a model error code; never NULL. */
const char *inc_model_strerror(int err);

/* ------------------------------------------------------------------------ */
/* Per-value codec (docs/codec.md)                                           */
/* ------------------------------------------------------------------------ */
#define INC_TAG_ZERO  0u  /* 0BIT_COMPRESS: no payload, decodes to +0.0 */
#define INC_TAG_8     1u  /* 8BIT_COMPRESS: 1-byte payload */
#define INC_TAG_16    2u  /* 16BIT_COMPRESS: 2-byte payload */
#define INC_TAG_RAW   3u  /* NO_COMPRESS: the 4-byte float itself */

#define INC_EB_MIN     1u   /* smallest error-bound exponent (bound 2^-1) */
#define INC_EB_MAX     126u /* largest error-bound exponent (bound 2^-126) */
#define INC_EB_DEFAULT 10u  /* the paper's 2^-10 */

/*
 * Compress one float32 bit pattern f at error bound 2^-eb.
 * Returns the tag (0..3) and stores the payload (right-aligned, 0/8/16/32
 * bits) in *payload. eb must be in [INC_EB_MIN, INC_EB_MAX]; values outside
 * are clamped into that range. payload may not be NULL.
 */
unsigned inc_compress_value(uint32_t f, unsigned eb, uint32_t *payload);

/* Decompress one value: tag 0..3 (higher bits ignored) and its payload. */
uint32_t inc_decompress_value(unsigned tag, uint32_t payload);

/*
 * The codec's round trip of one value, inc_decompress_value of what
 * inc_compress_value gives for it, computed directly: |f| >= 1 (and Inf,
 * NaN) unchanged; below the error bound +0; otherwise the mantissa bits
 * worth less than 2^-k cleared (k = 15 in the 16-bit class, 7 in the 8-bit
 * class), +0 when nothing is left. Branch-free so that loops over it
 * vectorise; equal to the round trip for every bit pattern and error bound
 * (test-codec-exhaustive). eb is clamped as by inc_compress_value.
 */
static inline uint32_t inc_quantize_value(uint32_t f, unsigned eb)
{
	uint32_t e = (f >> 23) & 0xffu, ebase, j0, q;

	eb = eb < INC_EB_MIN ? INC_EB_MIN : eb > INC_EB_MAX ? INC_EB_MAX : eb;
	ebase = 127u - eb;
	/* the lowest mantissa bit kept: 23 + n - k, with n = 127 - e */
	j0 = (e >= ebase + (eb + 1u) / 2u ? 8u : 16u) + (127u - e);
	q = j0 >= 24u ? 0u : f & (~0u << j0);
	q = e < ebase ? 0u : q;
	return e >= 127u ? f : q;
}

/* Payload size in bytes of a tag: 0, 1, 2 or 4. */
static inline unsigned inc_tag_bytes(unsigned tag)
{
	return (0x4210u >> ((tag & 3u) * 4u)) & 0xfu;
}

/* ------------------------------------------------------------------------ */
/* Group and stream format (docs/codec.md)                                   */
/* ------------------------------------------------------------------------ */
#define INC_GROUP_VALUES     8u   /* values per group = one 256-bit beat */
#define INC_GROUP_MIN_BYTES  2u   /* tag word only */
#define INC_GROUP_MAX_BYTES  34u  /* tag word + 8 raw floats */

/* Counts of values per tag (the 2/10/18/34-bit classes of Table III). */
struct inc_class_counts {
	uint64_t n[4];
};

/* Size in bytes of a group whose tag word is tagword (2..34). */
unsigned inc_group_size(uint16_t tagword);

/*
 * Encode one group of nvalid (0..8) little-endian float32 values from in
 * (4*nvalid bytes, any alignment) into out (at least INC_GROUP_MAX_BYTES).
 * Lanes >= nvalid get tag 0. Returns the group size in bytes.
 * counts, if not NULL, is incremented per valid lane.
 */
unsigned inc_group_encode(const uint8_t *in, unsigned nvalid, unsigned eb,
			  uint8_t *out, struct inc_class_counts *counts);

/*
 * Decode one group from in (in_len bytes available) into nvalid (0..8)
 * little-endian float32 values at out (4*nvalid bytes). Returns the number
 * of input bytes consumed, INC_ETRUNC if the group is longer than in_len,
 * or INC_EMALFORMED if a lane >= nvalid has a non-zero tag.
 */
long inc_group_decode(const uint8_t *in, size_t in_len, unsigned nvalid,
		      uint8_t *out);

/*
 * Compress n_values little-endian float32 values (4*n_values bytes at in)
 * into the stream format. Returns the stream size in bytes, or INC_ENOSPC
 * if out_cap is too small (nothing beyond out_cap is written), or INC_EINVAL.
 * counts, if not NULL, accumulates the tag classes.
 */
long inc_stream_compress(const uint8_t *in, size_t n_values, unsigned eb,
			 uint8_t *out, size_t out_cap,
			 struct inc_class_counts *counts);

/*
 * Decompress a stream of n_values values from in (in_len bytes available)
 * into out (out_cap bytes, at least 4*n_values). Returns the number of input
 * bytes consumed (the stream size), or INC_ETRUNC / INC_EMALFORMED /
 * INC_ENOSPC / INC_EINVAL. Never reads past in_len nor writes past out_cap.
 */
long inc_stream_decompress(const uint8_t *in, size_t in_len, size_t n_values,
			   uint8_t *out, size_t out_cap);

/*
 * Size of the stream of n_values values at in, from the tag words alone,
 * with the same checks as inc_stream_decompress but writing nothing.
 */
long inc_stream_size(const uint8_t *in, size_t in_len, size_t n_values);

/* Worst-case stream size for n values: ceil(n/8) * 34. */
static inline size_t inc_stream_max_size(size_t n_values)
{
	return (n_values + 7u) / 8u * INC_GROUP_MAX_BYTES;
}

/* ------------------------------------------------------------------------ */
/* Internet checksum helpers (RFC 1071), shared with the testbenches        */
/* ------------------------------------------------------------------------ */
/* Add len bytes at p to a 32-bit one's-complement accumulator. The data is
 * taken as big-endian 16-bit words starting at p; an odd final byte is
 * padded with zero. Fold with inc_csum_fold. */
uint32_t inc_csum_add(uint32_t sum, const uint8_t *p, size_t len);
/* Fold the accumulator to 16 bits and complement it: the checksum field. */
uint16_t inc_csum_fold(uint32_t sum);

/* ------------------------------------------------------------------------ */
/* Frame format (docs/wire-format.md)                                        */
/* ------------------------------------------------------------------------ */
#define INC_WIRE_VERSION      2u
#define INC_WIRE_VERSION_V1   1u   /* refused on receive: reason old_version */
#define INC_WIRE_IPPROTO      253u /* IP protocol of a compressed frame (RFC 3692) */
#define INC_WIRE_MAGIC        0x49u /* 'I', first byte of the shim */
#define INC_WIRE_SHIM_BYTES   6u   /* magic, version, length, tag-word sum */
#define INC_TOS_DEFAULT       0x28u
#define INC_TOS_MASK_DEFAULT  0xfcu
#define INC_MAX_FRAME_DEFAULT 9018u /* jumbo frame, without FCS */
#define INC_ETH_MIN_FRAME     60u  /* minimum Ethernet frame without FCS */
#define INC_PAD_FRAME_MAX     64u  /* frames up to this size may carry padding */

struct inc_frame_config {
	uint8_t tos_value;    /* ToS compare value (default 0x28) */
	uint8_t tos_mask;     /* ToS compare mask (default 0xfc: ECN ignored) */
	uint8_t eb;           /* error-bound exponent, INC_EB_MIN..INC_EB_MAX */
	uint16_t max_frame;   /* frames longer than this are dropped; 0 = no limit */
};

/* Fill cfg with the defaults: ToS 0x28/0xfc, eb 10, max frame 9018. */
void inc_frame_config_default(struct inc_frame_config *cfg);

/* What happened to a frame. */
enum inc_outcome {
	INC_OUT_BYPASS = 0,      /* passed through unchanged */
	INC_OUT_COMPRESSED,      /* TX: payload compressed */
	INC_OUT_DECOMPRESSED,    /* RX: payload decompressed */
	INC_OUT_MALFORMED,       /* RX: marked but invalid, passed through unchanged */
	INC_OUT_DROPPED,         /* longer than max_frame: no output */
	INC_OUT_COUNT
};

/* Why a frame was bypassed (or malformed). Order is part of the register
 * map: the CSR block has one counter per reason. */
enum inc_reason {
	INC_R_NONE = 0,         /* compressed or decompressed */
	INC_R_NOT_IPV4,         /* EtherType (after at most one 802.1Q tag) is not IPv4 */
	INC_R_TRUNCATED,        /* frame shorter than its L2/L3/L4 headers */
	INC_R_BAD_IP_HEADER,    /* IP version != 4 or IHL < 5 */
	INC_R_BAD_IP_CSUM,      /* IPv4 header checksum wrong */
	INC_R_BAD_LENGTH,       /* IP total length disagrees with the frame */
	INC_R_FRAGMENT,         /* MF set or fragment offset != 0 */
	INC_R_TOS,              /* ToS does not match */
	INC_R_NOT_TCP,          /* TX: protocol is not TCP; RX: neither TCP nor the marker */
	INC_R_BAD_TCP_HEADER,   /* TCP data offset < 5 or beyond the IP packet */
	INC_R_NO_PAYLOAD,       /* TX: TCP payload is empty */
	INC_R_NOT_SMALLER,      /* TX: compressed form would not be smaller */
	INC_R_NOT_MARKED,       /* RX: matching ToS, plain TCP: not compressed */
	INC_R_BAD_SHIM,         /* RX malformed: shim magic/version/length wrong */
	INC_R_BAD_STREAM,       /* RX malformed: stream truncated, too long or bad padding */
	INC_R_OVERSIZE,         /* frame longer than max_frame: dropped */
	INC_R_DISABLED,         /* the direction is disabled (engines, driver);
				 * the model itself never returns it */
	INC_R_OLD_VERSION,      /* RX malformed: a version 1 frame (no payload
				 * checksum), refused */
	INC_R_BAD_PAYLOAD_CSUM, /* RX dropped: the restored segment fails its
				 * TCP checksum (corrupted in transit) */
	INC_R_COUNT
};

struct inc_frame_info {
	enum inc_outcome outcome;
	enum inc_reason reason;
	uint16_t l3_off;        /* offset of the IPv4 header (14 or 18), 0 if not parsed */
	uint16_t l4_off;        /* offset of the TCP header */
	uint16_t payload_off;   /* offset of the TCP payload / shim */
	uint16_t payload_in;    /* payload bytes in (TX: TCP payload; RX: shim+stream+tail) */
	uint16_t payload_out;   /* payload bytes out */
	struct inc_class_counts counts; /* per-tag value counts of this frame */
};

/* Name of an outcome / reason for tools and logs ("compressed", "tos", ...). */
const char *inc_outcome_name(enum inc_outcome o);
const char *inc_reason_name(enum inc_reason r);

/*
 * Transmit direction: compress the TCP payload of a matching frame and set
 * its TCP checksum to that of the segment the receiver will restore (RFC
 * 1624 update of the original checksum; docs/wire-format.md).
 * in/in_len: the Ethernet frame (no FCS). out/out_cap: output buffer, which
 * must not overlap in. cfg NULL means defaults. info may be NULL.
 * Returns the output frame length (0 when dropped), or INC_ENOSPC if out_cap
 * cannot hold the output (a bypassed frame needs in_len bytes), INC_EINVAL.
 */
long inc_frame_compress(const uint8_t *in, size_t in_len, uint8_t *out,
			size_t out_cap, const struct inc_frame_config *cfg,
			struct inc_frame_info *info);

/*
 * Receive direction: decompress a marked frame back to its original length
 * and verify the TCP checksum it carries over the restored segment (a frame
 * that fails is dropped: outcome dropped, reason bad_payload_csum, return
 * 0); pass anything else through unchanged. Same conventions as
 * inc_frame_compress.
 */
long inc_frame_decompress(const uint8_t *in, size_t in_len, uint8_t *out,
			  size_t out_cap, const struct inc_frame_config *cfg,
			  struct inc_frame_info *info);

/*
 * The frame functions' hot loops as a table. inc_frame_compress and
 * inc_frame_decompress use inc_frame_kernels_model (this library's own
 * loops); a faster implementation (the user library's SIMD paths) passes
 * its own table to inc_frame_compress_k / inc_frame_decompress_k and keeps
 * everything else of frame.c: the decision order, the shim, the IP header,
 * the checksum update and verification, the outcome. Every entry must give
 * exactly the result of the model's entry for every input.
 *
 * What the frame needs to know about a payload's values besides the stream
 * itself, gathered in the same pass. Word sums are of big-endian 16-bit
 * words (the Internet checksum's), as exact integers (not folded).
 */
struct inc_stream_sums {
	uint64_t in_words;       /* compress: the words of the 4n input bytes */
	uint64_t restored_words; /* the words of the 4n bytes the stream decodes to */
	unsigned tag_sum;        /* the sum of the stream's tag words mod 2^16 */
	struct inc_class_counts counts; /* tags of the n valid lanes */
};

struct inc_frame_kernels {
	/* As inc_stream_compress (no counts); on success also fills *sums. */
	long (*stream_compress)(const uint8_t *in, size_t n_values, unsigned eb,
				uint8_t *out, size_t out_cap,
				struct inc_stream_sums *sums);
	/* As inc_stream_size. */
	long (*stream_size)(const uint8_t *in, size_t in_len, size_t n_values);
	/* As inc_stream_decompress; on success also fills *sums (in_words 0). */
	long (*stream_decompress)(const uint8_t *in, size_t in_len,
				  size_t n_values, uint8_t *out, size_t out_cap,
				  struct inc_stream_sums *sums);
};
extern const struct inc_frame_kernels inc_frame_kernels_model;

long inc_frame_compress_k(const uint8_t *in, size_t in_len, uint8_t *out,
			  size_t out_cap, const struct inc_frame_config *cfg,
			  struct inc_frame_info *info,
			  const struct inc_frame_kernels *k);
long inc_frame_decompress_k(const uint8_t *in, size_t in_len, uint8_t *out,
			    size_t out_cap, const struct inc_frame_config *cfg,
			    struct inc_frame_info *info,
			    const struct inc_frame_kernels *k);

/*
 * Parsed view of an Ethernet/IPv4/TCP frame, shared by both directions and
 * the tools. inc_frame_parse fills it and returns INC_R_NONE when the frame
 * is a well-formed, unfragmented IPv4 packet with a complete TCP header (or,
 * for protocol INC_WIRE_IPPROTO, a complete TCP header too), otherwise the
 * bypass reason. The ToS is not checked here.
 */
struct inc_frame_hdr {
	uint16_t l3_off, l4_off, payload_off;
	uint16_t ip_hlen;       /* IHL * 4 */
	uint16_t ip_total;      /* IP total length */
	uint16_t tcp_hlen;      /* data offset * 4 */
	uint16_t payload_len;   /* ip_total - ip_hlen - tcp_hlen */
	uint16_t frame_end;     /* l3_off + ip_total: end of the IP packet */
	uint8_t tos, proto;
};
enum inc_reason inc_frame_parse(const uint8_t *f, size_t len,
				struct inc_frame_hdr *h);

/*
 * Checks 1-5 of the decision order (docs/wire-format.md) on the first avail
 * bytes of a frame, for a fast path that must not touch the whole frame:
 * returns INC_R_NOT_IPV4 or INC_R_TOS when the frame certainly fails them
 * (inc_frame_compress/_decompress would bypass it for that reason), and
 * INC_R_NONE otherwise — it passes them, or the prefix is too short or the
 * IP header too odd to tell — in which case the whole frame must go to
 * inc_frame_compress/_decompress. *proto gets the IP protocol byte when the
 * IPv4 header was read, else 0. INC_FRAME_PEEK_BYTES always suffice.
 */
#define INC_FRAME_PEEK_BYTES 38u
enum inc_reason inc_frame_peek(const uint8_t *f, size_t avail,
			       const struct inc_frame_config *cfg,
			       uint8_t *proto);

/*
 * Output capacity that always suffices: inc_frame_compress never grows a
 * frame, and inc_frame_decompress never produces more than max_frame bytes
 * (or this bound when max_frame is 0: one VLAN tag plus a 64 KiB IP packet).
 */
#define INC_FRAME_OUT_MAX (18u + 65535u)

#ifdef __cplusplus
}
#endif

#endif /* INC_MODEL_H */
