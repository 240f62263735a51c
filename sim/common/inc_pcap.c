// SPDX-License-Identifier: MIT
/* inc_pcap.c - classic pcap reader/writer; see inc_pcap.h. */
#include "inc_pcap.h"

#include <string.h>

static uint32_t sw32(uint32_t v, int swap)
{
	if (!swap)
		return v;
	return v >> 24 | (v >> 8 & 0xff00u) | (v << 8 & 0xff0000u) | v << 24;
}

int inc_pcap_open(struct inc_pcap *p, const char *path)
{
	uint32_t h[6];

	memset(p, 0, sizeof(*p));
	p->f = fopen(path, "rb");
	if (!p->f)
		return INC_PCAP_EIO;
	if (fread(h, 4, 6, p->f) != 6) {
		inc_pcap_close(p);
		return INC_PCAP_EFORMAT;
	}
	switch (h[0]) {
	case 0xa1b2c3d4u: break;
	case 0xa1b23c4du: p->nsec = 1; break;
	case 0xd4c3b2a1u: p->swap = 1; break;
	case 0x4d3cb2a1u: p->swap = 1; p->nsec = 1; break;
	default:
		inc_pcap_close(p);
		return INC_PCAP_EFORMAT;
	}
	p->snaplen = sw32(h[4], p->swap);
	if ((sw32(h[5], p->swap) & 0x0fffffffu) != 1u) {
		inc_pcap_close(p);
		return INC_PCAP_ELINK;
	}
	return 0;
}

int inc_pcap_next(struct inc_pcap *p, uint8_t *buf, size_t cap, size_t *len)
{
	uint32_t r[4], incl;
	size_t got = fread(r, 4, 4, p->f);

	if (got == 0 && feof(p->f))
		return 0;
	if (got != 4)
		return INC_PCAP_EFORMAT;
	p->ts_sec = sw32(r[0], p->swap);
	p->ts_frac = sw32(r[1], p->swap);
	incl = sw32(r[2], p->swap);
	p->orig_len = sw32(r[3], p->swap);
	if (incl > 0x40000u)
		return INC_PCAP_EFORMAT;
	if (incl > cap)
		return INC_PCAP_ESPACE;
	if (fread(buf, 1, incl, p->f) != incl)
		return INC_PCAP_EFORMAT;
	*len = incl;
	return 1;
}

int inc_pcap_create(struct inc_pcap *p, const char *path, uint32_t snaplen)
{
	uint32_t h[6] = { 0xa1b2c3d4u, 0x00040002u, 0, 0, snaplen, 1 };

	memset(p, 0, sizeof(*p));
	p->snaplen = snaplen;
	p->f = fopen(path, "wb");
	if (!p->f)
		return INC_PCAP_EIO;
	if (fwrite(h, 4, 6, p->f) != 6) {
		inc_pcap_close(p);
		return INC_PCAP_EIO;
	}
	return 0;
}

int inc_pcap_write(struct inc_pcap *p, const uint8_t *data, size_t len,
		   uint32_t ts_sec, uint32_t ts_usec)
{
	uint32_t r[4] = { ts_sec, ts_usec, (uint32_t)len, (uint32_t)len };

	if (fwrite(r, 4, 4, p->f) != 4 || fwrite(data, 1, len, p->f) != len)
		return INC_PCAP_EIO;
	return 0;
}

int inc_pcap_close(struct inc_pcap *p)
{
	int r = 0;

	if (p->f && fclose(p->f))
		r = INC_PCAP_EIO;
	p->f = NULL;
	return r;
}

const char *inc_pcap_strerror(int err)
{
	switch (err) {
	case INC_PCAP_EIO: return "cannot read or write the file";
	case INC_PCAP_EFORMAT: return "not a pcap file or truncated record";
	case INC_PCAP_ELINK: return "link type is not Ethernet";
	case INC_PCAP_ESPACE: return "record too long";
	default: return "no error";
	}
}
