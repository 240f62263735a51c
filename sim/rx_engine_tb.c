// SPDX-License-Identifier: MIT
/*
 * rx_engine_tb.c - inc_decompress_engine against inc_frame_decompress.
 *
 * Every input frame's expected output (if any) and statistics are queued
 * from the model and compared in order, byte for byte. Plusargs:
 *   +frames=N      random frames (inc_fg_random, marked frames allowed) [100000]
 *   +seed=S        random seed [1]
 *   +stall=M       0: no stalls, 1: random tvalid gaps + tready backpressure,
 *                  2: first half without, second half with [2]
 *   +resets=K      K resets at random moments (mid-frame) [0]
 *   +pcap=DIR      also run every frame of DIR/ *.pcap, raw and compressed
 *   +flips=DIR     instead: every single-bit flip of compressed tagged TCP
 *                  frames of DIR/ *.pcap (two per capture, +flipframes=K
 *                  at most), with stalls; each flipped frame's fate is
 *                  classified (tests/common/inc_integrity.h) and none may be
 *                  delivered as a different TCP segment
 *   +bench=LOAD    throughput, no stalls, prints beats/cycle: marked MTU frames
 *                  (1448-byte payload) of zero or table3 values, the same
 *                  as jumbo frames (8948 bytes: zero-jumbo, table3-jumbo),
 *                  incompressible (all raw groups; the largest payloads
 *                  whose marked frame fits: 1356 bytes for a 1500-byte IP
 *                  MTU, 8416 for incompressible-jumbo, a 9014-byte frame),
 *                  small (marked, 10 floats: 62 bytes and up), frame64
 *                  (64-byte tagged TCP, bypass not_marked), bypass (MTU,
 *                  ToS mismatch). Also prints the ceiling: output beats
 *                  over input beats of the frames sent (at most 1), what
 *                  an engine that takes one input beat every cycle and
 *                  sends one output beat every cycle delivers.
 *   +trace         FST trace (build/sim/rx_engine.fst)
 * Last line: "N passed, N failed".
 */
#include "rx_tb.h"
#include "inc_model.h"
#include "inc_framegen.h"
#include "inc_simutil.h"
#include "inc_test.h"
#include "inc_pcap.h"
#include "inc_scoreboard.h"
#include "inc_integrity.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FRAME 9018u
#define SH INC_WIRE_SHIM_BYTES

static struct inc_scoreboard sb;
static struct rx_io *io;
static struct inc_axis_src src;
static struct inc_axis_sink sink;
static struct inc_frame_config cfg;
static int cfg_en = 1;
static unsigned long n_in, n_out, n_stat;
static uint64_t cycles, idle_cycles;
static uint64_t out_beats_total;
static uint64_t progress_mark, quiet_cycles;
static int hung;                 /* no progress for 100k cycles: stop the run */

/* Queue one input frame and its expectations from the model. */
static void send_frame(const uint8_t *f, size_t len)
{
	static uint8_t out[INC_FRAME_OUT_MAX];
	struct inc_frame_info info;
	long r;

	if (len == 0)
		return;         /* a frame with no beat does not exist */
	if (cfg_en) {
		r = inc_frame_decompress(f, len, out, sizeof(out), &cfg, &info);
	} else if (len > MAX_FRAME) {
		r = 0;
		info.outcome = INC_OUT_DROPPED;
		info.reason = INC_R_OVERSIZE;
	} else {
		memcpy(out, f, len);
		r = (long)len;
		info.outcome = INC_OUT_BYPASS;
		info.reason = INC_R_DISABLED;
	}
	inc_sb_expect_info(&sb, n_in, 1, &info, len, out, r);
	if (r < 0)
		return;
	inc_axis_src_push(&src, f, len, n_in);
	n_in++;
}

