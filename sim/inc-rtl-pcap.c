// SPDX-License-Identifier: MIT
/*
 * inc-rtl-pcap - stream every frame of an Ethernet capture through the
 * Verilated inc_offload_top (the real RTL): the TX path for compress, the
 * RX path for decompress. The CSR block is programmed over AXI4-Lite
 * (enables, ToS, error bound); the output frames are written to OUT.pcap
 * with the input timestamps, and the counters read back from the CSR and
 * the measured beats/cycle are printed.
 *
 *   inc-rtl-pcap {compress|decompress} IN.pcap OUT.pcap [--error-bound N]
 *                [--tos VALUE[/MASK]] [--stall] [--width 256|512]
 *
 * OUT.pcap is byte-identical to `inc-pcap compress|decompress IN OUT` with
 * the same options: same link type and snapshot length, dropped frames
 * (oversize; compressed frames that fail their payload checksum) omitted,
 * frames captured short of their length (caplen < len) written unchanged
 * without entering the engine; the output's snapshot length is raised in
 * decompress mode so no restored frame is cut, and matching TCP frames with
 * a wrong checksum of their own are compressed and counted as
 * "input_tcp_csum" (tools/inc_tool.c, as inc-pcap does). OUT.pcap is
 * written through a temporary and renamed at the end (a failure leaves it
 * as it was) and may not be IN.pcap. Which frames the engine dropped comes from
 * its per-frame statistics pulse (one per frame, in order): the output
 * frames are matched with the input records that were not dropped, and the
 * summary counts the drops by reason.
 *
 * A Verilated model has one DATA_WIDTH, so the tool is built once per
 * width: inc-rtl-pcap (256 bits) and inc-rtl-pcap-w512 beside it. Given a
 * --width other than its own, each runs the other with the same arguments.
 */
#include "top_tb.h"
#include "inc_model.h"
#include "inc_regs.h"
#include "inc_tool.h"

#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_FRAME 9018u   /* the top's MAX_FRAME parameter */
#ifndef INC_RTL_WIDTH
#define INC_RTL_WIDTH 256 /* the top's DATA_WIDTH in this build */
#endif

/* inc_tool_name (tools/inc_tool.c) is set at the start of top_main. */

static const char usage[] =
"usage: inc-rtl-pcap {compress|decompress} IN.pcap OUT.pcap [options]\n"
"\n"
"Runs every frame of an Ethernet capture through the Verilated RTL\n"
"(inc_offload_top: TX path for compress, RX path for decompress) and writes\n"
"the output frames to OUT.pcap; prints the CSR counters and beats/cycle.\n"
"\n"
"options:\n"
"  --error-bound N   error bound 2^-N, N in 1..126; default 10\n"
"  --tos V[/M]       ToS match (tos & M) == (V & M); default 0x28/0xfc\n"
"  --stall           random tvalid gaps and tready backpressure\n"
"  --width W         AXI4-Stream width of the RTL, 256 (default) or 512\n"
"  --help            this text\n";

struct rec {
	struct pcap_pkthdr h;
	int dropped;                  /* the engine's statistics said so */
};

static struct top_bus bus;
static struct inc_axis_sink *sink;
static pcap_dumper_t *dump;
static int snaplen;
/* Input records of the frames in the engine, in order: [pend_head,
 * stat_head) have had their statistics pulse, [stat_head, pend_tail) not
 * yet. */
static struct rec *pend;
static size_t pend_head, stat_head, pend_tail, pend_cap;
static uint64_t frames_out, bytes_out, drops, drop_reason[INC_R_COUNT], in_csum;
static int rx_side;

static void write_rec(const struct pcap_pkthdr *in, const uint8_t *d, size_t len)
{
	struct pcap_pkthdr oh;

	oh.ts = in->ts;
	oh.len = (bpf_u_int32)len;
	oh.caplen = len > (size_t)snaplen ? (bpf_u_int32)snaplen : (bpf_u_int32)len;
	pcap_dump((u_char *)dump, &oh, d);
	frames_out++;
	bytes_out += len;
}

/* Every cycle: note the statistics pulse, then match the output frames in
 * order with the records the engine did not drop. An output frame waits
 * until every earlier record's pulse is known. */
static void hook(void *arg)
{
	struct inc_axis_frame *got;
	int valid, outcome, reason;

	(void)arg;
	top_tb_stat(rx_side, &valid, &outcome, &reason);
	if (valid) {
		if (stat_head == pend_tail)
			inc_die("the engine reported a frame nobody sent");
		if (outcome == INC_OUT_DROPPED) {
			pend[stat_head].dropped = 1;
			drops++;
			if (reason >= 0 && reason < INC_R_COUNT)
				drop_reason[reason]++;
		}
		stat_head++;
	}
	while (pend_head < stat_head) {
		if (pend[pend_head].dropped) {
			pend_head++;
			continue;
		}
		got = inc_axis_fifo_pop(&sink->done);
		if (!got)
			break;
		write_rec(&pend[pend_head++].h, got->data, got->len);
		inc_axis_frame_free(got);
	}
	if (pend_head == pend_tail && sink->done.count)
		inc_die("the engine sent a frame nobody expects");
}

