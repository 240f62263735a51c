/* SPDX-License-Identifier: MIT */
/* inc_internal.h - private declarations of libinceptionn, a section per
 * layer, bottom-up (the layers and their files: docs/userlib.md). */
#ifndef INC_INTERNAL_H
#define INC_INTERNAL_H

#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include "inc_model.h"
#include "inceptionn/inceptionn.h"

/* ------------------------------------------------------------------------ */
/* Layer text: the log hook, the last refusal's text                        */
/* ------------------------------------------------------------------------ */
/* One line to the log hook (inc_set_log, INC_LOG=stderr); else nothing. */
void inc_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* log.c: this thread's last refusal text ("" if none), and setting it. */
const char *inc_env_error(void);
void inc_env_error_set(const char *text);

/* ------------------------------------------------------------------------ */
/* Layer sockets: tagged sockets with deadlines                             */
/* ------------------------------------------------------------------------ */
/* sock.c */
int64_t inc_now_ms(void);
int inc_sock_set_tos(int fd, int family, uint8_t tos);
/* Listen on local (its port replaced by port), or on family's any-address
 * when local is NULL; returns the fd or an error. */
int inc_sock_listen(const struct sockaddr_storage *local, int family, uint16_t port,
		    uint8_t tos, int data, uint16_t *bound_port);
/* Connect to sa, from local (port 0) when not NULL. */
int inc_sock_connect(const struct sockaddr *sa, socklen_t salen,
		     const struct sockaddr_storage *local, uint8_t tos,
		     int data, int64_t deadline_ms, int *fd_out);
int inc_sock_write_all(int fd, const void *buf, size_t len, int64_t deadline_ms);
int inc_sock_read_all(int fd, void *buf, size_t len, int64_t deadline_ms);
int inc_sock_set_cork(int fd, int on);
/* Wait until the peer has acknowledged every byte written to fd (the send
 * queue is empty): 0, INC_E_TIMEOUT after timeout_ms, INC_E_SOCKET. */
int inc_sock_wait_drained(int fd, int timeout_ms);

/* ------------------------------------------------------------------------ */
/* Layer codecs: SIMD stream codec, C_nat, sketch                           */
/* ------------------------------------------------------------------------ */
/* A 64-bit mixing function (splitmix64's finalizer); inline so that the
 * codecs build alone (fuzz targets). */
static inline uint64_t inc_mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* codec_avx2.c */
long inc_avx2_compress(const float *in, size_t n_values, unsigned eb,
		       void *out, size_t out_cap);
/* inc_codec_compress_q's AVX2 path: one pass over full groups. */
long inc_avx2_compress_q(float *v, float *res, size_t n_values, unsigned eb,
			 void *out, size_t out_cap);
long inc_avx2_decompress(const void *in, size_t in_len, size_t n_values,
			 float *out, size_t out_cap);
/* The codec's round trip of v[0..n) in place, value by value
 * (inc_quantize_value), with error feedback when res is not NULL: each
 * value is v + res (one float addition), and res becomes that minus what
 * v then holds. The same results as inc_round_trip_ef through the stream. */
void inc_avx2_quantize(float *v, float *res, size_t n, unsigned eb);
/* The same one value at a time (the portable path, and the AVX2 path's
 * tail). */
static inline void inc_quantize_scalar(float *v, float *res, size_t n, unsigned eb)
{
	size_t i;

	for (i = 0; i < n; i++) {
		float x = res ? v[i] + res[i] : v[i];
		uint32_t b;

		memcpy(&b, &x, 4);
		b = inc_quantize_value(b, eb);
		memcpy(&v[i], &b, 4);
		if (res)
			res[i] = x - v[i];
	}
}

/* One part of a multi-stream container, its bounds already checked against
 * the container: stream bytes in[0..len), n values into out[0..4n). */
struct inc_part {
	const uint8_t *in;
	size_t len;
	size_t n;
	uint8_t *out;
};

/* Interleaved part decoders start part j this many groups (32 bytes of
 * output each) ahead of part 0, so that parts a power of two apart do not
 * store at the same offset in their pages (codec_avx2.c, walk_parts). */
#define INC_PARTS_STAGGER 37u

