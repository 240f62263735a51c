// SPDX-License-Identifier: MIT
/*
 * top_tb.c - inc_offload_top: loopback (TX engine output fed to the RX
 * engine) against the model's round trip, and the CSR block over AXI4-Lite.
 *   +test=loopback  host frames (inc_fg_random) -> TX -> RX; every TX output
 *                   equals inc_frame_compress, every RX output equals
 *                   inc_frame_decompress of it; then every counter read
 *                   over AXI4-Lite equals the model's tally
 *   +test=csr       ID, version, capabilities, scratch, control registers,
 *                   counters after RX traffic, LO/HI latching, clear
 *   +frames=N +seed=S +stall=0|1|2 (2: second half with gaps/backpressure)
 * Last line: "N passed, N failed".
 */
#include "top_tb.h"
#include "inc_model.h"
#include "inc_regs.h"
#include "inc_framegen.h"
#include "inc_scoreboard.h"
#include "inc_simutil.h"
#include "inc_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FRAME 9018u

struct tally {
	uint64_t outcome[INC_OUT_COUNT], reason[INC_R_COUNT], bin, bout;
};

static struct top_bus bus;
static struct inc_frame_config cfg;
static struct tally tx_t, rx_t;
static struct inc_scoreboard tx_sb, rx_sb;   /* output frames of each engine */
static unsigned long n_tx_out, n_rx_out;
static int hung;

static void tally_add(struct tally *t, const struct inc_frame_info *info, size_t in, long out)
{
	t->outcome[info->outcome]++;
	t->reason[info->reason]++;
	t->bin += in > 0xffff ? 0xffff : in;
	t->bout += (uint64_t)out;
}

/* Model of the RX side for a frame leaving TX: queue its expectation. */
static void rx_expect(const uint8_t *f, size_t len, unsigned long idx)
{
	static uint8_t out[INC_FRAME_OUT_MAX];
	struct inc_frame_info info;
	long r = inc_frame_decompress(f, len, out, sizeof(out), &cfg, &info);

	if (r < 0) {
		CHECK(0, "model decompress error %ld", r);
		return;
	}
	tally_add(&rx_t, &info, len, r);
	inc_sb_expect_info(&rx_sb, idx, 0, &info, len, out, r);
}

/* After each cycle's handshakes: check finished frames, loop TX into RX. */
static void hook(void *arg)
{
	struct inc_axis_frame *got;
	unsigned long idx = 0;

	(void)arg;
	while ((got = inc_axis_fifo_pop(&bus.tx_sink.done))) {
		inc_sb_frame(&tx_sb, got->data, got->len, &idx);
		rx_expect(got->data, got->len, idx);
		inc_axis_src_push(&bus.rx_src, got->data, got->len, got->id);
		n_tx_out++;
		inc_axis_frame_free(got);
	}
	while ((got = inc_axis_fifo_pop(&bus.rx_sink.done))) {
		inc_sb_frame(&rx_sb, got->data, got->len, NULL);
		n_rx_out++;
		inc_axis_frame_free(got);
	}
}

static int busy(void)
{
	return !inc_axis_src_idle(&bus.tx_src) || !inc_axis_src_idle(&bus.rx_src) ||
	       inc_sb_pending(&tx_sb) || inc_sb_pending(&rx_sb);
}

static void run_until(int (*cond)(void))
{
	uint64_t mark = 0, quiet = 0, p;

	while (!hung && cond()) {
		top_cycle(&bus);
		p = bus.tx_src.beats + bus.rx_src.beats + bus.tx_sink.beats + bus.rx_sink.beats;
		if (p != mark) {
			mark = p;
			quiet = 0;
		} else if (++quiet > 100000) {
			hung = 1;
			CHECK(0, "offload top hung at cycle %llu", (unsigned long long)bus.cycles);
		}
	}
}

static int tx_backlog(void)
{
	return bus.tx_src.q.count > 6;
}

static int rx_backlog(void)
{
	return bus.rx_src.q.count > 6;
}

static void set_stall(int on)
{
	bus.tx_src.gap_pct = bus.rx_src.gap_pct = on ? 25 : 0;
	bus.tx_sink.stall_pct = bus.rx_sink.stall_pct = on ? 25 : 0;
}

