/* SPDX-License-Identifier: MIT */
/*
 * inceptionn.h - libinceptionn: gradient all-reduce over TCP with sockets
 * tagged for the INCEPTIONN NIC (IP ToS 0x28), the paper's ring algorithm
 * (Algorithm 1), the worker-aggregator baseline, and a SIMD software codec
 * byte-identical to the reference model's stream format.
 *
 * Every function returns 0 (or a size) on success and a negative error
 * code on failure; inc_strerror() turns a code into text. The library never
 * prints. A communicator serves one call at a time (no internal locking);
 * different communicators are independent. See docs/userlib.md.
 */
#ifndef INCEPTIONN_H
#define INCEPTIONN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Error codes                                                               */
/* ------------------------------------------------------------------------ */
/* -1..-4 are the model's codes (inc_model.h), repeated here so that this
 * header stands alone; the definitions are token-identical. */
#define INC_OK            0
#define INC_EINVAL       (-1)  /* codec: bad argument */
#define INC_ENOSPC       (-2)  /* codec: output capacity too small */
#define INC_ETRUNC       (-3)  /* codec: input ends inside a group */
#define INC_EMALFORMED   (-4)  /* codec: input violates the format */
/* The library's own codes start below -31. */
#define INC_E_ARG        (-32) /* bad argument (NULL, unknown mode, eb range, ...) */
#define INC_E_ENV        (-33) /* bootstrap/option environment variable missing or invalid */
#define INC_E_NOMEM      (-34) /* out of memory */
#define INC_E_SOCKET     (-35) /* a socket system call failed */
#define INC_E_CONNECT    (-36) /* could not reach a peer or the master in time */
#define INC_E_TIMEOUT    (-37) /* a peer stalled: no progress within the timeout */
#define INC_E_CLOSED     (-38) /* a peer closed its connection or died */
#define INC_E_PROTOCOL   (-39) /* a peer sent something unexpected */
#define INC_E_BROKEN     (-40) /* communicator unusable after an earlier failure */
#define INC_E_TOS        (-41) /* the ToS/traffic class could not be set or verified */
#define INC_E_MPI        (-42) /* MPI bootstrap failed or library built without MPI */
#define INC_E_NOSUPPORT  (-43) /* not supported here (e.g. AVX2 on this CPU) */
#define INC_E_REFUSED    (-44) /* the job refused this rank (another job id, a wrong
				  secret, a rank in use or out of range) */

/* Text for any code above (library or model); never NULL. */
const char *inc_strerror(int err);

/* ------------------------------------------------------------------------ */
/* Communicator                                                              */
/* ------------------------------------------------------------------------ */
struct inc_comm;

/*
 * Create a communicator from the environment, torchrun style:
 * INC_RANK, INC_WORLD_SIZE, INC_MASTER_ADDR, INC_MASTER_PORT, each falling
 * back to RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT. Rank 0 listens on the
 * master port (untagged control connection); the ranks exchange data
 * addresses there and connect the ring and the worker-aggregator links.
 * In a build with MPI (libinceptionn-mpi), when none of the rank variables
 * is set and the process runs under mpirun, this bootstraps through MPI.
 * INC_TIMEOUT_MS (default 30000) bounds the bootstrap; INC_COMPRESSION
 * chooses the ToS the data sockets are created with. Collective: every rank
 * must call it.
 */
int inc_comm_init_env(struct inc_comm **comm);

/*
 * A TCP port for INC_MASTER_PORT: free on the any-address now and outside
 * the kernel's ephemeral range (/proc/sys/net/ipv4/ip_local_port_range),
 * so no rank's own connections can take it before rank 0 binds it.
 * Returns the port or INC_E_SOCKET when none is found.
 */
int inc_free_port(void);

/*
 * Bootstrap through MPI (rank and size from MPI_COMM_WORLD, addresses
 * exchanged with MPI_Allgather). Calls MPI_Init if MPI is not initialised
 * yet (and then MPI_Finalize in inc_comm_destroy). Returns INC_E_MPI when
 * the library was built without MPI.
 */
int inc_comm_init_mpi(struct inc_comm **comm);

/* Close every connection and free the communicator. NULL is allowed. */
void inc_comm_destroy(struct inc_comm *comm);

int inc_comm_rank(const struct inc_comm *comm);
int inc_comm_size(const struct inc_comm *comm);

/* Cumulative traffic of this rank on its data sockets (payload bytes as
 * handed to / taken from TCP: raw floats, or compressed streams plus their
 * 4-byte length headers in software mode). */