/* One clock cycle with the bus models; checks outputs and statistics. */
static void cycle(void)
{
	struct inc_axis_frame *got;

	*io->cfg_enable = (uint8_t)cfg_en;
	*io->cfg_tos_value = cfg.tos_value;
	*io->cfg_tos_mask = cfg.tos_mask;
	inc_axis_src_drive(&src);
	inc_axis_sink_drive(&sink);
	rx_tb_eval();
	inc_axis_src_handshake(&src);
	if (inc_axis_sink_handshake(&sink)) {
		got = inc_axis_fifo_pop(&sink.done);
		inc_sb_frame(&sb, got->data, got->len, NULL);
		n_out++;
		inc_axis_frame_free(got);
	}
	if (*io->stat_valid) {
		inc_sb_stat(&sb, *io->stat_outcome, *io->stat_reason, *io->stat_bytes_in,
			    *io->stat_bytes_out);
		n_stat++;
	}
	rx_tb_tick();
	cycles++;
	if (src.beats + sink.beats + n_stat != progress_mark) {
		progress_mark = src.beats + sink.beats + n_stat;
		quiet_cycles = 0;
	} else if (++quiet_cycles == 100000 && !hung) {
		hung = 1;
		CHECK(0, "engine hung at cycle %llu: %zu frames to send, %s",
		      (unsigned long long)cycles, src.q.count,
		      inc_sb_next_stat(&sb) ? "stats pending" : "outputs pending");
		if (inc_sb_next_stat(&sb)) {
			const struct inc_sb_entry *e = inc_sb_next_stat(&sb);

			fprintf(stderr, "  oldest pending frame %lu: %s/%s, %u bytes in, %u out\n",
				e->idx, inc_outcome_name((enum inc_outcome)e->outcome),
				inc_reason_name((enum inc_reason)e->reason), e->bytes_in,
				e->bytes_out);
		}
	}
}

static int busy(void)
{
	return !inc_axis_src_idle(&src) || inc_sb_pending(&sb);
}

/* Run until everything queued has come out; 0 on a hang. */
static int drain(void)
{
	quiet_cycles = 0;
	while (busy() && !hung)
		cycle();
	return !hung;
}

static void do_reset(int cycles_n)
{
	int i;

	inc_axis_src_flush(&src);
	*io->rst = 1;
	for (i = 0; i < cycles_n; i++) {
		*io->s.tvalid = 0;
		*io->m.tready = 1;
		rx_tb_eval();
		rx_tb_tick();
	}
	*io->rst = 0;
	inc_axis_sink_reset(&sink);
	inc_sb_clear(&sb);
}

static void set_stall(int on)
{
	src.gap_pct = on ? 30 : 0;
	sink.stall_pct = on ? 30 : 0;
}

/* A marked frame carrying n values of a mix (any class, even raw groups
 * larger than the original), built with the model's stream encoder; its
 * TCP checksum is that of the restored segment, as a compressor sets it. */
