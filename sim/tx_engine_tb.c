// SPDX-License-Identifier: MIT
/*
 * tx_engine_tb.c - inc_compress_engine against inc_frame_compress, frame by
 * frame: output bytes and the stat outputs (outcome, reason, bytes in/out).
 *
 * Runs (plusargs):
 *   +frames=N     random frames from inc_fg_random per stall setting
 *                 (default 50000; lengths 14..9018 plus a few oversize)
 *   +stall=MODE   none, random or both (default both): random = 30% tvalid
 *                 gaps and 30% tready backpressure, plus a run of N/10
 *                 frames into a sink that is ready 10% of the time
 *   +resets=N     reset the engine in the middle of a frame about every N
 *                 frames of the stalled run (default 2000; 0 = never)
 *   +nopcap       skip the captures tests/fixtures/NAME.pcap (run by default)
 *   +bench        instead: throughput benchmark (beats/cycle in and out);
 *                 +bench=K runs K times as many frames per load (default 1)
 *   +seed=N, +trace[=file]
 * The configuration (enable, ToS value/mask, eb) changes at random between
 * frames; the engine samples it on each frame's first beat.
 */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inc_axis.h"
#include "inc_framegen.h"
#include "inc_model.h"
#include "inc_pcap.h"
#include "inc_simutil.h"
#include "inc_scoreboard.h"
#include "inc_test.h"
#include "tx_engine.h"

#define MAX_FRAME 9018u
#define RING 4096u              /* > frames in flight */

static struct tx_engine_io *io;

struct fcfg {
	uint8_t en, tos_value, tos_mask, eb;
};

struct run {
	const char *name;
	struct inc_axis_src src;
	struct inc_axis_sink sink;
	struct fcfg cfg[RING];
	struct inc_scoreboard sb;
	uint64_t next_id, cycles, idle;
	unsigned long frames_out;
	unsigned long resets;
	int hung;
};

/* Queue the model's verdict on frame id (the engine's when disabled: pass
 * unchanged, reason disabled, oversize frames still dropped). */
static void expect(struct run *r, const uint8_t *data, size_t len, uint64_t id)
{
	static uint8_t out[INC_FRAME_OUT_MAX];
	const struct fcfg *c = &r->cfg[id % RING];
	struct inc_frame_config mc = { c->tos_value, c->tos_mask, c->eb, MAX_FRAME };
	struct inc_frame_info info;
	long n = inc_frame_compress(data, len, out, sizeof(out), &mc, &info);

	if (n >= 0 && !c->en && info.outcome != INC_OUT_DROPPED) {
		info.outcome = INC_OUT_BYPASS;
		info.reason = INC_R_DISABLED;
		n = (long)len;
		memcpy(out, data, len);
	}
	inc_sb_expect_info(&r->sb, (unsigned long)id, 1, &info, len, out, n);
}

static void push_frame(struct run *r, const uint8_t *data, size_t len,
		       const struct fcfg *c)
{
	uint64_t id = r->next_id++;

	r->cfg[id % RING] = *c;
	expect(r, data, len, id);
	inc_axis_src_push(&r->src, data, len, id);
}

static void run_init(struct run *r, const char *name, unsigned stall,
		     uint64_t seed)
{
	memset(r, 0, sizeof(*r));
	r->name = name;
	inc_sb_init(&r->sb, name);
	inc_axis_src_init(&r->src, &io->s, seed * 3 + 1);
	inc_axis_sink_init(&r->sink, &io->m, seed * 5 + 2);
	r->src.gap_pct = stall;
	r->sink.stall_pct = stall;
}

/* The scoreboard's comparisons join the bench's checks. */
static void run_free(struct run *r)
{
	unsigned long pass, fail;

	inc_sb_counts(&r->sb, &pass, &fail);
	inc_test_add(pass, fail);
	inc_sb_free(&r->sb);
	inc_axis_src_flush(&r->src);
	inc_axis_sink_free(&r->sink);
}

