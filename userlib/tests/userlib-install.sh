#!/usr/bin/env bash
# Suite userlib-install: `make install PREFIX=<tmp>`, then build a small
# program against the installed library with pkg-config only (shared and
# static), run it on 2 ranks with inc-run, and the same for the MPI flavour
# under mpirun. Last line "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
. tests/lib.sh

if make --no-print-directory install PREFIX="$prefix" >"$tmp/install.log" 2>&1; then
	ok "make install PREFIX=$prefix"
else
	ko "make install"; tail -n 20 "$tmp/install.log"
fi
for f in include/inceptionn/inceptionn.h include/inceptionn/inc_model.h lib/libinceptionn.a \
	 lib/libinceptionn.so lib/libinceptionn.so.0 lib/pkgconfig/inceptionn.pc \
	 include/inceptionn/inc_frame_fast.h lib/wireshark/plugins/inceptionn.lua; do
	[ -e "$prefix/$f" ] && ok "installed $f" || ko "missing $f"
done
readelf -d "$prefix/lib/libinceptionn.so.0" 2>/dev/null | grep -q 'SONAME.*libinceptionn.so.0' \
	&& ok "SONAME libinceptionn.so.0" || ko "SONAME"

cat >"$tmp/prog.c" <<'C'
#include <inceptionn/inceptionn.h>
#include <inceptionn/inc_model.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
	struct inc_comm *c;
	float buf[1000];
	unsigned char s[inc_codec_max_size(1000)];
	int rc = inc_comm_init_env(&c), i, r, n, bad = 0;

	if (rc) {
		printf("init: %s\n", inc_strerror(rc));
		return 1;
	}
	r = inc_comm_rank(c);
	n = inc_comm_size(c);
	for (i = 0; i < 1000; i++)
		buf[i] = (float)(r + 1) * (float)(i % 7);
	rc = inc_allreduce_f32(c, buf, 1000, NULL);
	for (i = 0; !rc && i < 1000; i++)
		if (buf[i] != (float)(n * (n + 1) / 2) * (float)(i % 7))
			bad++;
	/* the model API comes with the library */
	if (inc_stream_compress((const unsigned char *)buf, 1000, 10, s, sizeof(s), NULL) !=
	    inc_codec_compress(buf, 1000, 10, s, sizeof(s)))
		bad++;
	printf("rank %d: rc=%d (%s) bad=%d codec=%s\n", r, rc, inc_strerror(rc), bad,
	       inc_codec_name());
	inc_comm_destroy(c);
	return rc || bad;
}
C
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
flags=$(pkg-config --cflags --libs inceptionn 2>&1) && ok "pkg-config --cflags --libs inceptionn: $flags" \
	|| ko "pkg-config: $flags"
if cc -std=c11 -Wall -Werror -o "$tmp/prog" "$tmp/prog.c" $flags 2>"$tmp/cc.log"; then
	ok "compile and link (shared) with pkg-config flags"
	out=$(LD_LIBRARY_PATH=$prefix/lib build/bin/inc-run -n 2 "$tmp/prog" 2>&1)
	[ $? -eq 0 ] && [ "$(grep -c 'rc=0 (success) bad=0' <<<"$out")" -eq 2 ] \
		&& ok "installed shared library: 2-rank all-reduce" || ko "shared run: $out"
	ldd "$tmp/prog" | grep -q "$prefix/lib/libinceptionn.so.0" 2>/dev/null || \
		LD_LIBRARY_PATH=$prefix/lib ldd "$tmp/prog" | grep -q "$prefix/lib/libinceptionn.so.0" \
		&& ok "program loads the installed libinceptionn.so.0" || ko "ldd"
else
	ko "compile (shared)"; cat "$tmp/cc.log"
fi
if cc -std=c11 -Wall -Werror -o "$tmp/prog-static" "$tmp/prog.c" $(pkg-config --cflags inceptionn) \
	"$prefix/lib/libinceptionn.a" $(pkg-config --static --libs-only-other inceptionn) \
	$(pkg-config --static --libs-only-l inceptionn | sed 's/-linceptionn //') 2>"$tmp/cc.log"; then
	out=$(build/bin/inc-run -n 3 "$tmp/prog-static" 2>&1)
	[ $? -eq 0 ] && [ "$(grep -c 'bad=0' <<<"$out")" -eq 3 ] \
		&& ok "static library: 3-rank all-reduce" || ko "static run: $out"
else
	ko "compile (static)"; cat "$tmp/cc.log"
fi
if [ -e "$prefix/lib/pkgconfig/inceptionn-mpi.pc" ] && command -v mpicc >/dev/null; then
	if mpicc -std=c11 -Wall -Werror -o "$tmp/prog-mpi" "$tmp/prog.c" \
		$(pkg-config --cflags --libs inceptionn-mpi) 2>"$tmp/cc.log"; then
		out=$(LD_LIBRARY_PATH=$prefix/lib timeout 60 mpirun --allow-run-as-root --oversubscribe \
			--mca btl tcp,self -np 3 "$tmp/prog-mpi" 2>&1)
		[ "$(grep -c 'rc=0 (success) bad=0' <<<"$out")" -eq 3 ] \
			&& ok "MPI flavour: bootstrap under mpirun -np 3, all-reduce" || ko "mpi run: $out"
	else
		ko "compile (mpi)"; cat "$tmp/cc.log"
	fi
fi
finish
