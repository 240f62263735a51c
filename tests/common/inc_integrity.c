// SPDX-License-Identifier: MIT
/* inc_integrity.c - fate of corrupted compressed frames (inc_integrity.h). */
#include "inc_integrity.h"
#include "inc_pcap.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned be16(const uint8_t *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

/* One's-complement sum of len bytes, folded to 16 bits (not complemented). */
static unsigned sum16(uint64_t acc, const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		acc += be16(p + i);
	if (len & 1)
		acc += (unsigned)p[len - 1] << 8;
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	return (unsigned)acc;
}

const char *inc_fate_name(enum inc_fate f)
{
	static const char *const names[INC_FATE_COUNT] = {
		"dropped", "malformed", "stack_drops", "delivered", "CORRUPT",
	};

	return (unsigned)f < INC_FATE_COUNT ? names[f] : "unknown";
}

const char *inc_region_name(enum inc_region r)
{
	static const char *const names[INC_REG_COUNT] = {
		"eth", "ip", "tcp", "shim", "stream", "tail",
	};

	return (unsigned)r < INC_REG_COUNT ? names[r] : "unknown";
}

enum inc_region inc_region_of(const uint8_t *comp, size_t clen, size_t off)
{
	struct inc_frame_hdr h;
	size_t tail;

	if (inc_frame_parse(comp, clen, &h) != INC_R_NONE)
		return INC_REG_ETH;
	if (off < h.l3_off)
		return INC_REG_ETH;
	if (off < h.l4_off)
		return INC_REG_IP;
	if (off < h.payload_off)
		return INC_REG_TCP;
	if (off < (size_t)h.payload_off + INC_WIRE_SHIM_BYTES)
		return INC_REG_SHIM;
	tail = be16(comp + h.payload_off + 2) % 4u;
	return off + tail < h.frame_end ? INC_REG_STREAM : INC_REG_TAIL;
}

int inc_stack_accepts(const uint8_t *f, size_t len, const uint8_t **seg,
		      size_t *seg_len, const uint8_t **addr)
{
	size_t l3 = 14, ihl, total, thl;
	unsigned type;
	uint64_t acc;

	if (len < 14)
		return 0;
	type = be16(f + 12);
	if (type == 0x8100) {
		if (len < 18)
			return 0;
		type = be16(f + 16);
		l3 = 18;
	}
	if (type != 0x0800 || len < l3 + 20 || (f[l3] >> 4) != 4)
		return 0;
	ihl = (f[l3] & 15u) * 4u;
	total = be16(f + l3 + 2);
	if (ihl < 20 || len < l3 + ihl || sum16(0, f + l3, ihl) != 0xffff)
		return 0;
	if (total < ihl + 20 || l3 + total > len || (be16(f + l3 + 6) & 0x3fff) ||
	    f[l3 + 9] != 6)
		return 0;
	thl = (f[l3 + ihl + 12] >> 4) * 4u;
	if (thl < 20 || ihl + thl > total)
		return 0;
	acc = sum16(0, f + l3 + 12, 8) + 6u + (total - ihl);
	if (sum16(acc, f + l3 + ihl, total - ihl) != 0xffff)
		return 0;
	*seg = f + l3 + ihl;
	*seg_len = total - ihl;
	*addr = f + l3 + 12;
	return 1;
}

enum inc_fate inc_fate_of(const struct inc_frame_info *info, const uint8_t *out,
			  size_t out_len, const uint8_t *ref, size_t ref_len)
{
	const uint8_t *seg, *addr, *rseg, *raddr;
	size_t seg_len, rseg_len;

	if (info->outcome == INC_OUT_DROPPED)
		return INC_FATE_DROPPED;
	if (!inc_stack_accepts(out, out_len, &seg, &seg_len, &addr))
		return info->outcome == INC_OUT_MALFORMED ? INC_FATE_MALFORMED
							  : INC_FATE_STACK_DROPS;
	if (!inc_stack_accepts(ref, ref_len, &rseg, &rseg_len, &raddr))
		return INC_FATE_CORRUPT;   /* nothing should have been accepted */
	if (seg_len == rseg_len && !memcmp(seg, rseg, seg_len) && !memcmp(addr, raddr, 8))
		return INC_FATE_DELIVERED;
	return INC_FATE_CORRUPT;
}

static uint8_t *dup_bytes(const uint8_t *p, size_t n)
{
	uint8_t *q = malloc(n ? n : 1);

	if (!q)
		abort();
	memcpy(q, p, n);
	return q;
}

static size_t keep_from(const char *path, const char *name, struct inc_int_frame *out,
			size_t room, size_t per_file)
{
	static uint8_t buf[70000], comp[70000], dec[INC_FRAME_OUT_MAX];
	struct inc_frame_info info;
	struct inc_pcap p;
	size_t kept = 0, len, last_clen = 0;
	long r, d;

	if (inc_pcap_open(&p, path) != 0)
		return 0;
	while (kept < per_file && kept < room && inc_pcap_next(&p, buf, sizeof(buf), &len) == 1) {
		r = inc_frame_compress(buf, len, comp, sizeof(comp), NULL, &info);
		if (r <= 0 || info.outcome != INC_OUT_COMPRESSED || (size_t)r == last_clen)
			continue;
		d = inc_frame_decompress(comp, (size_t)r, dec, sizeof(dec), NULL, &info);
		if (d <= 0 || info.outcome != INC_OUT_DECOMPRESSED)
			continue;
		out[kept].comp = dup_bytes(comp, (size_t)r);
		out[kept].clen = (size_t)r;
		out[kept].ref = dup_bytes(dec, (size_t)d);
		out[kept].rlen = (size_t)d;
		snprintf(out[kept].src, sizeof(out[kept].src), "%s", name);
		kept++;
		last_clen = (size_t)r;
	}
	inc_pcap_close(&p);
	return kept;
}

long inc_int_collect(const char *dir, struct inc_int_frame *out, size_t max,
		     size_t per_file)
{
	struct dirent **names;
	char path[4096];
	size_t n = 0;
	int i, k;

	k = scandir(dir, &names, NULL, alphasort);
	if (k < 0)
		return -1;
	for (i = 0; i < k; i++) {
		size_t nl = strlen(names[i]->d_name);

		if (nl >= 5 && !strcmp(names[i]->d_name + nl - 5, ".pcap") && n < max) {
			snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
			n += keep_from(path, names[i]->d_name, out + n, max - n, per_file);
		}
		free(names[i]);
	}
	free(names);
	return (long)n;
}

void inc_int_free(struct inc_int_frame *f, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(f[i].comp);
		free(f[i].ref);
	}
}

void inc_int_print_table(const char *title,
			 unsigned long t[INC_REG_COUNT][INC_FATE_COUNT])
{
	unsigned r, f;

	printf("%s\n  %-8s", title, "region");
	for (f = 0; f < INC_FATE_COUNT; f++)
		printf(" %12s", inc_fate_name((enum inc_fate)f));
	printf("\n");
	for (r = 0; r < INC_REG_COUNT; r++) {
		printf("  %-8s", inc_region_name((enum inc_region)r));
		for (f = 0; f < INC_FATE_COUNT; f++)
			printf(" %12lu", t[r][f]);
		printf("\n");
	}
}