static void step(struct run *r)
{
	struct inc_axis_frame *f;
	int progress = 0;

	if (r->src.q.head) {
		const struct fcfg *c = &r->cfg[r->src.q.head->id % RING];

		*io->cfg_enable = c->en;
		*io->cfg_tos_value = c->tos_value;
		*io->cfg_tos_mask = c->tos_mask;
		*io->cfg_eb = c->eb;
	}
	inc_axis_src_drive(&r->src);
	inc_axis_sink_drive(&r->sink);
	tb_eval();
	progress |= inc_axis_src_handshake(&r->src);
	if (*io->m.tvalid && *io->m.tready)
		progress = 1;
	if (inc_axis_sink_handshake(&r->sink)) {
		f = inc_axis_fifo_pop(&r->sink.done);
		inc_sb_frame(&r->sb, f->data, f->len, NULL);
		r->frames_out++;
		inc_axis_frame_free(f);
	}
	if (*io->stat_valid) {
		progress = 1;
		inc_sb_stat(&r->sb, *io->stat_outcome, *io->stat_reason,
			    *io->stat_bytes_in, *io->stat_bytes_out);
	}
	tb_tick();
	r->cycles++;
	r->idle = progress ? 0 : r->idle + 1;
}

static int run_busy(const struct run *r)
{
	return !inc_axis_src_idle(&r->src) || inc_sb_pending(&r->sb);
}

/* Run until everything queued is through; a hang counts one failure. */
static void drain(struct run *r)
{
	while (run_busy(r) && !r->hung) {
		step(r);
		if (r->idle > 200000) {
			r->hung = 1;
			CHECK(0, "%s: no progress for 200000 cycles (%zu stats, %zu frames pending)",
			      r->name, r->sb.stat.count, r->sb.out.count);
		}
	}
}

static void reset_engine(void)
{
	*io->rst = 1;
	tb_tick();
	tb_tick();
	*io->rst = 0;
}

/*
 * Reset in the middle of a frame. Documented behaviour: the partial frame
 * and every frame not yet fully sent are lost; the next beat the engine
 * accepts starts a new frame. The source simply goes on with the rest of
 * the interrupted frame, which the engine therefore sees as a frame of its
 * own; the expectations are rebuilt from what the source still holds.
 */
static void reset_mid_frame(struct run *r)
{
	struct inc_axis_frame *f;

	*io->rst = 1;
	tb_eval();
	tb_tick();
	tb_tick();
	*io->rst = 0;
	r->resets++;
	inc_sb_clear(&r->sb);
	inc_axis_sink_reset(&r->sink);
	f = r->src.q.head;
	if (f && r->src.pos) {
		memmove(f->data, f->data + r->src.pos, f->len - r->src.pos);
		f->len -= r->src.pos;
		r->src.pos = 0;
	}
	for (f = r->src.q.head; f; f = f->next)
		expect(r, f->data, f->len, f->id);
}

static void random_cfg(struct fcfg *c, uint64_t *rng)
{
	uint64_t x = inc_fg_rand(rng);

	c->en = 1;
	c->tos_value = INC_TOS_DEFAULT;
	c->tos_mask = INC_TOS_MASK_DEFAULT;
	c->eb = INC_EB_DEFAULT;
	if (x % 100 < 4)
		c->en = 0;
	if ((x >> 8) % 100 < 15)
		c->eb = (uint8_t)((x >> 16) % 128);
	if ((x >> 24) % 100 < 5) {
		c->tos_value = (uint8_t)(x >> 32);
		c->tos_mask = (uint8_t)(x >> 40);
	}
}