struct inc_comm_stats {
	uint64_t bytes_sent;
	uint64_t bytes_received;
	uint64_t calls;          /* all-reduce calls that returned 0 */
	unsigned send_mss;       /* TCP MSS of the ring send socket (0: none) */
	uint64_t sum_ns;         /* time spent adding received values */
	uint64_t codec_ns;       /* time spent in the software codec (compress,
				    decompress, owner round trips; sketch
				    quantize, index, encode, peel) */
	/* sketch modes, summed over calls (docs/userlib.md, "Sketch") */
	uint64_t sketch_values;      /* values all-reduced */
	uint64_t sketch_candidates;  /* values the summed index marked */
	uint64_t sketch_peeled;      /* recovered exactly by peeling */
	uint64_t sketch_estimated;   /* left to the median estimate */
	uint64_t sketch_retries;     /* sketch rounds repeated with 1.5x cells */
	uint64_t values_sent;        /* float32 values this rank sent in segments
					(ring, WA, exchange; sketch phases: words) */
	/* Modes with an error bound: this rank's contributions to its
	 * all-reduce calls (its values, scaled, plus its residual) by the
	 * codec's class at the call's bound: 2, 10, 18 and 34 bits (the
	 * paper's Table III; docs/userlib.md, "Statistics"). */
	uint64_t class_values[4];
};
int inc_comm_stats(const struct inc_comm *comm, struct inc_comm_stats *st);

/*
 * The rendezvous (docs/userlib.md, "Bootstrap"): every connection to the
 * master port or to a data listener must present a hello (magic, protocol
 * version, job id, world size, its rank in range and not taken) within
 * INC_HELLO_TIMEOUT_MS (default 5000), and with INC_JOB_SECRET set pass an
 * HMAC-SHA256 challenge-response; anything else is closed and counted here
 * by reason, and the listener goes on. INC_JOB_ID names the job (default
 * "MASTER_ADDR:MASTER_PORT"); INC_BIND_ADDR the address listeners bind to
 * (default: the address this rank uses to reach the master).
 */
enum inc_refusal {
	INC_REFUSED_NOT_HELLO = 0,   /* not a hello (another protocol, random bytes) */
	INC_REFUSED_VERSION,         /* a hello of another protocol version */
	INC_REFUSED_TRUNCATED,       /* closed inside its hello or proof */
	INC_REFUSED_TIMEOUT,         /* no complete hello or proof within the deadline */
	INC_REFUSED_JOB,             /* another job id */
	INC_REFUSED_SIZE,            /* another world size */
	INC_REFUSED_RANK,            /* rank out of range, or a link nobody expects */
	INC_REFUSED_DUPLICATE,       /* a rank (link) that is already there */
	INC_REFUSED_SECRET,          /* wrong or missing secret */
	INC_REFUSED_OVERFLOW,        /* too many handshakes open at once */
	INC_REFUSED_COUNT
};
/* Short name of a reason ("not_hello", "version", ...); NULL if unknown. */
const char *inc_refusal_name(int reason);

struct inc_bootstrap_stats {
	uint64_t accepted;                     /* links of this job accepted */
	uint64_t refused[INC_REFUSED_COUNT];   /* connections refused, by reason */
	uint64_t closed_early;                 /* closed before sending a byte (not
						  refused: a rank's reconnect does it) */
};
/* Counts of this rank's listeners since the communicator was created
 * (bootstrap, then the peer links of the first exchange). */
int inc_comm_bootstrap_stats(const struct inc_comm *comm, struct inc_bootstrap_stats *st);

/*
 * The library never prints. Events worth a line (a refused connection, a
 * refusal of this rank with both job ids) go to fn(arg, line) when set;
 * with no fn and INC_LOG=stderr in the environment, to stderr. NULL fn:
 * back to that default. Process-wide; set it before creating communicators.
 */
typedef void (*inc_log_fn)(void *arg, const char *line);
void inc_set_log(inc_log_fn fn, void *arg);

/* ------------------------------------------------------------------------ */
/* All-reduce                                                                */
/* ------------------------------------------------------------------------ */
enum inc_compression {
	INC_COMP_NONE = 0,       /* raw float32, untagged sockets */
	INC_COMP_NIC,            /* raw float32 on sockets tagged with the ToS: the NIC compresses */
	INC_COMP_SOFTWARE,       /* the library compresses each segment; untagged sockets */
	INC_COMP_CNAT,           /* natural compression, unbiased stochastic rounding; untagged */
	INC_COMP_CNAT_DET,       /* natural compression, nearest power of two; untagged */
	INC_COMP_SKETCH,         /* lossless homomorphic: index + count sketch; untagged */
	INC_COMP_INC_SKETCH,     /* INCEPTIONN quantization at the error bound, then sketch */
};

/*
 * The compression table: one entry per mode, in enum order. Everything
 * that names, parses or lists modes (the environment parser, inc-train,
 * inc-bench, the Python binding) reads it; a new mode is one enum value,
 * one table entry (userlib/src/segc.c) and one segment-codec file.
 */
