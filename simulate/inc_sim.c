// SPDX-License-Identifier: MIT
/*
 * inc-sim - one training iteration of a data-parallel cluster with
 * INCEPTIONN NICs, simulated on SimGrid's flow-level network model
 * (SimGrid 3.32, C API). One actor per worker, plus the aggregator for WA:
 *
 *   ring (--scheme inc): libinceptionn's Algorithm 1, reduce-scatter then
 *     all-gather over 2(p-1) steps, each step's chunk (n/p) cut into
 *     segments; a segment goes on as soon as it arrived and was processed,
 *     so the steps pipeline as in the library.
 *   WA (--scheme wa): every worker sends its gradient (compressed when the
 *     compression is on) in segments to the aggregator, which sends the
 *     segment's weights back (never compressed, as in libinceptionn's WA)
 *     once it holds that segment from every worker.
 *   schedules: sync (one exchange after the backward pass), wfbp (one
 *     exchange per layer, started when the backward pass produced it),
 *     bucket (layers merged, from the last, until a bucket holds
 *     --bucket-mb), mgwfbp (bucket whose size is chosen so one bucket's
 *     start-up 2(p-1)·latency is under 10 % of its transfer time).
 *
 * Compression: none; nic (the NIC's engines compress on the way out and
 *   decompress on the way in: the host links carry n/ratio bytes, the
 *   engines add their pipeline latency and cap a link at the engines' rate
 *   over the ratio; the RTL's clock and cycles from --rtl FILE); software
 *   (the host compresses and decompresses each segment at inc-bench's
 *   measured GB/s, --bench FILE; the reduce-scatter decompresses, sums and
 *   compresses again, the all-gather forwards the compressed segment and
 *   decompresses it once).
 * Compute: --compute-ms, or the Table II timers of an inc-train log
 *   (--from-log), or a model file's FLOPs at --gpu-tflops (--model).
 * Summation (optional, off by default): the host adds each received
 *   segment into its accumulator at --sum-gbps GB/s, or at the rate an
 *   inc-train log's sum timer measured (--sum-log): the ring's
 *   reduce-scatter adds every segment it receives, WA's aggregator adds
 *   every worker's segment.
 *
 * Prints one JSON line: iter_ms, exchange_ms (the gradient exchange: for
 * sync the all-reduce after the backward pass, for layer-wise schedules the
 * part of it that is not hidden behind the backward pass), compute_ms,
 * wire bytes per worker, the alpha-beta formula's exchange time, and for
 * no compression the paper's own alpha-beta-gamma formula (Sec. VIII-D).
 * simulate/README.md has the options and the model's limits.
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <simgrid/actor.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>

#define SIM_MAX_LAYERS 256

enum sim_scheme { SIM_RING, SIM_WA };
enum sim_comp { SIM_NONE, SIM_NIC, SIM_SOFTWARE };
enum sim_sched { SIM_SYNC, SIM_WFBP, SIM_BUCKET, SIM_MGWFBP };
enum sim_topo { SIM_STAR, SIM_FATTREE };

struct sim_layer {
	char name[32];
	double params;          /* float32 values */
	double share;           /* of the backward pass's time */
};

struct sim_group {              /* one exchange: layers [first, last] */
	double bytes;           /* raw bytes of the gradient */
	double ready;           /* s after the backward pass starts */
};

static struct sim {
	int p;                  /* workers */
	double gbps, lat_us;
	enum sim_scheme scheme;
	enum sim_comp comp;
	enum sim_sched sched;
	enum sim_topo topo;
	double ratio;           /* raw bytes / compressed bytes */
	double overhead;        /* measured / modelled wire bytes, uncompressed */
	double overhead_c;      /* the same for compressed payload */
	double seg_bytes;       /* raw bytes per segment */
	double seg_cost;        /* host s per segment received (calibration) */
	double bucket_bytes;
	int leaf, oversub;
	/* compute, s */
	double t_pre, t_fwd, t_bwd, t_post;
	/* codec */
	double nic_Bps, nic_lat;        /* raw bytes/s per direction, s per engine */
	double sw_comp_Bps, sw_dec_Bps; /* raw bytes/s */
	double sum_Bps;                 /* host summation, raw bytes/s; 0: not charged */
	int nlayers;
	struct sim_layer layer[SIM_MAX_LAYERS];
	int ngroups;
	struct sim_group group[SIM_MAX_LAYERS];
	/* results */
	double *done;           /* per worker: last exchange finished, s */
	double wire_bytes;      /* sent by worker 0 */
} S;

static void die(const char *fmt, const char *arg)
{
	fprintf(stderr, "inc-sim: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	exit(2);
}

static double num(const char *opt, const char *s, double lo, double hi)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= lo && v <= hi))
		die("bad value for %s", opt);
	return v;
}