static void report(const struct run *r, unsigned long frames)
{
	unsigned i;

	printf("%s: %lu frames, %lu output frames, %llu cycles, %lu resets mid-frame, "
	       "%lu stat / %lu output mismatches\n",
	       r->name, frames, r->frames_out, (unsigned long long)r->cycles,
	       r->resets, r->sb.stats_bad, r->sb.frames_bad);
	printf("  reasons:");
	for (i = 0; i < INC_R_COUNT; i++)
		if (r->sb.reasons[i])
			printf(" %s=%lu", inc_reason_name((enum inc_reason)i), r->sb.reasons[i]);
	printf("\n");
	CHECK(r->sink.protocol_errors == 0, "%s: AXI-stream protocol: %s", r->name,
	      r->sink.first_error);
}

static void test_random(unsigned long nframes, unsigned stall, unsigned resets,
			uint64_t seed, const char *name, unsigned sink_stall)
{
	static uint8_t fr[9200];
	static struct run r;
	uint64_t rng = seed;
	unsigned long i;
	struct fcfg c;

	run_init(&r, name, stall, seed);
	if (sink_stall)
		r.sink.stall_pct = sink_stall;
	for (i = 0; i < nframes && !r.hung; i++) {
		uint64_t x = inc_fg_rand(&rng);
		size_t maxl = x % 100 < 45 ? 1600 : x % 100 < 75 ? MAX_FRAME :
			      x % 100 < 95 ? 300 : MAX_FRAME + 100;
		size_t len;

		do
			len = inc_fg_random(fr, sizeof(fr), maxl, 1, &rng);
		while (len == 0);
		random_cfg(&c, &rng);
		push_frame(&r, fr, len, &c);
		while (r.src.q.count > 4 && !r.hung) {
			step(&r);
			if (resets && r.src.pos && inc_fg_rand(&rng) % (resets * 40ull) == 0)
				reset_mid_frame(&r);
			if (r.idle > 200000) {
				r.hung = 1;
				CHECK(0, "%s: input stalled for 200000 cycles", name);
			}
		}
	}
	drain(&r);
	report(&r, nframes);
	run_free(&r);
}

static void test_pcaps(unsigned stall, uint64_t seed)
{
	static uint8_t fr[65536];
	static struct run r;
	glob_t g;
	size_t k, len;
	unsigned long n = 0;
	struct fcfg c = { 1, INC_TOS_DEFAULT, INC_TOS_MASK_DEFAULT, INC_EB_DEFAULT };

	if (glob("tests/fixtures/*.pcap", 0, NULL, &g) != 0) {
		printf("pcap: no tests/fixtures/*.pcap yet\n");
		return;
	}
	run_init(&r, stall ? "pcap-stall" : "pcap", stall, seed);
	for (k = 0; k < g.gl_pathc; k++) {
		struct inc_pcap p;
		int rc = inc_pcap_open(&p, g.gl_pathv[k]);

		CHECK(rc == 0, "pcap %s: %s", g.gl_pathv[k], inc_pcap_strerror(rc));
		if (rc)
			continue;
		while ((rc = inc_pcap_next(&p, fr, sizeof(fr), &len)) == 1) {
			if (!len)
				continue;
			push_frame(&r, fr, len, &c);
			n++;
			while (r.src.q.count > 4 && !r.hung)
				step(&r);
		}
		CHECK(rc == 0, "pcap %s: %s", g.gl_pathv[k], inc_pcap_strerror(rc));
		inc_pcap_close(&p);
	}
	globfree(&g);
	drain(&r);
	report(&r, n);
	run_free(&r);
}

/*
 * Edge frames back to back: 1..40-byte runts, the largest frame and one
 * byte more, a 70000-byte frame (longer than the 16-bit counters), and
 * compressible frames whose payload ends on every byte of a beat.
 */