static void program(void)
{
	top_axil_write(&bus, INC_REG_TOS, (uint32_t)cfg.tos_mask << 8 | cfg.tos_value);
	top_axil_write(&bus, INC_REG_EB, cfg.eb);
	top_axil_write(&bus, INC_REG_CTRL, INC_CTRL_TX_EN | INC_CTRL_RX_EN);
}

/* Every counter of a direction read over AXI4-Lite equals the tally. */
static void check_counters(uint32_t base, const struct tally *t, const char *dir)
{
	unsigned i;
	uint64_t v;

	for (i = 0; i < INC_OUT_COUNT; i++) {
		v = top_read_counter(&bus, INC_REG_CNT_OUTCOME(base, i));
		CHECK(v == t->outcome[i], "%s outcome %s: %llu, model %llu", dir,
		      inc_outcome_name(i), (unsigned long long)v,
		      (unsigned long long)t->outcome[i]);
	}
	for (i = 0; i < INC_R_COUNT; i++) {
		v = top_read_counter(&bus, INC_REG_CNT_REASON(base, i));
		CHECK(v == t->reason[i], "%s reason %s: %llu, model %llu", dir,
		      inc_reason_name(i), (unsigned long long)v,
		      (unsigned long long)t->reason[i]);
	}
	v = top_read_counter(&bus, INC_REG_CNT_BYTES_IN(base));
	CHECK(v == t->bin, "%s bytes in %llu, model %llu", dir, (unsigned long long)v,
	      (unsigned long long)t->bin);
	v = top_read_counter(&bus, INC_REG_CNT_BYTES_OUT(base));
	CHECK(v == t->bout, "%s bytes out %llu, model %llu", dir, (unsigned long long)v,
	      (unsigned long long)t->bout);
}

static void loopback(long frames, long stall, uint64_t *rng)
{
	static uint8_t f[70000], out[INC_FRAME_OUT_MAX];
	static const uint8_t ebs[4] = { 6, 8, 10, 12 };
	struct inc_frame_info info;
	size_t len;
	long i, r;

	for (i = 0; i < frames && !hung; i++) {
		if (i % 2500 == 0) {
			run_until(busy);
			cfg.eb = ebs[(i / 2500) % 4];
			program();
			set_stall(stall == 1 || (stall == 2 && i >= frames / 2));
		}
		len = inc_fg_random(f, sizeof(f), (inc_fg_rand(rng) % 8) ? 1600 : MAX_FRAME + 64,
				    1, rng);
		if (!len)
			continue;
		r = inc_frame_compress(f, len, out, sizeof(out), &cfg, &info);
		if (r < 0) {
			CHECK(0, "model compress error %ld", r);
			continue;
		}
		tally_add(&tx_t, &info, len, r);
		inc_sb_expect_info(&tx_sb, (unsigned long)i, 0, &info, len, out, r);
		inc_axis_src_push(&bus.tx_src, f, len, (uint64_t)i);
		run_until(tx_backlog);
	}
	run_until(busy);
	CHECK(bus.tx_sink.protocol_errors == 0 && bus.rx_sink.protocol_errors == 0,
	      "AXI4-Stream protocol errors: %s%s", bus.tx_sink.first_error,
	      bus.rx_sink.first_error);
	check_counters(INC_REG_TX_BASE, &tx_t, "TX");
	check_counters(INC_REG_RX_BASE, &rx_t, "RX");
	printf("loopback: %ld host frames, %lu TX out, %lu RX out, %llu cycles\n", frames,
	       n_tx_out, n_rx_out, (unsigned long long)bus.cycles);
}

