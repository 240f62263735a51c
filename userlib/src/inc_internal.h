/* SPDX-License-Identifier: MIT */
/* inc_internal.h - private declarations of libinceptionn. */
#ifndef INC_INTERNAL_H
#define INC_INTERNAL_H

#include <poll.h>
#include <stdint.h>
#include <sys/socket.h>

#include "inc_model.h"
#include "inceptionn/inceptionn.h"

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
long inc_avx2_decompress(const void *in, size_t in_len, size_t n_values,
			 float *out, size_t out_cap);

/* One part of a multi-stream container, its bounds already checked against
 * the container: stream bytes in[0..len), n values into out[0..4n). */
struct inc_part {
	const uint8_t *in;
	size_t len;
	size_t n;
	uint8_t *out;
};

/* Decode parts p[0..k) (k <= INC_CODEC_PARTS_MAX), their group chains
 * interleaved. Returns 0 when every part decodes to exactly its length,
 * else the first failing part's inc_stream_decompress error, or
 * INC_EMALFORMED for a part whose stream ends before its length. */
long inc_avx2_decompress_parts(const struct inc_part *p, unsigned k);

/* codec_dispatch.c: is the AVX2 implementation selected? */
int inc_codec_is_avx2(void);
/* codec_cnat.c: the two implementations behind inc_cnat_encode/decode. */
void inc_cnat_encode_portable(const float *in, size_t n, uint8_t *out, int stoch,
			      uint64_t key);
void inc_cnat_encode_avx2(const float *in, size_t n, uint8_t *out, int stoch, uint64_t key);
int inc_cnat_decode_portable(const uint8_t *in, size_t n, float *out);
int inc_cnat_decode_avx2(const uint8_t *in, size_t n, float *out);

/* sock.c */
int64_t inc_now_ms(void);
int inc_sock_set_tos(int fd, int family, uint8_t tos);
int inc_sock_listen(int family, uint16_t port, uint8_t tos, int data,
		    uint16_t *bound_port);
int inc_sock_connect(const struct sockaddr *sa, socklen_t salen, uint8_t tos,
		     int data, int64_t deadline_ms, int *fd_out);
int inc_sock_accept(int lfd, int64_t deadline_ms, int *fd_out);
int inc_sock_write_all(int fd, const void *buf, size_t len, int64_t deadline_ms);
int inc_sock_read_all(int fd, void *buf, size_t len, int64_t deadline_ms);
int inc_sock_set_cork(int fd, int on);
/* Wait until the peer has acknowledged every byte written to fd (the send
 * queue is empty): 0, INC_E_TIMEOUT after timeout_ms, INC_E_SOCKET. */
int inc_sock_wait_drained(int fd, int timeout_ms);

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
	int mpi_finalize;       /* we called MPI_Init */
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
};

/* comm.c: connect the peer links (collective; no-op when connected). */
int inc_comm_connect_peers(struct inc_comm *c, int64_t deadline);
/* peer.c: the exchange of inc_sendrecv_f32 (checked arguments). */
int inc_peer_exchange(struct inc_comm *c, const float *sbuf, int to, float *rbuf,
		      int from, size_t count, const struct inc_allreduce_opts *o);

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
/* allreduce.c: run one checked call on the calling thread. */
int inc_call_run(struct inc_comm *c, const struct inc_call *k);
/* allreduce.c: argument and option checks; opts NULL: environment. */
int inc_call_check(struct inc_comm *c, const float *buf, size_t count,
		   const struct inc_allreduce_opts *opts,
		   struct inc_allreduce_opts *o);

/* comm.c: connect the data links once rank/size and the address table are
 * known; addrs[i] is rank i's data listener. */
int inc_comm_connect_data(struct inc_comm *c, int lfd,
			  const struct sockaddr_storage *addrs,
			  const socklen_t *alens, uint8_t tos,
			  int64_t deadline_ms);
int inc_comm_alloc(struct inc_comm **out, int rank, int size);
int inc_env_timeout_ms(int *ms);
int inc_env_initial_tos(uint8_t *tos);

/* ------------------------------------------------------------------------ */
/* Segment codecs: how one segment of values travels (segc_*.c)             */
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
};

