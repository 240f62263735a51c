#!/usr/bin/env bash
# Lint every rtl/*.v with Verilator (-Wall) and Icarus (-g2005 -Wall), one
# module per file, and the engines and the top again at DATA_WIDTH 512. Prints one line per file and ends with
# "N passed, N failed" (one check per tool per file).
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for f in rtl/*.v; do
	top=$(basename "$f" .v)
	if verilator --lint-only -Wall -Irtl -y rtl --top-module "$top" "$f" >"$out/v.log" 2>&1; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1)); echo "FAIL verilator $f"; head -n 30 "$out/v.log"
	fi
	if iverilog -g2005 -Wall -Irtl -yrtl -s "$top" -o "$out/a.out" "$f" >"$out/i.log" 2>&1 &&
	   ! grep -q -i 'warning' "$out/i.log"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1)); echo "FAIL iverilog $f"; head -n 30 "$out/i.log"
	fi
done
# the modules with a DATA_WIDTH choice, again at 512 bits
for top in inc_compress_engine inc_decompress_engine inc_offload_top; do
	f=rtl/$top.v
	if verilator --lint-only -Wall -Irtl -y rtl -GDATA_WIDTH=512 --top-module "$top" "$f" >"$out/v.log" 2>&1; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1)); echo "FAIL verilator $f (DATA_WIDTH 512)"; head -n 30 "$out/v.log"
	fi
	if iverilog -g2005 -Wall -Irtl -yrtl -P"$top.DATA_WIDTH=512" -s "$top" -o "$out/a.out" "$f" >"$out/i.log" 2>&1 &&
	   ! grep -q -i 'warning' "$out/i.log"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1)); echo "FAIL iverilog $f (DATA_WIDTH 512)"; head -n 30 "$out/i.log"
	fi
done
finish