#define INC_COMP_COUNT 7

struct inc_compression_info {
	enum inc_compression mode;
	const char *name;        /* "none", "nic", "software", ... (INC_COMPRESSION) */
	const char *label;       /* short label for tables: "", "+C", "+C sw", ... */
	const char *summary;     /* one line for usage texts */
	uint8_t lossy;           /* delivered values may differ from the exact sum */
	uint8_t summable;        /* encodings add without decoding (sketch) */
	uint8_t tagged;          /* data sockets carry the NIC's ToS */
	uint8_t whole_call;      /* the whole call is one codec operation (sketch
				    modes: all-reduce only, no WA update or exchange) */
	uint8_t error_bound;     /* the error bound applies */
	uint8_t error_feedback;  /* error feedback on by default (INC_EF_AUTO) */
};

/* The entry of a mode, or NULL when mode is not in the table; iterate
 * with i = 0, 1, ... until NULL. */
const struct inc_compression_info *inc_compression_info(enum inc_compression mode);
/* The mode's name, or NULL when unknown. */
const char *inc_compression_name(enum inc_compression mode);
/* The mode named s (exact match): 0, or INC_E_ARG for an unknown name. */
int inc_compression_parse(const char *s, enum inc_compression *mode);
/* The names joined by sep ("none, nic, ..."), NUL-terminated in buf
 * (truncated to len - 1). Returns the length it needed (as snprintf). */
size_t inc_compression_list(char *buf, size_t len, const char *sep);

enum inc_algo {
	INC_ALGO_RING = 0,       /* Algorithm 1: reduce-scatter + all-gather on a ring */
	INC_ALGO_WA,             /* worker-aggregator: rank 0 sums and sends back */
};

struct inc_allreduce_opts {
	enum inc_compression compression;
	enum inc_algo algo;
	unsigned error_bound;    /* exponent: bound 2^-error_bound, 1..126 (default 10) */
	int timeout_ms;          /* no progress for this long -> INC_E_TIMEOUT (default 30000) */
	size_t segment_bytes;    /* pipeline segment, multiple of 32; 0 = default (64 KiB) */
	uint8_t tos;             /* ToS of tagged sockets (default 0x28) */
	uint64_t seed;           /* cnat: seed of the random draws; sketch: of the
				    hashes (default 0) */
	unsigned sketch_index;   /* sketch: enum inc_sketch_index (default bitmap) */
	double sketch_gamma;     /* sketch: cells per candidate; 0 = INC_SKETCH_GAMMA */
	/* Error feedback (docs/userlib.md, "Error feedback"): what this rank
	 * meant to send minus what it sent is kept in residual and added to
	 * its next contribution at the same positions. */
	int error_feedback;      /* enum inc_error_feedback (default INC_EF_AUTO) */
	float *residual;         /* count values, owned by the caller (one per call
				    site: a bucket, a layer group), zero before its
				    first call; NULL: none */
	/* All-reduce only: the values travel multiplied by 2^scale_exp (-64..64,
	 * 0 = none; the same on every rank) and come back divided, exactly
	 * (powers of two), so a lossy codec sees them in its finer classes
	 * (docs/userlib.md, "Scaled values"). The residual stays in the
	 * caller's units. Exact or refused: a finite value that would
	 * overflow (or, in the lossless modes, a non-zero one that would
	 * lose bits below the normal range) fails the call with INC_E_ARG.
	 * 0 when scale is set. */
	int scale_exp;
	/* Adaptive scaling (docs/userlib.md, "Adaptive scaling"): the call
	 * site's state, owned by the caller like residual (one per bucket or
	 * layer group, created by inc_scale_create). Each part of the call
	 * travels multiplied by the state's exponent, which every rank updates
	 * at the end of the call from the delivered sum alone, so replicas
	 * stay bit-identical. Used by the modes with an error bound (nic,
	 * software, inc+sketch) and ignored by the others; all-reduce only.
	 * NULL: none. */
	struct inc_scale *scale;
};

enum inc_error_feedback {
	INC_EF_AUTO = 0,         /* on when residual is set and the mode's table
				    entry says so (the lossy INCEPTIONN modes) */
	INC_EF_OFF,              /* never (residual untouched) */
	INC_EF_ON,               /* on for every lossy mode; needs residual */
};

