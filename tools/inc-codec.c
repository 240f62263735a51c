// SPDX-License-Identifier: MIT
/*
 * inc-codec - compress raw little-endian float32 values into the INCEPTIONN
 * stream format (docs/codec.md) and back, stdin to stdout, with the model's
 * inc_stream_compress / inc_stream_decompress.
 *
 *   inc-codec compress   --error-bound N           < in.f32 > out.bin
 *   inc-codec decompress --error-bound N --count N < in.bin > out.f32
 *
 * On bad options or bad input it prints one line on stderr and exits 1
 * (2 for usage errors).
 */
#include "inc_model.h"
#include "inc_tool.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
"usage: inc-codec compress   [--error-bound N] [--stats]        < in.f32 > out.bin\n"
"       inc-codec decompress [--error-bound N] --count N [--stats] < in.bin > out.f32\n"
"\n"
"compress    read raw little-endian float32 values from stdin and write the\n"
"            INCEPTIONN stream format (groups of 8 values: a 16-bit tag word\n"
"            and 0/1/2/4-byte payloads) to stdout. The input length must be a\n"
"            multiple of 4.\n"
"decompress  read a stream of exactly --count values from stdin and write the\n"
"            decoded float32 values. A truncated or malformed stream, or bytes\n"
"            after its end, is an error.\n"
"\n"
"--error-bound N  error bound 2^-N, N in 1..126 (also written 2^-N); default 10.\n"
"                 The stream does not depend on it when decompressing; it is\n"
"                 accepted there for symmetry and checked.\n"
"--count N        number of values in the stream (decompress; required).\n"
"--stats          print value counts per tag (2/10/18/34-bit) and sizes to stderr.\n"
"--help           this text.\n";

int main(int argc, char **argv)
{
	unsigned eb = INC_EB_DEFAULT;
	unsigned long long count = 0;
	int have_count = 0, stats = 0, compress, i;
	struct inc_class_counts cc;
	uint8_t *in, *out;
	size_t in_len, out_cap;
	long r;

	inc_tool_name = "inc-codec";
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs(usage, stdout);
		return 0;
	}
	if (argc < 2)
		inc_usage_error("missing command (compress or decompress); see --help");
	if (!strcmp(argv[1], "compress"))
		compress = 1;
	else if (!strcmp(argv[1], "decompress"))
		compress = 0;
	else
		inc_usage_error("unknown command '%s' (want compress or decompress)",
				argv[1]);

	for (i = 2; i < argc; i++) {
		const char *a = argv[i];
		const char *v = NULL;

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(usage, stdout);
			return 0;
		}
		if (!strcmp(a, "--stats")) {
			stats = 1;
			continue;
		}
		if (inc_opt(argc, argv, &i, "--error-bound", &v)) {
			if (inc_parse_eb(v, &eb))
				inc_usage_error("bad --error-bound '%s' (want N in 1..126 or 2^-N)", v);
		} else if (inc_opt(argc, argv, &i, "--count", &v)) {
			if (inc_parse_ull(v, &count) || count > SIZE_MAX / 4u)
				inc_usage_error("bad --count '%s' (want a non-negative integer)", v);
			have_count = 1;
		} else {
			inc_usage_error("unknown option '%s'; see --help", a);
		}
	}
	if (compress && have_count)
		inc_usage_error("--count applies to decompress only");
	if (!compress && !have_count)
		inc_usage_error("decompress needs --count N (the stream carries no length)");

	if (inc_stdio_same_file())
		inc_usage_error("stdin and stdout are the same file; write to another file");
	if (inc_read_all(stdin, &in, &in_len))
		inc_die("cannot read stdin: %s", strerror(errno));

	memset(&cc, 0, sizeof(cc));
	if (compress) {
		size_t n = in_len / 4u;

		if (in_len % 4u)
			inc_die("input is %zu bytes, not a multiple of 4 (float32 values)",
				in_len);
		out_cap = inc_stream_max_size(n);
		out = malloc(out_cap ? out_cap : 1);
		if (!out)
			inc_die("out of memory for %zu bytes", out_cap);
		r = inc_stream_compress(in, n, eb, out, out_cap, &cc);
		if (r < 0)
			inc_die("compress failed: %s", inc_model_strerror((int)r));
		if (inc_write_all(stdout, out, (size_t)r))
			inc_die("cannot write stdout: %s", strerror(errno));
		if (stats)
			inc_print_classes(stderr, &cc, in_len, (size_t)r);
	} else {
		size_t n = (size_t)count;

		out_cap = 4u * n;
		out = malloc(out_cap ? out_cap : 1);
		if (!out)
			inc_die("out of memory for %zu bytes", out_cap);
		r = inc_stream_decompress(in, in_len, n, out, out_cap);
		if (r == INC_ETRUNC)
			inc_die("stream truncated: %zu bytes hold fewer than %zu values",
				in_len, n);
		if (r < 0)
			inc_die("bad stream: %s", inc_model_strerror((int)r));
		if ((size_t)r != in_len)
			inc_die("%zu trailing bytes after the stream of %zu values (%ld bytes)",
				in_len - (size_t)r, n, r);
		if (inc_write_all(stdout, out, out_cap))
			inc_die("cannot write stdout: %s", strerror(errno));
		if (stats) {
			inc_stream_classes(in, in_len, n, &cc);
			inc_print_classes(stderr, &cc, out_cap, in_len);
		}
	}
	if (fflush(stdout) || ferror(stdout))
		inc_die("cannot write stdout: %s", strerror(errno));
	free(in);
	free(out);
	return 0;
}