/* Decode parts p[0..k) (k <= INC_CODEC_PARTS_MAX), their group chains
 * interleaved. Returns 0 when every part decodes to exactly its length,
 * else the first failing part's inc_stream_decompress error, or
 * INC_EMALFORMED for a part whose stream ends before its length. */
long inc_avx2_decompress_parts(const struct inc_part *p, unsigned k);

/* codec_avx512.c: the same decoders with AVX-512 F/BW/VL/VBMI2 and BMI2
 * (compression stays with inc_avx2_compress). */
long inc_avx512_decompress(const void *in, size_t in_len, size_t n_values,
			   float *out, size_t out_cap);
long inc_avx512_decompress_parts(const struct inc_part *p, unsigned k);

/* codec_dispatch.c: is a SIMD implementation (AVX2, or AVX-512, which
 * shares the AVX2 kernels) selected? */
int inc_codec_is_avx2(void);
/* codec_dispatch.c: the stream of x = v + res (res NULL: of v), v replaced
 * by its decoding q(x) and res by x - q(x); the stream's size or the
 * model's error. The bytes and values of: v += res, res = v,
 * inc_codec_compress, inc_codec_decompress into v, res -= v (which the
 * portable path does). inc_codec_compress_parts_q: the same for a
 * multi-stream container of `parts` parts (inc_codec_compress_parts). */
long inc_codec_compress_q(float *v, float *res, size_t n_values, unsigned eb,
			  void *out, size_t out_cap);
long inc_codec_compress_parts_q(float *v, float *res, size_t n_values, unsigned eb,
				unsigned parts, void *out, size_t out_cap);
/* codec_cnat.c: the two implementations behind inc_cnat_encode/decode. */
void inc_cnat_encode_portable(const float *in, size_t n, uint8_t *out, int stoch,
			      uint64_t key);
void inc_cnat_encode_avx2(const float *in, size_t n, uint8_t *out, int stoch, uint64_t key);
int inc_cnat_decode_portable(const uint8_t *in, size_t n, float *out);
int inc_cnat_decode_avx2(const uint8_t *in, size_t n, float *out);
/* codec_sketch.c: inc_sketch_decode with a scratch arena (*arena, *cap
 * bytes; grown with malloc as needed, freed by the caller). */
int inc_sketch_decode_ws(const struct inc_sketch_geom *g, const uint32_t *index, float *cells,
			 float *x, struct inc_sketch_stats *st, void **arena, size_t *cap);

/* Does value x go into a sketch index? Non-zero, NaN included. */
static inline int inc_sketch_nonzero(float x)
{
	return x != 0.0f || x != x;
}

/* ------------------------------------------------------------------------ */
/* Layer compression table: how one segment of values travels               */
/* ------------------------------------------------------------------------ */
struct inc_seg_codec {
	const char *name;
	uint8_t tagged;        /* data sockets carry the NIC's ToS */
	uint8_t framed;        /* a segment is a 4-byte length + encoded bytes;
				  else raw float32 */
	uint8_t summable;      /* encoded segments can be added without decoding */
	/* framed: bounds of a valid encoding of n values */
	size_t (*max_bytes)(size_t n);
	size_t (*min_bytes)(size_t n);
	/* framed: encode n values into out (max_bytes(n)); size or < 0. key:
	 * this encoding's random stream (codecs that draw; others ignore it) */
	long (*encode)(const float *v, size_t n, unsigned eb, uint8_t *out, uint64_t key);
	/* framed: decode exactly len bytes into n values; 0 or < 0 */
	int (*decode)(const uint8_t *in, size_t len, size_t n, float *out);
	/* The owner step: replace v by what every receiver will hold, leaving
	 * the encoding in tmp (INC_SEG_STAGE_MAX bytes); its size or < 0.
	 * NULL: values arrive exact. */
	long (*round_trip)(float *v, size_t n, unsigned eb, uint8_t *tmp, uint64_t key);
	/* The round trip is value by value and leaves no encoding to send
	 * (nic: the NIC encodes): inc_round_trip_ef uses inc_codec_quantize. */
	int direct;
	/* The round trip of v + res with error feedback in one pass (v and
	 * res as inc_round_trip_ef leaves them, the encoding in tmp); NULL:
	 * inc_round_trip_ef composes it from round_trip. */
	long (*round_trip_ef)(float *v, float *res, size_t n, unsigned eb, uint8_t *tmp);
};