static void test_edges(unsigned stall, uint64_t seed)
{
	static uint8_t fr[70000], pay[9100];
	static struct run r;
	struct fcfg c = { 1, INC_TOS_DEFAULT, INC_TOS_MASK_DEFAULT, INC_EB_DEFAULT };
	struct inc_fg_frame f;
	uint64_t rng = seed;
	unsigned long n = 0;
	size_t len, i;

	run_init(&r, stall ? "edges-stall" : "edges", stall, seed);
	inc_fg_payload(fr, sizeof(fr), INC_FG_RANDOM_BITS, &rng);
	for (len = 1; len <= 40; len++, n++) {
		push_frame(&r, fr, len, &c);
		while (r.src.q.count > 4)
			step(&r);
	}
	for (i = 0; i < 3; i++, n++) {
		inc_fg_defaults(&f);
		f.tcp_opt_len = 12;
		f.payload_len = MAX_FRAME - 66 + i;     /* 9018, 9019, 9020 bytes */
		inc_fg_payload(pay, f.payload_len, INC_FG_GRADIENT, &rng);
		f.payload = pay;
		len = inc_fg_build(fr, sizeof(fr), &f);
		push_frame(&r, fr, len, &c);
		while (r.src.q.count > 4)
			step(&r);
	}
	/* 70000 bytes: a valid header in front of random bytes */
	push_frame(&r, fr, sizeof(fr), &c);
	n++;
	for (i = 0; i < 96; i++, n++) {
		inc_fg_defaults(&f);
		f.vlan = (int)(i & 1);
		f.ip_opt_len = 4 * (unsigned)(i % 11);
		f.tcp_opt_len = 4 * (unsigned)((i / 11) % 11);
		f.payload_len = 64 + i * 5;
		inc_fg_payload(pay, f.payload_len, INC_FG_GRADIENT, &rng);
		f.payload = pay;
		len = inc_fg_build(fr, sizeof(fr), &f);
		push_frame(&r, fr, len, &c);
		while (r.src.q.count > 4)
			step(&r);
	}
	/* TCP data offset below 5 and beyond the IP packet (bad_tcp_header) */
	for (i = 0; i < 16; i++, n++) {
		inc_fg_defaults(&f);
		f.vlan = (int)(i & 1);
		f.payload_len = i < 8 ? 100 : 8;
		inc_fg_payload(pay, f.payload_len, INC_FG_GRADIENT, &rng);
		f.payload = pay;
		len = inc_fg_build(fr, sizeof(fr), &f);
		fr[(f.vlan ? 18 : 14) + 20 + 12] = (uint8_t)((i < 8 ? i % 5 : 8 + i % 8) << 4);
		push_frame(&r, fr, len, &c);
		while (r.src.q.count > 4)
			step(&r);
	}
	drain(&r);
	report(&r, n);
	run_free(&r);
}

/* ---------------------------------------------------------------------- */
/* Benchmark                                                               */
/* ---------------------------------------------------------------------- */
static size_t bench_frame(uint8_t *out, size_t len, enum inc_fg_mix mix,
			  int bypass, uint64_t *rng)
{
	static uint8_t pay[9100];
	struct inc_fg_frame f;
	size_t hdr;

	inc_fg_defaults(&f);
	f.tcp_opt_len = len >= 66 + 8 ? 12 : 0;    /* timestamps: 66-byte header */
	hdr = 14 + 20 + 20 + f.tcp_opt_len;
	f.payload_len = len - hdr;
	inc_fg_payload(pay, f.payload_len, mix, rng);
	f.payload = pay;
	if (bypass)
		f.tos = 0;                           /* ordinary traffic */
	f.seq = (uint32_t)inc_fg_rand(rng);
	return inc_fg_build(out, 9200, &f);
}

