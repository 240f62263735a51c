/* SPDX-License-Identifier: MIT */
/*
 * inc_pcap.h - a tiny reader and writer of classic pcap files (Ethernet
 * link type), for the testbenches and inc-rtl-pcap. Both byte orders and
 * both timestamp resolutions are read; files are written little-endian,
 * microsecond resolution. Functions return 0 / 1 or a negative error.
 */
#ifndef INC_PCAP_H
#define INC_PCAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define INC_PCAP_EIO      (-1)   /* cannot open / read / write */
#define INC_PCAP_EFORMAT  (-2)   /* not a pcap file or a broken record */
#define INC_PCAP_ELINK    (-3)   /* link type is not Ethernet */
#define INC_PCAP_ESPACE   (-4)   /* record longer than the buffer */

struct inc_pcap {
	FILE *f;
	int swap;            /* file byte order differs from the host's */
	int nsec;            /* nanosecond timestamps */
	uint32_t snaplen;
	uint32_t ts_sec, ts_frac;   /* timestamp of the last record read */
	uint32_t orig_len;   /* original length of the last record read */
};

int inc_pcap_open(struct inc_pcap *p, const char *path);
/* Read the next record into buf: 1 with *len set, 0 at the end of the file. */
int inc_pcap_next(struct inc_pcap *p, uint8_t *buf, size_t cap, size_t *len);
int inc_pcap_create(struct inc_pcap *p, const char *path, uint32_t snaplen);
int inc_pcap_write(struct inc_pcap *p, const uint8_t *data, size_t len,
		   uint32_t ts_sec, uint32_t ts_usec);
int inc_pcap_close(struct inc_pcap *p);
const char *inc_pcap_strerror(int err);

#ifdef __cplusplus
}
#endif

#endif