static void csr(long frames, uint64_t *rng)
{
	static uint8_t f[70000];
	uint32_t caps = top_axil_read(&bus, INC_REG_CAPS);
	size_t len;
	long i;

	CHECK(top_axil_read(&bus, INC_REG_ID) == INC_ID_VALUE, "ID");
	CHECK(top_axil_read(&bus, INC_REG_VERSION) == INC_VERSION_VALUE, "version");
	CHECK((caps & (INC_CAPS_TX | INC_CAPS_RX | INC_CAPS_VLAN)) ==
		      (INC_CAPS_TX | INC_CAPS_RX | INC_CAPS_VLAN), "caps directions 0x%x", caps);
	CHECK((caps & INC_CAPS_BEAT_MASK) >> INC_CAPS_BEAT_SHIFT == bus.tx_src.io.data_bytes,
	      "caps beat 0x%x (beat %u bytes)", caps, bus.tx_src.io.data_bytes);
	CHECK((caps & INC_CAPS_MAXF_MASK) >> INC_CAPS_MAXF_SHIFT == MAX_FRAME, "caps max 0x%x", caps);
	CHECK(top_axil_read(&bus, INC_REG_CTRL) == 0, "CTRL resets to 0");
	CHECK(top_axil_read(&bus, INC_REG_TOS) == INC_TOS_RESET, "TOS reset");
	CHECK(top_axil_read(&bus, INC_REG_EB) == INC_EB_RESET, "EB reset");
	top_axil_write(&bus, INC_REG_SCRATCH, 0xa5c3e1f0);
	CHECK(top_axil_read(&bus, INC_REG_SCRATCH) == 0xa5c3e1f0, "scratch");
	top_axil_write(&bus, INC_REG_EB, 0xffffff86);
	CHECK(top_axil_read(&bus, INC_REG_EB) == 0x06, "EB field");
	top_axil_write(&bus, INC_REG_ID, 0);
	CHECK(top_axil_read(&bus, INC_REG_ID) == INC_ID_VALUE, "ID is read-only");
	CHECK(top_axil_read(&bus, 0x3fc) == 0, "unmapped reads 0");
	CHECK(bus.axil_order_errors == 0, "AXI4-Lite responses after their handshakes");

	/* RX-only traffic with RX enabled and TX off: counters follow. */
	cfg.eb = 10;
	program();
	top_axil_write(&bus, INC_REG_CTRL, INC_CTRL_RX_EN);
	CHECK(top_axil_read(&bus, INC_REG_CTRL) == INC_CTRL_RX_EN, "CTRL readback");
	for (i = 0; i < frames; i++) {
		len = inc_fg_random(f, sizeof(f), 1600, 1, rng);
		if (!len)
			continue;
		rx_expect(f, len, (unsigned long)i);
		inc_axis_src_push(&bus.rx_src, f, len, (uint64_t)i);
		run_until(rx_backlog);
	}
	run_until(busy);
	check_counters(INC_REG_RX_BASE, &rx_t, "RX");
	check_counters(INC_REG_TX_BASE, &tx_t, "TX");   /* all zero */
	/* HI latched by LO: the pair stays consistent while counting. */
	CHECK(top_read_counter(&bus, INC_REG_CNT_BYTES_IN(INC_REG_RX_BASE)) == rx_t.bin,
	      "bytes in pair");
	top_axil_write(&bus, INC_REG_CNT_CTRL, INC_CNT_CTRL_CLEAR);
	memset(&rx_t, 0, sizeof(rx_t));
	check_counters(INC_REG_RX_BASE, &rx_t, "RX after clear");
}

int top_main(int argc, char **argv)
{
	const char *test = inc_sim_arg(argc, argv, "test", "loopback");
	long frames = inc_sim_arg_long(argc, argv, "frames", 20000);
	long seed = inc_sim_arg_long(argc, argv, "seed", 1);
	long stall = inc_sim_arg_long(argc, argv, "stall", 2);
	uint64_t rng = (uint64_t)seed * 0x9e3779b97f4a7c15ULL + 5;
	unsigned long pass, fail;

	top_tb_open(argc, argv);
	inc_sb_init(&tx_sb, "loopback-tx");
	inc_sb_init(&rx_sb, "loopback-rx");
	top_bus_init(&bus, rng);
	bus.hook = hook;
	inc_frame_config_default(&cfg);
	cfg.max_frame = MAX_FRAME;
	top_reset(&bus, 4);
	if (!strcmp(test, "csr"))
		csr(frames, &rng);
	else
		loopback(frames, stall, &rng);
	inc_sb_counts(&tx_sb, &pass, &fail);
	inc_test_add(pass, fail);
	inc_sb_counts(&rx_sb, &pass, &fail);
	inc_test_add(pass, fail);
	inc_sb_free(&tx_sb);
	inc_sb_free(&rx_sb);
	top_bus_free(&bus);
	top_tb_close();
	return inc_test_done();
}
