// SPDX-License-Identifier: MIT
/*
 * inc-pcap - run Ethernet captures through the model's frame format
 * (docs/wire-format.md): inc_frame_compress / inc_frame_decompress on every
 * frame, with a report of what happened.
 *
 *   inc-pcap compress   IN.pcap [OUT.pcap] [--error-bound N] [--tos V[/M]]
 *   inc-pcap decompress IN.pcap [OUT.pcap] [--tos V[/M]]
 *   inc-pcap stats      IN.pcap            [--error-bound N] [--tos V[/M]]
 *
 * The output is a pcap file with the input's link type and snapshot length
 * (in decompress mode raised to the largest frame that can be restored, so
 * no restored frame is cut); every frame keeps its timestamp, dropped
 * (oversize) frames are omitted. Frames captured short of their wire length
 * (caplen < len) cannot be processed: they are written unchanged and counted
 * as "capture_truncated". In compress and stats, matching TCP frames whose
 * own checksum is wrong (captured before checksum offload filled it) are
 * compressed as the NIC would and counted as "input_tcp_csum"; their error
 * is not measured (the receiver would drop them). The output is written
 * to a temporary beside OUT.pcap and renamed over it at the end: a failure
 * leaves OUT.pcap as it was; OUT.pcap may not be the input.
 */
#include "inc_model.h"
#include "inc_tool.h"

#include <errno.h>
#include <math.h>
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
"usage: inc-pcap compress   IN.pcap [OUT.pcap] [options]\n"
"       inc-pcap decompress IN.pcap [OUT.pcap] [options]\n"
"       inc-pcap stats      IN.pcap [options]\n"
"\n"
"compress    run inc_frame_compress on every frame of an Ethernet capture:\n"
"            TCP payloads of frames whose IPv4 ToS matches are compressed,\n"
"            everything else passes unchanged. Writes OUT.pcap if given\n"
"            ('-' for stdout) and a summary on stderr.\n"
"decompress  run inc_frame_decompress on every frame (marked frames are\n"
"            restored, others pass unchanged); OUT.pcap and summary as above.\n"
"stats       compress in memory and report frames total/matched/compressed/\n"
"            bypassed (by reason), bytes before and after, the ratio, the\n"
"            2/10/18/34-bit shares of the compressed values and the largest\n"
"            absolute error of their round trip.\n"
"\n"
"options:\n"
"  --error-bound N   error bound 2^-N, N in 1..126 (or 2^-N); default 10\n"
"  --tos V[/M]       ToS match (tos & M) == (V & M); default 0x28/0xfc\n"
"  --max-frame N     drop frames longer than N bytes (0 = no limit); default 9018\n"
"  --kv              print the report as one line of key=value pairs\n"
"  --help            this text\n";

enum mode { M_COMPRESS, M_DECOMPRESS, M_STATS };

struct report {
	uint64_t frames, matched, cap_trunc, in_csum;
	uint64_t outcome[INC_OUT_COUNT];
	uint64_t reason[INC_R_COUNT];     /* bypassed, malformed or dropped frames */
					  /* (dropped ones are all oversize) */
	uint64_t bytes_in, bytes_out;     /* all frames read / written */
	uint64_t done_in, done_out;       /* frames compressed/decompressed */
	uint64_t pay_in, pay_out;         /* their TCP payload (shim+stream+tail) */
	struct inc_class_counts cc;
	uint64_t err_values;              /* values compared in the round trip */
	double max_err;
};

/*
 * The ToS of an IPv4 frame (after at most one 802.1Q tag), for the
 * "matched" count only; the model makes every compress decision itself.
 */
static int frame_tos(const uint8_t *f, size_t len, uint8_t *tos)
{
	size_t l3 = 14;
	unsigned type;

	if (len < 14)
		return 0;
	type = (unsigned)f[12] << 8 | f[13];
	if (type == 0x8100) {
		if (len < 18)
			return 0;
		type = (unsigned)f[16] << 8 | f[17];
		l3 = 18;
	}
	if (type != 0x0800 || len < l3 + 2 || (f[l3] >> 4) != 4)
		return 0;
	*tos = f[l3 + 1];
	return 1;
}