/* ---------------------------------------------------------------- inputs */

static double jget(json_t *o, const char *key, double dflt)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : dflt;
}

/* The summary and config records of an inc-train JSON-lines log, and the
 * wire bytes per iteration of train-cluster.sh's wire record (-1: none). */
static void read_train_log(const char *path, json_t **summary, json_t **config, double *wire_pi)
{
	FILE *f = fopen(path, "r");
	char line[8192];

	if (!f)
		die("cannot open %s", path);
	*summary = *config = NULL;
	while (fgets(line, sizeof(line), f)) {
		json_t *o = json_loads(line, 0, NULL);
		const char *t = o ? json_string_value(json_object_get(o, "type")) : NULL;

		if (t && !strcmp(t, "summary")) {
			json_decref(*summary);
			*summary = o;
		} else if (t && !strcmp(t, "config")) {
			json_decref(*config);
			*config = o;
		} else if (t && !strcmp(t, "wire")) {
			*wire_pi = jget(o, "bytes_wire_per_iter", -1);
			json_decref(o);
		} else {
			json_decref(o);
		}
	}
	fclose(f);
	if (!*summary || !*config)
		die("%s: no config and summary records (an inc-train --log file?)", path);
}

/* The RTL's clock and cycles (simulate/rtl-nic.json or a re-measured copy). */
static void read_rtl(const char *path)
{
	json_error_t err;
	json_t *o = json_load_file(path, 0, &err);
	double mhz, width, lat;

	if (!o)
		die("cannot read %s", path);
	mhz = jget(o, "clock_mhz", 0);
	width = jget(o, "data_width_bits", 0);
	lat = jget(o, "compress_latency_cycles", -1) + jget(o, "decompress_latency_cycles", -1);
	if (mhz <= 0 || width <= 0 || lat < 0)
		die("%s: needs clock_mhz, data_width_bits, compress_/decompress_latency_cycles", path);
	S.nic_Bps = mhz * 1e6 * width / 8;
	S.nic_lat = lat / (mhz * 1e6) / 2;      /* one engine per link end */
	json_decref(o);
}

/* inc-bench codec's first table: the row of the fastest implementation
 * listed (the last) at error bound EB; GB/s of uncompressed bytes. */
static void read_bench(const char *path, int eb)
{
	FILE *f = fopen(path, "r");
	char line[512], impl[32];
	double ratio, c, cm, d;
	unsigned e;
	int found = 0, table = 0;

	if (!f)
		die("cannot open %s", path);
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "impl", 4)) {
			if (table++)
				break;  /* the multi-stream table follows */
			continue;
		}
		if (table == 1 && sscanf(line, "%31s %u %lfx %lf %lfx %lf", impl, &e, &ratio, &c, &cm,
					 &d) == 6 && (int)e == eb) {
			S.sw_comp_Bps = c * 1e9;
			S.sw_dec_Bps = d * 1e9;
			found = 1;
		}
	}
	fclose(f);
	if (!found)
		die("%s: no inc-bench codec row at this error bound", path);
}

/* The host's summation rate from an inc-train log's sum timer (Table II's
 * "sum": per worker per iteration for the ring, the aggregator's per
 * iteration for WA): the ring's reduce-scatter adds (p-1)/p of the n
 * gradient bytes on every worker, libinceptionn's aggregator adds all p
 * workers' n bytes into its buffer. Raw bytes/s. */
static double read_sum_rate(const char *path)
{
	json_t *sum, *cfg;
	double wire_pi = -1, p, n, ms, bytes;
	const char *sc;

	read_train_log(path, &sum, &cfg, &wire_pi);
	p = jget(cfg, "workers", 0);
	n = jget(cfg, "params", 0) * 4;
	ms = jget(sum, "sum_ms", 0);
	sc = json_string_value(json_object_get(cfg, "scheme"));
	if (p < 2 || n <= 0 || ms <= 0 || !sc)
		die("%s: needs workers >= 2, params, scheme and a sum_ms timer above 0", path);
	bytes = !strcmp(sc, "wa") ? p * n : (p - 1) / p * n;
	json_decref(sum);
	json_decref(cfg);
	return bytes / (ms * 1e-3);
}

/* A model file: {"name":..., "layers":[{"name":..,"params":..,"gflops":..}]},
 * gflops = forward GFLOP per sample; backward counted as twice forward. */
