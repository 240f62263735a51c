#!/usr/bin/env bash
# Run each libFuzzer target for SECONDS on its corpus (grown in
# FUZZDIR/corpus/<target>, seeded from FUZZDIR/seeds/<target>). A target
# passes when it runs the whole time without a crash or sanitizer report.
# Crash inputs are saved as FUZZDIR/crash-<target>-*; logs in
# FUZZDIR/<target>.log. Last line: "N passed, N failed".
# Usage: run.sh SECONDS BINDIR FUZZDIR TARGET...
set -u
secs=$1 bindir=$2 fuzzdir=$3
shift 3
. "$(dirname "$0")/../../../tests/lib.sh"
for t in "$@"; do
	corpus=$fuzzdir/corpus/$t
	mkdir -p "$corpus"
	log=$fuzzdir/$t.log
	"$bindir/$t" -max_total_time="$secs" -timeout=10 -max_len=9200 \
		-print_final_stats=1 -artifact_prefix="$fuzzdir/crash-$t-" \
		"$corpus" "$fuzzdir/seeds/$t" >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	cov=$(grep -Eo 'cov: [0-9]+' "$log" | tail -n 1)
	if [ "$rc" -eq 0 ] && [ -n "$runs" ]; then
		echo "$t: ${secs}s, ${runs} runs, ${cov:-cov: ?}, corpus $(ls "$corpus" | wc -l) files: ok"
		pass=$((pass + 1))
	else
		echo "FAIL $t: exit $rc after ${runs:-?} runs; log $log"
		grep -E 'ERROR|SUMMARY|assertion|runtime error' "$log" | head -n 10
		fail=$((fail + 1))
	fi
done
finish
