// SPDX-License-Identifier: MIT
/*
 * frame.c - the INCEPTIONN frame (wire) format, version 2. See
 * docs/wire-format.md for the byte-by-byte layout and the decision order;
 * the RTL ToS matcher implements the same order, so keep them in step.
 */
#include "inc_model.h"

#define ETH_HLEN_      14u
#define VLAN_HLEN_     4u
#define ETHERTYPE_IPV4 0x0800u
#define ETHERTYPE_VLAN 0x8100u
#define IPPROTO_TCP_   6u
#define IP_MIN_HLEN    20u
#define TCP_MIN_HLEN   20u
#define IP_MAX_TOTAL   65535u

static inline unsigned ld_be16(const uint8_t *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

static inline void st_be16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

void inc_frame_config_default(struct inc_frame_config *cfg)
{
	cfg->tos_value = INC_TOS_DEFAULT;
	cfg->tos_mask = INC_TOS_MASK_DEFAULT;
	cfg->eb = INC_EB_DEFAULT;
	cfg->max_frame = INC_MAX_FRAME_DEFAULT;
}

/*
 * Header checks in the normative order (docs/wire-format.md, "Decision
 * order"). tos_mask 0 disables the ToS check. rx selects which protocols
 * pass: TX wants TCP only, RX wants TCP or the marker protocol.
 */
/* Checks 1-5: the ones that need only the first INC_FRAME_PEEK_BYTES. */
static enum inc_reason parse_prefix(const uint8_t *f, size_t len,
				    unsigned tos_value, unsigned tos_mask,
				    struct inc_frame_hdr *h)
{
	unsigned l3 = ETH_HLEN_, type, ihl;

	memset(h, 0, sizeof(*h));
	if (len < ETH_HLEN_)
		return INC_R_TRUNCATED;
	type = ld_be16(f + 12);
	if (type == ETHERTYPE_VLAN) {
		if (len < ETH_HLEN_ + VLAN_HLEN_)
			return INC_R_TRUNCATED;
		type = ld_be16(f + 16);
		l3 += VLAN_HLEN_;
	}
	if (type != ETHERTYPE_IPV4)
		return INC_R_NOT_IPV4;
	h->l3_off = (uint16_t)l3;
	if (len < l3 + IP_MIN_HLEN)
		return INC_R_TRUNCATED;
	ihl = f[l3] & 0xfu;
	if ((f[l3] >> 4) != 4u || ihl < 5u)
		return INC_R_BAD_IP_HEADER;
	h->ip_hlen = (uint16_t)(ihl * 4u);
	h->tos = f[l3 + 1];
	h->proto = f[l3 + 9];
	if ((h->tos & tos_mask) != (tos_value & tos_mask))
		return INC_R_TOS;
	return INC_R_NONE;
}

static enum inc_reason parse(const uint8_t *f, size_t len, unsigned tos_value,
			     unsigned tos_mask, int rx,
			     struct inc_frame_hdr *h)
{
	enum inc_reason r = parse_prefix(f, len, tos_value, tos_mask, h);
	unsigned l3 = h->l3_off, total, frag, doff;

	if (r != INC_R_NONE)
		return r;
	if (len < l3 + h->ip_hlen)
		return INC_R_TRUNCATED;
	if (inc_csum_fold(inc_csum_add(0, f + l3, h->ip_hlen)) != 0)
		return INC_R_BAD_IP_CSUM;
	total = ld_be16(f + l3 + 2);
	h->ip_total = (uint16_t)total;
	if (total < h->ip_hlen || l3 + total > len ||
	    (l3 + total < len && len > INC_PAD_FRAME_MAX))
		return INC_R_BAD_LENGTH;
	h->frame_end = (uint16_t)(l3 + total);
	frag = ld_be16(f + l3 + 6);
	if (frag & 0x3fffu)             /* MF or a fragment offset */
		return INC_R_FRAGMENT;
	if (h->proto != IPPROTO_TCP_ && !(rx && h->proto == INC_WIRE_IPPROTO))
		return INC_R_NOT_TCP;
	h->l4_off = (uint16_t)(l3 + h->ip_hlen);
	if (total < h->ip_hlen + TCP_MIN_HLEN)
		return INC_R_BAD_TCP_HEADER;
	doff = f[h->l4_off + 12] >> 4;
	h->tcp_hlen = (uint16_t)(doff * 4u);
	if (doff < 5u || h->ip_hlen + h->tcp_hlen > total)
		return INC_R_BAD_TCP_HEADER;
	h->payload_off = (uint16_t)(h->l4_off + h->tcp_hlen);
	h->payload_len = (uint16_t)(total - h->ip_hlen - h->tcp_hlen);
	return INC_R_NONE;
}

enum inc_reason inc_frame_parse(const uint8_t *f, size_t len,
				struct inc_frame_hdr *h)
{
	return parse(f, len, 0, 0, 1, h);
}

enum inc_reason inc_frame_peek(const uint8_t *f, size_t avail,
			       const struct inc_frame_config *cfg,
			       uint8_t *proto)
{
	struct inc_frame_config defcfg;
	struct inc_frame_hdr h;
	enum inc_reason r;

	if (!cfg) {
		inc_frame_config_default(&defcfg);
		cfg = &defcfg;
	}
	r = parse_prefix(f, avail, cfg->tos_value, cfg->tos_mask, &h);
	*proto = h.proto;
	/* A short prefix or a bad IP header: only the whole frame can tell. */
	return r == INC_R_NOT_IPV4 || r == INC_R_TOS ? r : INC_R_NONE;
}

static void ip_set_total(uint8_t *f, const struct inc_frame_hdr *h,
			 unsigned proto, unsigned total)
{
	uint8_t *ip = f + h->l3_off;

	ip[9] = (uint8_t)proto;
	st_be16(ip + 2, total);
	st_be16(ip + 10, 0);
	st_be16(ip + 10, inc_csum_fold(inc_csum_add(0, ip, h->ip_hlen)));
}

static long frame_bypass(const uint8_t *in, size_t in_len, uint8_t *out,
			 struct inc_frame_info *info, enum inc_outcome o,
			 enum inc_reason r)
{
	info->outcome = o;
	info->reason = r;
	info->payload_out = info->payload_in;
	memset(&info->counts, 0, sizeof(info->counts));
	memcpy(out, in, in_len);
	return (long)in_len;
}

/* Per-call state shared by both directions. */
struct frame_ctx {
	struct inc_frame_config defcfg;
	struct inc_frame_info tmp;
	const struct inc_frame_config *cfg;
	struct inc_frame_info *info;
	struct inc_frame_hdr h;
};

/* frame_begin's answer when the caller goes on with the payload. */
#define FRAME_CONTINUE (-1000L)

/*
 * Common prologue: arguments and defaults, the size limit, then the header
 * checks; a frame that fails them is dropped or bypassed here. Returns the
 * final result (output length or error), or FRAME_CONTINUE.
 */
static long frame_begin(struct frame_ctx *c, const uint8_t *in, size_t in_len,
			uint8_t *out, size_t out_cap,
			const struct inc_frame_config *cfg,
			struct inc_frame_info *info, int rx)
{
	if (!in || !out)
		return INC_EINVAL;
	if (!cfg) {
		inc_frame_config_default(&c->defcfg);
		cfg = &c->defcfg;
	}
	c->cfg = cfg;
	c->info = info = info ? info : &c->tmp;
	memset(info, 0, sizeof(*info));
	if (cfg->max_frame && in_len > cfg->max_frame) {
		info->outcome = INC_OUT_DROPPED;
		info->reason = INC_R_OVERSIZE;
		return 0;
	}
	info->reason = parse(in, in_len, cfg->tos_value, cfg->tos_mask, rx,
			     &c->h);
	info->l3_off = c->h.l3_off;
	info->l4_off = c->h.l4_off;
	info->payload_off = c->h.payload_off;
	info->payload_in = c->h.payload_len;
	if (out_cap < in_len)
		return INC_ENOSPC;
	if (info->reason != INC_R_NONE)
		return frame_bypass(in, in_len, out, info, INC_OUT_BYPASS,
				    info->reason);
	return FRAME_CONTINUE;
}

/* The model's hot loops (struct inc_frame_kernels). */
static uint64_t word_sum(const uint8_t *p, size_t len)
{
	uint64_t s = 0;
	size_t k;

	for (k = 0; k + 1 < len; k += 2)
		s += ld_be16(p + k);
	return s;
}

/* Over a valid stream of n values: the tag-word sum and the class counts,
 * and with restored the words of the decoded values. */
static void stream_walk(const uint8_t *g, size_t n, int restored,
			struct inc_stream_sums *sums)
{
	const uint8_t *p;
	size_t i, lanes, j;
	unsigned tw, tag, ts = 0;
	uint64_t acc = 0;
	uint32_t pl, q;

	for (i = 0; i < n; i += INC_GROUP_VALUES) {
		lanes = n - i < INC_GROUP_VALUES ? n - i : INC_GROUP_VALUES;
		tw = (unsigned)g[0] | (unsigned)g[1] << 8;
		ts += tw;
		if (!tw) {
			sums->counts.n[INC_TAG_ZERO] += lanes;
			g += 2;
			continue;
		}
		p = g + 2;
		for (j = 0; j < lanes; j++) {
			tag = (tw >> (2 * j)) & 3u;
			sums->counts.n[tag]++;
			if (!restored || tag == INC_TAG_ZERO)
				continue;
			if (tag == INC_TAG_RAW) {
				q = (uint32_t)p[0] | (uint32_t)p[1] << 8 |
				    (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
			} else {
				pl = tag == INC_TAG_8 ? p[0] : ((uint32_t)p[0] | (uint32_t)p[1] << 8);
				q = inc_decompress_value(tag, pl);
			}
			p += inc_tag_bytes(tag);
			/* q's bytes in memory (little-endian) as two words */
			acc += ((q & 0xffu) << 8 | (q >> 8 & 0xffu)) +
			       ((q >> 16 & 0xffu) << 8 | (q >> 24));
		}
		g += inc_group_size((uint16_t)tw);
	}
	sums->restored_words = acc;
	sums->tag_sum = ts & 0xffffu;
}

static long model_stream_compress(const uint8_t *in, size_t n, unsigned eb,
				  uint8_t *out, size_t out_cap,
				  struct inc_stream_sums *sums)
{
	long r = inc_stream_compress(in, n, eb, out, out_cap, NULL);

	if (r < 0)
		return r;
	memset(sums, 0, sizeof(*sums));
	stream_walk(out, n, 1, sums);
	sums->in_words = word_sum(in, 4u * n);
	return r;
}

static long model_stream_decompress(const uint8_t *in, size_t in_len, size_t n,
				    uint8_t *out, size_t out_cap,
				    struct inc_stream_sums *sums)
{
	long r = inc_stream_decompress(in, in_len, n, out, out_cap);

	if (r < 0)
		return r;
	memset(sums, 0, sizeof(*sums));
	stream_walk(in, n, 0, sums);
	sums->restored_words = word_sum(out, 4u * n);
	return r;
}

const struct inc_frame_kernels inc_frame_kernels_model = {
	.stream_compress = model_stream_compress,
	.stream_size = inc_stream_size,
	.stream_decompress = model_stream_decompress,
};

/* Fold a 64-bit one's-complement accumulator to 32 bits. */
static uint32_t fold32(uint64_t acc)
{
	while (acc >> 32)
		acc = (acc & 0xffffffffu) + (acc >> 32);
	return (uint32_t)acc;
}

/*
 * The TCP checksum of the segment the receiver restores, from the sender's
 * checksum csum by the update of RFC 1624 (eqn. 3): HC' = ~(~HC + ~m + m'),
 * with one term per 16-bit word of the n values: the restored word
 * (decode(encode(x)), from the stream just written) and the complement of
 * the original one. The tail is the same on both sides and adds nothing.
 * The integer sum of all those terms (no term folded on its own, the
 * original's sum not folded and complemented first) makes the result one
 * defined value that the compress engine reproduces; it is computed here
 * as sum(~x_w) over all words at once, sum(0xffff - x_w) = 0xffff * 2n -
 * sum(x_w), plus the restored words of the stream (zero for tag 0).
 */
static uint16_t v2_csum(unsigned csum, uint64_t orig_words, size_t n,
			uint64_t restored_words)
{
	uint64_t acc = (~csum & 0xffffu);

	acc += (uint64_t)0xffffu * 2u * n - orig_words;
	acc += restored_words;
	return inc_csum_fold(fold32(acc));
}

long inc_frame_compress_k(const uint8_t *in, size_t in_len, uint8_t *out,
			  size_t out_cap, const struct inc_frame_config *cfg,
			  struct inc_frame_info *info,
			  const struct inc_frame_kernels *k)
{
	struct frame_ctx c;
	const struct inc_frame_hdr *h = &c.h;
	size_t n, tail, cap;
	long r, slen;
	uint8_t *shim;
	struct inc_stream_sums sums;

	if (!k)
		return INC_EINVAL;
	r = frame_begin(&c, in, in_len, out, out_cap, cfg, info, 0);
	if (r != FRAME_CONTINUE)
		return r;
	cfg = c.cfg;
	info = c.info;
	if (h->payload_len == 0)
		return frame_bypass(in, in_len, out, info, INC_OUT_BYPASS,
				    INC_R_NO_PAYLOAD);

	n = h->payload_len / 4u;
	tail = h->payload_len % 4u;
	/* The stream must leave the frame strictly smaller. */
	if (h->payload_len <= INC_WIRE_SHIM_BYTES + tail)
		return frame_bypass(in, in_len, out, info, INC_OUT_BYPASS,
				    INC_R_NOT_SMALLER);
	cap = h->payload_len - INC_WIRE_SHIM_BYTES - tail - 1u;
	shim = out + h->payload_off;
	slen = k->stream_compress(in + h->payload_off, n, cfg->eb,
				  shim + INC_WIRE_SHIM_BYTES, cap, &sums);
	if (slen < 0)
		return frame_bypass(in, in_len, out, info, INC_OUT_BYPASS,
				    INC_R_NOT_SMALLER);

	memcpy(out, in, h->payload_off);
	shim[0] = INC_WIRE_MAGIC;
	shim[1] = INC_WIRE_VERSION;
	st_be16(shim + 2, h->payload_len);
	memcpy(shim + INC_WIRE_SHIM_BYTES + slen,
	       in + h->payload_off + 4u * n, tail);
	info->payload_out =
		(uint16_t)(INC_WIRE_SHIM_BYTES + (size_t)slen + tail);
	ip_set_total(out, h, INC_WIRE_IPPROTO,
		     (unsigned)h->ip_hlen + h->tcp_hlen + info->payload_out);
	st_be16(out + h->l4_off + 16,
		v2_csum(ld_be16(in + h->l4_off + 16), sums.in_words, n,
			sums.restored_words));
	st_be16(shim + 4, sums.tag_sum);
	info->counts = sums.counts;
	info->outcome = INC_OUT_COMPRESSED;
	return (long)h->payload_off + info->payload_out;
}

long inc_frame_decompress_k(const uint8_t *in, size_t in_len, uint8_t *out,
			    size_t out_cap, const struct inc_frame_config *cfg,
			    struct inc_frame_info *info,
			    const struct inc_frame_kernels *k)
{
	struct frame_ctx c;
	const struct inc_frame_hdr *h = &c.h;
	const uint8_t *shim;
	size_t orig_len, orig_total, out_len, n, tail, avail;
	struct inc_stream_sums sums;
	uint32_t sum;
	long r;

	if (!k)
		return INC_EINVAL;
	r = frame_begin(&c, in, in_len, out, out_cap, cfg, info, 1);
	if (r != FRAME_CONTINUE)
		return r;
	cfg = c.cfg;
	info = c.info;
	if (h->proto != INC_WIRE_IPPROTO)
		return frame_bypass(in, in_len, out, info, INC_OUT_BYPASS,
				    INC_R_NOT_MARKED);

	/* A marked frame: validate everything before writing anything. */
	shim = in + h->payload_off;
	if (h->payload_len < INC_WIRE_SHIM_BYTES || shim[0] != INC_WIRE_MAGIC)
		return frame_bypass(in, in_len, out, info, INC_OUT_MALFORMED,
				    INC_R_BAD_SHIM);
	if (shim[1] == INC_WIRE_VERSION_V1)
		return frame_bypass(in, in_len, out, info, INC_OUT_MALFORMED,
				    INC_R_OLD_VERSION);
	if (shim[1] != INC_WIRE_VERSION)
		return frame_bypass(in, in_len, out, info, INC_OUT_MALFORMED,
				    INC_R_BAD_SHIM);
	orig_len = ld_be16(shim + 2);
	orig_total = (size_t)h->ip_hlen + h->tcp_hlen + orig_len;
	out_len = h->l3_off + orig_total;
	if (orig_total > IP_MAX_TOTAL ||
	    (cfg->max_frame && out_len > cfg->max_frame))
		return frame_bypass(in, in_len, out, info, INC_OUT_MALFORMED,
				    INC_R_BAD_SHIM);
	n = orig_len / 4u;
	tail = orig_len % 4u;
	avail = h->payload_len - INC_WIRE_SHIM_BYTES;
	if (avail < tail)
		return frame_bypass(in, in_len, out, info, INC_OUT_MALFORMED,
				    INC_R_BAD_STREAM);
	if (out_cap < out_len) {
		/* A malformed stream is reported before a short buffer. */
		if (k->stream_size(shim + INC_WIRE_SHIM_BYTES, avail - tail, n) !=
		    (long)(avail - tail))
			return frame_bypass(in, in_len, out, info, INC_OUT_MALFORMED,
					    INC_R_BAD_STREAM);
		return INC_ENOSPC;
	}

	/* The stream must decode to exactly its bytes: the decoder makes the
	 * checks of inc_stream_size (truncated group, padding lanes) in the
	 * same order and returns the same size or error, so one walk both
	 * validates and decodes. What it wrote is not delivered unless it
	 * passes: a malformed frame goes out as it came in. */
	memcpy(out, in, h->payload_off);
	r = k->stream_decompress(shim + INC_WIRE_SHIM_BYTES, avail - tail, n,
				 out + h->payload_off, out_cap - h->payload_off,
				 &sums);
	if (r != (long)(avail - tail))
		return frame_bypass(in, in_len, out, info, INC_OUT_MALFORMED,
				    INC_R_BAD_STREAM);
	memcpy(out + h->payload_off + 4u * n, in + h->frame_end - tail, tail);
	ip_set_total(out, h, IPPROTO_TCP_, (unsigned)orig_total);

	/* The carried TCP checksum must verify over the pseudo-header and the
	 * restored segment (it is checked, never recomputed), and the tag
	 * words must sum to the shim's value: the Internet checksum cannot see
	 * a changed tag word that moves values between lanes. */
	sum = inc_csum_add(0, out + h->l3_off + 12, 8);
	sum += IPPROTO_TCP_ + (uint32_t)(orig_total - h->ip_hlen);
	sum = inc_csum_add(sum, out + h->l4_off, h->tcp_hlen);
	sum = fold32((uint64_t)sum + sums.restored_words);
	sum = inc_csum_add(sum, out + h->payload_off + 4u * n, tail);
	if (inc_csum_fold(sum) != 0 || sums.tag_sum != ld_be16(shim + 4)) {
		memset(&info->counts, 0, sizeof(info->counts));
		info->outcome = INC_OUT_DROPPED;
		info->reason = INC_R_BAD_PAYLOAD_CSUM;
		return 0;
	}
	info->counts = sums.counts;
	info->outcome = INC_OUT_DECOMPRESSED;
	info->payload_out = (uint16_t)orig_len;
	return (long)out_len;
}

long inc_frame_compress(const uint8_t *in, size_t in_len, uint8_t *out,
			size_t out_cap, const struct inc_frame_config *cfg,
			struct inc_frame_info *info)
{
	return inc_frame_compress_k(in, in_len, out, out_cap, cfg, info,
				    &inc_frame_kernels_model);
}

long inc_frame_decompress(const uint8_t *in, size_t in_len, uint8_t *out,
			  size_t out_cap, const struct inc_frame_config *cfg,
			  struct inc_frame_info *info)
{
	return inc_frame_decompress_k(in, in_len, out, out_cap, cfg, info,
				      &inc_frame_kernels_model);
}