static double read_model(const char *path, double batch, double tflops)
{
	json_error_t err;
	json_t *o = json_load_file(path, 0, &err), *ls, *l;
	double total = 0;
	size_t i;

	if (!o)
		die("cannot read %s", path);
	ls = json_object_get(o, "layers");
	if (!json_is_array(ls) || json_array_size(ls) == 0 || json_array_size(ls) > SIM_MAX_LAYERS)
		die("%s: needs a layers array", path);
	json_array_foreach(ls, i, l) {
		struct sim_layer *y = &S.layer[i];
		const char *n = json_string_value(json_object_get(l, "name"));

		snprintf(y->name, sizeof(y->name), "%s", n ? n : "?");
		y->params = jget(l, "params", -1);
		y->share = jget(l, "gflops", -1);
		if (y->params < 0 || y->share < 0)
			die("%s: every layer needs params and gflops", path);
		total += y->share;
	}
	S.nlayers = (int)json_array_size(ls);
	for (int k = 0; k < S.nlayers; k++)
		S.layer[k].share = total > 0 ? S.layer[k].share / total : 1.0 / S.nlayers;
	json_decref(o);
	return total * 1e9 * batch / (tflops * 1e12);   /* forward s */
}

/* ------------------------------------------------------------- the platform */

static void write_platform(const char *path)
{
	FILE *f = fopen(path, "w");
	int hosts = S.p + (S.scheme == SIM_WA);
	double bps = S.gbps * 1e9, lat = S.lat_us * 1e-6;

	if (!f)
		die("cannot write %s", path);
	fprintf(f, "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
		"<platform version=\"4.1\">\n");
	if (S.topo == SIM_STAR) {
		/* every host's full-duplex link to one non-blocking switch; the
		 * one-way latency L is split over the two links of a route */
		double l = lat / 2;

		fprintf(f, "  <cluster id=\"star\" prefix=\"h\" suffix=\"\" radical=\"0-%d\" speed=\"1Gf\" "
			"bw=\"%.6gbps\" lat=\"%.9gs\" sharing_policy=\"SPLITDUPLEX\"/>\n",
			hosts - 1, bps, l);
	} else {
		/* two levels: leaves of K hosts, S = K/oversub spines, every leaf
		 * linked once to every spine; all links alike. Host-to-host
		 * latency L across the spine (4 links), L/2 within a leaf. */
		int k = S.leaf, leaves = (hosts + k - 1) / k, spines = k / S.oversub;
		double l = lat / 4;

		if (spines < 1)
			spines = 1;
		fprintf(f, "  <cluster id=\"ft\" prefix=\"h\" suffix=\"\" radical=\"0-%d\" speed=\"1Gf\" "
			"bw=\"%.6gbps\" lat=\"%.9gs\" sharing_policy=\"SPLITDUPLEX\" topology=\"FAT_TREE\" "
			"topo_parameters=\"2;%d,%d;1,%d;1,1\"/>\n",
			leaves * k - 1, bps, l, k, leaves,
			spines);
	}
	fprintf(f, "</platform>\n");
	fclose(f);
}

/* ------------------------------------------------------------- the actors */

static char mb_name[64];
static int token;               /* the payload of every message (SimGrid refuses NULL) */

static const char *mbname(const char *fmt, int a)
{
	snprintf(mb_name, sizeof(mb_name), fmt, a);
	return mb_name;
}

static sg_mailbox_t mbox(const char *fmt, int a, int b)
{
	(void)b;
	return sg_mailbox_by_name(mbname(fmt, a));
}

static void host_sleep(double s)
{
	if (s > 0)
		sg_actor_sleep_for(s);
}

/* Wire bytes of RAW payload bytes: the NIC compresses each frame's payload,
 * so every 9000-byte frame keeps its headers (TCP/IPv4 with timestamps,
 * Ethernet, preamble and gap: 90 bytes per 8948 of payload) and only the
 * payload shrinks by the ratio. S.overhead (uncompressed bytes) and
 * S.overhead_c (compressed payload) scale that to a measured run's wire
 * bytes: 1 unless --from-log or --wire-overhead sets them. */
#define SIM_FRAME_PAYLOAD 8948.0
#define SIM_FRAME_HDR 90.0
static double wire(double raw_bytes, int compressed)
{
	double hdr = raw_bytes / SIM_FRAME_PAYLOAD * SIM_FRAME_HDR;

	if (compressed)
		return raw_bytes / S.ratio * S.overhead_c + hdr;
	return (raw_bytes + hdr) * S.overhead;
}

/* A stream of segments to one peer, as on one TCP connection: at most two
 * in flight, so they arrive nearly in order (segments in flight share the
 * path's bandwidth in the flow model; many in flight would all finish
 * together, which a byte stream never does) while the second hides the
 * path's latency behind the first. */
#define SIM_WINDOW 2
struct sim_stream {
	sg_mailbox_t to;
	sg_comm_t q[SIM_WINDOW];
	int n;
};