static size_t marked_frame(uint8_t *out, size_t cap, size_t plen, enum inc_fg_mix mix,
			   unsigned tcp_opt, uint64_t *rng)
{
	static uint8_t pay[65536], stream[70000], restored[70000];
	struct inc_fg_frame f;
	size_t n = plen / 4, tail = plen % 4, len, l3 = 14, l4 = 14 + 20;
	long s;
	uint8_t *ip;

	inc_fg_payload(pay, plen, mix, rng);
	stream[0] = INC_WIRE_MAGIC;
	stream[1] = INC_WIRE_VERSION;
	stream[2] = (uint8_t)(plen >> 8);
	stream[3] = (uint8_t)plen;
	s = inc_stream_compress(pay, n, INC_EB_DEFAULT, stream + SH, sizeof(stream) - 8, NULL);
	if (s < 0)
		return 0;
	memcpy(stream + SH + s, pay + 4 * n, tail);
	{                               /* the tag-word sum */
		size_t i, pos = 0;
		unsigned tsum = 0, tw;

		for (i = 0; i < n; i += 8) {
			tw = stream[SH + pos] | stream[SH + pos + 1] << 8;
			tsum += tw;
			pos += inc_group_size((uint16_t)tw);
		}
		stream[4] = (uint8_t)(tsum >> 8);
		stream[5] = (uint8_t)tsum;
	}
	/* The restored segment, for its checksum. */
	inc_fg_defaults(&f);
	f.tcp_opt_len = tcp_opt;
	if (inc_stream_decompress(stream + SH, (size_t)s, n, pay, sizeof(pay)) != s)
		return 0;
	f.payload = pay;
	f.payload_len = plen;
	if (!inc_fg_build(restored, sizeof(restored), &f))
		return 0;
	f.payload = stream;
	f.payload_len = SH + (size_t)s + tail;
	len = inc_fg_build(out, cap, &f);
	if (!len)
		return 0;
	memcpy(out + l4 + 16, restored + l4 + 16, 2);
	ip = out + l3;
	ip[9] = INC_WIRE_IPPROTO;
	ip[10] = ip[11] = 0;
	{
		uint16_t c = inc_csum_fold(inc_csum_add(0, ip, 20));
		ip[10] = (uint8_t)(c >> 8);
		ip[11] = (uint8_t)c;
	}
	return len;
}

static void feed_bounded(const uint8_t *f, size_t len)
{
	while (src.q.count > 8 && !hung)
		cycle();
	if (hung)
		return;
	send_frame(f, len);
}

