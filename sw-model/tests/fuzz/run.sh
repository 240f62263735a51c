#!/usr/bin/env bash
# Run each libFuzzer target for SECONDS on its corpus (grown in
# FUZZDIR/corpus/<target>, seeded from FUZZDIR/seeds/<target>). A target
# passes when it runs the whole time without a crash or sanitizer report.
# Crash inputs are saved as FUZZDIR/crash-<target>-*; logs in
# FUZZDIR/<target>.log. The targets run side by side, one per core
# (POOL_JOBS). Last line: "N passed, N failed".
# Usage: run.sh SECONDS BINDIR FUZZDIR TARGET...
set -u
secs=$1 bindir=$2 fuzzdir=$3
shift 3
. "$(dirname "$0")/../../../tests/lib.sh"
# fuzz TARGET: one target's run and its line; status 1 when it failed
fuzz() {
	local t=$1 corpus=$fuzzdir/corpus/$1 log=$fuzzdir/$1.log rc runs cov
	mkdir -p "$corpus"
	"$bindir/$t" -max_total_time="$secs" -timeout=10 -max_len=9200 \
		-print_final_stats=1 -artifact_prefix="$fuzzdir/crash-$t-" \
		"$corpus" "$fuzzdir/seeds/$t" >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	cov=$(grep -Eo 'cov: [0-9]+' "$log" | tail -n 1)
	if [ "$rc" -eq 0 ] && [ -n "$runs" ]; then
		echo "$t: ${secs}s, ${runs} runs, ${cov:-cov: ?}, corpus $(ls "$corpus" | wc -l) files: ok"
	else
		echo "FAIL $t: exit $rc after ${runs:-?} runs; log $log"
		grep -E 'ERROR|SUMMARY|assertion|runtime error' "$log" | head -n 10
		return 1
	fi
}
# the targets side by side, one per core (POOL_JOBS)
pool_done() { if [ "$1" -eq 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi; }
pool_init
for t in "$@"; do pool_run fuzz "$t"; done
pool_wait
finish