extern const struct inc_seg_codec inc_segc_none, inc_segc_nic, inc_segc_software,
	inc_segc_cnat, inc_segc_cnat_det;

/* codec_sketch.c: inc_sketch_decode with a scratch arena (*arena, *cap
 * bytes; grown with malloc as needed, freed by the caller). */
int inc_sketch_decode_ws(const struct inc_sketch_geom *g, const uint32_t *index, float *cells,
			 float *x, struct inc_sketch_stats *st, void **arena, size_t *cap);

/* Does value x go into a sketch index? Non-zero, NaN included. */
static inline int inc_sketch_nonzero(float x)
{
	return x != 0.0f || x != x;
}

/* A sketch mode (sketch_ar.c runs the call)? */
static inline int inc_is_sketch(enum inc_compression m)
{
	return m == INC_COMP_SKETCH || m == INC_COMP_INC_SKETCH;
}

/* The entry of a compression mode (allreduce.c); NULL if unknown. */
const struct inc_seg_codec *inc_seg_codec(enum inc_compression mode);
/* The INCEPTIONN round trip shared by nic and software (segc_inc.c). */
long inc_seg_round_trip_inc(float *v, size_t n, unsigned eb, uint8_t *tmp, uint64_t key);

/* Staging bytes of one segment of n values: length word + the largest
 * encoding of any entry + up to 3 bytes padding it to whole 32-bit words,
 * rounded up to 64 so that buffers laid out after a stage stay aligned. */
#define INC_SEG_STAGE_MAX(n) \
	((4u + 3u + inc_codec_parts_max_size((n), INC_CODEC_PARTS_MAX) + 63u) & ~(size_t)63u)
/* Zero bytes after a framed segment of len bytes: every message on a data
 * link is a whole number of 32-bit words, so the byte stream stays on float
 * boundaries whatever the modes of earlier calls (docs/userlib.md). */
#define INC_SEG_PAD(len) ((4u - ((unsigned)(len) & 3u)) & 3u)
#define INC_SEG_DEFAULT (64u * 1024u)   /* default segment bytes */
#define INC_SEG_MAX     (64u * 1024u * 1024u)

/* ------------------------------------------------------------------------ */
/* Transport (transport.c)                                                   */
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
/* Algorithm field of the worker-aggregator step with an update at the
 * aggregator (inc_wa_update_f32). */
#define INC_HDR_ALGO_WA_UPDATE 2u
#define INC_HDR_ALGO_SKETCH    3u   /* the sketch modes' index and count phases */

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

void inc_hdr_make(float h[INC_HDR_FLOATS], const struct inc_comm *c, size_t count,
		  const struct inc_allreduce_opts *o, size_t seg, unsigned algo);
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
/* Start sending n values at v through codec sc (owner: the owner step
 * first); framed encodings are staged in stage. Codec time into codec_ns. */
int inc_out_start(struct inc_comm *c, struct inc_msg_out *m,
		  const struct inc_seg_codec *sc, float *v, size_t n,
		  unsigned eb, int owner, uint8_t *stage);
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
/* Algorithms (ring.c, wa.c)                                                 */
/* ------------------------------------------------------------------------ */
int inc_ring_allreduce(struct inc_comm *c, float *buf, size_t count,
		       const struct inc_allreduce_opts *o);
int inc_wa_allreduce(struct inc_comm *c, float *buf, size_t count,
		     const struct inc_allreduce_opts *o,
		     inc_wa_update_fn update, void *arg);
/* The same with another combination of the received words (the sketch
 * modes' index OR and count sum) and the call header's algorithm value. */
int inc_ring_reduce(struct inc_comm *c, float *buf, size_t count,
		    const struct inc_allreduce_opts *o, enum inc_red op, unsigned hdr_algo);
int inc_wa_reduce(struct inc_comm *c, float *buf, size_t count,
		  const struct inc_allreduce_opts *o, enum inc_red op, unsigned hdr_algo,
		  inc_wa_update_fn update, void *arg);
/* sketch_ar.c: the sketch and inc+sketch modes (index all-reduce, then the
 * sketch's, then one peeling on every rank). */
int inc_sketch_allreduce(struct inc_comm *c, float *buf, size_t count,
			 const struct inc_allreduce_opts *o);

#endif