extern const struct inc_seg_codec inc_segc_none, inc_segc_nic, inc_segc_software,
	inc_segc_cnat, inc_segc_cnat_det;

/* segc.c: the segment codec of a compression mode; NULL if unknown. */
const struct inc_seg_codec *inc_seg_codec(enum inc_compression mode);
/* segc.c: staging bytes of one segment of n values: length word + the
 * largest encoding of any mode + up to 3 bytes padding it to whole 32-bit
 * words, rounded up to 64 so that buffers laid out after a stage stay
 * aligned. Also the scratch a round trip needs. */
size_t inc_seg_stage_max(size_t n);
/* The INCEPTIONN round trip shared by nic and software (segc_inc.c). */
long inc_seg_round_trip_inc(float *v, size_t n, unsigned eb, uint8_t *tmp, uint64_t key);
/* Zero bytes after a framed segment of len bytes: every message on a data
 * link is a whole number of 32-bit words, so the byte stream stays on float
 * boundaries whatever the modes of earlier calls (docs/userlib.md). */
#define INC_SEG_PAD(len) ((4u - ((unsigned)(len) & 3u)) & 3u)
#define INC_SEG_DEFAULT (64u * 1024u)   /* default segment bytes */
#define INC_SEG_MAX     (64u * 1024u * 1024u)

/* Values per segment of a call with options o. */
static inline size_t inc_seg_values(const struct inc_allreduce_opts *o)
{
	return (o->segment_bytes ? o->segment_bytes : INC_SEG_DEFAULT) / 4;
}

/* ------------------------------------------------------------------------ */
/* Layer scaling: adaptive scaling inside a call                            */
/* ------------------------------------------------------------------------ */
/* scale.c: adaptive scaling inside a call. Does the state's last end
 * equal count? */
int inc_scale_fits(const struct inc_scale *s, size_t count);
/* The state's parts and exponents, hashed (the call header). */
uint32_t inc_scale_digest(const struct inc_scale *s);
/* buf (and res) times 2^(dir * e) part by part (s NULL: the whole call
 * times 2^(dir * fixed)); the number of values of buf whose product is
 * not exact (lossy: overflows only). */
size_t inc_scale_apply(const struct inc_scale *s, int fixed, float *buf, float *res,
		       size_t count, int dir, int lossy);
/* cls[tag] += this rank's contributions buf + res (res may be NULL) by
 * the codec's class at bound eb. */
void inc_scale_classes(uint64_t cls[4], const float *buf, const float *res, size_t count,
		       unsigned eb);
/* The next exponents from the delivered sum (the same on every rank). */
void inc_scale_update(struct inc_scale *s, const float *sum, size_t count, unsigned eb,
		      int ranks);
/* A call's passes, fused (vectorised where the codec is AVX2), with the
 * results of the functions above bit for bit. Out: inc_scale_apply
 * (dir 1), then, with cls and when every product was exact,
 * inc_scale_classes at bound eb. Back: inc_scale_apply (dir -1), then,
 * with update, a state and every product exact, inc_scale_update. Both
 * return inc_scale_apply's count. */
size_t inc_scale_out(const struct inc_scale *s, int fixed, float *buf, float *res, size_t count,
		     int lossy, unsigned eb, uint64_t cls[4]);
size_t inc_scale_back(struct inc_scale *s, int fixed, float *buf, float *res, size_t count,
		      int lossy, int update, unsigned eb, int ranks);

/* ------------------------------------------------------------------------ */
/* Layer options: the environment                                           */
/* ------------------------------------------------------------------------ */
/* options.c: the environment. The first of a and b that is set and not
 * empty (b may be NULL), else NULL. */
const char *inc_env2(const char *a, const char *b);
/* A number in [lo, hi] (lo >= 0) by the variables' rule, decimal or 0x
 * hex: 0, or INC_E_ENV (also for s NULL); sets no message. */
int inc_parse_long(const char *s, long lo, long hi, long *out);
/* The variable name (else alt, may be NULL) as a number in [lo, hi]: 1
 * absent, 0 read, INC_E_ENV refused (with inc_env_refuse's message). */