static void stream_put(struct sim_stream *st, double raw, int compressed)
{
	/* nic mode: the sending NIC's compress engine and the receiving NIC's
	 * decompress engine add their pipelines' latency; the engine takes
	 * one beat per cycle, so the segment streams onto the wire while it is
	 * compressed and the next may start once the engine has taken this
	 * one: the stream runs at the slower of the wire and the engine */
	int engine = S.comp == SIM_NIC && compressed;

	if (engine)
		host_sleep(2 * S.nic_lat);
	if (st->n == SIM_WINDOW) {
		sg_comm_wait(st->q[0]);
		memmove(st->q, st->q + 1, sizeof(st->q[0]) * (SIM_WINDOW - 1));
		st->n--;
	}
	st->q[st->n++] = sg_mailbox_put_async(st->to, &token, (long)wire(raw, compressed));
	if (engine)
		host_sleep(raw / S.nic_Bps);
}

static void stream_flush(struct sim_stream *st)
{
	for (int i = 0; i < st->n; i++)
		sg_comm_wait(st->q[i]);
	st->n = 0;
}

/* One ring all-reduce of BYTES raw bytes, as rank ME of p. */
static void ring_allreduce(int me, double bytes)
{
	int p = S.p, steps = 2 * (p - 1), nseg, s, k;
	double chunk = bytes / p, seg;
	int comp = S.comp != SIM_NONE, sw = S.comp == SIM_SOFTWARE;
	sg_mailbox_t mine = mbox("r%d", me, 0);
	struct sim_stream right = { .to = mbox("r%d", (me + 1) % p, 0) };

	if (p < 2)
		return;
	nseg = (int)ceil(chunk / S.seg_bytes);
	if (nseg < 1)
		nseg = 1;
	seg = chunk / nseg;
	if (sw)
		host_sleep(nseg * seg / S.sw_comp_Bps);
	for (k = 0; k < nseg; k++) {
		stream_put(&right, seg, comp);
		if (me == 0)
			S.wire_bytes += wire(seg, comp);
	}
	for (s = 0; s < steps; s++)
		for (k = 0; k < nseg; k++) {
			sg_mailbox_get(mine);
			host_sleep(S.seg_cost);
			if (S.sum_Bps > 0 && s < p - 1)   /* reduce-scatter: add it */
				host_sleep(seg / S.sum_Bps);
			if (sw)   /* reduce-scatter: decompress, sum, compress again;
				   * all-gather: decompress the forwarded segment */
				host_sleep(seg / S.sw_dec_Bps + (s < p - 1 ? seg / S.sw_comp_Bps : 0));
			if (s + 1 < steps) {
				stream_put(&right, seg, comp);
				if (me == 0)
					S.wire_bytes += wire(seg, comp);
			}
		}
	stream_flush(&right);
}

/* One WA exchange of BYTES raw bytes, worker side. */
static void wa_worker(int me, double bytes)
{
	int nseg = (int)ceil(bytes / S.seg_bytes), k;
	int comp = S.comp != SIM_NONE, sw = S.comp == SIM_SOFTWARE;
	double seg;
	struct sim_stream up = { .to = mbox("a%d", me, 0) };
	sg_mailbox_t down = mbox("w%d", me, 0);

	if (nseg < 1)
		nseg = 1;
	seg = bytes / nseg;
	for (k = 0; k < nseg; k++) {
		if (sw)
			host_sleep(seg / S.sw_comp_Bps);
		stream_put(&up, seg, comp);
		if (me == 0)
			S.wire_bytes += wire(seg, comp);
	}
	for (k = 0; k < nseg; k++) {
		sg_mailbox_get(down);
		host_sleep(S.seg_cost);
	}
	stream_flush(&up);
}

/* The aggregator: segment k's weights go down once every worker's segment
 * k arrived (decompressed and summed in software mode). */
static void wa_aggregator(double bytes)
{
	int nseg = (int)ceil(bytes / S.seg_bytes), k, i;
	int sw = S.comp == SIM_SOFTWARE;
	double seg;
	struct sim_stream *down = calloc((size_t)S.p, sizeof(*down));

	if (!down)
		die("%s", "out of memory");
	for (i = 0; i < S.p; i++)
		down[i].to = mbox("w%d", i, 0);
	if (nseg < 1)
		nseg = 1;
	seg = bytes / nseg;
	for (k = 0; k < nseg; k++) {
		for (i = 0; i < S.p; i++) {
			sg_mailbox_get(mbox("a%d", i, 0));
			host_sleep(S.seg_cost);
			if (S.sum_Bps > 0)
				host_sleep(seg / S.sum_Bps);
		}
		if (sw)
			host_sleep(S.p * seg / S.sw_dec_Bps);
		for (i = 0; i < S.p; i++)
			stream_put(&down[i], seg, 0);
	}
	for (i = 0; i < S.p; i++)
		stream_flush(&down[i]);
	free(down);
}

