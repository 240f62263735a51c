// SPDX-License-Identifier: MIT
/*
 * test_pcap.c - the frame format on real captures (the .pcap files in tests/fixtures,
 * made by experiments/capture.sh): every frame through inc_frame_compress and
 * inc_frame_decompress at error bounds 2^-6, 2^-8 and 2^-10, checked
 * against an independent reading of the headers:
 *   - frames that do not match (or cannot be compressed) are bit-identical;
 *   - compressed frames are valid IPv4 (header checksum, total length),
 *     protocol 253, smaller, with the L2 and TCP headers unchanged;
 *   - decompress(compress(frame)) has the original length and headers (the
 *     TCP checksum excepted), valid IP and TCP checksums, and a payload
 *     equal to the per-value round trip of the original;
 *   - the reasons are the expected ones (untagged -> tos, tagged without
 *     payload -> no_payload, tagged UDP/ICMP -> not_tcp, fragments,
 *     non-IPv4), and the captures have real checksums and MTU-sized frames.
 * usage: test-pcap FILE.pcap...
 */
#include "inc_model.h"
#include "inc_test.h"

#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>

/* ---- independent header reading (the oracle) ---------------------------- */

struct view {
	int ipv4;               /* EtherType IPv4 after at most one 802.1Q tag */
	int vlan;
	size_t l3, l4, pay;     /* offsets */
	unsigned ihl, tos, proto, total, frag, thl;
	size_t pay_len;
};

