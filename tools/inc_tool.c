// SPDX-License-Identifier: MIT
/* inc_tool.c - helpers shared by the command-line tools; see inc_tool.h. */
#include "inc_tool.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* ---- output files through a temporary ----------------------------------- */
static char out_tmp[4096], out_final[4096];
static volatile sig_atomic_t out_pending;

static void out_cleanup(void)
{
	if (out_pending) {
		out_pending = 0;
		unlink(out_tmp);
	}
}

static void out_signal(int sig)
{
	if (out_pending)
		unlink(out_tmp);
	signal(sig, SIG_DFL);
	raise(sig);
}

int inc_same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	if (!a || !b || stat(a, &sa) || stat(b, &sb))
		return 0;
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int inc_stdio_same_file(void)
{
	struct stat si, so;

	if (fstat(0, &si) || fstat(1, &so) || !S_ISREG(si.st_mode))
		return 0;
	return si.st_dev == so.st_dev && si.st_ino == so.st_ino;
}

FILE *inc_out_open(const char *path, const char *in)
{
	static char real[PATH_MAX];
	struct stat st;
	mode_t um;
	FILE *f;
	int fd;

	if (!strcmp(path, "-"))
		return stdout;
	if (inc_same_file(in, path))
		inc_usage_error("output %s is the input %s (the same file); nothing written",
				path, in);
	if (out_pending || strlen(path) + 8 > sizeof(out_tmp))
		inc_die("%s: path too long", path);
	/* Through a symbolic link: replace the file it names, not the link. */
	if (!lstat(path, &st) && S_ISLNK(st.st_mode) && realpath(path, real) &&
	    strlen(real) + 8 <= sizeof(out_tmp))
		path = real;
	/* A device or a FIFO (/dev/null, a pipe) is written as it is: a
	 * temporary renamed over it would replace the node with a file. */
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		f = fopen(path, "wb");
		if (!f)
			inc_die("%s: %s", path, strerror(errno));
		return f;
	}
	if (snprintf(out_tmp, sizeof(out_tmp), "%s.XXXXXX", path) >= (int)sizeof(out_tmp))
		inc_die("%s: path too long", path);
	snprintf(out_final, sizeof(out_final), "%s", path);
	fd = mkstemp(out_tmp);
	if (fd < 0)
		inc_die("%s: cannot create a temporary beside it: %s", path, strerror(errno));
	out_pending = 1;
	atexit(out_cleanup);
	signal(SIGINT, out_signal);
	signal(SIGTERM, out_signal);
	signal(SIGHUP, out_signal);
	um = umask(0);
	umask(um);
	if (fchmod(fd, 0666 & ~um))
		inc_die("%s: %s", out_tmp, strerror(errno));
	f = fdopen(fd, "wb");
	if (!f)
		inc_die("%s: %s", out_tmp, strerror(errno));
	return f;
}

int inc_out_sync(FILE *f)
{
	struct stat st;

	/* a device or a FIFO has nothing to make durable (fsync: EINVAL) */
	if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode))
		return 0;
	return fsync(fileno(f));
}

void inc_out_commit(void)
{
	if (!out_pending)
		return;
	if (rename(out_tmp, out_final))
		inc_die("%s: cannot rename %s over it: %s", out_final, out_tmp,
			strerror(errno));
	out_pending = 0;
}

/* ---- frames ----------------------------------------------------------------- */
int inc_tcp_csum_bad(const uint8_t *f, size_t len,
		     const struct inc_frame_config *cfg)
{
	struct inc_frame_hdr h;
	uint8_t ph[12];
	uint32_t sum;
	uint16_t seg;

	if (inc_frame_parse(f, len, &h) != INC_R_NONE || h.proto != 6 ||
	    (h.tos & cfg->tos_mask) != (cfg->tos_value & cfg->tos_mask))
		return 0;
	seg = (uint16_t)(h.ip_total - h.ip_hlen);
	memcpy(ph, f + h.l3_off + 12, 8);      /* source and destination */
	ph[8] = 0;
	ph[9] = 6;
	ph[10] = (uint8_t)(seg >> 8);
	ph[11] = (uint8_t)seg;
	sum = inc_csum_add(0, ph, sizeof(ph));
	sum = inc_csum_add(sum, f + h.l4_off, seg);
	return inc_csum_fold(sum) != 0;
}

int inc_out_snaplen(int in_snaplen, int decompress, unsigned max_frame)
{
	int need = (int)(max_frame ? max_frame : INC_FRAME_OUT_MAX);

	return decompress && in_snaplen < need ? need : in_snaplen;
}