/*
 * Adaptive scaling state. The call's count values are split into parts
 * (ends: nparts ascending ends, the last one the call's count; nparts 1
 * with ends NULL: the whole call is one part, of any count). Part i
 * travels multiplied by 2^e[i] (exact: powers of two) and comes back
 * divided. After each call every rank chooses the next exponents from
 * the delivered sums, the same on every rank, by the state's policy:
 *   inc_scale_create (the default): part i's largest sum is brought to
 *     [2^-(K+1), 2^-K), one K for the whole call: the smallest K in 0..40
 *     at which the call's sums, so scaled, would travel through the
 *     INCEPTIONN codec at a compression ratio of at least `ratio` (1 to
 *     INC_SCALE_RATIO_MAX; 0: INC_SCALE_RATIO_DEFAULT). Parts of small values are scaled up,
 *     parts of large values down, so the call's bits go where its values
 *     are (a value's bits depend only on its exponent: docs/codec.md);
 *   inc_scale_create_least_error: part i's largest sum is brought to
 *     [2^-(K_i+1), 2^-K_i), each part its own K_i in 0..40, chosen
 *     together so that the call travels at `ratio` with the least squared
 *     error of its sums in the caller's units (estimated from the sums'
 *     exponents and the codec's classes): the bits go to the parts whose
 *     values are largest;
 *   inc_scale_create_each: each part on its own, the largest e in
 *     [0, INC_SCALE_EMAX] at which its sums would travel at `ratio`
 *     (never scaled down);
 *   inc_scale_create_headroom: the part's largest |sum| / ranks brought to
 *     [2^-(K+1), 2^-K) (K 0..30).
 * Exponents are in -64..64 and capped so that values up to 2^8 times the
 * part's largest sum cannot overflow; the first call (no sum yet) uses 0.
 * Values scaled down below the float range's normals lose bits they would
 * lose in the codec anyway (these are the lossy modes). The exponents are
 * part of the call header: ranks whose states differ fail with
 * INC_E_PROTOCOL. One call at a time may use a state. 0, INC_E_ARG (bad
 * parts or ratio; *s is then NULL) or INC_E_NOMEM.
 */
#define INC_SCALE_RATIO_DEFAULT 8.0
/* The codec spends at least 2 bits a value (16x when every value is in
 * the zero class): a target near 16 is met only by sending nothing. */
#define INC_SCALE_RATIO_MAX 12.0
#define INC_SCALE_EMAX 40
#define INC_SCALE_PARTS_MAX (1u << 20)
struct inc_scale;
int inc_scale_create(struct inc_scale **s, size_t nparts, const size_t *ends, double ratio);
int inc_scale_create_least_error(struct inc_scale **s, size_t nparts, const size_t *ends,
				 double ratio);
int inc_scale_create_each(struct inc_scale **s, size_t nparts, const size_t *ends, double ratio);
int inc_scale_create_headroom(struct inc_scale **s, size_t nparts, const size_t *ends, int k);
void inc_scale_destroy(struct inc_scale *s);
/* Parts of the state. */
size_t inc_scale_parts(const struct inc_scale *s);
/* The current exponents into e[0..n) (n at least the parts): the number of
 * parts, or INC_E_ARG. */
int inc_scale_get(const struct inc_scale *s, int *e, size_t n);
/* Set the exponents (a checkpoint's): n must equal the parts, each in
 * -64..64; 0 or INC_E_ARG. */
int inc_scale_set(struct inc_scale *s, const int *e, size_t n);
/* Change a balanced, least-error or each state's target ratio (1 to
 * INC_SCALE_RATIO_MAX; 0: INC_SCALE_RATIO_DEFAULT): the end of the next
 * call that uses the state chooses its exponents for it. Every rank must
 * change it before the same call. 0 or INC_E_ARG (a headroom state, a
 * ratio out of range). */
int inc_scale_set_ratio(struct inc_scale *s, double ratio);
/* Damp the choice: from the next call on, each exponent moves at most
 * step binades from the one the call used (never above the overflow
 * cap); 0 (a new state's): any distance. A choice made from one sum swings
 * between calls that hold nearly every value back and calls that send
 * them all at 16 bits: the sum of a call that released held-back
 * residuals asks for a far lower exponent than the next call's fresh
 * values need, and a sum of nothing but zeros for a far higher one.
 * Every rank must set the same step. 0 or INC_E_ARG (no state, step
 * outside 0..128). */
int inc_scale_set_step(struct inc_scale *s, int step);
/* Hysteresis on the choice: from the next call on, an exponent moves only
 * when `calls` calls in a row have asked it to move the same way (finer,
 * or coarser); 0 or 1 (a new state's): whenever a call asks. Damping
 * alone bounds the swing, it does not stop it: the sum of a call at a
 * finer exponent than the one before carries what that one held back and
 * asks for a coarser exponent, the coarser call's sum, most of its values
 * held back, asks for a finer one, and the exponents alternate by a
 * binade every call (docs/userlib.md, "Adaptive scaling"). A step, if
 * set, applies to the move that patience lets through; the overflow cap
 * is obeyed at once; inc_scale_prime's choice is not held. Every rank
 * must set the same patience. 0 or INC_E_ARG (no state, calls outside
 * 0..INC_SCALE_PATIENCE_MAX). */
