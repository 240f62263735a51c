// SPDX-License-Identifier: MIT
/*
 * test_golden.c - golden vectors from the normative docs.
 *
 * Parses the value and stream tables of docs/codec.md and the three hex
 * dumps of the "Example" section of docs/wire-format.md, and checks that the
 * model reproduces every row and every frame byte for byte. The issue's
 * anchor examples (0.75, 0.01, 0.03, 0.0012, -2.5 at eb = 10) are also
 * checked here directly, and must appear in the doc table.
 *
 * Usage: test_golden [docs/codec.md [docs/wire-format.md]]
 */
#include "inc_model.h"
#include "inc_test.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CELLS 8
#define MAX_LINE  4096
#define MAX_DUMP  2048

/* Split a Markdown table row into trimmed cells; "\|" is a literal bar.
 * Returns the number of cells between the outer bars. */
static int split_row(char *line, char *cells[MAX_CELLS])
{
	char *p = line, *w;
	int n = 0;

	if (*p != '|')
		return 0;
	p++;
	while (*p && *p != '\n' && n < MAX_CELLS) {
		cells[n] = w = p;
		while (*p && *p != '\n' && *p != '|') {
			if (p[0] == '\\' && p[1] == '|')
				p++;
			*w++ = *p++;
		}
		if (*p != '|')          /* text after the last bar */
			break;
		p++;
		*w = '\0';
		while (isspace((unsigned char)*cells[n]))
			cells[n]++;
		w = cells[n] + strlen(cells[n]);
		while (w > cells[n] && isspace((unsigned char)w[-1]))
			*--w = '\0';
		n++;
	}
	return n;
}

/* Parse "0x" + exactly ndigits hex digits (ndigits 0 = any 1..8). */
static int parse_hex(const char *s, unsigned ndigits, uint32_t *v)
{
	char *end;
	unsigned long x;
	size_t len;

	if (strncmp(s, "0x", 2) != 0)
		return -1;
	len = strlen(s + 2);
	if (len == 0 || len > 8 || (ndigits && len != ndigits))
		return -1;
	errno = 0;
	x = strtoul(s + 2, &end, 16);
	if (errno || *end)
		return -1;
	*v = (uint32_t)x;
	return 0;
}

static int parse_uint(const char *s, unsigned *v)
{
	char *end;
	unsigned long x;

	if (!isdigit((unsigned char)*s))
		return -1;
	x = strtoul(s, &end, 10);
	if (*end || x > 1000000)
		return -1;
	*v = (unsigned)x;
	return 0;
}

/* Offset of the first differing byte, or -1 when a and b are equal. */
static long first_diff(const uint8_t *a, const uint8_t *b, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (a[i] != b[i])
			return (long)i;
	return -1;
}

static unsigned value_rows, decode_rows, stream_rows;
static int seen_anchor[5];

static const struct {
	uint32_t in, payload, out;
	unsigned tag;
} anchors[5] = {
	{ 0x3f400000, 0x6000, 0x3f400000, 2 },         /* 0.75 */
	{ 0x3c23d70a, 0x01, 0x3c000000, 1 },           /* 0.01 -> 0.0078125 */
	{ 0x3cf5c28f, 0x03, 0x3cc00000, 1 },           /* 0.03 -> 0.0234375 */
	{ 0x3a9d4952, 0, 0x00000000, 0 },              /* 0.0012 -> 0 */
	{ 0xc0200000, 0xc0200000, 0xc0200000, 3 },     /* -2.5 */
};

