// SPDX-License-Identifier: MIT
/* inc_tool.c - helpers shared by the command-line tools; see inc_tool.h. */
#include "inc_tool.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char *inc_tool_name = "inc";

static void vmsg(const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", inc_tool_name);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void inc_die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	exit(1);
}

void inc_usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	exit(2);
}

int inc_opt(int argc, char **argv, int *i, const char *name, const char **val)
{
	size_t n = strlen(name);
	const char *a = argv[*i];

	if (strncmp(a, name, n))
		return 0;
	if (a[n] == '=') {
		*val = a + n + 1;
		return 1;
	}
	if (a[n] != '\0')
		return 0;
	if (*i + 1 >= argc)
		inc_usage_error("option %s needs a value", name);
	*i += 1;
	*val = argv[*i];
	return 1;
}

int inc_parse_ull(const char *s, unsigned long long *v)
{
	char *end;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -1;
	errno = 0;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		*v = strtoull(s + 2, &end, 16);
	else
		*v = strtoull(s, &end, 10);
	if (end == s || (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && end == s + 2))
		return -1;
	return errno || *end ? -1 : 0;
}

int inc_parse_eb(const char *s, unsigned *eb)
{
	unsigned long long v;

	if (!strncmp(s, "2^-", 3))
		s += 3;
	if (inc_parse_ull(s, &v) || v < INC_EB_MIN || v > INC_EB_MAX)
		return -1;
	*eb = (unsigned)v;
	return 0;
}

int inc_parse_tos(const char *s, uint8_t *value, uint8_t *mask)
{
	char buf[64];
	char *slash;
	unsigned long long v, m = 0xff;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	slash = strchr(buf, '/');
	if (slash) {
		*slash = '\0';
		if (inc_parse_ull(slash + 1, &m) || m > 0xff)
			return -1;
	} else {
		m = INC_TOS_MASK_DEFAULT;
	}
	if (inc_parse_ull(buf, &v) || v > 0xff)
		return -1;
	*value = (uint8_t)v;
	*mask = (uint8_t)m;
	return 0;
}

int inc_read_all(FILE *f, uint8_t **buf, size_t *len)
{
	size_t cap = 1 << 16, n = 0, got;
	uint8_t *b = malloc(cap), *nb;

	if (!b)
		return -1;
	for (;;) {
		if (n == cap) {
			nb = cap > SIZE_MAX / 2 ? NULL : realloc(b, cap * 2);
			if (!nb) {
				free(b);
				errno = ENOMEM;
				return -1;
			}
			b = nb;
			cap *= 2;
		}
		got = fread(b + n, 1, cap - n, f);
		n += got;
		if (got == 0) {
			if (ferror(f)) {
				free(b);
				return -1;
			}
			break;
		}
	}
	*buf = b;
	*len = n;
	return 0;
}

int inc_write_all(FILE *f, const uint8_t *buf, size_t len)
{
	if (len && fwrite(buf, 1, len, f) != len)
		return -1;
	return 0;
}

void inc_stream_classes(const uint8_t *s, size_t len, size_t n,
			struct inc_class_counts *cc)
{
	size_t i, pos = 0, lanes;
	unsigned j;
	uint16_t tw;

	for (i = 0; i < n && pos + 2 <= len; i += INC_GROUP_VALUES) {
		tw = (uint16_t)(s[pos] | s[pos + 1] << 8);
		lanes = n - i < INC_GROUP_VALUES ? n - i : INC_GROUP_VALUES;
		for (j = 0; j < lanes; j++)
			cc->n[(tw >> (2 * j)) & 3u]++;
		pos += inc_group_size(tw);
	}
}

double inc_class_share(const struct inc_class_counts *cc, unsigned t)
{
	uint64_t total = cc->n[0] + cc->n[1] + cc->n[2] + cc->n[3];

	return total ? 100.0 * (double)cc->n[t & 3u] / (double)total : 0.0;
}

void inc_print_classes(FILE *f, const struct inc_class_counts *cc,
		       size_t raw_bytes, size_t packed_bytes)
{
	uint64_t total = cc->n[0] + cc->n[1] + cc->n[2] + cc->n[3];

	fprintf(f, "values %llu: 2-bit %.1f%%  10-bit %.1f%%  18-bit %.1f%%  34-bit %.1f%%\n",
		(unsigned long long)total, inc_class_share(cc, 0),
		inc_class_share(cc, 1), inc_class_share(cc, 2),
		inc_class_share(cc, 3));
	fprintf(f, "bytes %zu raw, %zu packed, ratio %.2f\n", raw_bytes,
		packed_bytes,
		packed_bytes ? (double)raw_bytes / (double)packed_bytes : 0.0);
}