#define INC_SCALE_PATIENCE_MAX 64
int inc_scale_set_patience(struct inc_scale *s, int calls);
/* Bound a least-error state's choice: from the next call on, no part's
 * headroom K_i exceeds the balanced policy's K for the same sums by more
 * than `binades` (0..INC_SCALE_EMAX; -1, a new state's: no bound). Least
 * error gives the bits to the parts of large values and holds back those
 * of small ones; bounded, no part is held back more than `binades`
 * binades beyond what balanced would hold back, and the choice still
 * meets the target wherever balanced's does. Every rank must set the same
 * spread. 0 or INC_E_ARG (no state, not a least-error state, binades out
 * of range). */
int inc_scale_set_spread(struct inc_scale *s, int binades);
/* The calls in a row that have asked each part to move (positive: finer,
 * negative: coarser; 0: the last call asked for no move) into run[0..n)
 * (n at least the parts): the number of parts, or INC_E_ARG. With the
 * exponents (inc_scale_get) they are a patient state's checkpoint. */
int inc_scale_get_runs(const struct inc_scale *s, int *run, size_t n);
/* Set them (a checkpoint's): n must equal the parts, each within
 * +-INC_SCALE_PATIENCE_MAX; 0 or INC_E_ARG. */
int inc_scale_set_runs(struct inc_scale *s, const int *run, size_t n);
/* Back to the first call's state (every exponent 0, no run of asked moves). */
void inc_scale_reset(struct inc_scale *s);
/* Choose the exponents of the next call from sum[0..count), the sum of
 * every rank's values for this call site through a lossless all-reduce
 * (a warm-up's), as the end of a call chooses them from its delivered
 * sum, but undamped and with its zeros taken as zeros: without it a new
 * state's first call uses 0 and a damped state moves one step a call to
 * the values' size, meanwhile holding back the values of parts that need
 * a higher exponent and sending raw those that need a lower. eb: the
 * error bound of the calls to come, ranks: the number of ranks. Every
 * rank must prime with the same sum. 0 or INC_E_ARG (no state, count not
 * the state's, eb above 126, ranks below 1). */
int inc_scale_prime(struct inc_scale *s, const float *sum, size_t count, unsigned eb, int ranks);

/* Is error feedback in effect for a call with these options? 1 or 0. */
int inc_error_feedback_active(const struct inc_allreduce_opts *opts);

/*
 * Fill opts with the defaults overridden by the environment:
 * INC_COMPRESSION=none|nic|software|cnat|cnat-det|sketch|inc+sketch,
 * INC_ERROR_BOUND=<eb> (exponent, or "2^-eb"), INC_ALGO=ring|wa,
 * INC_TIMEOUT_MS, INC_SEGMENT_BYTES, INC_TOS, INC_SEED,
 * INC_SKETCH_INDEX=bitmap|bloom, INC_SKETCH_GAMMA=<cells per candidate>,
 * INC_ERROR_FEEDBACK=auto|on|off (also 1|0).
 * Returns INC_E_ENV when a variable is present but invalid.
 */
int inc_allreduce_opts_init(struct inc_allreduce_opts *opts);

/*
 * Sum buf (count float32 values) over all ranks in place. Collective:
 * every rank calls it with the same count and options. opts NULL means
 * inc_allreduce_opts_init(). In nic and software modes every rank ends with
 * bit-identical buffers (docs/userlib.md, "Identical replicas"). After a
 * failure (INC_E_TIMEOUT, INC_E_CLOSED, ...) the communicator is broken:
 * later calls return INC_E_BROKEN, and the other ranks see their
 * connections close and fail too.
 */
int inc_allreduce_f32(struct inc_comm *comm, float *buf, size_t count,
		      const struct inc_allreduce_opts *opts);

/*
 * Worker-aggregator step with the update at the aggregator (the paper's WA
 * baseline): ranks 1..N-1 send buf (count values, compressed or tagged as
 * opts->compression says) to rank 0, which adds them segment by segment in
 * rank order onto its own buf. As soon as segment [off, off+n) is summed,
 * rank 0 calls update(arg, seg, off, n) with seg = buf + off; the callback
 * overwrites seg with what the workers get back (the new weights), and that
 * goes back raw on untagged sockets, overlapped with the upward stream.
 * On return the workers' buf holds what update wrote; rank 0's buf too.
 * opts->algo is ignored. Collective; failures as inc_allreduce_f32. With a
 * single rank update() is called once on the whole buffer.
 */
typedef void (*inc_wa_update_fn)(void *arg, float *seg, size_t off, size_t n);
int inc_wa_update_f32(struct inc_comm *comm, float *buf, size_t count,
		      const struct inc_allreduce_opts *opts,
		      inc_wa_update_fn update, void *arg);