/* | eb | input hex | tag | payload hex | output hex | note | */
static void value_row(char **c, int n, unsigned lineno)
{
	unsigned eb = 0, tag, got_tag, i;
	uint32_t in = 0, payload = 0, out, got_payload = 0, got_out;
	int decode_only = !strcmp(c[0], "-") && !strcmp(c[1], "-");
	int ok = n >= 5;

	if (ok && !decode_only)
		ok = !parse_uint(c[0], &eb) && eb >= INC_EB_MIN &&
		     eb <= INC_EB_MAX && !parse_hex(c[1], 8, &in);
	ok = ok && !parse_uint(c[2], &tag) && tag <= 3;
	if (ok && tag == INC_TAG_ZERO)
		ok = !strcmp(c[3], "-");
	else if (ok)
		ok = !parse_hex(c[3], 2 * inc_tag_bytes(tag), &payload);
	ok = ok && !parse_hex(c[4], 8, &out);
	CHECK(ok, "codec.md line %u: unparsable value row", lineno);
	if (!ok)
		return;

	if (decode_only) {
		decode_rows++;
		CHECK(tag != INC_TAG_ZERO && tag != INC_TAG_RAW,
		      "line %u: decode-only rows are for tags 1 and 2", lineno);
	} else {
		value_rows++;
		got_tag = inc_compress_value(in, eb, &got_payload);
		CHECK(got_tag == tag && got_payload == payload,
		      "line %u: eb %u 0x%08x: doc tag %u payload 0x%x, model tag %u payload 0x%x",
		      lineno, eb, in, tag, payload, got_tag, got_payload);
		for (i = 0; i < 5; i++)
			if (eb == 10 && in == anchors[i].in && tag == anchors[i].tag &&
			    payload == anchors[i].payload && out == anchors[i].out)
				seen_anchor[i] = 1;
	}
	got_out = inc_decompress_value(tag, payload);
	CHECK(got_out == out, "line %u: decode tag %u payload 0x%x: doc 0x%08x, model 0x%08x",
	      lineno, tag, payload, out, got_out);
}

/* Parse up to max space-separated hex words ("3f400000") or bytes ("16"). */
static long parse_hex_list(const char *s, unsigned digits, uint32_t *v,
			   size_t max)
{
	size_t n = 0, k;
	char tok[16];

	if (!strcmp(s, "-"))
		return 0;
	while (*s) {
		while (*s == ' ')
			s++;
		if (!*s)
			break;
		for (k = 0; s[k] && s[k] != ' '; k++)
			if (k >= sizeof(tok) - 1 || !isxdigit((unsigned char)s[k]))
				return -1;
		if (k != digits || n >= max)
			return -1;
		memcpy(tok, s, k);
		tok[k] = '\0';
		v[n++] = (uint32_t)strtoul(tok, NULL, 16);
		s += k;
	}
	return n ? (long)n : -1;
}

/* | eb | n | input values hex | stream bytes hex | note | */
static void stream_row(char **c, int ncell, unsigned lineno)
{
	uint32_t vals[64], bytes32[64 * 34 / 8 + 16];
	uint8_t in[4 * 64], bytes[sizeof(bytes32) / sizeof(bytes32[0])];
	uint8_t *out, *dec;
	unsigned eb = 0, n = 0, i, tag;
	long nv = -1, nb = -1, r;
	struct inc_class_counts cnt = { { 0 } };
	uint32_t p, want, got;
	int ok = ncell >= 4;

	ok = ok && !parse_uint(c[0], &eb) && eb >= INC_EB_MIN && eb <= INC_EB_MAX;
	ok = ok && !parse_uint(c[1], &n) && n <= 64;
	if (ok) {
		nv = parse_hex_list(c[2], 8, vals, 64);
		nb = parse_hex_list(c[3], 2, bytes32,
				    sizeof(bytes32) / sizeof(bytes32[0]));
	}
	ok = ok && nv == (long)n && nb >= 0 && (nb == 0) == (n == 0);
	CHECK(ok, "codec.md line %u: unparsable stream row", lineno);
	if (!ok)
		return;
	stream_rows++;
	for (i = 0; i < n; i++) {
		in[4 * i] = (uint8_t)vals[i];
		in[4 * i + 1] = (uint8_t)(vals[i] >> 8);
		in[4 * i + 2] = (uint8_t)(vals[i] >> 16);
		in[4 * i + 3] = (uint8_t)(vals[i] >> 24);
	}
	for (i = 0; i < (unsigned)nb; i++)
		bytes[i] = (uint8_t)bytes32[i];

	/* Exact-size buffers so ASan sees any write past the stream. */
	out = malloc((size_t)nb + 1);
	dec = malloc(4u * n + 1);
	if (!out || !dec)
		abort();
	r = inc_stream_compress(in, n, eb, out, (size_t)nb, &cnt);
	CHECK(r == nb && !memcmp(out, bytes, (size_t)nb),
	      "line %u: stream compress gives %ld bytes, doc %ld, first difference at byte %ld",
	      lineno, r, nb, r == nb ? first_diff(out, bytes, (size_t)nb) : 0);
	CHECK(cnt.n[0] + cnt.n[1] + cnt.n[2] + cnt.n[3] == n,
	      "line %u: class counts do not add up to n", lineno);
	if (nb > 0) {
		r = inc_stream_compress(in, n, eb, out, (size_t)nb - 1, NULL);
		CHECK(r == INC_ENOSPC, "line %u: one byte short gives %ld", lineno, r);
	}
	r = inc_stream_size(bytes, (size_t)nb, n);
	CHECK(r == nb, "line %u: stream size %ld, doc %ld", lineno, r, nb);
	r = inc_stream_decompress(bytes, (size_t)nb, n, dec, 4u * n);
	CHECK(r == nb, "line %u: stream decompress gives %ld", lineno, r);
	for (i = 0; r == nb && i < n; i++) {
		tag = inc_compress_value(vals[i], eb, &p);
		want = inc_decompress_value(tag, p);
		got = (uint32_t)dec[4 * i] | (uint32_t)dec[4 * i + 1] << 8 |
		      (uint32_t)dec[4 * i + 2] << 16 | (uint32_t)dec[4 * i + 3] << 24;
		CHECK(got == want, "line %u: value %u decodes to 0x%08x, per-value 0x%08x",
		      lineno, i, got, want);
	}
	free(out);
	free(dec);
}

