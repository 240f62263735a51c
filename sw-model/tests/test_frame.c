// SPDX-License-Identifier: MIT
/*
 * test_frame.c - the frame API (docs/wire-format.md) under ASan/UBSan.
 *
 * 1. Random frames from inc_fg_random (every bypass reason, marked and
 *    corrupted frames): inc_frame_compress and inc_frame_decompress with
 *    output buffers of exactly the size the API promises to need. Every call
 *    ends in a bypass or malformed (output identical to the input), a
 *    compressed or decompressed frame (checked in full), a drop, or a clean
 *    negative error.
 * 2. Hand-made cases, one per rule of the decision order, each checked
 *    against the reason code the table in docs/wire-format.md gives.
 *
 * Checksums are verified with a small RFC 1071 implementation of this file,
 * independent of the model's helpers.
 */
#include "inc_model.h"
#include "inc_framegen.h"
#include "inc_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_RANDOM 120000u
#define SH INC_WIRE_SHIM_BYTES

static unsigned long outcome_hist[2][INC_OUT_COUNT];
static unsigned long reason_hist[2][INC_R_COUNT];
static unsigned long n_errors;
static unsigned long n_round_trips[2];   /* [sender's TCP checksum valid] */

/* ---- helpers --------------------------------------------------------- */
static unsigned be16(const uint8_t *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

static void put16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint32_t ld32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* RFC 1071 sum of 16-bit big-endian words, not folded. */
static uint64_t ref_sum(uint64_t acc, const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		acc += be16(p + i);
	if (len & 1)
		acc += (unsigned)p[len - 1] << 8;
	return acc;
}

static unsigned ref_fold(uint64_t acc)
{
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	return (unsigned)acc;
}

static int ip_csum_ok(const uint8_t *ip, unsigned hlen)
{
	return ref_fold(ref_sum(0, ip, hlen)) == 0xffff;
}

/* TCP checksum over pseudo-header + segment verifies. */
static int tcp_csum_ok(const uint8_t *ip, unsigned hlen, unsigned total)
{
	uint64_t acc = ref_sum(0, ip + 12, 8);

	acc += 6u + (total - hlen);
	acc = ref_sum(acc, ip + hlen, total - hlen);
	return ref_fold(acc) == 0xffff;
}

static void fix_ip_csum(uint8_t *f, unsigned l3)
{
	unsigned hlen = (f[l3] & 15u) * 4u;

	put16(f + l3 + 10, 0);
	put16(f + l3 + 10, (~ref_fold(ref_sum(0, f + l3, hlen))) & 0xffff);
}

static uint8_t *xmalloc(size_t len)
{
	uint8_t *q = malloc(len ? len : 1);

	if (!q)
		abort();
	return q;
}

static uint8_t *dup_exact(const uint8_t *p, size_t len)
{
	uint8_t *q = xmalloc(len);

	if (len)
		memcpy(q, p, len);
	return q;
}

/* Offsets of a frame whose headers are known to be complete. */
struct offs {
	unsigned l3, ihl, total, l4, thl, poff, plen;
};

static void offsets(const uint8_t *f, struct offs *o)
{
	o->l3 = be16(f + 12) == 0x8100 ? 18 : 14;
	o->ihl = (f[o->l3] & 15u) * 4u;
	o->total = be16(f + o->l3 + 2);
	o->l4 = o->l3 + o->ihl;
	o->thl = (f[o->l4 + 12] >> 4) * 4u;
	o->poff = o->l4 + o->thl;
	o->plen = o->total - o->ihl - o->thl;
}

/* The per-value round trip of a payload: what decompression must give. */
static uint32_t round_trip(uint32_t v, unsigned eb)
{
	uint32_t p;
	unsigned tag = inc_compress_value(v, eb, &p);

	return inc_decompress_value(tag, p);
}

/* ---- checks of one compressed / decompressed frame ------------------ */

/* out/olen: a decompressed frame; ref: the frame whose headers it must
 * carry (the original on a round trip, else the received marked frame);
 * comp: the compressed frame it came from. Checks the restored headers,
 * both checksums, the payload (per-value round trip of orig when orig is
 * not NULL, else the stream's own decode) and the raw tail. */
static int check_decompressed(const uint8_t *comp, const uint8_t *out,
			      size_t olen, const uint8_t *orig, unsigned eb)
{
	struct offs c, d;
	unsigned L, n, T, i, s;
	uint8_t *dec;
	int ok = 1;

	offsets(comp, &c);
	if (olen < c.poff)
		return 0;
	offsets(out, &d);
	L = be16(comp + c.poff + 2);
	n = L / 4;
	T = L % 4;
	ok &= olen == c.poff + L;
	ok &= d.l3 == c.l3 && d.ihl == c.ihl && d.thl == c.thl;
	ok &= d.total == olen - d.l3 && out[d.l3 + 9] == 6;
	ok &= ip_csum_ok(out + d.l3, d.ihl);
	ok &= tcp_csum_ok(out + d.l3, d.ihl, d.total);
	/* Headers: the received ones except total, protocol and IP checksum;
	 * the TCP checksum is the one carried (verified, not recomputed). */
	for (i = 0; ok && i < c.poff; i++) {
		if (i == d.l3 + 2 || i == d.l3 + 3 || i == d.l3 + 9 ||
		    i == d.l3 + 10 || i == d.l3 + 11)
			continue;
		ok &= out[i] == comp[i];
	}
	/* Tail bytes raw: the last T bytes of the received IP packet. */
	ok &= !memcmp(out + c.poff + 4 * n, comp + c.l3 + c.total - T, T);
	if (!ok)
		return 0;
	if (orig) {
		for (i = 0; ok && i < n; i++)
			ok &= ld32(out + c.poff + 4 * i) ==
			      round_trip(ld32(orig + c.poff + 4 * i), eb);
		/* The original headers, TCP checksum aside. */
		for (i = 0; ok && i < c.poff; i++)
			if (i != d.l4 + 16 && i != d.l4 + 17)
				ok &= out[i] == orig[i];
		ok &= !memcmp(out + c.poff + 4 * n, orig + c.poff + 4 * n, T);
	} else {
		s = c.total - c.ihl - c.thl - SH - T;
		dec = xmalloc(4 * n);
		ok &= inc_stream_decompress(comp + c.poff + SH, s, n, dec, 4 * n) == (long)s;
		ok &= !memcmp(dec, out + c.poff, 4 * n);
		free(dec);
	}
	return ok;
}

/* The one's-complement sum (folded, 1..0xffff) of a TCP segment with its
 * pseudo-header, the payload's first n values replaced by their round trip
 * at eb when q is set: what the receiver's check sums. */
static unsigned seg_sum(const uint8_t *f, int q, unsigned eb)
{
	struct offs o;
	uint64_t acc;
	unsigned i, n;
	uint8_t w[4];
	uint32_t v;

	offsets(f, &o);
	n = o.plen / 4;
	acc = ref_sum(0, f + o.l3 + 12, 8) + 6u + (o.total - o.ihl);
	acc = ref_sum(acc, f + o.l4, o.thl);
	for (i = 0; i < n; i++) {
		v = ld32(f + o.poff + 4 * i);
		if (q)
			v = round_trip(v, eb);
		w[0] = (uint8_t)v;
		w[1] = (uint8_t)(v >> 8);
		w[2] = (uint8_t)(v >> 16);
		w[3] = (uint8_t)(v >> 24);
		acc = ref_sum(acc, w, 4);
	}
	acc = ref_sum(acc, f + o.poff + 4 * n, o.plen % 4);
	return ref_fold(acc);
}

/* A compressed frame against its original: valid IPv4, smaller, headers
 * unchanged but for total/protocol/IP checksum and the TCP checksum, which
 * makes the restored segment sum as the original did (a valid original
 * gives a valid restored segment, a broken one a broken one), the shim, a
 * stream of the right size, the raw tail. */
static int check_compressed(const uint8_t *orig, const uint8_t *comp,
			    size_t clen, const struct inc_frame_info *info,
			    unsigned eb)
{
	struct offs o, c;
	unsigned n, T, s, i;
	uint8_t *restored;
	int ok = 1;

	offsets(orig, &o);
	if (clen <= o.poff + SH || clen >= o.l3 + o.total)
		return 0;
	offsets(comp, &c);
	n = o.plen / 4;
	T = o.plen % 4;
	ok &= c.total == clen - c.l3 && comp[c.l3 + 9] == INC_WIRE_IPPROTO;
	ok &= ip_csum_ok(comp + c.l3, c.ihl);
	for (i = 0; ok && i < o.poff; i++) {
		if (i == o.l3 + 2 || i == o.l3 + 3 || i == o.l3 + 9 ||
		    i == o.l3 + 10 || i == o.l3 + 11 || i == o.l4 + 16 ||
		    i == o.l4 + 17)
			continue;
		ok &= comp[i] == orig[i];
	}
	if (ok) {                       /* the original with the new checksum */
		restored = dup_exact(orig, o.l3 + o.total);
		memcpy(restored + o.l4 + 16, comp + o.l4 + 16, 2);
		ok &= seg_sum(restored, 1, eb) == seg_sum(orig, 0, eb);
		free(restored);
	}
	ok &= comp[o.poff] == INC_WIRE_MAGIC && comp[o.poff + 1] == INC_WIRE_VERSION &&
	      be16(comp + o.poff + 2) == o.plen;
	s = (unsigned)clen - o.poff - SH - T;
	ok &= inc_stream_size(comp + o.poff + SH, s, n) == (long)s;
	if (ok) {                       /* the shim's tag-word sum */
		unsigned pos = 0, tsum = 0, tw;

		for (i = 0; i < n; i += 8) {
			tw = comp[o.poff + SH + pos] | comp[o.poff + SH + pos + 1] << 8;
			tsum += tw;
			pos += inc_group_size((uint16_t)tw);
		}
		ok &= be16(comp + o.poff + 4) == (tsum & 0xffff);
	}
	ok &= !memcmp(comp + clen - T, orig + o.poff + 4 * n, T);
	ok &= info->payload_in == o.plen && info->payload_out == SH + s + T;
	ok &= info->counts.n[0] + info->counts.n[1] + info->counts.n[2] +
		      info->counts.n[3] == n;
	return ok;
}

static int tx_bypass_reason(enum inc_reason r)
{
	return r != INC_R_NONE && r != INC_R_NOT_MARKED && r != INC_R_BAD_SHIM &&
	       r != INC_R_BAD_STREAM && r != INC_R_OVERSIZE && r != INC_R_DISABLED &&
	       r != INC_R_OLD_VERSION && r != INC_R_BAD_PAYLOAD_CSUM &&
	       r < INC_R_COUNT;
}

static int rx_bypass_reason(enum inc_reason r)
{
	return r != INC_R_NONE && r != INC_R_NO_PAYLOAD && r != INC_R_NOT_SMALLER &&
	       r != INC_R_BAD_SHIM && r != INC_R_BAD_STREAM && r != INC_R_OVERSIZE &&
	       r != INC_R_DISABLED && r != INC_R_OLD_VERSION &&
	       r != INC_R_BAD_PAYLOAD_CSUM && r < INC_R_COUNT;
}

/* Output capacity inc_frame_decompress needs: the input length, or the
 * length the shim restores when the frame is marked. */
static size_t rx_cap(const uint8_t *f, size_t len)
{
	struct inc_frame_hdr h;
	size_t need = len;

	if (inc_frame_parse(f, len, &h) == INC_R_NONE &&
	    h.proto == INC_WIRE_IPPROTO && h.payload_len >= 4 &&
	    (size_t)h.payload_off + be16(f + h.payload_off + 2) > need)
		need = (size_t)h.payload_off + be16(f + h.payload_off + 2);
	return need;
}

/* The codec is idempotent, so compressing a decompressed frame gives the
 * compressed frame again, TCP checksum included (the restored words are
 * their own round trip, so the update adds nothing). */
static int recompress_same(const uint8_t *dec, size_t dlen, const uint8_t *comp,
			   size_t clen, unsigned eb)
{
	struct inc_frame_config cfg;
	struct inc_frame_info info;
	uint8_t *again = xmalloc(dlen);
	long r;
	int ok;

	inc_frame_config_default(&cfg);
	cfg.eb = (uint8_t)eb;
	r = inc_frame_compress(dec, dlen, again, dlen, &cfg, &info);
	ok = r == (long)clen && info.outcome == INC_OUT_COMPRESSED &&
	     !memcmp(again, comp, clen);
	free(again);
	return ok;
}

/* ---- one frame through each direction -------------------------------- */

/* Receive direction on an arbitrary frame; orig (may be NULL) is the frame
 * it was compressed from. Returns the outcome, or -1 on an error. */
static int do_rx(const uint8_t *frame, size_t len, const uint8_t *orig,
		 unsigned eb, int tight, struct inc_frame_info *info_out)
{
	uint8_t *in = dup_exact(frame, len);
	size_t cap = rx_cap(in, len);
	uint8_t *out = xmalloc(cap);
	struct inc_frame_info info;
	long r;
	int res;

	r = inc_frame_decompress(in, len, out, cap, NULL, &info);
	if (r < 0) {
		n_errors++;
		CHECK(r == INC_ENOSPC || r == INC_EINVAL, "rx: error %ld", r);
		/* Capacity from the shim always suffices for a valid frame. */
		CHECK(0, "rx: len %zu cap %zu: error %ld", len, cap, r);
		res = -1;
		goto out;
	}
	res = (int)info.outcome;
	outcome_hist[1][info.outcome % INC_OUT_COUNT]++;
	reason_hist[1][info.reason % INC_R_COUNT]++;
	switch (info.outcome) {
	case INC_OUT_BYPASS:
		CHECK(r == (long)len && !memcmp(out, in, len) &&
		      rx_bypass_reason(info.reason),
		      "rx bypass: len %zu r %ld reason %s", len, r,
		      inc_reason_name(info.reason));
		break;
	case INC_OUT_MALFORMED:
		CHECK(r == (long)len && !memcmp(out, in, len) &&
		      (info.reason == INC_R_BAD_SHIM || info.reason == INC_R_BAD_STREAM ||
		       info.reason == INC_R_OLD_VERSION) &&
		      len > 23u && in[(be16(in + 12) == 0x8100 ? 18 : 14) + 9] == INC_WIRE_IPPROTO,
		      "rx malformed: len %zu r %ld reason %s", len, r,
		      inc_reason_name(info.reason));
		break;
	case INC_OUT_DECOMPRESSED:
		CHECK(info.reason == INC_R_NONE && (size_t)r <= cap &&
		      check_decompressed(in, out, (size_t)r, orig, eb),
		      "rx decompressed frame wrong: len %zu -> %ld", len, r);
		if (orig && r > 0)
			CHECK(recompress_same(out, (size_t)r, in, len, eb),
			      "compressing the decompressed %ld-byte frame does not give the received one", r);
		break;
	case INC_OUT_DROPPED:
		/* Too long, or well-formed with a restored segment whose TCP
		 * checksum fails (then the stream itself decodes). */
		CHECK(r == 0 && ((info.reason == INC_R_OVERSIZE && len > INC_MAX_FRAME_DEFAULT) ||
				 (info.reason == INC_R_BAD_PAYLOAD_CSUM && len > 23u &&
				  in[(be16(in + 12) == 0x8100 ? 18 : 14) + 9] == INC_WIRE_IPPROTO)),
		      "rx dropped: len %zu reason %s", len, inc_reason_name(info.reason));
		if (orig && info.reason == INC_R_BAD_PAYLOAD_CSUM)
			CHECK(seg_sum(orig, 0, eb) != 0xffff,
			      "rx dropped the compressed form of a valid %zu-byte segment", len);
		break;
	default:
		CHECK(0, "rx: outcome %d", (int)info.outcome);
		break;
	}
	/* One byte less than needed: a clean INC_ENOSPC, no write. */
	if (tight && r > 0) {
		free(out);
		cap = (size_t)r > len ? (size_t)r : len;
		out = xmalloc(cap - 1);
		r = inc_frame_decompress(in, len, out, cap - 1, NULL, NULL);
		CHECK(r == INC_ENOSPC, "rx: capacity one short gives %ld", r);
	}
out:
	if (info_out)
		*info_out = info;
	free(out);
	free(in);
	return res;
}

/* Transmit direction, then (when compressed) the receive direction on the
 * result. Returns the TX outcome, or -1 on an error. */
static int do_tx(const uint8_t *frame, size_t len, const struct inc_frame_config *cfg,
		 int tight, struct inc_frame_info *info_out)
{
	uint8_t *in = dup_exact(frame, len);
	uint8_t *out = xmalloc(len);      /* compress never grows a frame */
	struct inc_frame_info info;
	unsigned eb = cfg ? cfg->eb : INC_EB_DEFAULT;
	long r;
	int res;

	r = inc_frame_compress(in, len, out, len, cfg, &info);
	if (r < 0) {
		n_errors++;
		CHECK(0, "tx: len %zu: error %ld", len, r);
		res = -1;
		goto out;
	}
	res = (int)info.outcome;
	outcome_hist[0][info.outcome % INC_OUT_COUNT]++;
	reason_hist[0][info.reason % INC_R_COUNT]++;
	switch (info.outcome) {
	case INC_OUT_BYPASS:
		CHECK(r == (long)len && !memcmp(out, in, len) &&
		      tx_bypass_reason(info.reason),
		      "tx bypass: len %zu r %ld reason %s", len, r,
		      inc_reason_name(info.reason));
		break;
	case INC_OUT_COMPRESSED:
		CHECK(info.reason == INC_R_NONE && check_compressed(in, out, (size_t)r, &info, eb),
		      "tx compressed frame wrong: len %zu -> %ld", len, r);
		if (!cfg || (cfg->tos_value == INC_TOS_DEFAULT && cfg->tos_mask == INC_TOS_MASK_DEFAULT)) {
			struct inc_frame_info rinfo;
			/* End to end: decompressed exactly when the sender's
			 * segment had a valid TCP checksum. */
			int valid = seg_sum(in, 0, eb) == 0xffff;

			CHECK(do_rx(out, (size_t)r, in, eb, tight, &rinfo) ==
				      (valid ? INC_OUT_DECOMPRESSED : INC_OUT_DROPPED),
			      "round trip of a %zu-byte frame (TCP checksum %s): rx outcome %s/%s", len,
			      valid ? "valid" : "broken", inc_outcome_name(rinfo.outcome),
			      inc_reason_name(rinfo.reason));
			n_round_trips[valid]++;
		}
		break;
	case INC_OUT_DROPPED:
		CHECK(r == 0 && info.reason == INC_R_OVERSIZE &&
		      len > (cfg ? cfg->max_frame : INC_MAX_FRAME_DEFAULT),
		      "tx dropped: len %zu reason %s", len, inc_reason_name(info.reason));
		break;
	default:
		CHECK(0, "tx: outcome %s", inc_outcome_name(info.outcome));
		break;
	}
	if (tight && r > 0 && len > 0) {
		free(out);
		out = xmalloc(len - 1);
		r = inc_frame_compress(in, len, out, len - 1, cfg, NULL);
		CHECK(r == INC_ENOSPC, "tx: capacity one short gives %ld", r);
	}
out:
	if (info_out)
		*info_out = info;
	free(out);
	free(in);
	return res;
}

/*
 * inc_frame_peek on every prefix length up to INC_FRAME_PEEK_BYTES: it may
 * only answer NOT_IPV4 or TOS, and only when the whole-frame functions give
 * that same reason (in both directions); with the full peek window on a
 * frame that long it must name the protocol the frame carries.
 */
static void check_peek(const uint8_t *f, size_t len)
{
	uint8_t out[65536 + 64], proto;
	struct inc_frame_info tx, rx;
	enum inc_reason r;
	size_t n;

	if (len > sizeof(out))
		return;
	inc_frame_compress(f, len, out, sizeof(out), NULL, &tx);
	inc_frame_decompress(f, len, out, sizeof(out), NULL, &rx);
	for (n = 0; n <= INC_FRAME_PEEK_BYTES && n <= len; n++) {
		r = inc_frame_peek(f, n, NULL, &proto);
		CHECK(r == INC_R_NONE ||
		      ((r == INC_R_NOT_IPV4 || r == INC_R_TOS) &&
		       (tx.outcome == INC_OUT_DROPPED || tx.reason == r) &&
		       (rx.outcome == INC_OUT_DROPPED || rx.reason == r)),
		      "peek(%zu of %zu) says %s, frame %s/%s", n, len,
		      inc_reason_name(r), inc_reason_name(tx.reason),
		      inc_reason_name(rx.reason));
	}
	if (len >= INC_FRAME_PEEK_BYTES && tx.l3_off &&
	    tx.reason != INC_R_BAD_IP_HEADER && tx.reason != INC_R_TRUNCATED) {
		inc_frame_peek(f, INC_FRAME_PEEK_BYTES, NULL, &proto);
		CHECK(proto == f[tx.l3_off + 9], "peek proto %u, frame %u",
		      proto, f[tx.l3_off + 9]);
	}
}

/* ---- random frames ----------------------------------------------------- */
static void random_frames(void)
{
	static uint8_t buf[65536 + 64];
	uint64_t rng = 0x9e3779b97f4a7c15ull;
	size_t len, max_len;
	unsigned i, pick;

	for (i = 0; i < N_RANDOM; i++) {
		pick = (unsigned)(inc_fg_rand(&rng) % 100);
		if (pick < 70)
			max_len = 1518;
		else if (pick < 85)
			max_len = 20 + (size_t)(inc_fg_rand(&rng) % 100);
		else if (pick < 97)
			max_len = 9018;
		else
			max_len = 9200;  /* some oversize frames */
		len = inc_fg_random(buf, sizeof(buf), max_len, 1, &rng);
		do_tx(buf, len, NULL, i % 16 == 0, NULL);
		do_rx(buf, len, NULL, INC_EB_DEFAULT, i % 16 == 0, NULL);
		if (i % 8 == 0)
			check_peek(buf, len);
		if (i % 20000 == 19999)
			fprintf(stderr, "random frames: %u\n", i + 1);
	}
}

/* ---- hand-made cases ---------------------------------------------------- */
static uint64_t crng = 42;

/* A tagged TCP frame with nfloat gradient-like values (plus extra raw
 * bytes), optional VLAN and options. */
static size_t make_frame(uint8_t *out, size_t cap, unsigned nbytes, int vlan,
			 unsigned ip_opt, unsigned tcp_opt, enum inc_fg_mix mix)
{
	static uint8_t pl[9000];
	struct inc_fg_frame f;

	inc_fg_defaults(&f);
	f.vlan = vlan;
	f.vlan_tci = 5;
	f.ip_opt_len = ip_opt;
	f.tcp_opt_len = tcp_opt;
	inc_fg_payload(pl, nbytes, mix, &crng);
	f.payload = pl;
	f.payload_len = nbytes;
	return inc_fg_build(out, cap, &f);
}

static void expect_tx(const uint8_t *f, size_t len, enum inc_outcome o,
		      enum inc_reason r, const char *what)
{
	struct inc_frame_info info;
	int got = do_tx(f, len, NULL, 1, &info);

	CHECK(got == (int)o && info.reason == r, "tx %s (len %zu): %s/%s, want %s/%s",
	      what, len, got < 0 ? "error" : inc_outcome_name(info.outcome),
	      inc_reason_name(info.reason), inc_outcome_name(o), inc_reason_name(r));
}

static void expect_rx(const uint8_t *f, size_t len, enum inc_outcome o,
		      enum inc_reason r, const char *what)
{
	struct inc_frame_info info;
	int got = do_rx(f, len, NULL, INC_EB_DEFAULT, 1, &info);

	CHECK(got == (int)o && info.reason == r, "rx %s (len %zu): %s/%s, want %s/%s",
	      what, len, got < 0 ? "error" : inc_outcome_name(info.outcome),
	      inc_reason_name(info.reason), inc_outcome_name(o), inc_reason_name(r));
}

/* Compress f into c (which the test then mangles); returns the length. */
static size_t compress_into(const uint8_t *f, size_t len, uint8_t *c)
{
	long r = inc_frame_compress(f, len, c, len, NULL, NULL);

	CHECK(r > 0 && (size_t)r < len, "setup: frame of %zu bytes does not compress", len);
	return r > 0 ? (size_t)r : 0;
}

static void case_truncated(void)
{
	static uint8_t f[2048], c[2048];
	size_t len, clen, cut;
	unsigned hdr_end, v, opt;
	char what[64];

	for (v = 0; v < 2; v++)
		for (opt = 0; opt <= 8; opt += 8) {
			len = make_frame(f, sizeof(f), 256 + 3, v, opt, 12, INC_FG_GRADIENT);
			clen = compress_into(f, len, c);
			hdr_end = (v ? 18 : 14) + 20 + opt;
			for (cut = 0; cut < len; cut++) {
				/* Before the IP header is complete: truncated;
				 * after: the IP total length disagrees. */
				enum inc_reason want = cut < hdr_end ? INC_R_TRUNCATED : INC_R_BAD_LENGTH;

				snprintf(what, sizeof(what), "cut at %zu (vlan %u, ip opt %u)", cut, v, opt);
				expect_tx(f, cut, INC_OUT_BYPASS, want, what);
				if (cut < clen)
					expect_rx(c, cut, INC_OUT_BYPASS, want, what);
			}
		}
}

static void case_ip_header(void)
{
	static uint8_t f[2048];
	size_t len;
	unsigned ihl;
	char what[32];

	for (ihl = 0; ihl < 5; ihl++) {
		len = make_frame(f, sizeof(f), 64, 0, 0, 0, INC_FG_GRADIENT);
		f[14] = (uint8_t)(0x40 | ihl);
		fix_ip_csum(f, 14);
		snprintf(what, sizeof(what), "IHL %u", ihl);
		expect_tx(f, len, INC_OUT_BYPASS, INC_R_BAD_IP_HEADER, what);
		expect_rx(f, len, INC_OUT_BYPASS, INC_R_BAD_IP_HEADER, what);
	}
	len = make_frame(f, sizeof(f), 64, 0, 0, 0, INC_FG_GRADIENT);
	f[14] = 0x65;                     /* version 6 behind EtherType 0x0800 */
	expect_tx(f, len, INC_OUT_BYPASS, INC_R_BAD_IP_HEADER, "IP version 6");
	/* IHL 15 on a frame whose IP header stops at 20 bytes + 4 payload */
	len = make_frame(f, sizeof(f), 20, 0, 0, 0, INC_FG_GRADIENT);
	f[14] = 0x4f;
	expect_tx(f, 14 + 40, INC_OUT_BYPASS, INC_R_TRUNCATED, "IHL 15, 40 bytes of IP");
	/* Bad checksum; and the same with a non-matching ToS (ToS is checked first). */
	len = make_frame(f, sizeof(f), 64, 0, 0, 0, INC_FG_GRADIENT);
	f[14 + 10] ^= 0x01;
	expect_tx(f, len, INC_OUT_BYPASS, INC_R_BAD_IP_CSUM, "bad IP checksum");
	expect_rx(f, len, INC_OUT_BYPASS, INC_R_BAD_IP_CSUM, "bad IP checksum");
	f[15] = 0;
	expect_tx(f, len, INC_OUT_BYPASS, INC_R_TOS, "bad checksum and ToS 0");
}

static void case_lengths(void)
{
	static uint8_t f[2048];
	size_t len;
	unsigned total;
	const struct {
		int delta;             /* added to the true total length */
		int abs;               /* or an absolute value when delta == 0 */
		enum inc_reason want;
		const char *what;
	} lies[] = {
		{ +1, 0, INC_R_BAD_LENGTH, "total one more than the frame" },
		{ +100, 0, INC_R_BAD_LENGTH, "total far beyond the frame" },
		{ -1, 0, INC_R_BAD_LENGTH, "total one less (frame > 64 bytes)" },
		{ -40, 0, INC_R_BAD_LENGTH, "total 40 less (frame > 64 bytes)" },
		{ 0, 0, INC_R_BAD_LENGTH, "total 0" },
		{ 0, 19, INC_R_BAD_LENGTH, "total below the IP header" },
		{ 0, 65535, INC_R_BAD_LENGTH, "total 65535" },
	};
	unsigned i;

	for (i = 0; i < sizeof(lies) / sizeof(lies[0]); i++) {
		len = make_frame(f, sizeof(f), 200, 0, 0, 0, INC_FG_GRADIENT);
		total = lies[i].delta ? be16(f + 16) + (unsigned)lies[i].delta
				      : (unsigned)lies[i].abs;
		put16(f + 16, total);
		fix_ip_csum(f, 14);
		expect_tx(f, len, INC_OUT_BYPASS, lies[i].want, lies[i].what);
		expect_rx(f, len, INC_OUT_BYPASS, lies[i].want, lies[i].what);
	}
	/* A short frame whose total leaves no room for a TCP header: padding
	 * is allowed at <= 64 bytes, so the TCP check is the one that fails. */
	len = make_frame(f, sizeof(f), 6, 0, 0, 0, INC_FG_GRADIENT);   /* 60 bytes */
	put16(f + 16, 30);
	fix_ip_csum(f, 14);
	expect_tx(f, len, INC_OUT_BYPASS, INC_R_BAD_TCP_HEADER, "total 30, padded to 60");
	/* TCP data offset < 5 and beyond the packet. */
	len = make_frame(f, sizeof(f), 64, 0, 0, 0, INC_FG_GRADIENT);
	f[14 + 20 + 12] = 0x40;
	expect_tx(f, len, INC_OUT_BYPASS, INC_R_BAD_TCP_HEADER, "data offset 4");
	expect_rx(f, len, INC_OUT_BYPASS, INC_R_BAD_TCP_HEADER, "data offset 4");
	len = make_frame(f, sizeof(f), 20, 0, 0, 0, INC_FG_GRADIENT);
	f[14 + 20 + 12] = 0xf0;
	expect_tx(f, len, INC_OUT_BYPASS, INC_R_BAD_TCP_HEADER, "data offset 15, 40 bytes left");
	/* Payload 0, and payloads too small to shrink. */
	len = make_frame(f, sizeof(f), 0, 0, 0, 0, INC_FG_GRADIENT);
	expect_tx(f, len, INC_OUT_BYPASS, INC_R_NO_PAYLOAD, "empty payload");
	len = make_frame(f, sizeof(f), 4, 0, 0, 0, INC_FG_ZERO);
	expect_tx(f, len, INC_OUT_BYPASS, INC_R_NOT_SMALLER, "one float");
	len = make_frame(f, sizeof(f), 7, 0, 0, 0, INC_FG_ZERO);
	expect_tx(f, len, INC_OUT_BYPASS, INC_R_NOT_SMALLER, "one float + 3 bytes");
	len = make_frame(f, sizeof(f), 1024, 0, 0, 0, INC_FG_INCOMPRESSIBLE);
	expect_tx(f, len, INC_OUT_BYPASS, INC_R_NOT_SMALLER, "all values >= 1");
	len = make_frame(f, sizeof(f), 8, 0, 0, 0, INC_FG_ZERO);
	expect_tx(f, len, INC_OUT_BYPASS, INC_R_NOT_SMALLER, "two tiny floats");
	len = make_frame(f, sizeof(f), 12, 0, 0, 0, INC_FG_ZERO);
	expect_tx(f, len, INC_OUT_COMPRESSED, INC_R_NONE, "three tiny floats");
	len = make_frame(f, sizeof(f), 1024 + 1, 0, 0, 0, INC_FG_ZERO);
	expect_tx(f, len, INC_OUT_COMPRESSED, INC_R_NONE, "tiny floats + 1 byte");
}

static void case_l2(void)
{
	static uint8_t f[2048], g[2048];
	size_t len;

	/* Stacked 802.1Q tags and QinQ (0x88a8): not IPv4 for this NIC. */
	len = make_frame(f, sizeof(f), 128, 1, 0, 0, INC_FG_GRADIENT);
	expect_tx(f, len, INC_OUT_COMPRESSED, INC_R_NONE, "one VLAN tag");
	memcpy(g, f, 12);
	put16(g + 12, 0x8100);
	put16(g + 14, 9);
	memcpy(g + 16, f + 12, len - 12);
	expect_tx(g, len + 4, INC_OUT_BYPASS, INC_R_NOT_IPV4, "two 802.1Q tags");
	expect_rx(g, len + 4, INC_OUT_BYPASS, INC_R_NOT_IPV4, "two 802.1Q tags");
	put16(g + 12, 0x88a8);
	expect_tx(g, len + 4, INC_OUT_BYPASS, INC_R_NOT_IPV4, "QinQ 0x88a8 + 0x8100");
	expect_rx(g, len + 4, INC_OUT_BYPASS, INC_R_NOT_IPV4, "QinQ 0x88a8 + 0x8100");
	put16(f + 12, 0x88a8);
	expect_tx(f, len, INC_OUT_BYPASS, INC_R_NOT_IPV4, "0x88a8 tag alone");
	len = make_frame(f, sizeof(f), 128, 0, 0, 0, INC_FG_GRADIENT);
	put16(f + 12, 0x86dd);
	expect_tx(f, len, INC_OUT_BYPASS, INC_R_NOT_IPV4, "IPv6 EtherType");
	put16(f + 12, 0x0806);
	expect_tx(f, len, INC_OUT_BYPASS, INC_R_NOT_IPV4, "ARP EtherType");
	expect_tx(f, 13, INC_OUT_BYPASS, INC_R_TRUNCATED, "13 bytes");
	put16(f + 12, 0x8100);
	expect_tx(f, 17, INC_OUT_BYPASS, INC_R_TRUNCATED, "VLAN tag cut");
	expect_tx(f, 0, INC_OUT_BYPASS, INC_R_TRUNCATED, "empty frame");
}

static void case_ip_fields(void)
{
	static uint8_t f[2048];
	size_t len;
	struct inc_fg_frame d;
	uint8_t pl[64];
	unsigned tos;

	inc_fg_payload(pl, sizeof(pl), INC_FG_GRADIENT, &crng);
	/* ToS: ECN bits ignored, anything else bypasses. */
	for (tos = 0; tos < 256; tos++) {
		inc_fg_defaults(&d);
		d.tos = (uint8_t)tos;
		d.payload = pl;
		d.payload_len = sizeof(pl);
		len = inc_fg_build(f, sizeof(f), &d);
		if ((tos & 0xfc) == 0x28)
			expect_tx(f, len, INC_OUT_COMPRESSED, INC_R_NONE, "ToS 0x28 + ECN");
		else
			expect_tx(f, len, INC_OUT_BYPASS, INC_R_TOS, "other ToS");
	}
	/* Fragments: MF, offsets; DF alone is fine. */
	inc_fg_defaults(&d);
	d.payload = pl;
	d.payload_len = sizeof(pl);
	d.frag = 0x2000;
	len = inc_fg_build(f, sizeof(f), &d);
	expect_tx(f, len, INC_OUT_BYPASS, INC_R_FRAGMENT, "MF");
	expect_rx(f, len, INC_OUT_BYPASS, INC_R_FRAGMENT, "MF");
	d.frag = 0x0001;
	len = inc_fg_build(f, sizeof(f), &d);
	expect_tx(f, len, INC_OUT_BYPASS, INC_R_FRAGMENT, "offset 8");
	d.frag = 0x0000;
	len = inc_fg_build(f, sizeof(f), &d);
	expect_tx(f, len, INC_OUT_COMPRESSED, INC_R_NONE, "DF clear");
	/* Fragment of a UDP datagram: fragment comes before protocol. */
	d.frag = 0x2000;
	d.proto = 17;
	len = inc_fg_build(f, sizeof(f), &d);
	expect_tx(f, len, INC_OUT_BYPASS, INC_R_FRAGMENT, "UDP fragment");
	d.frag = 0x4000;
	len = inc_fg_build(f, sizeof(f), &d);
	expect_tx(f, len, INC_OUT_BYPASS, INC_R_NOT_TCP, "UDP");
	expect_rx(f, len, INC_OUT_BYPASS, INC_R_NOT_TCP, "UDP");
	d.proto = 1;
	len = inc_fg_build(f, sizeof(f), &d);
	expect_tx(f, len, INC_OUT_BYPASS, INC_R_NOT_TCP, "ICMP");
	/* Plain tagged TCP on receive: not marked. Options both sides. */
	len = make_frame(f, sizeof(f), 400, 1, 40, 40, INC_FG_GRADIENT);
	expect_rx(f, len, INC_OUT_BYPASS, INC_R_NOT_MARKED, "plain TCP");
	expect_tx(f, len, INC_OUT_COMPRESSED, INC_R_NONE, "VLAN + 40 bytes of IP and TCP options");
	/* Oversize: longer than max_frame 9018 is dropped, both ways. */
	{
		static uint8_t big[9100];
		struct inc_fg_frame b;
		static uint8_t bpl[9100];

		inc_fg_defaults(&b);
		inc_fg_payload(bpl, 9019 - 54, INC_FG_GRADIENT, &crng);
		b.payload = bpl;
		b.payload_len = 9019 - 54;
		len = inc_fg_build(big, sizeof(big), &b);
		expect_tx(big, len, INC_OUT_DROPPED, INC_R_OVERSIZE, "9019 bytes");
		expect_rx(big, len, INC_OUT_DROPPED, INC_R_OVERSIZE, "9019 bytes");
		b.payload_len = 9018 - 54;
		len = inc_fg_build(big, sizeof(big), &b);
		expect_tx(big, len, INC_OUT_COMPRESSED, INC_R_NONE, "9018 bytes");
	}
}

/* Marked frames whose shim or stream is wrong. */
static void case_shim_stream(void)
{
	static uint8_t f[4096], c[4096], m[4096];
	size_t len, clen;
	unsigned poff = 14 + 20 + 20, s, n, T, tw, i;
	char what[64];

	len = make_frame(f, sizeof(f), 400 + 2, 0, 0, 0, INC_FG_GRADIENT);
	clen = compress_into(f, len, c);
	expect_rx(c, clen, INC_OUT_DECOMPRESSED, INC_R_NONE, "valid");

	memcpy(m, c, clen);
	m[poff] = 0x48;
	expect_rx(m, clen, INC_OUT_MALFORMED, INC_R_BAD_SHIM, "magic 0x48");
	for (i = 0; i < 3; i++) {
		static const uint8_t versions[3] = { 0, 3, 0xff };

		memcpy(m, c, clen);
		m[poff + 1] = versions[i];
		snprintf(what, sizeof(what), "version %u", versions[i]);
		expect_rx(m, clen, INC_OUT_MALFORMED, INC_R_BAD_SHIM, what);
	}
	/* Version 1 (no payload checksum) has its own reason. */
	memcpy(m, c, clen);
	m[poff + 1] = 1;
	expect_rx(m, clen, INC_OUT_MALFORMED, INC_R_OLD_VERSION, "version 1");
	/* Integrity: a flipped bit in a stream payload byte (the frame stays
	 * well-formed when the flip is in a value byte, not a tag word), in
	 * the raw tail, in the TCP checksum field, in the sequence number:
	 * each restored segment fails its checksum and is dropped. */
	memcpy(m, c, clen);
	CHECK(inc_group_size((uint16_t)(c[poff + SH] | c[poff + SH + 1] << 8)) > 2,
	      "setup: the first group has payload bytes");
	m[poff + SH + 2] ^= 0x10;              /* first value byte of the stream */
	expect_rx(m, clen, INC_OUT_DROPPED, INC_R_BAD_PAYLOAD_CSUM, "stream byte flipped");
	memcpy(m, c, clen);
	m[clen - 1] ^= 0x01;                  /* tail byte */
	expect_rx(m, clen, INC_OUT_DROPPED, INC_R_BAD_PAYLOAD_CSUM, "tail byte flipped");
	memcpy(m, c, clen);
	m[14 + 20 + 17] ^= 0x80;              /* TCP checksum */
	expect_rx(m, clen, INC_OUT_DROPPED, INC_R_BAD_PAYLOAD_CSUM, "TCP checksum flipped");
	memcpy(m, c, clen);
	m[14 + 20 + 5] ^= 0x04;               /* TCP sequence number */
	expect_rx(m, clen, INC_OUT_DROPPED, INC_R_BAD_PAYLOAD_CSUM, "TCP sequence flipped");
	memcpy(m, c, clen);
	m[poff + 5] ^= 0x01;                  /* the shim's tag-word sum */
	expect_rx(m, clen, INC_OUT_DROPPED, INC_R_BAD_PAYLOAD_CSUM, "tag-word sum flipped");
	/* Two lanes of the first group swap tags (group size unchanged): the
	 * values move between lanes, which the Internet checksum may not see
	 * (a permutation of whole words); the tag-word sum does. */
	{
		unsigned tw0 = c[poff + SH] | c[poff + SH + 1] << 8, a, b2, ta, tb;

		for (a = 0; a < 7; a++) {
			ta = (tw0 >> (2 * a)) & 3;
			tb = (tw0 >> (2 * a + 2)) & 3;
			if (ta != tb)
				break;
		}
		CHECK(a < 7, "setup: the first group has two neighbouring lanes of different tags");
		b2 = tw0 & ~(15u << (2 * a));
		b2 |= (tb << (2 * a)) | (ta << (2 * a + 2));
		memcpy(m, c, clen);
		m[poff + SH] = (uint8_t)b2;
		m[poff + SH + 1] = (uint8_t)(b2 >> 8);
		expect_rx(m, clen, INC_OUT_DROPPED, INC_R_BAD_PAYLOAD_CSUM, "two lanes' tags swapped");
	}
	/* A sender's segment with a wrong TCP checksum stays wrong: the
	 * update carries the error to the receiver, which drops it. */
	memcpy(m, f, len);
	m[14 + 20 + 16] ^= 0x01;
	clen = compress_into(m, len, c);
	expect_rx(c, clen, INC_OUT_DROPPED, INC_R_BAD_PAYLOAD_CSUM, "sender's checksum wrong");
	clen = compress_into(f, len, c);
	/* Shim length: restored frame beyond max_frame, beyond 64 KiB, off by
	 * a few (the stream then no longer fits). */
	memcpy(m, c, clen);
	put16(m + poff + 2, 9018 - poff + 1);
	expect_rx(m, clen, INC_OUT_MALFORMED, INC_R_BAD_SHIM, "restores 9019 bytes");
	put16(m + poff + 2, 65535);
	expect_rx(m, clen, INC_OUT_MALFORMED, INC_R_BAD_SHIM, "length 65535");
	/* (A change by a multiple of 4 can describe a valid stream: value
	 * lanes of tag 0 where padding was. Those are not errors.) */
	for (i = 1; i <= 7; i += i == 3 ? 2 : 1) {
		memcpy(m, c, clen);
		put16(m + poff + 2, 402 + i);
		snprintf(what, sizeof(what), "length +%u", i);
		expect_rx(m, clen, INC_OUT_MALFORMED, INC_R_BAD_STREAM, what);
		put16(m + poff + 2, 402 - i);
		snprintf(what, sizeof(what), "length -%u", i);
		expect_rx(m, clen, INC_OUT_MALFORMED, INC_R_BAD_STREAM, what);
	}
	/* Payload shorter than the shim. */
	for (i = 0; i < 4; i++) {
		memcpy(m, c, clen);
		put16(m + 16, 40 + i);
		fix_ip_csum(m, 14);
		snprintf(what, sizeof(what), "%u payload bytes", i);
		expect_rx(m, poff + i, INC_OUT_MALFORMED, INC_R_BAD_SHIM, what);
	}
	/* Stream one byte short / one byte long (tail moved, lengths fixed). */
	n = 402 / 4;
	T = 2;
	s = (unsigned)clen - poff - SH - T;
	memcpy(m, c, clen);
	memmove(m + poff + SH + s - 1, c + poff + SH + s, T);
	put16(m + 16, be16(c + 16) - 1);
	fix_ip_csum(m, 14);
	expect_rx(m, clen - 1, INC_OUT_MALFORMED, INC_R_BAD_STREAM, "stream one byte short");
	memcpy(m, c, poff + SH + s);
	m[poff + SH + s] = 0;
	memcpy(m + poff + SH + s + 1, c + poff + SH + s, T);
	put16(m + 16, be16(c + 16) + 1);
	fix_ip_csum(m, 14);
	expect_rx(m, clen + 1, INC_OUT_MALFORMED, INC_R_BAD_STREAM, "stream one byte long");
	/* A padding lane with a non-zero tag in the last group. */
	{
		unsigned pos = 0, g, last = 0;

		for (g = 0; g < (n + 7) / 8; g++) {
			last = pos;
			pos += inc_group_size((uint16_t)(c[poff + SH + pos] |
							 c[poff + SH + 1 + pos] << 8));
		}
		memcpy(m, c, clen);
		tw = (unsigned)(m[poff + SH + last] | m[poff + SH + 1 + last] << 8);
		tw |= 1u << 14;             /* lane 7 of the last group (n % 8 = 4) */
		m[poff + SH + last] = (uint8_t)tw;
		m[poff + 5 + last] = (uint8_t)(tw >> 8);
		expect_rx(m, clen, INC_OUT_MALFORMED, INC_R_BAD_STREAM, "padding lane tag 1");
	}
	/* Marker on a frame that fails an earlier check: that check wins. */
	memcpy(m, c, clen);
	m[14 + 6] = 0x20;
	fix_ip_csum(m, 14);
	expect_rx(m, clen, INC_OUT_BYPASS, INC_R_FRAGMENT, "marked fragment");
	memcpy(m, c, clen);
	m[15] = 0;
	fix_ip_csum(m, 14);
	expect_rx(m, clen, INC_OUT_BYPASS, INC_R_TOS, "marked, ToS 0");
	/* Compressing an already marked frame: protocol 253 is not TCP. */
	expect_tx(c, clen, INC_OUT_BYPASS, INC_R_NOT_TCP, "marked frame on transmit");
}

/* Ethernet padding: allowed (and dropped) on frames up to 64 bytes. */
static void case_padding(void)
{
	static uint8_t f[256], g[256], c[256];
	size_t len, clen;
	long r;
	struct inc_frame_info info;
	unsigned pad;
	char what[48];

	/* No frame of 64 bytes or less compresses (the smallest that does
	 * carries three floats: 66 bytes), so a padded one passes the length
	 * check and is then too small. */
	len = make_frame(f, sizeof(f), 8, 0, 0, 0, INC_FG_ZERO);    /* 62 bytes */
	for (pad = 0; pad <= 6; pad++) {
		memcpy(g, f, len);
		memset(g + len, 0, pad);
		snprintf(what, sizeof(what), "%zu + %u bytes of padding", len, pad);
		if (len + pad <= INC_PAD_FRAME_MAX)
			expect_tx(g, len + pad, INC_OUT_BYPASS, INC_R_NOT_SMALLER, what);
		else
			expect_tx(g, len + pad, INC_OUT_BYPASS, INC_R_BAD_LENGTH, what);
	}
	len = make_frame(f, sizeof(f), 12, 0, 0, 0, INC_FG_ZERO);   /* 66 bytes */
	r = inc_frame_compress(f, len, c, len, NULL, &info);
	CHECK(r == 62 && info.outcome == INC_OUT_COMPRESSED,
	      "three tiny floats compress to %ld bytes, want 62", r);
	memcpy(g, f, len);
	memset(g + len, 0, 2);
	expect_tx(g, len + 2, INC_OUT_BYPASS, INC_R_BAD_LENGTH, "66 + 2 bytes of padding");
	/* A compressed 62-byte frame padded on the way: decompressed, the
	 * padding dropped. */
	clen = compress_into(f, len, c);
	memset(c + clen, 0, 2);
	expect_rx(c, clen + 2, INC_OUT_DECOMPRESSED, INC_R_NONE, "compressed + 2 bytes padding");
	memset(c + clen, 0, 8);
	expect_rx(c, clen + 8, INC_OUT_BYPASS, INC_R_BAD_LENGTH, "compressed + 8 bytes padding");
}

/* Random bytes that carry the marker: IPv4, ToS 0x28, protocol 253, a
 * correct IP checksum and total length, anything else random. */
static void case_random_marked(void)
{
	static uint8_t f[2048];
	uint64_t rng = 77;
	unsigned i, len, l3, ihl, k;
	struct inc_frame_info info;
	unsigned long hist[INC_OUT_COUNT] = { 0 };

	for (i = 0; i < 20000; i++) {
		len = 54 + (unsigned)(inc_fg_rand(&rng) % 1500);
		for (k = 0; k < len; k++)
			f[k] = (uint8_t)inc_fg_rand(&rng);
		l3 = i % 4 == 0 ? 18 : 14;
		if (l3 == 18)
			put16(f + 12, 0x8100);
		put16(f + l3 - 2, 0x0800);
		ihl = 5 + (unsigned)(inc_fg_rand(&rng) % 3);
		f[l3] = (uint8_t)(0x40 | ihl);
		f[l3 + 1] = 0x28;
		put16(f + l3 + 2, len - l3);
		put16(f + l3 + 6, 0x4000);
		f[l3 + 9] = INC_WIRE_IPPROTO;
		if (i % 2) {               /* valid data offset and shim header */
			f[l3 + ihl * 4 + 12] = (uint8_t)((5 + inc_fg_rand(&rng) % 3) << 4);
			k = l3 + ihl * 4 + (f[l3 + ihl * 4 + 12] >> 4) * 4;
			f[k] = INC_WIRE_MAGIC;    /* may lie past len: harmless */
			f[k + 1] = INC_WIRE_VERSION;
			if (i % 4 == 1 && k + 4 <= len) /* a plausible length */
				put16(f + k + 2, (unsigned)(inc_fg_rand(&rng) % (4 * (len - k))));
		}
		fix_ip_csum(f, l3);
		do_rx(f, len, NULL, INC_EB_DEFAULT, i % 8 == 1, &info);
		hist[info.outcome % INC_OUT_COUNT]++;
	}
	fprintf(stderr, "random marked frames: %lu malformed, %lu decompressed, %lu bypass\n",
		hist[INC_OUT_MALFORMED], hist[INC_OUT_DECOMPRESSED], hist[INC_OUT_BYPASS]);
	CHECK(hist[INC_OUT_MALFORMED] > 1000, "random marked frames: only %lu malformed",
	      hist[INC_OUT_MALFORMED]);
}

/* Other error bounds and ToS settings through the config. */
static void case_config(void)
{
	static uint8_t f[4096];
	struct inc_frame_config cfg;
	struct inc_frame_info info;
	size_t len;
	unsigned eb;

	len = make_frame(f, sizeof(f), 1400, 0, 0, 12, INC_FG_GRADIENT);
	for (eb = 1; eb <= 126; eb += eb < 12 ? 1 : 19) {
		inc_frame_config_default(&cfg);
		cfg.eb = (uint8_t)eb;
		do_tx(f, len, &cfg, 1, &info);
		CHECK(info.outcome == INC_OUT_COMPRESSED || info.reason == INC_R_NOT_SMALLER,
		      "eb %u: %s/%s", eb, inc_outcome_name(info.outcome), inc_reason_name(info.reason));
	}
	inc_frame_config_default(&cfg);
	cfg.tos_value = 0x00;
	cfg.tos_mask = 0xff;
	do_tx(f, len, &cfg, 1, &info);
	CHECK(info.outcome == INC_OUT_BYPASS && info.reason == INC_R_TOS, "ToS 0/0xff on 0x28");
	cfg.tos_mask = 0;                   /* mask 0: every ToS matches */
	do_tx(f, len, &cfg, 1, &info);
	CHECK(info.outcome == INC_OUT_COMPRESSED, "mask 0 matches everything");
	inc_frame_config_default(&cfg);
	cfg.max_frame = 100;
	do_tx(f, len, &cfg, 0, &info);
	CHECK(info.outcome == INC_OUT_DROPPED, "max_frame 100 drops a %zu-byte frame", len);
	/* Bad arguments. */
	{
		uint8_t out[16];

		CHECK(inc_frame_compress(NULL, 10, out, 16, NULL, NULL) == INC_EINVAL, "NULL in");
		CHECK(inc_frame_decompress(f, len, NULL, 16, NULL, NULL) == INC_EINVAL, "NULL out");
		CHECK(inc_frame_compress(f, len, out, 16, NULL, NULL) == INC_ENOSPC, "tiny out");
	}
}

int main(void)
{
	unsigned d, i;

	case_truncated();
	case_ip_header();
	case_lengths();
	case_l2();
	case_ip_fields();
	case_shim_stream();
	case_padding();
	case_config();
	case_random_marked();
	random_frames();

	for (d = 0; d < 2; d++) {
		fprintf(stderr, "%s:", d ? "rx" : "tx");
		for (i = 0; i < INC_OUT_COUNT; i++)
			if (outcome_hist[d][i])
				fprintf(stderr, " %s %lu", inc_outcome_name((enum inc_outcome)i),
					outcome_hist[d][i]);
		fprintf(stderr, "\n   reasons:");
		for (i = 0; i < INC_R_COUNT; i++)
			if (reason_hist[d][i])
				fprintf(stderr, " %s %lu", inc_reason_name((enum inc_reason)i),
					reason_hist[d][i]);
		fputc('\n', stderr);
	}
	fprintf(stderr, "errors: %lu\n", n_errors);
	fprintf(stderr, "round trips: %lu with a valid TCP checksum (decompressed), "
		"%lu with a broken one (dropped)\n", n_round_trips[1], n_round_trips[0]);
	CHECK(n_round_trips[1] > 1000 && n_round_trips[0] > 10,
	      "round trips not both exercised");
	/* Every outcome of each direction occurred. */
	CHECK(outcome_hist[0][INC_OUT_BYPASS] && outcome_hist[0][INC_OUT_COMPRESSED] &&
	      outcome_hist[0][INC_OUT_DROPPED], "tx outcomes not all exercised");
	CHECK(outcome_hist[1][INC_OUT_BYPASS] && outcome_hist[1][INC_OUT_DECOMPRESSED] &&
	      outcome_hist[1][INC_OUT_MALFORMED] && outcome_hist[1][INC_OUT_DROPPED],
	      "rx outcomes not all exercised");
	return inc_test_done();
}