/* ------------------------------------------------------------------------ */
/* Natural compression C_nat (docs/userlib.md, "C_nat")                      */
/* ------------------------------------------------------------------------ */
#define INC_CNAT_EMIN (-50)      /* smallest exponent: 2^-50 */
#define INC_CNAT_EMAX 10         /* largest: 2^10 (larger values saturate) */
/*
 * One byte per value: bit 7 sign, bit 6 zero flag, bits 5..0 exponent + 50.
 * stochastic 1: unbiased randomized rounding to a neighbouring power of
 * two, value i drawing from a counter-based generator keyed by key (same
 * key and data, same bytes); 0: nearest power of two. |x| >= 2^10 and
 * +-Inf saturate to +-2^10, NaN becomes +0. Decode returns INC_E_PROTOCOL
 * if a byte has an exponent above the range. AVX2 when selected
 * (inc_codec_select), byte-identical to the portable code.
 */
void inc_cnat_encode(const float *in, size_t n, uint8_t *out, int stochastic, uint64_t key);
int inc_cnat_decode(const uint8_t *in, size_t n, float *out);

/* ------------------------------------------------------------------------ */
/* Lossless homomorphic compression (docs/userlib.md, "Sketch")              */
/* ------------------------------------------------------------------------ */
/*
 * A count sketch of the values (three hashes with signs, batches of up to
 * INC_SKETCH_BATCH values sharing their hashes, rotated inside the batch)
 * plus an index of the non-zero values (a bitmap, or a Bloom filter when
 * that is smaller). Sketches of several gradients with the same geometry
 * add cell by cell and their indices OR word by word, giving the sketch
 * and index of the summed gradient; decoding peels it (exact recovery when
 * the sketch has enough cells per candidate) and estimates what
 * cannot be peeled by the median of its three cells (counted in the
 * stats). Recovered values equal the sums up to float re-association.
 */
#define INC_SKETCH_BATCH     1024u          /* c: values per batch (max) */
#define INC_SKETCH_GAMMA     1.3            /* cells per candidate (default; the
						paper's 1.23 is the asymptotic
						threshold, docs/userlib.md) */
#define INC_SKETCH_GAMMA_MIN 0.25
#define INC_SKETCH_GAMMA_MAX 64.0
#define INC_SKETCH_N_MAX     0xffffffffull  /* values per sketch */

enum inc_sketch_index {
	INC_SKETCH_BITMAP = 0,   /* one bit per value */
	INC_SKETCH_BLOOM,        /* Bloom filter (used only when smaller) */
};

/* Everything that decides where a value goes; equal on every rank. */
struct inc_sketch_geom {
	uint64_t n;              /* values */
	uint64_t key;            /* hash key */
	uint32_t index;          /* enum inc_sketch_index actually used */
	uint32_t bloom_w;        /* Bloom: bits per row (power of two, 32..1024) */
	uint32_t bloom_rows;     /* Bloom: rows */
	uint32_t bloom_k;        /* Bloom: bits per non-zero value */
	uint32_t w;              /* sketch: batch width (power of two <= 1024) */
	uint32_t rows;           /* sketch: rows per hash (3 * rows * w cells) */
};

struct inc_sketch_stats {
	uint64_t values;         /* n */
	uint64_t candidates;     /* values the index marks (non-zeros + false positives) */
	uint64_t peeled;         /* candidates recovered by peeling */
	uint64_t estimated;      /* candidates left to the median estimate */
	uint32_t rounds;         /* peeling rounds */
	uint64_t index_bytes, sketch_bytes;
};

/* Step 1: the index geometry for n values of which at most nnz_bound are
 * non-zero (sizes the Bloom filter; the bitmap ignores it). */
int inc_sketch_geom_index(struct inc_sketch_geom *g, uint64_t n,
			  enum inc_sketch_index index, uint64_t nnz_bound, uint64_t key);
/* 32-bit words of the index (zeroed by the caller before index_add). */
size_t inc_sketch_index_words(const struct inc_sketch_geom *g);
/* OR the non-zero values of x[0..n) into the index. */
void inc_sketch_index_add(const struct inc_sketch_geom *g, const float *x, uint32_t *index);
/* Values the (summed) index marks. */
uint64_t inc_sketch_candidates(const struct inc_sketch_geom *g, const uint32_t *index);
/* Step 2: size the sketch for that many candidates: at least gamma cells
 * per candidate (INC_SKETCH_GAMMA_MIN..MAX). */
int inc_sketch_geom_cells(struct inc_sketch_geom *g, uint64_t candidates, double gamma);
/* Float cells of the sketch (zeroed by the caller before encode). */
size_t inc_sketch_cells(const struct inc_sketch_geom *g);
/* Add x[0..n) into the cells. */
void inc_sketch_encode(const struct inc_sketch_geom *g, const float *x, float *cells);
/* Recover x[0..n) from a (summed) index and sketch; the cells are used as
 * scratch. 0, INC_E_NOMEM, or INC_E_ARG for a geometry it cannot hold. */