static void check_codec_doc(const char *path)
{
	char line[MAX_LINE], *cells[MAX_CELLS];
	enum { NONE, VALUES, STREAMS } table = NONE;
	unsigned lineno = 0, i;
	int n;
	FILE *f = fopen(path, "r");

	CHECK(f != NULL, "cannot open %s", path);
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		if (line[0] != '|') {
			table = NONE;
			continue;
		}
		if (!strncmp(line, "|--", 3) || !strncmp(line, "| --", 4))
			continue;
		n = split_row(line, cells);
		if (n >= 5 && !strcmp(cells[1], "input hex") &&
		    !strcmp(cells[4], "output hex")) {
			table = VALUES;
			continue;
		}
		if (n >= 4 && !strcmp(cells[2], "input values hex") &&
		    !strcmp(cells[3], "stream bytes hex")) {
			table = STREAMS;
			continue;
		}
		if (table == VALUES)
			value_row(cells, n, lineno);
		else if (table == STREAMS)
			stream_row(cells, n, lineno);
	}
	fclose(f);
	fprintf(stderr, "%s: %u value rows, %u decode-only rows, %u stream rows\n",
		path, value_rows, decode_rows, stream_rows);
	/* The tables must not silently vanish or lose their examples. */
	CHECK(value_rows >= 50, "only %u value rows in %s", value_rows, path);
	CHECK(decode_rows >= 4, "only %u decode-only rows in %s", decode_rows, path);
	CHECK(stream_rows >= 5, "only %u stream rows in %s", stream_rows, path);
	for (i = 0; i < 5; i++)
		CHECK(seen_anchor[i], "example 0x%08x at eb 10 missing from %s",
		      anchors[i].in, path);
}

/* The examples, independent of the doc. */
static void check_anchors(void)
{
	uint32_t p;
	unsigned i, tag;

	for (i = 0; i < 5; i++) {
		tag = inc_compress_value(anchors[i].in, 10, &p);
		CHECK(tag == anchors[i].tag && p == anchors[i].payload,
		      "anchor 0x%08x: tag %u payload 0x%x", anchors[i].in, tag, p);
		CHECK(inc_decompress_value(tag, p) == anchors[i].out,
		      "anchor 0x%08x decodes to 0x%08x", anchors[i].in,
		      inc_decompress_value(tag, p));
	}
}

/*
 * One hex dump line: "0010  00 3c 12 ...   comment". Bytes are separated by
 * single spaces; two or more spaces end them. Returns bytes added, -1 on a
 * line that is not a dump line.
 */
static int dump_line(const char *s, uint8_t *buf, size_t *len)
{
	unsigned off, k;
	int added = 0;
	char *end;

	for (k = 0; k < 4; k++)
		if (!isxdigit((unsigned char)s[k]))
			return -1;
	off = (unsigned)strtoul(s, &end, 16);
	if (end != s + 4 || s[4] != ' ' || s[5] != ' ' || off != *len)
		return -1;
	s += 6;
	for (;;) {
		if (!isxdigit((unsigned char)s[0]) || !isxdigit((unsigned char)s[1]) ||
		    (s[2] != ' ' && s[2] != '\n' && s[2] != '\0'))
			return -1;
		if (*len >= MAX_DUMP)
			return -1;
		buf[(*len)++] = (uint8_t)strtoul((char[3]){ s[0], s[1], 0 }, NULL, 16);
		added++;
		if (s[2] != ' ' || s[3] == ' ' || s[3] == '\n' || s[3] == '\0')
			break;
		s += 3;
	}
	return added;
}

