/* SPDX-License-Identifier: MIT */
/*
 * inc_axis.h - AXI4-Stream source (driver) and sink (monitor) for the
 * Verilator testbenches, in C. They work on raw pointers into the Verilated
 * model's port storage (struct inc_axis_if), so the same code drives any
 * engine. Per cycle, with the clock low:
 *
 *     inc_axis_src_drive(&src);   inc_axis_sink_drive(&sink);
 *     eval();
 *     inc_axis_src_handshake(&src);  inc_axis_sink_handshake(&sink);
 *     tick();                     (rising edge, then falling edge)
 *
 * The source inserts random idle cycles between beats (gap_pct) and puts
 * random garbage in bytes outside tkeep and in idle cycles; the sink
 * deasserts tready at random (stall_pct) and checks the AXI4-Stream rules
 * (tvalid held until accepted, stable beat while stalled, tkeep contiguous
 * from lane 0, only the last beat partial, no empty beat).
 */
#ifndef INC_AXIS_H
#define INC_AXIS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Where the port signals of one stream live (little-endian host storage:
 * byte lane 0 is the first byte of *tdata). */
struct inc_axis_if {
	void *tdata;             /* data_bytes bytes */
	void *tkeep;             /* keep_bytes bytes of storage (1, 2, 4, 8, or words) */
	uint8_t *tvalid;
	uint8_t *tready;
	uint8_t *tlast;
	unsigned data_bytes;     /* DATA_WIDTH / 8 */
	unsigned keep_bytes;     /* storage size of the tkeep port */
};

struct inc_axis_frame {
	struct inc_axis_frame *next;
	uint8_t *data;
	size_t len;
	uint64_t id;             /* free for the test (e.g. the frame index) */
};

struct inc_axis_fifo {
	struct inc_axis_frame *head, *tail;
	size_t count;
};

void inc_axis_fifo_push(struct inc_axis_fifo *q, struct inc_axis_frame *f);
struct inc_axis_frame *inc_axis_fifo_pop(struct inc_axis_fifo *q);
struct inc_axis_frame *inc_axis_frame_new(const uint8_t *data, size_t len,
					  uint64_t id);
void inc_axis_frame_free(struct inc_axis_frame *f);
void inc_axis_fifo_clear(struct inc_axis_fifo *q);

struct inc_axis_src {
	struct inc_axis_if io;
	struct inc_axis_fifo q;  /* frames still to send (head = current) */
	size_t pos;              /* bytes of the head frame already sent */
	int holding;             /* a beat is on the bus waiting for tready */
	unsigned gap_pct;        /* 0..100: chance of an idle cycle instead of a beat */
	uint64_t rng;
	uint64_t beats;          /* beats accepted */
	uint64_t frames;         /* frames fully accepted */
	uint64_t active_cycles;  /* cycles with tvalid high */
};

void inc_axis_src_init(struct inc_axis_src *s, const struct inc_axis_if *io,
		       uint64_t seed);
/* Queue a copy of a frame (len >= 1). */
void inc_axis_src_push(struct inc_axis_src *s, const uint8_t *data, size_t len,
		       uint64_t id);
void inc_axis_src_drive(struct inc_axis_src *s);
/* Returns 1 when a beat was accepted this cycle (2 when it ended a frame). */
int inc_axis_src_handshake(struct inc_axis_src *s);
/* Drop everything queued (e.g. across a reset); the bus goes idle. */
void inc_axis_src_flush(struct inc_axis_src *s);
static inline int inc_axis_src_idle(const struct inc_axis_src *s)
{
	return s->q.count == 0 && !s->holding;
}

struct inc_axis_sink {
	struct inc_axis_if io;
	struct inc_axis_fifo done;  /* received frames */
	uint8_t *buf;            /* frame being received */
	size_t len, cap;
	unsigned stall_pct;      /* 0..100: chance of tready low in a cycle */
	uint64_t rng;
	uint64_t beats, frames;
	uint64_t protocol_errors;   /* AXI4-Stream rule violations seen */
	int was_stalled;         /* last cycle: tvalid && !tready */
	uint8_t last_data[256];  /* the stalled beat, to check it is stable */
	uint64_t last_keep;
	uint8_t last_last;
	char first_error[160];
};

void inc_axis_sink_init(struct inc_axis_sink *k, const struct inc_axis_if *io,
			uint64_t seed);
void inc_axis_sink_drive(struct inc_axis_sink *k);
/* Returns 1 when a frame completed this cycle (now in k->done). */
int inc_axis_sink_handshake(struct inc_axis_sink *k);
void inc_axis_sink_free(struct inc_axis_sink *k);
/* Forget a partly received frame (after a reset). */
void inc_axis_sink_reset(struct inc_axis_sink *k);

uint64_t inc_sim_rand(uint64_t *state);

#ifdef __cplusplus
}
#endif

#endif