static void run_until_drained(struct inc_axis_src *src)
{
	uint64_t quiet = 0, mark = 0;

	while (!inc_axis_src_idle(src) || pend_head != pend_tail) {
		top_cycle(&bus);
		if (src->beats + sink->beats != mark) {
			mark = src->beats + sink->beats;
			quiet = 0;
		} else if (++quiet > 1000000) {
			inc_die("the engine stopped making progress");
		}
	}
}

static void print_counters(uint32_t base, const char *dir)
{
	unsigned i;
	uint64_t v;

	printf("%s counters (CSR):", dir);
	for (i = 0; i < INC_OUT_COUNT; i++) {
		v = top_read_counter(&bus, INC_REG_CNT_OUTCOME(base, i));
		printf(" %s=%llu", inc_outcome_name(i), (unsigned long long)v);
	}
	printf("\n%s reasons (CSR):", dir);
	for (i = 0; i < INC_R_COUNT; i++) {
		v = top_read_counter(&bus, INC_REG_CNT_REASON(base, i));
		if (v)
			printf(" %s=%llu", inc_reason_name(i), (unsigned long long)v);
	}
	printf("\n%s bytes (CSR): in=%llu out=%llu\n", dir,
	       (unsigned long long)top_read_counter(&bus, INC_REG_CNT_BYTES_IN(base)),
	       (unsigned long long)top_read_counter(&bus, INC_REG_CNT_BYTES_OUT(base)));
}

/* Runs the build of the tool for another width (same directory, same
 * arguments); returns only on failure. */
static void exec_width(unsigned width, char **argv)
{
	char self[4096], path[4200];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n <= 0)
		inc_die("--width %u: cannot find this program's path: %s", width, strerror(errno));
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (slash)
		slash[1] = '\0';
	snprintf(path, sizeof(path), "%sinc-rtl-pcap%s", slash ? self : "",
		 width == 512 ? "-w512" : "");
	fflush(stdout);
	execv(path, argv);
	inc_die("--width %u: cannot run %s: %s (make %s builds it)", width, path, strerror(errno),
		width == 512 ? "build/bin/inc-rtl-pcap-w512" : "build/bin/inc-rtl-pcap");
}