int inc_sketch_decode(const struct inc_sketch_geom *g, const uint32_t *index, float *cells,
		      float *x, struct inc_sketch_stats *st);

/*
 * Self-contained message (one gradient, sized by its own non-zeros):
 * a 40-byte header (magic "INS1", index kind, n, key, w, rows, Bloom
 * width, Bloom rows | k << 24; 32-bit little-endian words), the index
 * words, the cells (docs/userlib.md, "Sketch message"). compress returns
 * the size or INC_ENOSPC/INC_E_ARG/INC_E_NOMEM; inc_sketch_msg_max(n, ...)
 * bounds it. decompress checks the header and the length against the
 * geometry before touching anything: INC_ETRUNC (short), INC_EMALFORMED
 * (bad field, trailing bytes, index bits past n), INC_E_ARG (n differs).
 */
size_t inc_sketch_msg_max(size_t n, enum inc_sketch_index index, double gamma);
long inc_sketch_compress(const float *x, size_t n, enum inc_sketch_index index, double gamma,
			 uint64_t key, void *out, size_t cap, struct inc_sketch_stats *st);
int inc_sketch_msg_geom(const void *msg, size_t len, struct inc_sketch_geom *g);
int inc_sketch_decompress(const void *msg, size_t len, float *x, size_t n,
			  struct inc_sketch_stats *st);

/* ------------------------------------------------------------------------ */
/* Non-blocking all-reduce                                                   */
/* ------------------------------------------------------------------------ */
/*
 * Start inc_allreduce_f32(comm, buf, count, opts) and return at once with
 * *req; the call runs on the communicator's progress thread (started by
 * the first request), which executes requests one after another in issue
 * order. Every rank must issue the same sequence of calls (blocking and
 * non-blocking count alike: a blocking call made while requests are queued
 * waits its turn behind them). Until inc_wait returns, buf belongs to the
 * library. Results are bit-identical to the blocking call. Arguments and
 * options are checked here (INC_E_ARG, INC_E_ENV, INC_E_NOMEM: *req is
 * then NULL and nothing was queued); communication errors come from
 * inc_wait. One thread issues on a communicator; inc_comm_stats is exact
 * when no request is in flight. inc_comm_destroy finishes (or, on a broken
 * communicator, fails) every queued request and joins the thread; a
 * request must still be passed to inc_wait to be freed.
 */
/*
 * Point-to-point exchange: send count values of sendbuf to rank `to` and
 * receive count values from rank `from` into recvbuf (no overlap with
 * sendbuf), compressed or tagged as opts->compression says (values arrive
 * as the mode delivers them; opts->algo is ignored). Collective: every
 * rank calls it in the same step with the same count, each with its own
 * partners, and every `to` must be some rank's `from` in that step (e.g. a
 * permutation, as GossipGraD's partner schedule). to == from == own rank
 * copies. The first call connects one link per ordered pair of ranks.
 * Failures as inc_allreduce_f32.
 */
int inc_sendrecv_f32(struct inc_comm *comm, const float *sendbuf, int to,
		     float *recvbuf, int from, size_t count,
		     const struct inc_allreduce_opts *opts);

struct inc_request;
int inc_iallreduce_f32(struct inc_comm *comm, float *buf, size_t count,
		       const struct inc_allreduce_opts *opts,
		       struct inc_request **req);
/* Block until req has run; return its result (0 or a negative INC_E_*)
 * and free it. req NULL: INC_E_ARG. */
int inc_wait(struct inc_request *req);
/* Has req run? *done 1/0, without blocking; req stays valid. */
int inc_test(struct inc_request *req, int *done);

/* ------------------------------------------------------------------------ */
/* SIMD codec (same stream format as inc_stream_compress/decompress)         */
/* ------------------------------------------------------------------------ */
enum inc_codec_impl {
	INC_CODEC_AUTO = 0,      /* the best the CPU has (see inc_codec_select) */
	INC_CODEC_PORTABLE,
	INC_CODEC_AVX2,
	INC_CODEC_AVX512,        /* AVX2 codec, AVX-512 (VBMI2) decoder */
};

/* Choose the implementation for this process (INC_E_NOSUPPORT if the CPU
 * lacks it). AUTO: avx512 on AMD CPUs with AVX-512 F/BW/VL/VBMI2 (where it
 * was measured), else avx2 when the CPU has AVX2, else portable. The
 * environment variable INC_CODEC=portable|avx2|avx512 does the same on
 * first use. */
int inc_codec_select(enum inc_codec_impl impl);
/* "avx512", "avx2" or "portable": the implementation in use. */
const char *inc_codec_name(void);

