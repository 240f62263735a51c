#!/usr/bin/env bash
# Run each test suite (make target test-<name>), keep its log in
# build/test-logs/<name>.log, and sum the "N passed, N failed[, N skipped]"
# lines. A suite that exits non-zero or prints no such line counts one
# failure; skips (a suite that needs root, run as another user) are summed
# and shown. Each suite's line gives its wall time and the CPU time (user +
# system) of everything it waited for: a suite near 1x its wall time used
# one of the cores.
set -u
cd "$(dirname "$0")/.."
logdir=build/test-logs
mkdir -p "$logdir"
total_pass=0 total_fail=0 total_skip=0 bad_suites=()
for suite in "$@"; do
	log="$logdir/$suite.log"
	echo "=== $suite"
	start=$(date +%s)
	# time's "user system" line; the substitution's status is make's
	cpu=$( { TIMEFORMAT='%U %S'; time make --no-print-directory "test-$suite" >"$log" 2>&1; } 2>&1)
	rc=$?
	cpu=$(awk 'NF == 2 { printf "%.0f", $1 + $2 }' <<<"$cpu")
	secs=$(( $(date +%s) - start ))
	line=$(grep -E '^([A-Za-z_-]+: )?[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	if [ -z "$line" ]; then
		tail -n 30 "$log"
		echo "--- $suite: no result line (exit $rc, ${secs}s) -> 1 failed"
		total_fail=$((total_fail + 1)); bad_suites+=("$suite")
		continue
	fi
	p=$(sed -E 's/^([A-Za-z_-]+: )?([0-9]+) passed, ([0-9]+) failed.*/\2/' <<<"$line")
	f=$(sed -E 's/^([A-Za-z_-]+: )?([0-9]+) passed, ([0-9]+) failed.*/\3/' <<<"$line")
	k=$(sed -nE 's/.* failed, ([0-9]+) skipped.*/\1/p' <<<"$line")
	k=${k:-0}
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
	fi
	if [ "$f" -ne 0 ]; then
		grep -E 'FAIL|error|Error' "$log" | head -n 20
		bad_suites+=("$suite")
	fi
	echo "--- $suite: $p passed, $f failed$([ "$k" -gt 0 ] && echo ", $k skipped") (${secs}s, cpu ${cpu:-?}s, log $log)"
	total_pass=$((total_pass + p)); total_fail=$((total_fail + f)); total_skip=$((total_skip + k))
done
if [ ${#bad_suites[@]} -ne 0 ]; then
	echo "failing suites: ${bad_suites[*]}"
fi
echo "$total_pass passed, $total_fail failed$([ "$total_skip" -gt 0 ] && echo ", $total_skip skipped")"
[ "$total_fail" -eq 0 ]
