#!/usr/bin/env bash
# Lint every rtl/*.v with Verilator (-Wall) and Icarus (-g2005 -Wall), one
# module per file, and the engines and the top again at DATA_WIDTH 512.
# Prints one line per check (a failing one with the tool's first 30 lines)
# and ends with "N passed, N failed". The Verilator and the Icarus checks
# run side by side (each tool one process at a time).
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# the modules with a DATA_WIDTH choice, linted again at 512 bits
wide="inc_compress_engine inc_decompress_engine inc_offload_top"

# lint TOOL TOP [WIDTH]: one check of rtl/TOP.v; an Icarus warning fails it
lint() {
	local tool=$1 top=$2 w=${3:-} f=rtl/$2.v log=$out/$1-$2-${3:-d}.log rc what=$f
	[ -n "$w" ] && what="$f (DATA_WIDTH $w)"
	if [ "$tool" = verilator ]; then
		verilator --lint-only -Wall -Irtl -y rtl ${w:+-GDATA_WIDTH=$w} --top-module "$top" "$f" >"$log" 2>&1
		rc=$?
	else
		iverilog -g2005 -Wall -Irtl -yrtl ${w:+-P"$top.DATA_WIDTH=$w"} -s "$top" -o "$log.vvp" "$f" >"$log" 2>&1 &&
			! grep -q -i 'warning' "$log"
		rc=$?
	fi
	if [ $rc -eq 0 ]; then
		echo "ok   $tool $what"
	else
		echo "FAIL $tool $what"; head -n 30 "$log"
	fi
}
# every check of one tool, in order
lint_all() {
	local f top
	for f in rtl/*.v; do lint "$1" "$(basename "$f" .v)"; done
	for top in $wide; do lint "$1" "$top" 512; done
}
lint_all verilator >"$out/verilator.out" &
lint_all iverilog >"$out/iverilog.out"
wait
cat "$out/verilator.out" "$out/iverilog.out"
pass=$(cat "$out"/*.out | grep -c '^ok ')
fail=$(cat "$out"/*.out | grep -c '^FAIL ')
# every file and width reported by both tools
n=$(( ($(ls rtl/*.v | wc -l) + $(wc -w <<<"$wide")) * 2 ))
[ $((pass + fail)) -eq "$n" ] || ko "$((pass + fail)) of $n checks reported"
finish
