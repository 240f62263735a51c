// SPDX-License-Identifier: MIT
/* inc_simutil.c - comparison and dump helpers; see inc_simutil.h. */
#include "inc_simutil.h"

#include <stdlib.h>
#include <string.h>

static unsigned dumps_left = 5;

void inc_sim_hexdump(FILE *out, const char *title, const uint8_t *p, size_t len)
{
	size_t i;

	fprintf(out, "%s (%zu bytes)\n", title, len);
	for (i = 0; i < len; i++) {
		if (i % 16 == 0)
			fprintf(out, "%04zx ", i);
		fprintf(out, " %02x", p[i]);
		if (i % 16 == 15 || i + 1 == len)
			fputc('\n', out);
	}
}

int inc_sim_frame_eq(const char *test, unsigned long idx, const uint8_t *exp,
		     size_t exp_len, const uint8_t *act, size_t act_len)
{
	size_t n = exp_len < act_len ? exp_len : act_len, off;

	for (off = 0; off < n && exp[off] == act[off]; off++)
		;
	if (off == n && exp_len == act_len)
		return 1;
	if (!dumps_left)
		return 0;
	dumps_left--;
	if (off < n)
		fprintf(stderr, "%s: frame %lu: byte %zu: expected %02x, got %02x "
			"(lengths %zu / %zu)\n", test, idx, off, exp[off],
			act[off], exp_len, act_len);
	else
		fprintf(stderr, "%s: frame %lu: length: expected %zu, got %zu\n",
			test, idx, exp_len, act_len);
	inc_sim_hexdump(stderr, "expected", exp, exp_len);
	inc_sim_hexdump(stderr, "actual", act, act_len);
	return 0;
}

const char *inc_sim_arg(int argc, char **argv, const char *name, const char *def)
{
	size_t n = strlen(name);
	int i;

	for (i = 1; i < argc; i++) {
		if (argv[i][0] != '+' || strncmp(argv[i] + 1, name, n))
			continue;
		if (argv[i][1 + n] == '=')
			return argv[i] + 2 + n;
		if (argv[i][1 + n] == '\0')
			return "";
	}
	return def;
}

long inc_sim_arg_long(int argc, char **argv, const char *name, long def)
{
	const char *v = inc_sim_arg(argc, argv, name, NULL);

	return v && *v ? strtol(v, NULL, 0) : def;
}
