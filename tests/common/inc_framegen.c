// SPDX-License-Identifier: MIT
/* inc_framegen.c - test frame builder; see inc_framegen.h. */
#include "inc_framegen.h"
#include "inc_model.h"

#include <string.h>

static void be16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void be32(uint8_t *p, uint32_t v)
{
	be16(p, v >> 16);
	be16(p + 2, v & 0xffffu);
}

void inc_fg_defaults(struct inc_fg_frame *f)
{
	memset(f, 0, sizeof(*f));
	f->tos = INC_TOS_DEFAULT;
	f->proto = 6;
	f->frag = 0x4000;
	f->saddr = 0x0a000001;
	f->daddr = 0x0a000002;
	f->sport = 40000;
	f->dport = 5201;
	f->seq = 1;
}

size_t inc_fg_build(uint8_t *out, size_t cap, const struct inc_fg_frame *f)
{
	static const uint8_t mac[12] = { 0x02, 0, 0, 0, 0, 0x02,
					 0x02, 0, 0, 0, 0, 0x01 };
	size_t l3 = f->vlan ? 18 : 14;
	size_t iphl = 20 + f->ip_opt_len;
	size_t l4hl = f->proto == 6 ? 20 + f->tcp_opt_len : 8;
	size_t total = iphl + l4hl + f->payload_len;
	size_t i, len = l3 + total;
	uint8_t *ip, *l4;
	uint32_t sum;

	if (len > cap || total > 65535 || f->ip_opt_len > 40 ||
	    f->tcp_opt_len > 40 || (f->ip_opt_len | f->tcp_opt_len) & 3)
		return 0;
	memcpy(out, mac, 12);
	if (f->vlan) {
		be16(out + 12, 0x8100);
		be16(out + 14, f->vlan_tci);
	}
	be16(out + l3 - 2, 0x0800);
	ip = out + l3;
	ip[0] = (uint8_t)(0x40 | iphl / 4);
	ip[1] = f->tos;
	be16(ip + 2, (unsigned)total);
	be16(ip + 4, (unsigned)(f->seq * 7u));
	be16(ip + 6, f->frag);
	ip[8] = 64;
	ip[9] = f->proto;
	be16(ip + 10, 0);
	be32(ip + 12, f->saddr);
	be32(ip + 16, f->daddr);
	/* Options: NOPs ending in an end-of-list, a valid IPv4 option area. */
	for (i = 0; i < f->ip_opt_len; i++)
		ip[20 + i] = i + 1 == f->ip_opt_len ? 0 : 1;
	be16(ip + 10, inc_csum_fold(inc_csum_add(0, ip, iphl)));

	l4 = ip + iphl;
	memset(l4, 0, l4hl);
	be16(l4, f->sport);
	be16(l4 + 2, f->dport);
	if (f->proto == 6) {
		be32(l4 + 4, f->seq);
		be32(l4 + 8, 1);
		l4[12] = (uint8_t)((l4hl / 4) << 4);
		l4[13] = 0x18;          /* PSH, ACK */
		be16(l4 + 14, 502);
		if (f->tcp_opt_len >= 12) { /* NOP NOP timestamp, then NOPs */
			l4[20] = 1;
			l4[21] = 1;
			l4[22] = 8;
			l4[23] = 10;
			be32(l4 + 24, f->seq ^ 0x5a5a5a5au);
			be32(l4 + 28, 12345);
			for (i = 12; i < f->tcp_opt_len; i++)
				l4[20 + i] = 1;
		} else {
			for (i = 0; i < f->tcp_opt_len; i++)
				l4[20 + i] = 1;
		}
	} else {
		be16(l4 + 4, (unsigned)(l4hl + f->payload_len));
	}
	if (f->payload_len)
		memcpy(l4 + l4hl, f->payload, f->payload_len);
	if (f->proto == 6) {
		sum = inc_csum_add(0, ip + 12, 8);
		sum += 6u + (uint32_t)(total - iphl);
		sum = inc_csum_add(sum, l4, total - iphl);
		be16(l4 + 16, inc_csum_fold(sum));
	}
	return len;
}

uint64_t inc_fg_rand(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dULL;
}

/* A float bit pattern with exponent e, random sign and mantissa. */
static uint32_t fbits(unsigned e, uint64_t *rng)
{
	uint64_t r = inc_fg_rand(rng);

	return (uint32_t)(r >> 63) << 31 | (uint32_t)(e & 0xff) << 23 |
	       (uint32_t)(r & 0x7fffff);
}

static uint32_t value(enum inc_fg_mix mix, uint64_t *rng)
{
	uint64_t r = inc_fg_rand(rng);
	unsigned pick = (unsigned)(r % 1000);

	switch (mix) {
	case INC_FG_ZERO:
		return fbits(60 + (unsigned)(r >> 40) % 50, rng);  /* < 2^-17 */
	case INC_FG_INCOMPRESSIBLE:
		return fbits(127 + (unsigned)(r >> 40) % 20, rng);
	case INC_FG_RANDOM_BITS:
		return (uint32_t)(r >> 16);
	case INC_FG_BOUNDARY: {
		unsigned e = 100 + (unsigned)(r >> 40) % 30;
		uint32_t m = (r >> 20) & 1 ? 0 : 0x7fffff;

		if ((r >> 21) % 4 == 0)
			m = (uint32_t)1 << ((r >> 24) % 23);
		return (uint32_t)((r >> 63) << 31) | e << 23 | m;
	}
	default:
		/* Gradient-like, shaped after Table III at eb = 10:
		 * ~85% tiny, ~8% in the 8-bit range, ~6% 16-bit, ~1% >= 1. */
		if (pick < 850)
			return fbits(90 + (unsigned)(r >> 40) % 27, rng);
		if (pick < 930)
			return fbits(117 + (unsigned)(r >> 40) % 5, rng);
		if (pick < 990)
			return fbits(122 + (unsigned)(r >> 40) % 5, rng);
		return fbits(127 + (unsigned)(r >> 40) % 3, rng);
	}
}