static void bench_one(const char *what, size_t len, enum inc_fg_mix mix,
		      int bypass, unsigned nframes)
{
	static uint8_t fr[9200];
	static struct run r;
	uint64_t rng = 99, start, in_beats, out_beats;
	struct fcfg c = { 1, INC_TOS_DEFAULT, INC_TOS_MASK_DEFAULT, INC_EB_DEFAULT };
	unsigned i;
	size_t n;

	run_init(&r, what, 0, 5);
	/* queue everything first so the source never idles */
	for (i = 0; i < nframes; i++) {
		n = bench_frame(fr, len, mix, bypass, &rng);
		push_frame(&r, fr, n, &c);
	}
	/* wait for the first beat to be taken */
	while (!r.src.beats)
		step(&r);
	start = r.cycles - 1;
	in_beats = 0;
	while (!inc_axis_src_idle(&r.src))
		step(&r);
	in_beats = r.src.beats;
	{
		uint64_t in_cycles = r.cycles - start;

		drain(&r);
		out_beats = r.sink.beats;
		printf("bench %-28s %5zu B x %4u: in %.3f beats/cycle, out %.3f beats/cycle "
		       "(%llu in / %llu out beats, %llu/%llu cycles), %lu mismatches\n",
		       what, len, nframes, (double)in_beats / (double)in_cycles,
		       (double)out_beats / (double)(r.cycles - start),
		       (unsigned long long)in_beats, (unsigned long long)out_beats,
		       (unsigned long long)in_cycles,
		       (unsigned long long)(r.cycles - start), r.sb.stats_bad + r.sb.frames_bad);
	}
	CHECK(r.sb.stats_bad + r.sb.frames_bad == 0, "bench %s: mismatches", what);
	run_free(&r);
}

static void bench(unsigned k)
{
	static const struct {
		const char *name;
		enum inc_fg_mix mix;
		int bypass;
	} loads[] = {
		{ "all-zero-class", INC_FG_ZERO, 0 },
		{ "table-III-mix", INC_FG_GRADIENT, 0 },
		{ "incompressible", INC_FG_INCOMPRESSIBLE, 0 },
		{ "bypass (ToS 0)", INC_FG_GRADIENT, 1 },
	};
	unsigned i;

	for (i = 0; i < sizeof(loads) / sizeof(loads[0]); i++) {
		bench_one(loads[i].name, 1514, loads[i].mix, loads[i].bypass, 400 * k);
		bench_one(loads[i].name, 9018, loads[i].mix, loads[i].bypass, 100 * k);
	}
	bench_one("64-byte frames, zero-class", 64, INC_FG_ZERO, 0, 4000 * k);
	bench_one("64-byte frames, bypass", 64, INC_FG_ZERO, 1, 4000 * k);
}

int tx_engine_main(int argc, char **argv)
{
	unsigned long frames = (unsigned long)inc_sim_arg_long(argc, argv, "frames", 50000);
	uint64_t seed = (uint64_t)inc_sim_arg_long(argc, argv, "seed", 1);
	unsigned resets = (unsigned)inc_sim_arg_long(argc, argv, "resets", 2000);
	const char *stall = inc_sim_arg(argc, argv, "stall", "both");
	int pcap = !inc_sim_arg(argc, argv, "nopcap", NULL);

	tb_open(argc, argv);
	io = tb_io();
	*io->cfg_enable = 1;
	*io->cfg_tos_value = INC_TOS_DEFAULT;
	*io->cfg_tos_mask = INC_TOS_MASK_DEFAULT;
	*io->cfg_eb = INC_EB_DEFAULT;
	reset_engine();
	if (inc_sim_arg(argc, argv, "bench", NULL)) {
		long k = inc_sim_arg_long(argc, argv, "bench", 1);

		if (k < 1 || k > 1000) {
			fprintf(stderr, "tx_engine: +bench=K wants K in 1..1000\n");
			return 2;
		}
		bench((unsigned)k);
	} else {
		test_edges(0, seed);
		test_edges(30, seed + 1);
		if (pcap) {
			test_pcaps(0, seed);
			test_pcaps(30, seed + 1);
		}
		if (strcmp(stall, "random"))
			test_random(frames, 0, 0, seed * 7 + 1, "random", 0);
		if (strcmp(stall, "none")) {
			test_random(frames, 30, resets, seed * 7 + 2, "random-stall", 0);
			/* a sink that takes one beat in ten: the buffers fill up */
			test_random(frames / 10, 0, 0, seed * 7 + 3, "random-slow-sink", 90);
		}
	}
	tb_close();
	return inc_test_done();
}
