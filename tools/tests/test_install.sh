#!/usr/bin/env bash
# Suite install: `make install PREFIX=<tmp>` puts every program the docs
# name into PREFIX/bin, each runs from there (--help: exit 0, a usage
# text on stdout), the installed Python package loads the installed
# library; `make uninstall PREFIX=<tmp>` then removes exactly what install
# wrote: a file of someone else's in the prefix stays, nothing of ours is
# left. Last line "N passed, N failed, N skipped".
set -u
cd "$(dirname "$0")/../.."
t=$(mktemp -d /tmp/inc-install.XXXXXX)
trap 'rm -rf "$t"' EXIT
p=$t/prefix
. tests/lib.sh

# Someone else's files in the prefix before we come.
mkdir -p "$p/bin" "$p/lib"
echo keep >"$p/bin/other-tool"
echo keep >"$p/lib/libother.so"
( cd "$p" && find . \( -type f -o -type l \) | sort ) >"$t/before"

if make --no-print-directory install PREFIX="$p" >"$t/install.log" 2>&1; then
	ok "make install PREFIX=$p"
else
	ko "make install: $(tail -n 5 "$t/install.log")"
fi
for prog in inc-run inc-bench inc-train inc-codec inc-pcap inc-tcpgen inc-rtl-pcap; do
	if [ ! -e "$p/bin/$prog" ]; then
		if [ "$prog" = inc-rtl-pcap ] && [ ! -x build/bin/inc-rtl-pcap ]; then
			skip "inc-rtl-pcap not built (Verilator), not installed"
		else
			ko "$prog not in $p/bin"
		fi
		continue
	fi
	# From an empty directory with a minimal PATH: nothing of the tree is used.
	out=$(cd "$t" && env -i PATH=/usr/bin:/bin "$p/bin/$prog" --help 2>"$t/err")
	rc=$?
	if [ $rc -eq 0 ] && grep -qi "^usage: $prog" <<<"$out"; then
		ok "$p/bin/$prog --help: $(head -n 1 <<<"$out" | cut -c 1-70)"
	else
		ko "$prog --help: exit $rc, stdout '$(head -n 2 <<<"$out")', stderr '$(head -n 2 "$t/err")'"
	fi
done
out=$(cd "$t" && env -i PATH=/usr/bin:/bin "$p/bin/inc-run" -n 2 /bin/sh -c 'echo rank $INC_RANK' 2>&1 | sort)
[ "$out" = "$(printf 'rank 0\nrank 1')" ] && ok "installed inc-run starts 2 ranks" || ko "inc-run -n 2: '$out'"
out=$(cd "$t" && env -i PATH=/usr/bin:/bin PYTHONPATH="$p/lib/python3/dist-packages" \
	/usr/bin/python3 -c 'import inceptionn; print(inceptionn.codec_name())' 2>&1)
[ -n "$out" ] && ! grep -qi error <<<"$out" && ok "the installed package loads the installed library (codec $out)" \
	|| ko "installed package: $out"

if make --no-print-directory uninstall PREFIX="$p" >"$t/uninstall.log" 2>&1; then
	ok "make uninstall PREFIX=$p"
else
	ko "make uninstall: $(tail -n 5 "$t/uninstall.log")"
fi
( cd "$p" && find . \( -type f -o -type l \) | sort ) >"$t/after"
left=$(comm -13 "$t/before" "$t/after" | tr '\n' ' ')
gone=$(comm -23 "$t/before" "$t/after" | tr '\n' ' ')
[ -z "$left" ] && ok "uninstall left none of our files" || ko "uninstall left: $left"
[ -z "$gone" ] && ok "uninstall kept the others' files" || ko "uninstall removed: $gone"
[ ! -e "$p/include/inceptionn" ] && [ ! -e "$p/lib/python3/dist-packages/inceptionn" ] \
	&& ok "our directories are gone" || ko "include/inceptionn or the Python package directory is left"
finish