int top_main(int argc, char **argv)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	const char *cmd = NULL, *in_path = NULL, *out_path = NULL, *v;
	unsigned eb = INC_EB_DEFAULT;
	uint8_t tos_value = INC_TOS_DEFAULT, tos_mask = INC_TOS_MASK_DEFAULT;
	int stall = 0, compress, i, rc;
	unsigned width = INC_RTL_WIDTH;
	struct pcap_pkthdr *hdr;
	const u_char *data;
	struct inc_axis_src *src;
	pcap_t *pin, *pdead;
	uint64_t frames = 0, c0, c1;
	char *vargv[2] = { argv[0], NULL };
	struct inc_frame_config cfg;

	inc_tool_name = "inc-rtl-pcap";

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(usage, stdout);
			return 0;
		} else if (inc_opt(argc, argv, &i, "--error-bound", &v)) {
			if (inc_parse_eb(v, &eb))
				inc_usage_error("bad --error-bound '%s' (want N in 1..126)", v);
		} else if (inc_opt(argc, argv, &i, "--tos", &v)) {
			if (inc_parse_tos(v, &tos_value, &tos_mask))
				inc_usage_error("bad --tos '%s' (want VALUE[/MASK], each 0..255)", v);
		} else if (!strcmp(a, "--stall")) {
			stall = 1;
		} else if (inc_opt(argc, argv, &i, "--width", &v)) {
			if (!strcmp(v, "256"))
				width = 256;
			else if (!strcmp(v, "512"))
				width = 512;
			else
				inc_usage_error("bad --width '%s' (want 256 or 512)", v);
		} else if (a[0] == '-' && a[1]) {
			inc_usage_error("unknown option '%s'; see --help", a);
		} else if (!cmd) {
			cmd = a;
		} else if (!in_path) {
			in_path = a;
		} else if (!out_path) {
			out_path = a;
		} else {
			inc_usage_error("unexpected argument '%s'; see --help", a);
		}
	}
	if (!cmd || (strcmp(cmd, "compress") && strcmp(cmd, "decompress")))
		inc_usage_error("want compress or decompress; see --help");
	if (!in_path || !out_path)
		inc_usage_error("want IN.pcap and OUT.pcap; see --help");
	compress = !strcmp(cmd, "compress");
	if (inc_same_file(in_path, out_path))
		inc_usage_error("output %s is the input %s (the same file); nothing written",
				out_path, in_path);
	if (width != INC_RTL_WIDTH)
		exec_width(width, argv);
	inc_frame_config_default(&cfg);
	cfg.eb = (uint8_t)eb;
	cfg.tos_value = tos_value;
	cfg.tos_mask = tos_mask;
	cfg.max_frame = MAX_FRAME;

	pin = pcap_open_offline(in_path, errbuf);
	if (!pin)
		inc_die("%s", errbuf);
	if (pcap_datalink(pin) != DLT_EN10MB)
		inc_die("%s: link type is not Ethernet (DLT_EN10MB)", in_path);
	snaplen = inc_out_snaplen(pcap_snapshot(pin), !compress, MAX_FRAME);
	pdead = pcap_open_dead(DLT_EN10MB, snaplen);
	if (!pdead)
		inc_die("cannot set up the output capture");
	dump = pcap_dump_fopen(pdead, inc_out_open(out_path, in_path));
	if (!dump)
		inc_die("%s", pcap_geterr(pdead));

	top_tb_open(1, vargv);
	top_bus_init(&bus, 0x1234567);
	top_reset(&bus, 4);
	rx_side = !compress;
	src = compress ? &bus.tx_src : &bus.rx_src;
	sink = compress ? &bus.tx_sink : &bus.rx_sink;
	src->gap_pct = stall ? 30 : 0;
	sink->stall_pct = stall ? 30 : 0;
	top_axil_write(&bus, INC_REG_TOS, (uint32_t)tos_mask << 8 | tos_value);
	top_axil_write(&bus, INC_REG_EB, eb);
	top_axil_write(&bus, INC_REG_CTRL, compress ? INC_CTRL_TX_EN : INC_CTRL_RX_EN);
	top_axil_write(&bus, INC_REG_CNT_CTRL, INC_CNT_CTRL_CLEAR);
	bus.hook = hook;

	c0 = bus.cycles;
	while ((rc = pcap_next_ex(pin, &hdr, &data)) == 1) {
		frames++;
		if (hdr->caplen < hdr->len || hdr->caplen == 0) {
			/* Not the whole frame: written unchanged, in order. */
			run_until_drained(src);
			pcap_dump((u_char *)dump, hdr, data);
			frames_out++;
			bytes_out += hdr->caplen;
			continue;
		}
		/* Every frame that enters the engine has a record: its pulse
		 * says whether an output frame follows (oversize ones too). */
		if (pend_tail == pend_cap) {
			memmove(pend, pend + pend_head, (pend_tail - pend_head) * sizeof(*pend));
			pend_tail -= pend_head;
			stat_head -= pend_head;
			pend_head = 0;
			if (pend_tail == pend_cap) {
				pend_cap = pend_cap ? 2 * pend_cap : 64;
				pend = realloc(pend, pend_cap * sizeof(*pend));
				if (!pend)
					inc_die("out of memory");
			}
		}
		if (compress && inc_tcp_csum_bad(data, hdr->caplen, &cfg))
			in_csum++;
		pend[pend_tail].h = *hdr;
		pend[pend_tail++].dropped = 0;
		inc_axis_src_push(src, data, hdr->caplen, frames);
		while (src->q.count > 4)
			top_cycle(&bus);
	}
	if (rc == -1)
		inc_die("%s: %s", in_path, pcap_geterr(pin));
	run_until_drained(src);
	c1 = bus.cycles;
	bus.hook = NULL;

	if (sink->done.count)
		inc_die("the engine sent a frame nobody expects");
	printf("%s %s -> %s: %llu frames in, %llu out (%llu bytes), %llu dropped\n", cmd, in_path,
	       out_path, (unsigned long long)frames, (unsigned long long)frames_out,
	       (unsigned long long)bytes_out, (unsigned long long)drops);
	printf("dropped by reason (engine):");
	for (i = 0; i < INC_R_COUNT; i++)
		if (drop_reason[i])
			printf(" %s=%llu", inc_reason_name(i), (unsigned long long)drop_reason[i]);
	printf("%s\n", drops ? "" : " (none)");
	if (in_csum)
		printf("input_tcp_csum=%llu (frames whose own TCP checksum is wrong: compressed, the receiver drops them)\n",
		       (unsigned long long)in_csum);
	print_counters(compress ? INC_REG_TX_BASE : INC_REG_RX_BASE, compress ? "TX" : "RX");
	printf("beats/cycle (%u-bit): in %.3f, out %.3f (%llu cycles%s)\n", INC_RTL_WIDTH,
	       c1 > c0 ? (double)src->beats / (double)(c1 - c0) : 0.0,
	       c1 > c0 ? (double)sink->beats / (double)(c1 - c0) : 0.0,
	       (unsigned long long)(c1 - c0), stall ? ", with stalls" : "");
	if (pcap_dump_flush(dump) || ferror(pcap_dump_file(dump)) ||
	    (pcap_dump_file(dump) != stdout && inc_out_sync(pcap_dump_file(dump))))
		inc_die("%s: write failed: %s", out_path, strerror(errno));
	pcap_dump_close(dump);
	inc_out_commit();
	pcap_close(pdead);
	pcap_close(pin);
	free(pend);
	top_bus_free(&bus);
	top_tb_close();
	return 0;
}
