// SPDX-License-Identifier: MIT
/*
 * codec.c - the per-value codec (Algorithms 2 and 3 as resolved in
 * docs/codec.md) and the group/stream format. Freestanding: integer bit
 * manipulation only.
 */
#include "inc_model.h"

static inline uint32_t ld_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline void st_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

unsigned inc_compress_value(uint32_t f, unsigned eb, uint32_t *payload)
{
	unsigned e = (f >> 23) & 0xffu;
	unsigned s = f >> 31;
	unsigned ebase, n, k, tag;
	uint32_t x, field;

	if (eb < INC_EB_MIN)
		eb = INC_EB_MIN;
	if (eb > INC_EB_MAX)
		eb = INC_EB_MAX;
	ebase = 127u - eb;

	if (e >= 127u) {                /* |f| >= 1, Inf, NaN */
		*payload = f;
		return INC_TAG_RAW;
	}
	*payload = 0;
	if (e < ebase)                  /* below the error bound */
		return INC_TAG_ZERO;

	n = 127u - e;                   /* 1 <= n <= eb */
	x = n >= 24u ? 0u : ((1u << 23) | (f & 0x7fffffu)) >> n;
	if (e >= ebase + (eb + 1u) / 2u) {
		k = 15u;
		field = (x >> 8) & 0x7fffu;
		tag = INC_TAG_16;
	} else {
		k = 7u;
		field = (x >> 16) & 0x7fu;
		tag = INC_TAG_8;
	}
	if (field == 0u)                /* nothing left after truncation */
		return INC_TAG_ZERO;
	*payload = (uint32_t)s << k | field;
	return tag;
}

uint32_t inc_decompress_value(unsigned tag, uint32_t payload)
{
	unsigned k, p;
	uint32_t s, field;

	switch (tag & 3u) {
	case INC_TAG_ZERO:
		return 0;
	case INC_TAG_RAW:
		return payload;
	case INC_TAG_8:
		k = 7u;
		break;
	default:
		k = 15u;
		break;
	}
	s = (payload >> k) & 1u;
	field = payload & ((1u << k) - 1u);
	if (field == 0u)                /* never produced by the encoder */
		return s << 31;
	p = 31u - (unsigned)__builtin_clz(field);
	return s << 31 | (uint32_t)(127u - (k - p)) << 23 |
	       (field & ~(1u << p)) << (23u - p);
}

unsigned inc_group_size(uint16_t tagword)
{
	unsigned size = 2, i;

	for (i = 0; i < INC_GROUP_VALUES; i++)
		size += inc_tag_bytes(tagword >> (2 * i));
	return size;
}

unsigned inc_group_encode(const uint8_t *in, unsigned nvalid, unsigned eb,
			  uint8_t *out, struct inc_class_counts *counts)
{
	unsigned pos = 2, i, tag, nb, b;
	uint16_t tagword = 0;
	uint32_t payload;

	if (nvalid > INC_GROUP_VALUES)
		nvalid = INC_GROUP_VALUES;
	for (i = 0; i < nvalid; i++) {
		tag = inc_compress_value(ld_le32(in + 4 * i), eb, &payload);
		tagword |= (uint16_t)(tag << (2 * i));
		nb = inc_tag_bytes(tag);
		for (b = 0; b < nb; b++)
			out[pos++] = (uint8_t)(payload >> (8 * b));
		if (counts)
			counts->n[tag]++;
	}
	out[0] = (uint8_t)tagword;
	out[1] = (uint8_t)(tagword >> 8);
	return pos;
}

long inc_group_decode(const uint8_t *in, size_t in_len, unsigned nvalid,
		      uint8_t *out)
{
	uint16_t tagword;
	unsigned size, pos = 2, i, tag, nb, b;
	uint32_t payload;

	if (nvalid > INC_GROUP_VALUES)
		return INC_EINVAL;
	if (in_len < 2)
		return INC_ETRUNC;
	tagword = (uint16_t)(in[0] | in[1] << 8);
	if (nvalid < INC_GROUP_VALUES && (tagword >> (2 * nvalid)) != 0)
		return INC_EMALFORMED;
	size = inc_group_size(tagword);
	if (size > in_len)
		return INC_ETRUNC;
	for (i = 0; i < nvalid; i++) {
		tag = (tagword >> (2 * i)) & 3u;
		nb = inc_tag_bytes(tag);
		payload = 0;
		for (b = 0; b < nb; b++)
			payload |= (uint32_t)in[pos++] << (8 * b);
		st_le32(out + 4 * i, inc_decompress_value(tag, payload));
	}
	return (long)size;
}

long inc_stream_compress(const uint8_t *in, size_t n_values, unsigned eb,
			 uint8_t *out, size_t out_cap,
			 struct inc_class_counts *counts)
{
	uint8_t grp[INC_GROUP_MAX_BYTES];
	size_t pos = 0, i;
	unsigned nv, size;

	if ((!in && n_values) || (!out && out_cap))
		return INC_EINVAL;
	for (i = 0; i < n_values; i += INC_GROUP_VALUES) {
		nv = n_values - i < INC_GROUP_VALUES ? (unsigned)(n_values - i)
						     : INC_GROUP_VALUES;
		if (out_cap - pos >= INC_GROUP_MAX_BYTES) {
			pos += inc_group_encode(in + 4 * i, nv, eb, out + pos,
						counts);
			continue;
		}
		size = inc_group_encode(in + 4 * i, nv, eb, grp, counts);
		if (size > out_cap - pos)
			return INC_ENOSPC;
		memcpy(out + pos, grp, size);
		pos += size;
	}
	return (long)pos;
}

long inc_stream_decompress(const uint8_t *in, size_t in_len, size_t n_values,
			   uint8_t *out, size_t out_cap)
{
	size_t pos = 0, i;
	unsigned nv;
	long r;

	if ((!in && in_len) || (!out && n_values))
		return INC_EINVAL;
	if (n_values > out_cap / 4)
		return INC_ENOSPC;
	for (i = 0; i < n_values; i += INC_GROUP_VALUES) {
		nv = n_values - i < INC_GROUP_VALUES ? (unsigned)(n_values - i)
						     : INC_GROUP_VALUES;
		r = inc_group_decode(in + pos, in_len - pos, nv, out + 4 * i);
		if (r < 0)
			return r;
		pos += (size_t)r;
	}
	return (long)pos;
}

long inc_stream_size(const uint8_t *in, size_t in_len, size_t n_values)
{
	size_t pos = 0, i;
	unsigned nv, size;
	uint16_t tagword;

	if (!in && in_len)
		return INC_EINVAL;
	for (i = 0; i < n_values; i += INC_GROUP_VALUES) {
		nv = n_values - i < INC_GROUP_VALUES ? (unsigned)(n_values - i)
						     : INC_GROUP_VALUES;
		if (in_len - pos < 2)
			return INC_ETRUNC;
		tagword = (uint16_t)(in[pos] | in[pos + 1] << 8);
		if (nv < INC_GROUP_VALUES && (tagword >> (2 * nv)) != 0)
			return INC_EMALFORMED;
		size = inc_group_size(tagword);
		if (size > in_len - pos)
			return INC_ETRUNC;
		pos += size;
	}
	return (long)pos;
}

uint32_t inc_csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
	uint64_t acc = sum;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		acc += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (len & 1)
		acc += (uint32_t)p[len - 1] << 8;
	while (acc >> 32)
		acc = (acc & 0xffffffffu) + (acc >> 32);
	return (uint32_t)acc;
}

uint16_t inc_csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffffu) + (sum >> 16);
	return (uint16_t)~sum;
}
