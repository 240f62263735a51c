/* SPDX-License-Identifier: MIT */
/* inc_internal.h - private declarations of libinceptionn. */
#ifndef INC_INTERNAL_H
#define INC_INTERNAL_H

#include <stdint.h>
#include <sys/socket.h>

#include "inc_model.h"
#include "inceptionn/inceptionn.h"

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
	/* Scratch buffers reused across calls. */
	uint8_t *scratch;
	size_t scratch_cap;
};

/* comm.c: connect the data links once rank/size and the address table are
 * known; addrs[i] is rank i's data listener. */
int inc_comm_connect_data(struct inc_comm *c, int lfd,
			  const struct sockaddr_storage *addrs,
			  const socklen_t *alens, uint8_t tos,
			  int64_t deadline_ms);
int inc_comm_alloc(struct inc_comm **out, int rank, int size);
int inc_env_timeout_ms(int *ms);
int inc_env_initial_tos(uint8_t *tos);

/* allreduce.c */
int inc_ring_allreduce(struct inc_comm *c, float *buf, size_t count,
		       const struct inc_allreduce_opts *o);
int inc_wa_allreduce(struct inc_comm *c, float *buf, size_t count,
		     const struct inc_allreduce_opts *o,
		     inc_wa_update_fn update, void *arg);

#endif