void inc_fg_payload(uint8_t *out, size_t len, enum inc_fg_mix mix,
		    uint64_t *rng)
{
	size_t i;
	uint32_t v;

	for (i = 0; i + 4 <= len; i += 4) {
		v = value(mix, rng);
		memcpy(out + i, &v, 4);   /* little-endian hosts only */
	}
	for (; i < len; i++)
		out[i] = (uint8_t)inc_fg_rand(rng);
}

size_t inc_fg_random(uint8_t *out, size_t cap, size_t max_len, int allow_marked,
		     uint64_t *rng)
{
	static uint8_t payload[65536];
	static uint8_t tmp[65536 + 64];
	struct inc_fg_frame f;
	uint64_t r = inc_fg_rand(rng);
	unsigned kind = (unsigned)(r % 100);
	size_t hdr, len, maxp, plen;
	long n;

	if (max_len > cap)
		max_len = cap;
	if (max_len > sizeof(tmp))
		max_len = sizeof(tmp);
	inc_fg_defaults(&f);
	f.vlan = (r >> 8) % 4 == 0;
	f.vlan_tci = (uint16_t)(r >> 16);
	f.ip_opt_len = (r >> 20) % 5 == 0 ? 4 * (unsigned)((r >> 24) % 11) : 0;
	f.tcp_opt_len = (r >> 28) % 2 ? 12 : 4 * (unsigned)((r >> 32) % 11);
	f.seq = (uint32_t)(r >> 32);
	if (kind < 8)
		f.tos = (uint8_t)inc_fg_rand(rng);       /* random ToS */
	else if (kind < 10)
		f.tos = (uint8_t)(0x28 | ((r >> 40) & 3)); /* ECN bits */
	else if (kind < 14)
		f.proto = (uint8_t)(17 + (r >> 40) % 3 * 70); /* UDP, 87, 157 */
	else if (kind < 17)
		f.frag = (r >> 40) & 1 ? 0x2000 : (uint16_t)(0x0001 + (r >> 41) % 100);

	hdr = (f.vlan ? 18 : 14) + 20 + f.ip_opt_len +
	      (f.proto == 6 ? 20 + f.tcp_opt_len : 8);
	if (max_len < hdr) {
		len = (size_t)(inc_fg_rand(rng) % (max_len + 1));
		inc_fg_payload(out, len, INC_FG_RANDOM_BITS, rng);
		return len;
	}
	maxp = max_len - hdr;
	switch ((r >> 44) % 8) {
	case 0:
		plen = 0;
		break;
	case 1:
		plen = (size_t)(inc_fg_rand(rng) % 16);
		break;
	case 2:
		plen = maxp;
		break;
	default:
		plen = (size_t)(inc_fg_rand(rng) % (maxp + 1));
		break;
	}
	if (plen > maxp)
		plen = maxp;
	if ((r >> 47) % 4)           /* mostly float-aligned payloads */
		plen &= ~(size_t)3;
	inc_fg_payload(payload, plen, (enum inc_fg_mix)((r >> 50) % INC_FG_MIX_COUNT), rng);
	f.payload = payload;
	f.payload_len = plen;
	len = inc_fg_build(out, cap, &f);
	if (!len)
		return 0;

	/* Marked frames: compress with the model, then maybe corrupt. */
	if (allow_marked && kind >= 17 && kind < 35) {
		n = inc_frame_compress(out, len, tmp, sizeof(tmp), NULL, NULL);
		if (n > 0 && (size_t)n <= cap) {
			memcpy(out, tmp, (size_t)n);
			len = (size_t)n;
		}
	}
	/* Corruptions, each on a few percent of frames. */
	switch (inc_fg_rand(rng) % 40) {
	case 0: /* runt: cut anywhere */
		len = (size_t)(inc_fg_rand(rng) % (len + 1));
		break;
	case 1: /* lying IP total length (checksum fixed up) */
	case 2: {
		size_t l3 = f.vlan ? 18 : 14;
		unsigned tl = (unsigned)(inc_fg_rand(rng) & 0xffff);

		if (len >= l3 + 20 + f.ip_opt_len) {
			be16(out + l3 + 2, tl);
			be16(out + l3 + 10, 0);
			be16(out + l3 + 10, inc_csum_fold(inc_csum_add(0, out + l3, 20 + f.ip_opt_len)));
		}
		break;
	}
	case 3: /* flip a random byte anywhere */
	case 4:
		if (len)
			out[inc_fg_rand(rng) % len] ^= (uint8_t)(1 + inc_fg_rand(rng) % 255);
		break;
	case 5: /* bad IHL */
		if (len > (size_t)(f.vlan ? 18 : 14))
			out[f.vlan ? 18 : 14] = (uint8_t)(0x40 | (inc_fg_rand(rng) % 5));
		break;
	case 6: /* stacked VLAN */
		if (len >= 18 && len + 4 <= cap && len + 4 <= max_len) {
			memmove(out + 16, out + 12, len - 12);
			be16(out + 12, 0x8100);
			be16(out + 14, 7);
			len += 4;
		}
		break;
	case 7: /* trailing garbage (Ethernet padding or lying frame) */
		if (len + 8 <= cap && len + 8 <= max_len) {
			memset(out + len, 0, 8);
			len += 8;
		}
		break;
	default:
		break;
	}
	return len;
}