/* A worker: the forward pass, the backward pass producing the groups'
 * gradients (last layer first), each group's exchange once it is ready and
 * the previous one is done (one progress thread, as in libinceptionn), then
 * the update. */
static void worker(int argc, char **argv)
{
	int me = atoi(argv[argc - 1]), g;
	double bwd0;

	if (S.scheme == SIM_RING)
		sg_mailbox_set_receiver(mbname("r%d", me));
	else
		sg_mailbox_set_receiver(mbname("w%d", me));
	host_sleep(S.t_pre + S.t_fwd);
	bwd0 = simgrid_get_clock();
	for (g = 0; g < S.ngroups; g++) {
		double now = simgrid_get_clock(), at = bwd0 + S.group[g].ready;

		if (at > now)
			sg_actor_sleep_until(at);
		if (S.scheme == SIM_RING)
			ring_allreduce(me, S.group[g].bytes);
		else
			wa_worker(me, S.group[g].bytes);
	}
	if (simgrid_get_clock() < bwd0 + S.t_bwd)
		sg_actor_sleep_until(bwd0 + S.t_bwd);
	S.done[me] = simgrid_get_clock();
}

static void aggregator(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	for (int i = 0; i < S.p; i++)
		sg_mailbox_set_receiver(mbname("a%d", i));
	for (int g = 0; g < S.ngroups; g++)
		wa_aggregator(S.group[g].bytes);
}

/* ------------------------------------------------------------- schedules */

/* Groups from the layers, in the order the backward pass produces them
 * (last layer first); ready = when the group's last-produced layer is done. */
static void make_groups(double latency_s, double bps)
{
	double acc = 0, t = 0, limit;
	int i;

	switch (S.sched) {
	case SIM_SYNC: limit = INFINITY; break;
	case SIM_WFBP: limit = 0; break;
	case SIM_BUCKET: limit = S.bucket_bytes; break;
	default:
		/* MG-WFBP's rule reduced to a size: a bucket's 2(p-1) start-up
		 * latencies stay under 10 % of its ring transfer time */
		limit = 10.0 * 2 * (S.p - 1) * latency_s * bps / 8 * S.p / (2.0 * (S.p - 1));
		break;
	}
	S.ngroups = 0;
	for (i = S.nlayers - 1; i >= 0; i--) {
		acc += S.layer[i].params * 4;
		t += S.layer[i].share * S.t_bwd;
		if (acc >= limit || i == 0) {
			S.group[S.ngroups].bytes = acc;
			S.group[S.ngroups].ready = S.sched == SIM_SYNC ? S.t_bwd : t;
			S.ngroups++;
			acc = 0;
		}
	}
}

/* The alpha-beta-gamma exchange time of the paper's Sec. VIII-D for the
 * sync schedule: ring 2(p-1)(alpha + n/(p B)), the wire term over the
 * ratio when compressed, the codec as gamma: the NIC's engines stream (a
 * step takes the slower of wire and engine), the host codec adds its time;
 * WA (full-duplex aggregator link, gradients up while the uncompressed
 * weights go down) 2 alpha + p n/B. */
static double formula_s(double bytes)
{
	double a = S.lat_us * 1e-6, B = S.gbps * 1e9 / 8, p = S.p;
	if (S.scheme == SIM_RING) {
		double step = wire(bytes / p, S.comp != SIM_NONE) / B;

		if (S.comp == SIM_NIC && bytes / p / S.nic_Bps > step)
			step = bytes / p / S.nic_Bps;
		if (S.comp == SIM_SOFTWARE)
			step += bytes / p * (0.5 / S.sw_comp_Bps + 1 / S.sw_dec_Bps);
		return 2 * (p - 1) * (a + step);
	}
	return 2 * a + p * wire(bytes, 0) / B;
}

/* The paper's own exchange time (Sec. VIII-D, after Thakur et al.'s MPICH
 * models; log base 2), for no compression: alpha the one-way latency, beta
 * the link's time per gradient byte (framing left out, as the paper does),
 * gamma the host's time per byte summed (0 when summation is not charged):
 *   WA   (1 + log p) alpha + (p + log p) n beta + (p - 1) n gamma
 *   INC  2(p - 1) alpha + 2 (p - 1)/p n beta + (p - 1)/p n gamma */
static double paper_formula_s(double n)
{
	double a = S.lat_us * 1e-6, b = 8 / (S.gbps * 1e9), p = S.p, lg = log2(p);
	double g = S.sum_Bps > 0 ? 1 / S.sum_Bps : 0;

	if (S.scheme == SIM_WA)
		return (1 + lg) * a + (p + lg) * n * b + (p - 1) * n * g;
	return 2 * (p - 1) * a + 2 * (p - 1) / p * n * b + (p - 1) / p * n * g;
}