int inc_env_long(const char *name, const char *alt, long lo, long hi, long *out);
/* Every INC_E_ENV: records "environment variable NAME='VALUE': why" (value
 * NULL: not set) for inc_strerror and sends it to the log hook. */
int inc_env_refuse(const char *name, const char *value, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int inc_env_timeout_ms(int *ms);
int inc_env_initial_tos(uint8_t *tos);

/* ------------------------------------------------------------------------ */
/* Layer handshake: the rendezvous on every link                            */
/* ------------------------------------------------------------------------ */
/* hello.c: the rendezvous handshake on every link (see the file's head). */
#define INC_HELLO_VERSION 1
#define INC_HELLO_BYTES   104
#define INC_REPLY_BYTES   128
#define INC_NONCE_BYTES   16
#define INC_JOB_ID_MAX    63
enum inc_link_kind { INC_LINK_CTRL = 0, INC_LINK_RING, INC_LINK_WA, INC_LINK_PEER };

/* This rank in the handshakes: INC_JOB_ID (default default_id),
 * INC_JOB_SECRET, INC_HELLO_TIMEOUT_MS. */
struct inc_job {
	int rank, size;
	int hello_ms;                  /* a connection's deadline for its hello */
	char id[INC_JOB_ID_MAX + 1];
	uint8_t secret[256];
	size_t secret_len;
	int has_secret;
};
int inc_job_init(struct inc_job *j, int rank, int size, const char *default_id);

struct inc_hello {
	uint16_t version, kind;
	uint32_t rank, size, port, flags;
	uint8_t nonce[INC_NONCE_BYTES];
	char job[INC_JOB_ID_MAX + 1];
};
void inc_hello_pack(uint8_t out[INC_HELLO_BYTES], const struct inc_hello *h);
/* -1 a hello of our version (*h filled), else the enum inc_refusal. */
int inc_hello_unpack(struct inc_hello *h, const uint8_t in[INC_HELLO_BYTES]);
/* Data-link form: 16-bit word w <-> float 65536 + w (0, or -1 for a value
 * that is not such a float). */
void inc_words_to_floats(float *out, const uint8_t *in, size_t nbytes);
int inc_words_from_floats(uint8_t *out, const float *in, size_t nbytes);

/* One rendezvous: outgoing handshakes (connected, hello sent) and the
 * incoming links a listener must deliver. */
struct inc_rdv {
	const struct inc_job *job;
	const char *what;              /* "master port", "data listener" (log) */
	int lfd;                       /* listener, -1: none */
	int data;                      /* messages as float32 (data links) */
	int64_t deadline;              /* of the whole rendezvous */
	/* The descriptor slot a valid hello fills (-1 while free), or NULL
	 * when nobody expects it; then accepted() once it is filled. */
	int *(*slot)(void *arg, const struct inc_hello *h);
	void (*accepted)(void *arg, const struct inc_hello *h, int fd);
	void *arg;
	struct inc_bootstrap_stats *st;
};
struct inc_rdv_out {
	int fd;
	int done;
	uint8_t hello[INC_HELLO_BYTES];
};
/* Send the hello of link kind on o->fd (port: the control hello's data port). */
int inc_hello_out(struct inc_rdv *r, struct inc_rdv_out *o, int kind, uint32_t port);
/* Run until every outgoing handshake is done and want_in links have been
 * accepted: 0, INC_E_CONNECT at the deadline, INC_E_REFUSED/CLOSED/... when
 * one of ours fails. Strangers are refused and counted in r->st. */
int inc_rdv_run(struct inc_rdv *r, struct inc_rdv_out *out, int n_out, int want_in);
/* One incoming connection fd taken as a listener takes it, without the
 * listener (tests, the fuzz target): 1 accepted (fd in its slot), 0
 * refused (fd closed), by r->deadline. */
int inc_rdv_accept_fd(struct inc_rdv *r, int fd);

/* ------------------------------------------------------------------------ */
/* Layer communicator: one rank's state and links                           */
/* ------------------------------------------------------------------------ */
/* Data links of one rank. */
struct inc_link {
	int fd;
	int family;
	int tos_now;            /* ToS currently set on fd */
};

struct inc_comm {
	int rank, size;
	int broken;             /* an earlier call failed */
	uint64_t seq;           /* all-reduce calls so far (call header) */
	/* The bootstrap's last step, run by inc_comm_free (boot_mpi.c:
	 * MPI_Finalize when it called MPI_Init); NULL: none. */
	void (*boot_end)(struct inc_comm *c);
	int ctrl_fd;            /* rank > 0: to rank 0; rank 0: -1 (see ctrl[]) */
	int *ctrl;              /* rank 0: control fds of ranks 1..N-1 */
	struct inc_link ring_send;   /* to rank + 1 */
	struct inc_link ring_recv;   /* from rank - 1 */
	struct inc_link wa_up;       /* rank > 0: to rank 0 */
	struct inc_link *wa;         /* rank 0: from ranks 1..N-1 (index = rank) */
	struct inc_comm_stats st;
	uint64_t call_seed;     /* the running call's opts->seed */
	uint64_t encodes;       /* segment encodings by this rank so far */
	void *sk_arena;         /* sketch modes: peeling scratch kept across calls */
	size_t sk_cap;
	/* Scratch buffers reused across calls. */
	uint8_t *scratch;
	size_t scratch_cap;
	/* Progress thread of the non-blocking calls (progress.c). */
	struct inc_progress *prog;
	/* Point-to-point (peer.c): the data listener and address table kept
	 * from the bootstrap, and the peer links once connected. */
	int data_lfd;
	struct sockaddr_storage *addrs;
	socklen_t *alens;
	struct inc_link *peer_send, *peer_recv;   /* [size], own rank unused */
	/* The rendezvous: this rank's identity, what the listeners refused. */
	struct inc_job job;
	struct inc_bootstrap_stats bst;
};

/* comm.c: a communicator of rank/size with no link connected yet. */
int inc_comm_alloc(struct inc_comm **out, int rank, int size);
/* comm.c: a link with no descriptor yet (fd -1, IPv4, ToS 0). */
void inc_link_init(struct inc_link *l);
/* comm.c: close every link and free c (no progress thread left). */
void inc_comm_free(struct inc_comm *c);

/* ------------------------------------------------------------------------ */
/* Layer links: address table, data and peer links                          */
/* ------------------------------------------------------------------------ */
/* link.c: connect the data links once rank/size and the address table are
 * known; addrs[i] is rank i's data listener. */
int inc_comm_connect_data(struct inc_comm *c, int lfd,
			  const struct sockaddr_storage *addrs,
			  const socklen_t *alens, uint8_t tos,
			  int64_t deadline_ms);
/* link.c: one address table entry (family 4/6, pad, port big-endian, 16
 * address bytes, pad), written from ss and port, and read back into *ss
 * (0, or INC_E_PROTOCOL for an unknown family). */
#define INC_ADDR_ENTRY_BYTES 24
void inc_addr_entry_put(uint8_t *e, const struct sockaddr_storage *ss, uint16_t port);
int inc_addr_entry_get(const uint8_t *e, struct sockaddr_storage *ss, socklen_t *len);
/* link.c: a bootstrap's tables, one row per rank: addresses, their lengths,
 * the entries exchanged (0 or INC_E_NOMEM; inc_comm_boot_done frees them). */
int inc_addr_tables_alloc(int size, struct sockaddr_storage **addrs,
			  socklen_t **alens, uint8_t **table);
/* link.c: a rendezvous of c's job (what: for the log; lfd: listener or -1;
 * data: float32 messages), its refusals counted in c's bootstrap stats. */
void inc_comm_rdv_init(struct inc_rdv *rv, struct inc_comm *c, const char *what, int lfd,
		       int data, int64_t deadline);
/* link.c: the end of a bootstrap: rc 0, c keeps the data listener lfd and
 * the tables addrs/alens (for the peer links) and goes to *out; else they
 * are closed and freed, c destroyed, rc returned. table is freed. */
int inc_comm_boot_done(struct inc_comm *c, int rc, int lfd,
		       struct sockaddr_storage *addrs, socklen_t *alens,
		       uint8_t *table, struct inc_comm **out);
/* link.c: connect the peer links (collective; no-op when connected). */
int inc_comm_connect_peers(struct inc_comm *c, int64_t deadline);

/* ------------------------------------------------------------------------ */
/* Layer bootstrap: environment or MPI                                      */
/* ------------------------------------------------------------------------ */
/* boot_mpi.c: does this process run under mpirun (OpenMPI, or a PMI/PMIx
 * launcher)? boot_nompi.c: never. */
int inc_boot_under_mpirun(void);

/* ------------------------------------------------------------------------ */
/* Layer transport: segment messages, call header, poll, failure            */
/* ------------------------------------------------------------------------ */
uint64_t inc_now_ns(void);
/* Mark the communicator broken with rc, reset every link; returns rc. */
int inc_fail(struct inc_comm *c, int rc);
/* Give a link the ToS of a call's mode: waits until everything written
 * under the old ToS has been acknowledged first (see transport.c). */
int inc_link_retag(struct inc_link *l, uint8_t tos, int timeout_ms);
/* Grow the communicator's scratch area to at least need bytes. */
int inc_scratch_reserve(struct inc_comm *c, size_t need);
/* Push out a corked tail: it ends on a float boundary (docs/userlib.md). */
void inc_flush_cork(int fd);
/* poll() until something happens or the no-progress timeout since *last
 * runs out (INC_E_TIMEOUT). */
int inc_wait_io(struct pollfd *p, int np, int64_t *last, int timeout_ms);
/* A send/receive pair where nothing moved (ring, exchange): flush a corked
 * tail when the sender is idle, then poll — send side for POLLOUT while a
 * message is active and for a reset while anything is left to send,
 * receive side while anything is left to receive. INC_E_CLOSED on a reset
 * or hang-up, INC_E_TIMEOUT from inc_wait_io. */
int inc_pair_wait(int sfd, int rfd, int tagged, int *dirty, int out_active, int send_left,
		  int recv_left, int64_t *last, int timeout_ms);

/*
 * Call header: the first 32 bytes each side sends on every data link in a
 * call, so ranks that disagree about the call (count, mode, algorithm, error
 * bound, segment size, or a skipped call) fail with INC_E_PROTOCOL instead
 * of mis-framing the byte stream. Eight float32 values, every one an
 * integer in [1, 2^24], so the NIC codec passes them unchanged (tag 3) and
 * they keep the socket float-aligned.
 */
#define INC_HDR_FLOATS 8
/* The call header's algorithm field: every kind of traffic its own value,
 * so ranks in different kinds of call fail instead of mixing words. */
enum inc_hdr_algo {
	INC_HDR_RING = 0,        /* ring all-reduce (= INC_ALGO_RING) */
	INC_HDR_WA = 1,          /* worker-aggregator all-reduce (= INC_ALGO_WA) */
	INC_HDR_WA_UPDATE = 2,   /* worker-aggregator with the update (inc_wa_update_f32) */
	INC_HDR_SKETCH = 3,      /* the sketch modes' index and count phases */
	INC_HDR_EXCHANGE = 4,    /* point-to-point exchange (inc_sendrecv_f32) */
	INC_HDR_ALGO_N = 8       /* field width: compression * 8 + algorithm */
};

struct inc_msg_out {
	const uint8_t *p;
	size_t left;
	int active;
};

struct inc_msg_in {
	uint8_t *p;
	size_t left;
	int active;
	int phase;             /* framed: 0 = length word, 1 = encoding */
	uint8_t hdr[4];
};

/* The header of the running call (count: o's call's values). */
void inc_hdr_make(float h[INC_HDR_FLOATS], const struct inc_comm *c, size_t count,
		  const struct inc_allreduce_opts *o, enum inc_hdr_algo algo);
/* Start sending the call header h. */
void inc_out_hdr(struct inc_msg_out *m, const float h[INC_HDR_FLOATS]);
/* Receive the peer's call header into h_in and compare it with ours, h:
 * 1 arrived and equal, 0 EAGAIN, or an error (INC_E_PROTOCOL: differs). */
int inc_hdr_recv(int fd, struct inc_msg_in *m, struct inc_comm *c,
		 float h_in[INC_HDR_FLOATS], const float h[INC_HDR_FLOATS],
		 int *progress);
/* Combine n received 32-bit words into dst (timed in sum_ns). */
enum inc_red {
	INC_RED_SUM_F32 = 0,     /* float sum (every mode's values) */
	INC_RED_OR_U32,          /* bitwise OR (sketch index) */
	INC_RED_SUM_U32,         /* saturating unsigned sum (non-zero counts) */
};
void inc_reduce(struct inc_comm *c, enum inc_red op, float *restrict dst,
		const float *restrict src, size_t n);
/* One segment to send: n values at v; owner: replace them by what every
 * receiver will hold (the codec's round trip) before they go; res: error
 * feedback, the residual of these positions (NULL: none). With res, v
 * (plus res) is quantised in place on the host, and res becomes what was
 * meant minus what was sent. */
struct inc_seg_out {
	float *v;
	size_t n;
	int owner;
	float *res;
};
/* The codec's round trip of v[0..n) in place (the encoding left in tmp),
 * with error feedback when res is not NULL: v += res first, and res
 * becomes what was meant minus what v now holds. Its size or < 0. */
long inc_round_trip_ef(const struct inc_seg_codec *sc, float *restrict v, size_t n,
		       float *restrict res, unsigned eb, uint8_t *tmp, uint64_t key);
/* Start sending a segment through codec sc; framed encodings (and round
 * trips) are staged in stage (inc_seg_stage_max bytes). Codec time into
 * codec_ns. */
int inc_out_start(struct inc_comm *c, struct inc_msg_out *m,
		  const struct inc_seg_codec *sc, const struct inc_seg_out *so,
		  unsigned eb, uint8_t *stage);
/* Write what the socket takes: 1 message done, 0 EAGAIN, or an error. */
int inc_out_pump(int fd, struct inc_msg_out *m, struct inc_comm *c, int *progress);
/* Start receiving n values: raw into dst, or the length word first. */
void inc_in_start(struct inc_msg_in *m, const struct inc_seg_codec *sc,
		  uint8_t *dst, size_t n);
/* Read what is there: 1 complete (framed: the encoding in stage, its
 * length in *slen), 0 EAGAIN, or an error. */
int inc_in_pump(int fd, struct inc_msg_in *m, struct inc_comm *c,
		const struct inc_seg_codec *sc, size_t n, uint8_t *stage,
		size_t *slen, int *progress);
/* Framed codecs: decode a received segment into out (timed); 0 or
 * INC_E_PROTOCOL. Raw codecs: nothing to do. */
int inc_in_decode(struct inc_comm *c, const struct inc_seg_codec *sc,
		  const uint8_t *stage, size_t slen, size_t n, float *out);

/* ------------------------------------------------------------------------ */
/* Layer pair stream: one call on a send and a receive link                 */
/* ------------------------------------------------------------------------ */
/* What an algorithm tells the pair stream: its segments in order. */
struct inc_pair_ops {
	/* The next segment to send: 1 (*so filled), 0 none may go yet, -1
	 * none left. */
	int (*next_send)(void *st, struct inc_seg_out *so);
	/* The segment next_send gave has been written (NULL: nothing to do). */
	void (*sent)(void *st);
	/* The next segment to receive: 1 (*into, *n: n values land there),
	 * -1 none left. Never 0: the receiver takes what comes. */
	int (*next_recv)(void *st, float **into, size_t *n);
	/* That segment has arrived, decoded into *into: 0 or an error. */
	int (*received)(void *st);
};

struct inc_pair {
	struct inc_comm *c;
	const struct inc_allreduce_opts *o;
	const struct inc_seg_codec *up, *down;  /* codecs of the send and receive side */
	size_t seg;                             /* values per segment */
	int sfd, rfd, tagged, dirty;
	float hdr[INC_HDR_FLOATS], hdr_in[INC_HDR_FLOATS];
	int s_hdr, r_hdr;                       /* headers still to send / receive */
	int s_end, r_end;                       /* no segment left to send / receive */
	struct inc_msg_out mo;
	struct inc_msg_in mi;
	float *r_into;                          /* segment being received */
	size_t r_n, slen;
	uint8_t *s_stage, *r_stage;
	uint8_t *extra;                         /* the algorithm's scratch (inc_pair_open) */
};

/* Prepare a call of count values (for the header) on links s (send) and r
 * (receive; may be s): scratch for
 * two stages plus `extra` bytes (p->extra, 64-byte aligned), the header,
 * the links' ToS for codec up, cork when tagged. 0, or the failure (the
 * communicator is then broken). */
int inc_pair_open(struct inc_pair *p, struct inc_comm *c, struct inc_link *s,
		  struct inc_link *r, const struct inc_allreduce_opts *o,
		  const struct inc_seg_codec *up, const struct inc_seg_codec *down,
		  enum inc_hdr_algo algo, size_t count, size_t extra);
/* Run the call to its end: 0, or the failure (communicator broken, links
 * reset). */
int inc_pair_run(struct inc_pair *p, const struct inc_pair_ops *ops, void *st);
/* The same with segments in buffer order on both sides: count values of
 * send go out (res: their residual, or NULL), count values arrive into
 * recv (may be send: a segment's answer comes after it has gone). */
int inc_pair_run_linear(struct inc_pair *p, float *send, float *recv, float *res,
			size_t count);

/* ------------------------------------------------------------------------ */
/* Layer algorithms: ring, WA, sketch modes, exchange                       */
/* ------------------------------------------------------------------------ */
int inc_ring_allreduce(struct inc_comm *c, float *buf, size_t count,
		       const struct inc_allreduce_opts *o);
int inc_wa_allreduce(struct inc_comm *c, float *buf, size_t count,
		     const struct inc_allreduce_opts *o,
		     inc_wa_update_fn update, void *arg);
/* The same with another combination of the received words (the sketch
 * modes' index OR and count sum) and the call header's algorithm value. */
int inc_ring_reduce(struct inc_comm *c, float *buf, size_t count,
		    const struct inc_allreduce_opts *o, enum inc_red op, enum inc_hdr_algo hdr_algo);
int inc_wa_reduce(struct inc_comm *c, float *buf, size_t count,
		  const struct inc_allreduce_opts *o, enum inc_red op, enum inc_hdr_algo hdr_algo,
		  inc_wa_update_fn update, void *arg);
/* sketch_ar.c: the sketch and inc+sketch modes (index all-reduce, then the
 * sketch's, then one peeling on every rank). */
int inc_sketch_allreduce(struct inc_comm *c, float *buf, size_t count,
			 const struct inc_allreduce_opts *o);
/* peer.c: the exchange of inc_sendrecv_f32 (checked arguments). */
int inc_peer_exchange(struct inc_comm *c, const float *sbuf, int to, float *rbuf,
		      int from, size_t count, const struct inc_allreduce_opts *o);

/* ------------------------------------------------------------------------ */
/* Layer calls: one collective call, queued or run                          */
/* ------------------------------------------------------------------------ */
/* progress.c: stop and join the progress thread after it has run every
 * queued request (inc_comm_destroy). */
void inc_progress_stop(struct inc_comm *c);
/* One collective call, as queued or run. */
enum inc_call_kind { INC_CALL_ALLREDUCE, INC_CALL_WA_UPDATE, INC_CALL_SENDRECV };
struct inc_call {
	enum inc_call_kind kind;
	float *buf;               /* all-reduce / WA: in place; sendrecv: receive */
	size_t count;
	const float *sbuf;        /* sendrecv: what is sent */
	int to, from;             /* sendrecv: peers */
	inc_wa_update_fn update;  /* WA update step */
	void *arg;
	struct inc_allreduce_opts o;   /* checked options */
};
/* A blocking call while the progress thread exists: queue it behind the
 * pending requests and wait. *queued 0: no thread, run inline. */
int inc_progress_blocking(struct inc_comm *c, const struct inc_call *k, int *queued);
/* call.c: run one checked call on the calling thread. */
int inc_call_run(struct inc_comm *c, const struct inc_call *k);
/* call.c: argument and option checks of call k (kind, buffers, count);
 * opts NULL: environment. The checked options go to *o, with residual
 * cleared unless error feedback is in effect. */
int inc_call_check(struct inc_comm *c, const struct inc_call *k,
		   const struct inc_allreduce_opts *opts, struct inc_allreduce_opts *o);

#endif