static void check_wire_doc(const char *path)
{
	char line[MAX_LINE];
	static uint8_t dump[3][MAX_DUMP];
	size_t dlen[3] = { 0, 0, 0 };
	int in_example = 0, in_code = 0, ndumps = 0, bad = 0;
	unsigned lineno = 0;
	struct inc_frame_info info;
	uint8_t *out;
	long r;
	FILE *f = fopen(path, "r");

	CHECK(f != NULL, "cannot open %s", path);
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		if (!strncmp(line, "## ", 3)) {
			in_example = !strncmp(line, "## Example", 10);
			continue;
		}
		if (!in_example)
			continue;
		if (!strncmp(line, "```", 3)) {
			if (in_code)
				ndumps++;
			in_code = !in_code;
			continue;
		}
		if (in_code && ndumps < 3 &&
		    dump_line(line, dump[ndumps], &dlen[ndumps]) < 0) {
			fprintf(stderr, "%s:%u: not a hex dump line\n", path, lineno);
			bad = 1;
		}
	}
	fclose(f);
	CHECK(ndumps == 3 && !bad && dlen[0] && dlen[1] && dlen[2],
	      "%s: want 3 hex dumps in the Example section, found %d", path, ndumps);
	if (ndumps != 3 || bad)
		return;
	fprintf(stderr, "%s: example frames of %zu, %zu and %zu bytes\n", path,
		dlen[0], dlen[1], dlen[2]);

	/* Original -> compressed, output buffer exactly the input size. */
	out = malloc(dlen[0]);
	if (!out)
		abort();
	r = inc_frame_compress(dump[0], dlen[0], out, dlen[0], NULL, &info);
	CHECK(r == (long)dlen[1] && info.outcome == INC_OUT_COMPRESSED &&
	      !memcmp(out, dump[1], dlen[1]),
	      "compressing the example gives %ld bytes (%s/%s), doc %zu, first difference at byte %ld",
	      r, inc_outcome_name(info.outcome), inc_reason_name(info.reason), dlen[1],
	      r == (long)dlen[1] ? first_diff(out, dump[1], dlen[1]) : 0);
	CHECK(info.counts.n[0] == 1 && info.counts.n[1] == 2 &&
	      info.counts.n[2] == 1 && info.counts.n[3] == 1,
	      "example class counts %llu/%llu/%llu/%llu",
	      (unsigned long long)info.counts.n[0], (unsigned long long)info.counts.n[1],
	      (unsigned long long)info.counts.n[2], (unsigned long long)info.counts.n[3]);
	free(out);

	/* Compressed -> decompressed, output buffer exactly the restored size. */
	out = malloc(dlen[2]);
	if (!out)
		abort();
	r = inc_frame_decompress(dump[1], dlen[1], out, dlen[2], NULL, &info);
	CHECK(r == (long)dlen[2] && info.outcome == INC_OUT_DECOMPRESSED &&
	      !memcmp(out, dump[2], dlen[2]),
	      "decompressing the example gives %ld bytes (%s/%s), doc %zu, first difference at byte %ld",
	      r, inc_outcome_name(info.outcome), inc_reason_name(info.reason), dlen[2],
	      r == (long)dlen[2] ? first_diff(out, dump[2], dlen[2]) : 0);
	r = inc_frame_decompress(dump[1], dlen[1], out, dlen[2] - 1, NULL, &info);
	CHECK(r == INC_ENOSPC, "decompress one byte short gives %ld", r);

	/* The decompressed frame is plain tagged TCP: the receiver passes it. */
	r = inc_frame_decompress(dump[2], dlen[2], out, dlen[2], NULL, &info);
	CHECK(r == (long)dlen[2] && info.outcome == INC_OUT_BYPASS &&
	      info.reason == INC_R_NOT_MARKED && !memcmp(out, dump[2], dlen[2]),
	      "the decompressed example is not passed through as not_marked");
	free(out);
}

int main(int argc, char **argv)
{
	const char *codec = argc > 1 ? argv[1] : "docs/codec.md";
	const char *wire = argc > 2 ? argv[2] : "docs/wire-format.md";

	check_anchors();
	check_codec_doc(codec);
	check_wire_doc(wire);
	return inc_test_done();
}