/* ------------------------------------------------------------- main */

static void usage(void)
{
	fprintf(stderr,
		"usage: inc-sim --workers P --link-gbps G [--latency-us L] [--model-bytes N | --model FILE | --from-log LOG]\n"
		"               [--scheme inc|wa] [--compression none|nic|software] [--ratio R] [--compute-ms C]\n"
		"               [--topology star|fattree] [--leaf K] [--oversub O] [--schedule sync|wfbp|bucket|mgwfbp]\n"
		"               [--bucket-mb B] [--segment-kb S] [--rtl FILE] [--bench FILE] [--error-bound E]\n"
		"               [--wire-overhead F] [--gpu-tflops T] [--batch B] [--segment-us U]\n"
		"               [--sum-gbps S | --sum-log LOG] [--platform-out FILE]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "workers", 1, 0, 'p' }, { "link-gbps", 1, 0, 'g' }, { "latency-us", 1, 0, 'l' },
		{ "model-bytes", 1, 0, 'n' }, { "model", 1, 0, 'M' }, { "from-log", 1, 0, 'L' },
		{ "scheme", 1, 0, 's' }, { "compression", 1, 0, 'c' }, { "ratio", 1, 0, 'r' },
		{ "compute-ms", 1, 0, 'C' }, { "topology", 1, 0, 't' }, { "leaf", 1, 0, 'k' },
		{ "oversub", 1, 0, 'o' }, { "schedule", 1, 0, 'S' }, { "bucket-mb", 1, 0, 'b' },
		{ "segment-kb", 1, 0, 'e' }, { "rtl", 1, 0, 'R' }, { "bench", 1, 0, 'B' },
		{ "error-bound", 1, 0, 'E' }, { "wire-overhead", 1, 0, 'w' }, { "gpu-tflops", 1, 0, 'T' },
		{ "batch", 1, 0, 'm' }, { "segment-us", 1, 0, 'u' }, { "platform-out", 1, 0, 'P' },
		{ "sum-gbps", 1, 0, 'G' }, { "sum-log", 1, 0, 'H' }, { "help", 0, 0, 'h' }, { 0, 0, 0, 0 }
	};
	const char *model = NULL, *logf = NULL, *rtl = "simulate/rtl-nic.json";
	const char *bench = NULL, *plat = NULL, *sumlog = NULL;
	double model_bytes = -1, compute_ms = -1, tflops = 14, batch = 32, measured_wire = -1;
	double log_ratio = 1;
	int log_p = 0, log_comp = 0, log_wa = 0;
	char tmpplat[] = "/tmp/inc-sim-XXXXXX";
	int o, eb = 10, i, ratio_set = 0, ov_set = 0;
	char *sg_argv[8];
	int sg_argc = 0;
	double end = 0, t_exch_end = 0;

	S.p = 0;
	S.gbps = 0;
	S.scheme = SIM_RING;
	S.comp = SIM_NONE;
	S.sched = SIM_SYNC;
	S.topo = SIM_STAR;
	S.ratio = 1;
	S.overhead = S.overhead_c = 1;  /* framing is in wire() */
	S.seg_bytes = 64 * 1024;        /* libinceptionn's INC_SEG_DEFAULT */
	S.bucket_bytes = 25e6;
	S.leaf = 16;
	S.oversub = 1;
	while ((o = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (o) {
		case 'p': S.p = (int)num("--workers", optarg, 1, 65536); break;
		case 'g': S.gbps = num("--link-gbps", optarg, 1e-6, 1e6); break;
		case 'l': S.lat_us = num("--latency-us", optarg, 0, 1e9); break;
		case 'n': model_bytes = num("--model-bytes", optarg, 4, 1e15); break;
		case 'M': model = optarg; break;
		case 'L': logf = optarg; break;
		case 's':
			if (!strcmp(optarg, "inc") || !strcmp(optarg, "ring")) S.scheme = SIM_RING;
			else if (!strcmp(optarg, "wa")) S.scheme = SIM_WA;
			else die("--scheme %s: inc or wa", optarg);
			break;
		case 'c':
			if (!strcmp(optarg, "none")) S.comp = SIM_NONE;
			else if (!strcmp(optarg, "nic")) S.comp = SIM_NIC;
			else if (!strcmp(optarg, "software")) S.comp = SIM_SOFTWARE;
			else die("--compression %s: none, nic or software", optarg);
			break;
		case 'r': S.ratio = num("--ratio", optarg, 1, 64); ratio_set = 1; break;
		case 'C': compute_ms = num("--compute-ms", optarg, 0, 1e9); break;
		case 't':
			if (!strcmp(optarg, "star")) S.topo = SIM_STAR;
			else if (!strcmp(optarg, "fattree")) S.topo = SIM_FATTREE;
			else die("--topology %s: star or fattree", optarg);
			break;
		case 'k': S.leaf = (int)num("--leaf", optarg, 2, 4096); break;
		case 'o': S.oversub = (int)num("--oversub", optarg, 1, 4096); break;
		case 'S':
			if (!strcmp(optarg, "sync")) S.sched = SIM_SYNC;
			else if (!strcmp(optarg, "wfbp")) S.sched = SIM_WFBP;
			else if (!strcmp(optarg, "bucket")) S.sched = SIM_BUCKET;
			else if (!strcmp(optarg, "mgwfbp")) S.sched = SIM_MGWFBP;
			else die("--schedule %s: sync, wfbp, bucket or mgwfbp", optarg);
			break;
		case 'b': S.bucket_bytes = num("--bucket-mb", optarg, 1e-6, 1e6) * 1e6; break;
		case 'e': S.seg_bytes = num("--segment-kb", optarg, 1, 1e9) * 1024; break;
		case 'R': rtl = optarg; break;
		case 'B': bench = optarg; break;
		case 'E': eb = (int)num("--error-bound", optarg, 1, 30); break;
		case 'w': S.overhead = S.overhead_c = num("--wire-overhead", optarg, 0.1, 10); ov_set = 1; break;
		case 'T': tflops = num("--gpu-tflops", optarg, 1e-6, 1e6); break;
		case 'm': batch = num("--batch", optarg, 1, 1e6); break;
		case 'P': plat = optarg; break;
		case 'u': S.seg_cost = num("--segment-us", optarg, 0, 1e9) * 1e-6; break;
		case 'G': S.sum_Bps = num("--sum-gbps", optarg, 0, 1e6) * 1e9; break;
		case 'H': sumlog = optarg; break;
		default: usage();
		}
	}
	if (optind != argc || S.gbps <= 0)
		usage();
	if (!!model + !!logf + (model_bytes > 0) > 1)
		die("%s", "give one of --model-bytes, --model, --from-log");
	if (logf) {
		json_t *sum, *cfg;
		double w;

		read_train_log(logf, &sum, &cfg, &measured_wire);
		log_p = (int)jget(cfg, "workers", 0);
		if (!S.p)
			S.p = log_p;
		{
			const char *sc = json_string_value(json_object_get(cfg, "scheme"));
			const char *co = json_string_value(json_object_get(cfg, "compression"));

			log_wa = sc && !strcmp(sc, "wa");
			log_comp = co && strcmp(co, "none") != 0;
		}
		log_ratio = jget(sum, "codec_ratio", 1);
		S.nlayers = 1;
		S.layer[0].params = jget(cfg, "params", 0);
		S.layer[0].share = 1;
		snprintf(S.layer[0].name, sizeof(S.layer[0].name), "all");
		/* Table II timers: everything but the exchange (sum, comm) */
		S.t_pre = jget(sum, "data_ms", 0) * 1e-3;
		S.t_fwd = jget(sum, "forward_ms", 0) * 1e-3;
		S.t_bwd = jget(sum, "backward_ms", 0) * 1e-3;
		S.t_post = jget(sum, "update_ms", 0) * 1e-3;
		if (!ratio_set && S.comp != SIM_NONE)
			S.ratio = jget(sum, "codec_ratio", 1);
		w = jget(sum, "bytes_per_iter", -1);
		if (measured_wire <= 0)
			measured_wire = w;
		json_decref(sum);
		json_decref(cfg);
		if (S.layer[0].params <= 0)
			die("%s: no params in its config record", logf);
	} else if (model) {
		double fwd = read_model(model, batch, tflops);

		S.t_fwd = fwd;
		S.t_bwd = 2 * fwd;
	} else if (model_bytes > 0) {
		S.nlayers = 1;
		S.layer[0].params = model_bytes / 4;
		S.layer[0].share = 1;
	} else {
		die("%s", "give --model-bytes, --model or --from-log");
	}
	if (compute_ms >= 0) {   /* split as forward 1/3, backward 2/3 */
		S.t_pre = S.t_post = 0;
		S.t_fwd = compute_ms * 1e-3 / 3;
		S.t_bwd = compute_ms * 1e-3 * 2 / 3;
	}
	if (S.p < 1)
		die("%s", "--workers P needed");
	if (S.comp == SIM_NIC)
		read_rtl(rtl);
	if (S.comp == SIM_SOFTWARE) {
		if (!bench)
			die("%s", "--compression software needs --bench FILE (inc-bench codec output)");
		read_bench(bench, eb);
	}
	if (S.comp != SIM_NONE && !ratio_set && !logf)
		die("%s", "compression needs --ratio R (or --from-log)");
	if (sumlog) {
		if (S.sum_Bps > 0)
			die("%s", "give one of --sum-gbps, --sum-log");
		S.sum_Bps = read_sum_rate(sumlog);
	}
	/* the log's measured wire bytes per iteration scale wire() so that the
	 * log's own run (its workers, scheme and compression) moves exactly
	 * them; other settings keep that factor */
	if (logf && measured_wire > 0 && !ov_set && log_p > 1) {
		double n = S.layer[0].params * 4, p = log_p, r = S.ratio;
		double raw = log_wa ? p * n : 2 * (p - 1) * n;  /* compressible bytes */
		double down = log_wa ? wire(p * n, 0) : 0;      /* WA's weights */

		if (log_comp) {         /* solve for the compressed payload's factor */
			S.ratio = log_ratio;
			S.overhead_c = (measured_wire - down - raw / SIM_FRAME_PAYLOAD * SIM_FRAME_HDR) /
				       (raw / S.ratio);
			if (S.overhead_c < 0.1)
				S.overhead_c = 0.1;
			if (!ratio_set && S.comp != SIM_NONE)
				S.ratio = log_ratio;
			else
				S.ratio = r;
		} else {
			S.overhead = measured_wire / (wire(raw, 0) + down);
		}
	}
	make_groups(S.lat_us * 1e-6, S.gbps * 1e9);

	if (!plat) {
		int fd = mkstemp(tmpplat);

		if (fd < 0)
			die("%s", "cannot create a temporary platform file");
		close(fd);
		plat = tmpplat;
	}
	write_platform(plat);
	sg_argv[sg_argc++] = argv[0];
	sg_argv[sg_argc++] = "--cfg=network/model:CM02";
	sg_argv[sg_argc++] = "--cfg=network/crosstraffic:0";
	sg_argv[sg_argc++] = "--cfg=network/TCP-gamma:0";
	sg_argv[sg_argc++] = "--log=root.thres:critical";
	sg_argv[sg_argc] = NULL;
	simgrid_init(&sg_argc, sg_argv);
	simgrid_load_platform(plat);
	if (plat == tmpplat)
		unlink(tmpplat);
	S.done = calloc((size_t)S.p, sizeof(double));
	if (!S.done)
		die("%s", "out of memory");
	for (i = 0; i < S.p; i++) {
		char id[16], name[24];
		char *av[2] = { id, NULL };

		snprintf(id, sizeof(id), "%d", i);
		snprintf(name, sizeof(name), "worker%d", i);
		sg_actor_create(name, sg_host_by_name(mbname("h%d", i)), worker, 1, av);
	}
	if (S.scheme == SIM_WA) {
		char *av[1] = { NULL };

		sg_actor_create("aggregator", sg_host_by_name(mbname("h%d", S.p)), aggregator, 0, av);
	}
	simgrid_run();
	for (i = 0; i < S.p; i++)
		if (S.done[i] > t_exch_end)
			t_exch_end = S.done[i];
	end = t_exch_end + S.t_post;
	{
		double compute = S.t_pre + S.t_fwd + S.t_bwd + S.t_post;
		double n = 0;

		for (i = 0; i < S.nlayers; i++)
			n += S.layer[i].params * 4;
		printf("{\"workers\":%d,\"scheme\":\"%s\",\"compression\":\"%s\",\"topology\":\"%s\","
		       "\"schedule\":\"%s\",\"link_gbps\":%g,\"latency_us\":%g,\"model_bytes\":%.0f,"
		       "\"ratio\":%.4f,\"wire_overhead\":%.4f,\"groups\":%d,\"iter_ms\":%.4f,"
		       "\"exchange_ms\":%.4f,\"compute_ms\":%.4f,\"wire_bytes_worker\":%.0f,"
		       "\"formula_exchange_ms\":%.4f,\"sum_gbps\":%.4f,\"paper_formula_ms\":",
		       S.p, S.scheme == SIM_RING ? "inc" : "wa",
		       S.comp == SIM_NONE ? "none" : S.comp == SIM_NIC ? "nic" : "software",
		       S.topo == SIM_STAR ? "star" : "fattree",
		       (const char *[]){ "sync", "wfbp", "bucket", "mgwfbp" }[S.sched], S.gbps, S.lat_us, n,
		       S.comp == SIM_NONE ? 1.0 : S.ratio, S.comp == SIM_NONE ? S.overhead : S.overhead_c,
		       S.ngroups, end * 1e3,
		       (end - compute) * 1e3, compute * 1e3, S.wire_bytes,
		       formula_s(n) * 1e3, S.sum_Bps / 1e9);
		if (S.comp == SIM_NONE)   /* the paper's formula is for no compression */
			printf("%.4f}\n", paper_formula_s(n) * 1e3);
		else
			printf("null}\n");
	}
	free(S.done);
	return 0;
}