static void run_pcaps(const char *dir)
{
	static uint8_t buf[70000], comp[70000];
	struct dirent *de;
	struct inc_pcap p;
	DIR *d = opendir(dir);
	size_t len;
	long r;
	int files = 0;

	if (!d) {
		printf("rx_engine: no capture directory %s, skipped\n", dir);
		return;
	}
	while ((de = readdir(d))) {
		char path[4096];
		size_t nl = strlen(de->d_name);

		if (nl < 5 || strcmp(de->d_name + nl - 5, ".pcap"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (inc_pcap_open(&p, path) != 0) {
			CHECK(0, "cannot read %s", path);
			continue;
		}
		files++;
		while (inc_pcap_next(&p, buf, sizeof(buf), &len) == 1) {
			struct inc_frame_config tx = cfg;

			feed_bounded(buf, len);
			tx.max_frame = 0;
			r = inc_frame_compress(buf, len, comp, sizeof(comp), &tx, NULL);
			if (r > 0)
				feed_bounded(comp, (size_t)r);
		}
		inc_pcap_close(&p);
	}
	closedir(d);
	drain();
	printf("rx_engine: %d captures from %s\n", files, dir);
}

static void run_flips(const char *dir, long maxframes)
{
	static struct inc_int_frame fr[16];
	static unsigned long t[INC_REG_COUNT][INC_FATE_COUNT];
	static uint8_t m[70000], out[INC_FRAME_OUT_MAX];
	struct inc_frame_info info;
	long n = inc_int_collect(dir, fr, 16, 2), i, r;
	unsigned long total = 0;
	unsigned bit, reg, fate;
	size_t off;

	CHECK(n > 0, "no compressible frames in %s", dir);
	if (n > maxframes)
		n = maxframes;
	set_stall(1);
	for (i = 0; i < n && !hung; i++) {
		memcpy(m, fr[i].comp, fr[i].clen);
		for (off = 0; off < fr[i].clen && !hung; off++) {
			reg = inc_region_of(fr[i].comp, fr[i].clen, off);
			for (bit = 0; bit < 8; bit++) {
				m[off] ^= (uint8_t)(1u << bit);
				feed_bounded(m, fr[i].clen);   /* RTL == model, byte for byte */
				r = inc_frame_decompress(m, fr[i].clen, out, sizeof(out), &cfg, &info);
				fate = inc_fate_of(&info, out, r > 0 ? (size_t)r : 0, fr[i].ref, fr[i].rlen);
				m[off] ^= (uint8_t)(1u << bit);
				t[reg][fate]++;
				total++;
				CHECK(fate != INC_FATE_CORRUPT,
				      "%s: flip of bit %u of byte %zu delivered corrupt", fr[i].src, bit, off);
			}
		}
		printf("rx_engine: flips of %s frame (%zu bytes) done\n", fr[i].src, fr[i].clen);
	}
	drain();
	printf("rx_engine: %lu single-bit flips of %ld frames through the RTL (stalls on)\n", total, n);
	inc_int_print_table("fate per region", t);
	inc_int_free(fr, (size_t)(n > 0 ? n : 0));
}

static int bench(const char *load, long nframes, uint64_t *rng)
{
	static uint8_t f[16384], out[70000];
	struct inc_fg_frame fg;
	static uint8_t pay[16384];
	uint64_t c0, in_beats0, out_beats0, frame_in = 0, frame_out = 0;
	size_t len, len_sum = 0;
	const size_t db = src.io.data_bytes;   /* bytes per beat: 32 or 64 */
	long i, r;

	set_stall(0);
	c0 = cycles;
	in_beats0 = src.beats;
	out_beats0 = sink.beats;
	for (i = 0; i < nframes; i++) {
		if (!strcmp(load, "zero"))
			len = marked_frame(f, sizeof(f), 1448, INC_FG_ZERO, 12, rng);
		else if (!strcmp(load, "zero-jumbo"))
			len = marked_frame(f, sizeof(f), 8948, INC_FG_ZERO, 12, rng);
		else if (!strcmp(load, "table3"))
			len = marked_frame(f, sizeof(f), 1448, INC_FG_GRADIENT, 12, rng);
		else if (!strcmp(load, "table3-jumbo"))
			len = marked_frame(f, sizeof(f), 8948, INC_FG_GRADIENT, 12, rng);
		else if (!strcmp(load, "incompressible"))
			len = marked_frame(f, sizeof(f), 1356, INC_FG_INCOMPRESSIBLE, 12, rng);
		else if (!strcmp(load, "incompressible-jumbo"))
			len = marked_frame(f, sizeof(f), 8416, INC_FG_INCOMPRESSIBLE, 12, rng);
		else if (!strcmp(load, "small"))
			len = marked_frame(f, sizeof(f), 40, INC_FG_GRADIENT, 0, rng);
		else if (!strcmp(load, "frame64")) {  /* 64-byte tagged TCP frames (not marked) */
			inc_fg_defaults(&fg);
			inc_fg_payload(pay, 10, INC_FG_GRADIENT, rng);
			fg.payload = pay;
			fg.payload_len = 10;
			len = inc_fg_build(f, sizeof(f), &fg);
		} else {  /* bypass: MTU frames with a ToS that does not match */
			inc_fg_defaults(&fg);
			fg.tos = 0;
			fg.tcp_opt_len = 12;
			inc_fg_payload(pay, 1448, INC_FG_GRADIENT, rng);
			fg.payload = pay;
			fg.payload_len = 1448;
			len = inc_fg_build(f, sizeof(f), &fg);
		}
		r = inc_frame_decompress(f, len, out, sizeof(out), &cfg, NULL);
		frame_in += (len + db - 1) / db;
		frame_out += r > 0 ? ((size_t)r + db - 1) / db : 0;
		len_sum += len;
		feed_bounded(f, len);
	}
	drain();
	printf("rx-bench %-20s frames %ld  in %.3f beats/cycle  out %.3f beats/cycle  (%llu cycles)"
	       "  ceiling %.3f  mean frame %zu bytes\n",
	       load, nframes, (double)(src.beats - in_beats0) / (double)(cycles - c0),
	       (double)(sink.beats - out_beats0) / (double)(cycles - c0),
	       (unsigned long long)(cycles - c0),
	       frame_in && frame_out < frame_in ? (double)frame_out / (double)frame_in : 1.0,
	       len_sum / (size_t)nframes);
	return 0;
}

int rx_engine_main(int argc, char **argv)
{
	static uint8_t f[70000];
	long frames = inc_sim_arg_long(argc, argv, "frames", 100000);
	long seed = inc_sim_arg_long(argc, argv, "seed", 1);
	long stall = inc_sim_arg_long(argc, argv, "stall", 2);
	long resets = inc_sim_arg_long(argc, argv, "resets", 0);
	const char *pcapdir = inc_sim_arg(argc, argv, "pcap", NULL);
	const char *load = inc_sim_arg(argc, argv, "bench", NULL);
	const char *flipdir = inc_sim_arg(argc, argv, "flips", NULL);
	long flipframes = inc_sim_arg_long(argc, argv, "flipframes", 16);
	uint64_t rng = (uint64_t)seed * 0x9e3779b97f4a7c15ULL + 1;
	long i, next_reset = -1, seg = 0;
	size_t len;

	rx_tb_open(argc, argv);
	io = rx_tb_io();
	inc_sb_init(&sb, "rx_engine");
	inc_axis_src_init(&src, &io->s, rng ^ 1);
	inc_axis_sink_init(&sink, &io->m, rng ^ 2);
	inc_frame_config_default(&cfg);
	cfg.max_frame = MAX_FRAME;
	do_reset(4);

	if (load) {
		bench(load, frames, &rng);
		goto out;
	}
	if (flipdir) {
		run_flips(flipdir, flipframes);
		CHECK(sink.protocol_errors == 0, "AXI4-Stream protocol errors: %s", sink.first_error);
		goto out;
	}
	if (pcapdir) {
		set_stall(stall == 1);
		run_pcaps(pcapdir);
		set_stall(stall != 0);
		run_pcaps(pcapdir);
	}
	if (resets > 0)
		next_reset = (long)(inc_fg_rand(&rng) % (unsigned long)(frames / resets + 1));
	for (i = 0; i < frames && !hung; i++) {
		if (stall == 2 && i == frames / 2)
			set_stall(1);
		else if (i == 0)
			set_stall(stall == 1);
		/* Segments of 2000 frames with a configuration each: mostly
		 * the defaults, sometimes disabled or another ToS/mask. */
		if (i / 2000 != seg || i == 0) {
			unsigned pick = (unsigned)(inc_fg_rand(&rng) % 10);

			seg = i / 2000;
			drain();
			inc_frame_config_default(&cfg);
			cfg.max_frame = MAX_FRAME;
			cfg_en = pick != 0;
			if (pick == 1) {
				cfg.tos_mask = 0;
			} else if (pick == 2) {
				cfg.tos_value = 0x2b;
				cfg.tos_mask = 0xff;
			}
		}
		if (i == next_reset) {
			/* Stop mid-frame: let part of the traffic in, then reset. */
			int k = (int)(inc_fg_rand(&rng) % 300);

			while (k-- > 0 && busy())
				cycle();
			do_reset(1 + (int)(inc_fg_rand(&rng) % 3));
			next_reset = i + 1 + (long)(inc_fg_rand(&rng) % (unsigned long)(frames / resets + 1));
		}
		len = inc_fg_random(f, sizeof(f), (inc_fg_rand(&rng) % 8) ? 1600 : MAX_FRAME + 64,
				    1, &rng);
		feed_bounded(f, len);
	}
	drain();
	CHECK(sink.protocol_errors == 0, "AXI4-Stream protocol errors: %s", sink.first_error);
	printf("rx_engine: %lu frames in, %lu out, %llu cycles\n", n_in, n_out,
	       (unsigned long long)cycles);
out:
	(void)idle_cycles;
	(void)out_beats_total;
	{
		unsigned long pass, fail;

		inc_sb_counts(&sb, &pass, &fail);
		inc_test_add(pass, fail);
	}
	inc_sb_free(&sb);
	inc_axis_sink_free(&sink);
	rx_tb_close();
	return inc_test_done();
}
