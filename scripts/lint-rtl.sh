#!/usr/bin/env bash
# Lint every rtl/*.v with Verilator (-Wall) and Icarus (-g2005 -Wall), one
# module per file. Prints one line per file and ends with
# "N passed, N failed" (one check per tool per file).
set -u
cd "$(dirname "$0")/.."
pass=0 fail=0
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
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