/* Byte-identical to inc_stream_compress (counts not supported): returns
 * the stream size or INC_ENOSPC / INC_EINVAL. Never writes past out_cap,
 * but bytes between the returned size and out_cap may be overwritten. */
long inc_codec_compress(const float *in, size_t n_values, unsigned eb,
			void *out, size_t out_cap);
/* Byte-identical to inc_stream_decompress, including its error codes. */
long inc_codec_decompress(const void *in, size_t in_len, size_t n_values,
			  float *out, size_t out_cap);

/* Worst-case stream size of n values: ceil(n/8) * 34. */
static inline size_t inc_codec_max_size(size_t n_values)
{
	return (n_values + 7u) / 8u * 34u;
}

/*
 * Multi-stream container ("parts"): the n values are cut into `parts`
 * consecutive parts (1..INC_CODEC_PARTS_MAX), each compressed as an
 * ordinary stream, byte-identical to inc_stream_compress of that part, so
 * that a decoder can walk the parts' independent chains of group sizes
 * interleaved (the AVX2 path does; a single stream cannot go faster than
 * its chain of tag-word loads). Layout (docs/userlib.md, "Multi-stream
 * container"):
 *
 *   byte 0      number of parts K (1..INC_CODEC_PARTS_MAX)
 *   bytes 1..3  zero
 *   then K      32-bit little-endian byte lengths of the part streams
 *   then        the K streams, back to back
 *
 * Part i holds inc_codec_part_values(n, K, i) values starting at value
 * inc_codec_part_start(n, K, i): with per = ceil(ceil(n/K)/8)*8, the parts
 * take per values each in turn, so every part but the last non-empty one
 * is a multiple of 8 values; trailing parts may be empty (0-byte streams).
 * Values are quantized one by one, so the decoded values are the same as
 * with one stream.
 */
#define INC_CODEC_PARTS_MAX 4u

/* Header bytes of a container of `parts` parts. */
static inline size_t inc_codec_parts_hdr_size(unsigned parts)
{
	return 4u + 4u * (size_t)parts;
}

/* Worst-case container size: the header plus ceil(n/8) * 34 (the parts
 * together have ceil(n/8) groups, as only the last non-empty one may end
 * with a partial group). */
static inline size_t inc_codec_parts_max_size(size_t n_values, unsigned parts)
{
	return inc_codec_parts_hdr_size(parts) + inc_codec_max_size(n_values);
}

/* First value and number of values of part i of n values cut into parts
 * (0 for i >= parts or parts == 0). */
size_t inc_codec_part_start(size_t n_values, unsigned parts, unsigned i);
size_t inc_codec_part_values(size_t n_values, unsigned parts, unsigned i);

/* Compress n values into a container of `parts` parts. Returns its size,
 * INC_ENOSPC if out_cap is too small, INC_EINVAL for NULL pointers or
 * parts outside 1..INC_CODEC_PARTS_MAX (or a part stream >= 4 GiB). Never
 * writes past out_cap; bytes between the returned size and out_cap may be
 * overwritten. */
long inc_codec_compress_parts(const float *in, size_t n_values, unsigned eb,
			      unsigned parts, void *out, size_t out_cap);

/*
 * Decompress a container of n values (in_len bytes available) into out
 * (out_cap bytes). Returns the container size (bytes consumed; bytes after
 * it are ignored, as with inc_codec_decompress) or an error:
 *   INC_EINVAL     NULL pointers;
 *   INC_ENOSPC     out_cap < 4 * n;
 *   INC_ETRUNC     in_len shorter than the header or than the header plus
 *                  the part lengths;
 *   INC_EMALFORMED bad part count, non-zero reserved bytes, or a part whose
 *                  stream ends before its stated length;
 *   otherwise the first failing part's error exactly as
 *   inc_stream_decompress reports it for that part's bytes and values.
 * Never reads past in_len nor writes past out_cap; after an error the
 * contents of out are unspecified.
 */
long inc_codec_decompress_parts(const void *in, size_t in_len, size_t n_values,
				float *out, size_t out_cap);

/* q(x) in place: v[0..n) replaced by the codec's round trip, value by value
 * (inc_quantize_value of the model: what compressing and decompressing, or
 * a NIC, delivers), without a stream. With res not NULL, error feedback in
 * the same pass: each value becomes q(v + res) and res becomes
 * (v + res) - q(v + res), float arithmetic. eb is clamped to 1..126. */
void inc_codec_quantize(float *v, float *res, size_t n, unsigned eb);

/* Largest absolute error |x - q(x)| of one value at error bound eb, for
 * any input (values with |x| >= 1 are exact). Used for tolerances. */
double inc_codec_abs_bound(unsigned eb);

#ifdef __cplusplus
}
#endif

#endif /* INCEPTIONN_H */