static unsigned be16(const uint8_t *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

static uint16_t csum(const uint8_t *p, size_t len, uint32_t sum)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += be16(p + i);
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static int ip_csum_ok(const uint8_t *f, const struct view *v)
{
	return csum(f + v->l3, v->ihl, 0) == 0;
}

/* TCP checksum over the pseudo-header and the segment verifies. */
static int tcp_csum_ok(const uint8_t *f, const struct view *v)
{
	uint32_t sum = 0;
	size_t seg = v->total - v->ihl;

	sum += be16(f + v->l3 + 12) + be16(f + v->l3 + 14);
	sum += be16(f + v->l3 + 16) + be16(f + v->l3 + 18);
	sum += 6 + (uint32_t)seg;
	return csum(f + v->l4, seg, sum) == 0;
}

/* Read the headers; 0 if the frame is not a complete IPv4 packet. */
static int view(const uint8_t *f, size_t len, struct view *v)
{
	unsigned type;

	memset(v, 0, sizeof(*v));
	if (len < 14)
		return 0;
	v->l3 = 14;
	type = be16(f + 12);
	if (type == 0x8100 && len >= 18) {
		v->vlan = 1;
		v->l3 = 18;
		type = be16(f + 16);
	}
	if (type != 0x0800 || len < v->l3 + 20 || f[v->l3] >> 4 != 4)
		return 0;
	v->ipv4 = 1;
	v->ihl = (f[v->l3] & 15u) * 4u;
	v->tos = f[v->l3 + 1];
	v->total = be16(f + v->l3 + 2);
	v->frag = be16(f + v->l3 + 6) & 0x3fffu;
	v->proto = f[v->l3 + 9];
	v->l4 = v->l3 + v->ihl;
	if (v->proto == 6 && !v->frag && v->l3 + v->total <= len &&
	    v->ihl + 20 <= v->total) {
		v->thl = (f[v->l4 + 12] >> 4) * 4u;
		v->pay = v->l4 + v->thl;
		v->pay_len = v->total - v->ihl - v->thl;
	}
	return 1;
}

/* ---- the checks ---------------------------------------------------------- */

struct file_counts {
	unsigned long frames, reason[INC_R_COUNT], compressed, tagged_data;
	unsigned long tcp_csum_checked, vlan, caplen_short;
	size_t max_len;
};

static int tagged(const struct view *v)
{
	return v->ipv4 && (v->tos & 0xfc) == 0x28;
}

static void check_compressed(const char *name, unsigned long idx,
			     const uint8_t *in, size_t len,
			     const struct view *v, const uint8_t *c, long clen,
			     unsigned eb, const struct inc_frame_config *cfg,
			     const struct inc_frame_info *cinfo)
{
	static uint8_t d[INC_FRAME_OUT_MAX];
	struct inc_class_counts cc = { { 0, 0, 0, 0 } };
	struct inc_frame_info info;
	struct view cv, dv;
	size_t i, nvals;
	long dlen;

	/* The compressed frame: smaller, valid IPv4, marker, same L2/TCP. */
	CHECK(clen < (long)len, "%s #%lu: compressed %ld >= %zu", name, idx,
	      clen, len);
	CHECK(view(c, (size_t)clen, &cv) && cv.l3 == v->l3,
	      "%s #%lu: compressed frame is not IPv4", name, idx);
	CHECK(ip_csum_ok(c, &cv), "%s #%lu: compressed IP checksum", name, idx);
	CHECK(cv.l3 + cv.total == (size_t)clen,
	      "%s #%lu: compressed total length %u, frame %ld", name, idx,
	      cv.total, clen);
	CHECK(cv.proto == INC_WIRE_IPPROTO, "%s #%lu: protocol %u", name, idx,
	      cv.proto);
	CHECK(!memcmp(c, in, v->l3 + 2) && !memcmp(c + v->l3 + 4, in + v->l3 + 4, 5) &&
	      !memcmp(c + v->l3 + 12, in + v->l3 + 12, v->l4 + 16 - v->l3 - 12) &&
	      !memcmp(c + v->l4 + 18, in + v->l4 + 18, v->pay - v->l4 - 18),
	      "%s #%lu: headers changed beyond length/protocol/checksums", name,
	      idx);
	CHECK(c[v->pay] == INC_WIRE_MAGIC && c[v->pay + 1] == INC_WIRE_VERSION &&
	      be16(c + v->pay + 2) == v->pay_len,
	      "%s #%lu: shim", name, idx);
	{                               /* the shim's tag-word sum */
		size_t g, pos = 0;
		unsigned tsum = 0, tw;

		for (g = 0; g < v->pay_len / 4; g += 8) {
			tw = c[v->pay + 6 + pos] | c[v->pay + 7 + pos] << 8;
			tsum += tw;
			pos += inc_group_size((uint16_t)tw);
		}
		CHECK(be16(c + v->pay + 4) == (tsum & 0xffff), "%s #%lu: tag-word sum", name, idx);
	}

	/* The round trip. */
	dlen = inc_frame_decompress(c, (size_t)clen, d, sizeof(d), cfg, &info);
	CHECK(dlen == (long)len && info.outcome == INC_OUT_DECOMPRESSED,
	      "%s #%lu eb %u: decompressed %ld bytes (%s/%s), want %zu", name,
	      idx, eb, dlen, inc_outcome_name(info.outcome),
	      inc_reason_name(info.reason), len);
	if (dlen != (long)len)
		return;
	CHECK(!memcmp(d, in, v->l4 + 16) &&
	      !memcmp(d + v->l4 + 18, in + v->l4 + 18, v->pay - v->l4 - 18),
	      "%s #%lu: restored headers differ", name, idx);
	CHECK(view(d, len, &dv) && ip_csum_ok(d, &dv) && tcp_csum_ok(d, &dv),
	      "%s #%lu: restored IP/TCP checksum invalid", name, idx);
	/* Format v2: the compressed frame carried the restored segment's
	 * checksum, and the receiver passed it on unchanged. */
	CHECK(!memcmp(c + v->l4 + 16, d + v->l4 + 16, 2),
	      "%s #%lu: TCP checksum on the wire differs from the restored one", name, idx);
	nvals = v->pay_len / 4;
	for (i = 0; i < nvals; i++) {
		uint32_t o, r, p;
		unsigned t;

		memcpy(&o, in + v->pay + 4 * i, 4);
		memcpy(&r, d + v->pay + 4 * i, 4);
		t = inc_compress_value(o, eb, &p);
		cc.n[t]++;
		if (r != inc_decompress_value(t, p)) {
			CHECK(0, "%s #%lu eb %u: value %zu 0x%08x -> 0x%08x", name,
			      idx, eb, i, o, r);
			break;
		}
	}
	CHECK(!memcmp(d + v->pay + 4 * nvals, in + v->pay + 4 * nvals,
		      v->pay_len % 4), "%s #%lu: tail bytes", name, idx);
	/* The class counts the model reports, on both sides. */
	CHECK(!memcmp(&cc, &cinfo->counts, sizeof(cc)) &&
	      !memcmp(&cc, &info.counts, sizeof(cc)),
	      "%s #%lu: class counts %llu/%llu/%llu/%llu differ from the values'",
	      name, idx, (unsigned long long)cc.n[0],
	      (unsigned long long)cc.n[1], (unsigned long long)cc.n[2],
	      (unsigned long long)cc.n[3]);
	/* A frame only differs from the original where the codec lost bits. */
	if (!memcmp(d + v->pay, in + v->pay, v->pay_len))
		CHECK(!memcmp(d, in, len), "%s #%lu: lossless payload but frame differs",
		      name, idx);
}

static void check_frame(const char *name, unsigned long idx,
			const uint8_t *in, size_t len, unsigned eb,
			struct file_counts *fc)
{
	static uint8_t out[INC_FRAME_OUT_MAX];
	struct inc_frame_config cfg;
	struct inc_frame_info info;
	struct view v;
	long r;
	int is_ip = view(in, len, &v);

	inc_frame_config_default(&cfg);
	cfg.eb = (uint8_t)eb;
	if (len > fc->max_len)
		fc->max_len = len;
	fc->vlan += v.vlan;
	if (is_ip && eb == 10) {
		CHECK(ip_csum_ok(in, &v), "%s #%lu: captured IP checksum", name, idx);
		if (v.proto == 6 && !v.frag) {
			CHECK(tcp_csum_ok(in, &v),
			      "%s #%lu: captured TCP checksum (offload left on?)",
			      name, idx);
			fc->tcp_csum_checked++;
		}
	}

	r = inc_frame_compress(in, len, out, sizeof(out), &cfg, &info);
	CHECK(r > 0, "%s #%lu: compress returned %ld", name, idx, r);
	if (r <= 0)
		return;
	fc->reason[info.reason]++;
	if (info.outcome == INC_OUT_COMPRESSED) {
		fc->compressed++;
		check_compressed(name, idx, in, len, &v, out, r, eb, &cfg,
				 &info);
	} else {
		CHECK(info.outcome == INC_OUT_BYPASS && r == (long)len &&
		      !memcmp(out, in, len),
		      "%s #%lu: bypassed frame (%s) not bit-identical", name, idx,
		      inc_reason_name(info.reason));
	}

	/* The expected decision, from the independent reading. */
	if (!is_ip) {
		CHECK(info.reason == INC_R_NOT_IPV4, "%s #%lu: non-IPv4 gave %s",
		      name, idx, inc_reason_name(info.reason));
	} else if (!tagged(&v)) {
		CHECK(info.reason == INC_R_TOS, "%s #%lu: ToS 0x%02x gave %s", name,
		      idx, v.tos, inc_reason_name(info.reason));
	} else if (v.frag) {
		CHECK(info.reason == INC_R_FRAGMENT, "%s #%lu: fragment gave %s",
		      name, idx, inc_reason_name(info.reason));
	} else if (v.proto != 6) {
		CHECK(info.reason == INC_R_NOT_TCP, "%s #%lu: protocol %u gave %s",
		      name, idx, v.proto, inc_reason_name(info.reason));
	} else if (v.pay_len == 0) {
		CHECK(info.reason == INC_R_NO_PAYLOAD,
		      "%s #%lu: tagged TCP without payload gave %s", name, idx,
		      inc_reason_name(info.reason));
	} else {
		fc->tagged_data++;
		CHECK(info.outcome == INC_OUT_COMPRESSED ||
		      info.reason == INC_R_NOT_SMALLER,
		      "%s #%lu: tagged TCP data gave %s", name, idx,
		      inc_reason_name(info.reason));
	}

	/* The receive side leaves every original frame alone. */
	r = inc_frame_decompress(in, len, out, sizeof(out), &cfg, &info);
	CHECK(r == (long)len && info.outcome == INC_OUT_BYPASS &&
	      !memcmp(out, in, len),
	      "%s #%lu: decompress changed an uncompressed frame (%s)", name,
	      idx, inc_reason_name(info.reason));
}

static void check_file(const char *path)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	static const unsigned ebs[] = { 6, 8, 10 };
	struct pcap_pkthdr *h;
	const u_char *data;
	const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	unsigned k;

	for (k = 0; k < 3; k++) {
		struct file_counts fc;
		pcap_t *p = pcap_open_offline(path, errbuf);
		int rc;

		memset(&fc, 0, sizeof(fc));
		CHECK(p != NULL, "%s", errbuf);
		if (!p)
			return;
		CHECK(pcap_datalink(p) == DLT_EN10MB, "%s: not Ethernet", name);
		while ((rc = pcap_next_ex(p, &h, &data)) == 1) {
			fc.frames++;
			if (h->caplen < h->len) {
				fc.caplen_short++;
				continue;
			}
			check_frame(name, fc.frames, data, h->caplen, ebs[k], &fc);
		}
		CHECK(rc == -2, "%s: read error: %s", name, pcap_geterr(p));
		pcap_close(p);
		if (fc.caplen_short)
			continue;       /* a snaplen-limited capture: frames unusable */

		/* The capture has what experiments/capture.sh puts in it. */
		CHECK(fc.frames > 20, "%s: only %lu frames", name, fc.frames);
		CHECK(fc.compressed >= 10 &&
		      fc.compressed * 100 >= fc.tagged_data * 95,
		      "%s eb %u: %lu of %lu tagged data frames compressed", name,
		      ebs[k], fc.compressed, fc.tagged_data);
		CHECK(fc.reason[INC_R_TOS] >= 5, "%s: %lu untagged frames", name,
		      fc.reason[INC_R_TOS]);
		CHECK(fc.reason[INC_R_NO_PAYLOAD] >= 3,
		      "%s: %lu tagged frames without payload", name,
		      fc.reason[INC_R_NO_PAYLOAD]);
		CHECK(fc.reason[INC_R_NOT_TCP] >= 2, "%s: %lu tagged UDP/ICMP", name,
		      fc.reason[INC_R_NOT_TCP]);
		CHECK(fc.reason[INC_R_FRAGMENT] >= 1, "%s: no fragments", name);
		CHECK(fc.reason[INC_R_NOT_IPV4] >= 1, "%s: no ARP/IPv6", name);
		if (ebs[k] == 10)
			CHECK(fc.tcp_csum_checked >= 20,
			      "%s: %lu TCP checksums checked", name,
			      fc.tcp_csum_checked);
		/* No GSO/TSO super-frames: every frame fits a (jumbo) MTU. */
		CHECK(fc.max_len <= 9018, "%s: frame of %zu bytes", name,
		      fc.max_len);
		if (strstr(name, "vlan"))
			CHECK(fc.vlan == fc.frames, "%s: %lu of %lu frames tagged",
			      name, fc.vlan, fc.frames);
		if (ebs[k] == 10)
			printf("%s: %lu frames, %lu compressed, tos %lu, no_payload %lu, not_tcp %lu, fragment %lu, not_ipv4 %lu\n",
			       name, fc.frames, fc.compressed, fc.reason[INC_R_TOS],
			       fc.reason[INC_R_NO_PAYLOAD],
			       fc.reason[INC_R_NOT_TCP],
			       fc.reason[INC_R_FRAGMENT],
			       fc.reason[INC_R_NOT_IPV4]);
	}
}

int main(int argc, char **argv)
{
	int i;

	CHECK(argc > 1, "no capture files given");
	for (i = 1; i < argc; i++)
		check_file(argv[i]);
	return inc_test_done();
}