static float f32_at(const uint8_t *p)
{
	uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 |
		     (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

/*
 * Decompress a frame the model just compressed and measure the per-value
 * error against the original payload. orig_len is the original frame up to
 * the end of its IP datagram (payload_off + payload_in of the compression):
 * Ethernet padding after it is not part of the packet and is not restored.
 * A failure here is a model bug.
 */
static void round_trip(const uint8_t *orig, size_t orig_len,
		       const uint8_t *comp, size_t comp_len,
		       const struct inc_frame_config *cfg, uint8_t *buf,
		       size_t buf_cap, uint64_t idx, struct report *rep)
{
	struct inc_frame_info info;
	long r = inc_frame_decompress(comp, comp_len, buf, buf_cap, cfg, &info);
	size_t off, end, i;
	double e;
	float a, b;

	if (r != (long)orig_len || info.outcome != INC_OUT_DECOMPRESSED)
		inc_die("frame %llu: the model's round trip failed (%s, %s, %ld bytes)",
			(unsigned long long)idx, inc_outcome_name(info.outcome),
			inc_reason_name(info.reason), r);
	off = info.payload_off;
	end = off + info.payload_out / 4u * 4u;
	for (i = off; i < end; i += 4) {
		a = f32_at(orig + i);
		b = f32_at(buf + i);
		rep->err_values++;
		if (isnan(a) || isinf(a))       /* tag 3: carried bit-exactly */
			continue;
		e = fabs((double)a - (double)b);
		if (e > rep->max_err)
			rep->max_err = e;
	}
}

static void account(struct report *rep, const struct inc_frame_info *info,
		    size_t in_len, long out_len)
{
	rep->outcome[info->outcome]++;
	if (info->outcome == INC_OUT_COMPRESSED ||
	    info->outcome == INC_OUT_DECOMPRESSED) {
		rep->done_in += in_len;
		rep->done_out += (uint64_t)out_len;
		rep->pay_in += info->payload_in;
		rep->pay_out += info->payload_out;
		for (unsigned t = 0; t < 4; t++)
			rep->cc.n[t] += info->counts.n[t];
	} else {
		rep->reason[info->reason]++;
	}
}

static double ratio(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0.0;
}

static double ratio_inv(uint64_t a, uint64_t b)
{
	return ratio(b, a);
}

static void print_report(FILE *f, const struct report *r, enum mode m,
			 const struct inc_frame_config *cfg, const char *in,
			 int kv)
{
	uint64_t done = r->outcome[m == M_DECOMPRESS ? INC_OUT_DECOMPRESSED :
						       INC_OUT_COMPRESSED];
	uint64_t bypassed = r->outcome[INC_OUT_BYPASS] + r->cap_trunc;
	const char *verb = m == M_DECOMPRESS ? "decompressed" : "compressed";
	/* Bytes before/after are input/output; every ratio is original over
	 * compressed size, so decompress reports after/before. */
	double (*rt)(uint64_t, uint64_t) = m == M_DECOMPRESS ? ratio_inv : ratio;
	unsigned i;
	int first = 1;

	if (kv) {
		fprintf(f, "frames=%llu matched=%llu %s=%llu bypassed=%llu malformed=%llu dropped=%llu capture_truncated=%llu input_tcp_csum=%llu",
			(unsigned long long)r->frames,
			(unsigned long long)r->matched, verb,
			(unsigned long long)done, (unsigned long long)bypassed,
			(unsigned long long)r->outcome[INC_OUT_MALFORMED],
			(unsigned long long)r->outcome[INC_OUT_DROPPED],
			(unsigned long long)r->cap_trunc,
			(unsigned long long)r->in_csum);
		for (i = 1; i < INC_R_COUNT; i++)
			if (r->reason[i])
				fprintf(f, " reason_%s=%llu", inc_reason_name(i),
					(unsigned long long)r->reason[i]);
		fprintf(f, " bytes_before=%llu bytes_after=%llu ratio=%.4f",
			(unsigned long long)r->bytes_in,
			(unsigned long long)r->bytes_out,
			rt(r->bytes_in, r->bytes_out));
		fprintf(f, " frame_bytes_before=%llu frame_bytes_after=%llu frame_ratio=%.4f",
			(unsigned long long)r->done_in,
			(unsigned long long)r->done_out,
			rt(r->done_in, r->done_out));
		fprintf(f, " payload_before=%llu payload_after=%llu payload_ratio=%.4f",
			(unsigned long long)r->pay_in,
			(unsigned long long)r->pay_out,
			rt(r->pay_in, r->pay_out));
		fprintf(f, " values=%llu share2=%.2f share10=%.2f share18=%.2f share34=%.2f",
			(unsigned long long)(r->cc.n[0] + r->cc.n[1] +
					     r->cc.n[2] + r->cc.n[3]),
			inc_class_share(&r->cc, 0), inc_class_share(&r->cc, 1),
			inc_class_share(&r->cc, 2), inc_class_share(&r->cc, 3));
		fprintf(f, " values_2bit=%llu values_10bit=%llu values_18bit=%llu values_34bit=%llu",
			(unsigned long long)r->cc.n[0], (unsigned long long)r->cc.n[1],
			(unsigned long long)r->cc.n[2], (unsigned long long)r->cc.n[3]);
		if (m != M_DECOMPRESS)
			fprintf(f, " max_abs_error=%.9g", r->max_err);
		fputc('\n', f);
		return;
	}

	fprintf(f, "%s: ", in);
	if (m == M_DECOMPRESS)
		fprintf(f, "decompress, ToS 0x%02x/0x%02x\n", cfg->tos_value,
			cfg->tos_mask);
	else
		fprintf(f, "error bound 2^-%u, ToS 0x%02x/0x%02x\n", cfg->eb,
			cfg->tos_value, cfg->tos_mask);
	fprintf(f, "  frames        total %llu, matched %llu, %s %llu, bypassed %llu",
		(unsigned long long)r->frames, (unsigned long long)r->matched,
		verb, (unsigned long long)done, (unsigned long long)bypassed);
	if (r->outcome[INC_OUT_MALFORMED])
		fprintf(f, ", malformed %llu",
			(unsigned long long)r->outcome[INC_OUT_MALFORMED]);
	if (r->outcome[INC_OUT_DROPPED])
		fprintf(f, ", dropped %llu",
			(unsigned long long)r->outcome[INC_OUT_DROPPED]);
	fputc('\n', f);
	fprintf(f, "  by reason    ");
	for (i = 1; i < INC_R_COUNT; i++) {
		if (!r->reason[i])
			continue;
		fprintf(f, "%s %s %llu", first ? "" : ",", inc_reason_name(i),
			(unsigned long long)r->reason[i]);
		first = 0;
	}
	if (r->cap_trunc) {
		fprintf(f, "%s capture_truncated %llu", first ? "" : ",",
			(unsigned long long)r->cap_trunc);
		first = 0;
	}
	if (r->in_csum) {
		fprintf(f, "%s input_tcp_csum %llu (compressed; not measured)",
			first ? "" : ",", (unsigned long long)r->in_csum);
		first = 0;
	}
	fprintf(f, "%s\n", first ? " (none)" : "");
	fprintf(f, "  bytes         all frames %llu -> %llu (ratio %.2f); %s frames %llu -> %llu (ratio %.2f)\n",
		(unsigned long long)r->bytes_in,
		(unsigned long long)r->bytes_out,
		rt(r->bytes_in, r->bytes_out), verb,
		(unsigned long long)r->done_in,
		(unsigned long long)r->done_out,
		rt(r->done_in, r->done_out));
	fprintf(f, "  TCP payload   %llu -> %llu (ratio %.2f)\n",
		(unsigned long long)r->pay_in, (unsigned long long)r->pay_out,
		rt(r->pay_in, r->pay_out));
	fprintf(f, "  values        %llu: 2-bit %.1f%%, 10-bit %.1f%%, 18-bit %.1f%%, 34-bit %.1f%%\n",
		(unsigned long long)(r->cc.n[0] + r->cc.n[1] + r->cc.n[2] +
				     r->cc.n[3]),
		inc_class_share(&r->cc, 0), inc_class_share(&r->cc, 1),
		inc_class_share(&r->cc, 2), inc_class_share(&r->cc, 3));
	if (m != M_DECOMPRESS)
		fprintf(f, "  max abs error %.6g (%s%.2f) over %llu values\n",
			r->max_err, r->max_err > 0 ? "2^" : "",
			r->max_err > 0 ? log2(r->max_err) : 0.0,
			(unsigned long long)r->err_values);
}

int main(int argc, char **argv)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	struct inc_frame_config cfg;
	struct inc_frame_info info;
	struct pcap_pkthdr *hdr, oh;
	const u_char *data;
	struct report rep;
	const char *in_path = NULL, *out_path = NULL, *v;
	unsigned long long ull;
	pcap_dumper_t *dump = NULL;
	pcap_t *pin, *pdead = NULL;
	uint8_t *out, *buf;
	enum mode mode;
	int i, kv = 0, rc, snaplen, lt;
	size_t cap;
	uint8_t tos;
	long r;

	inc_tool_name = "inc-pcap";
	inc_frame_config_default(&cfg);
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs(usage, stdout);
		return 0;
	}
	if (argc < 2)
		inc_usage_error("missing command (compress, decompress or stats); see --help");
	if (!strcmp(argv[1], "compress"))
		mode = M_COMPRESS;
	else if (!strcmp(argv[1], "decompress"))
		mode = M_DECOMPRESS;
	else if (!strcmp(argv[1], "stats"))
		mode = M_STATS;
	else
		inc_usage_error("unknown command '%s' (want compress, decompress or stats)",
				argv[1]);

	for (i = 2; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(usage, stdout);
			return 0;
		} else if (!strcmp(a, "--kv")) {
			kv = 1;
		} else if (inc_opt(argc, argv, &i, "--error-bound", &v)) {
			unsigned eb;

			if (inc_parse_eb(v, &eb))
				inc_usage_error("bad --error-bound '%s' (want N in 1..126 or 2^-N)", v);
			cfg.eb = (uint8_t)eb;
		} else if (inc_opt(argc, argv, &i, "--tos", &v)) {
			if (inc_parse_tos(v, &cfg.tos_value, &cfg.tos_mask))
				inc_usage_error("bad --tos '%s' (want VALUE[/MASK], each 0..255)", v);
		} else if (inc_opt(argc, argv, &i, "--max-frame", &v)) {
			if (inc_parse_ull(v, &ull) || ull > 65535)
				inc_usage_error("bad --max-frame '%s' (want 0..65535)", v);
			cfg.max_frame = (uint16_t)ull;
		} else if (a[0] == '-' && a[1] != '\0') {
			inc_usage_error("unknown option '%s'; see --help", a);
		} else if (!in_path) {
			in_path = a;
		} else if (!out_path && mode != M_STATS) {
			out_path = a;
		} else {
			inc_usage_error("unexpected argument '%s'; see --help", a);
		}
	}
	if (!in_path)
		inc_usage_error("missing input capture; see --help");
	if (out_path && strcmp(out_path, "-") && inc_same_file(in_path, out_path))
		inc_usage_error("output %s is the input %s (the same file); nothing written",
				out_path, in_path);

	pin = pcap_open_offline(in_path, errbuf);
	if (!pin)
		inc_die("%s", errbuf);
	lt = pcap_datalink(pin);
	if (lt != DLT_EN10MB)
		inc_die("%s: link type %s is not Ethernet (DLT_EN10MB)", in_path,
			pcap_datalink_val_to_name(lt) ? pcap_datalink_val_to_name(lt) :
							"unknown");
	snaplen = inc_out_snaplen(pcap_snapshot(pin), mode == M_DECOMPRESS,
				  cfg.max_frame);
	if (out_path) {
		pdead = pcap_open_dead(lt, snaplen);
		if (!pdead)
			inc_die("cannot set up the output capture");
		dump = pcap_dump_fopen(pdead, inc_out_open(out_path, in_path));
		if (!dump)
			inc_die("%s", pcap_geterr(pdead));
	}

	/* Room for any frame the model can output and any frame libpcap
	 * hands us (its largest snapshot length is 256 KiB). */
	cap = INC_FRAME_OUT_MAX;
	if (snaplen > 0 && (size_t)snaplen > cap)
		cap = (size_t)snaplen;
	if (cap < 262144)
		cap = 262144;
	out = malloc(cap);
	buf = malloc(cap);
	if (!out || !buf)
		inc_die("out of memory");
	memset(&rep, 0, sizeof(rep));

	while ((rc = pcap_next_ex(pin, &hdr, &data)) == 1) {
		const uint8_t *wr = data;
		size_t wlen = hdr->caplen;

		rep.frames++;
		rep.bytes_in += hdr->caplen;
		if (frame_tos(data, hdr->caplen, &tos) &&
		    (tos & cfg.tos_mask) == (cfg.tos_value & cfg.tos_mask))
			rep.matched++;
		if (hdr->caplen > cap)
			inc_die("%s: frame %llu: %u bytes, larger than any snapshot length",
				in_path, (unsigned long long)rep.frames, hdr->caplen);
		if (hdr->caplen < hdr->len) {
			/* Not the whole frame: nothing can be done with it. */
			rep.cap_trunc++;
		} else {
			if (mode == M_DECOMPRESS)
				r = inc_frame_decompress(data, hdr->caplen, out,
							 cap, &cfg, &info);
			else
				r = inc_frame_compress(data, hdr->caplen, out,
						       cap, &cfg, &info);
			if (r < 0)
				inc_die("frame %llu: %s", (unsigned long long)rep.frames,
					inc_model_strerror((int)r));
			account(&rep, &info, hdr->caplen, r);
			if (info.outcome == INC_OUT_COMPRESSED &&
			    inc_tcp_csum_bad(data, hdr->caplen, &cfg))
				rep.in_csum++;
			else if (info.outcome == INC_OUT_COMPRESSED)
				round_trip(data, (size_t)info.payload_off + info.payload_in,
					   out, (size_t)r, &cfg, buf, cap, rep.frames, &rep);
			if (info.outcome == INC_OUT_DROPPED)
				continue;
			wr = out;
			wlen = (size_t)r;
		}
		rep.bytes_out += wlen;
		if (dump) {
			oh.ts = hdr->ts;
			if (wr == data) {
				oh.caplen = hdr->caplen;
				oh.len = hdr->len;
			} else {
				oh.len = (bpf_u_int32)wlen;
				oh.caplen = wlen > (size_t)snaplen ?
					(bpf_u_int32)snaplen : (bpf_u_int32)wlen;
			}
			pcap_dump((u_char *)dump, &oh, wr);
		}
	}
	if (rc == -1)
		inc_die("%s: frame %llu: %s", in_path,
			(unsigned long long)rep.frames + 1, pcap_geterr(pin));
	if (dump) {
		FILE *of = pcap_dump_file(dump);

		if (pcap_dump_flush(dump) || ferror(of) ||
		    (of != stdout && inc_out_sync(of)))
			inc_die("%s: write failed: %s", out_path, strerror(errno));
		pcap_dump_close(dump);
		pcap_close(pdead);
		inc_out_commit();
	}
	pcap_close(pin);

	print_report(mode == M_STATS ? stdout : stderr, &rep, mode, &cfg,
		     in_path, kv);
	free(out);
	free(buf);
	return 0;
}
