#!/usr/bin/env bash
# Run each test suite (make target test-<name>), keep its log in
# build/test-logs/<name>.log, and sum the "N passed, N failed[, N skipped]"
# lines. A suite that exits non-zero or prints no such line counts one
# failure; skips (a suite that needs root, run as another user) are summed
# and shown. Each suite's line gives its wall time and the CPU time (user +
# system) of everything it waited for: a suite near 1x its wall time used
# one of the cores.
#
# INC_TEST_PAIRED names suites that use one core: those run first, one per
# core side by side, after one make has built their prerequisites, and
# their lines come in the order given; the rest follow one after another.
set -u
cd "$(dirname "$0")/.." || exit
. tests/lib.sh
logdir=build/test-logs
mkdir -p "$logdir"
total_pass=0 total_fail=0 total_skip=0 bad_suites=()

# run_suite SUITE: make test-SUITE into its log; its "wall cpu status" into
# the log's .time file
run_suite() {
	local log="$logdir/$1.log" start cpu rc
	start=$(date +%s)
	# time's "user system" line; the substitution's status is make's
	cpu=$( { TIMEFORMAT='%U %S'; time make --no-print-directory "test-$1" >"$log" 2>&1; } 2>&1)
	rc=$?
	cpu=$(awk 'NF == 2 { printf "%.0f", $1 + $2 }' <<<"$cpu")
	echo "$(( $(date +%s) - start )) ${cpu:-?} $rc" >"$log.time"
}

# report_suite SUITE: its lines, added to the totals
report_suite() {
	local suite=$1 log="$logdir/$1.log" secs cpu rc line p f k
	read -r secs cpu rc <"$log.time"
	echo "=== $suite"
	line=$(grep -E '^([A-Za-z_-]+: )?[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	if [ -z "$line" ]; then
		tail -n 30 "$log"
		echo "--- $suite: no result line (exit $rc, ${secs}s) -> 1 failed"
		total_fail=$((total_fail + 1)); bad_suites+=("$suite")
		return
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
	echo "--- $suite: $p passed, $f failed$([ "$k" -gt 0 ] && echo ", $k skipped") (${secs}s, cpu ${cpu}s, log $log)"
	total_pass=$((total_pass + p)); total_fail=$((total_fail + f)); total_skip=$((total_skip + k))
}

paired=() serial=()
for suite in "$@"; do
	case " ${INC_TEST_PAIRED:-} " in
	*" $suite "*) paired+=("$suite") ;;
	*) serial+=("$suite") ;;
	esac
done
# The paired suites' prerequisites first, by one make (which builds each
# file once): then no two of them build the same file at once. If that
# build fails, they run one after another, each reporting its own failure.
if [ ${#paired[@]} -ne 0 ]; then
	db=$(make -pq --no-print-directory 2>/dev/null)
	pre=()
	for suite in "${paired[@]}"; do
		read -ra p <<<"$(sed -n "s/^test-$suite:\(.*\)/\1/p" <<<"$db" | head -n 1)"
		pre+=(${p[@]+"${p[@]}"})
	done
	if [ ${#pre[@]} -ne 0 ] && ! make --no-print-directory -j"$(nproc)" "${pre[@]}" \
		>"$logdir/paired-build.log" 2>&1; then
		echo "the side-by-side suites' programs did not build ($logdir/paired-build.log): they run one after another"
		serial=("${paired[@]}" ${serial[@]+"${serial[@]}"}) paired=()
	fi
fi
if [ ${#paired[@]} -ne 0 ]; then
	shown=0
	pool_done() { report_suite "${paired[$shown]}"; shown=$((shown + 1)); }
	pool_init
	for suite in "${paired[@]}"; do
		pool_run run_suite "$suite"
	done
	pool_wait
fi
for suite in ${serial[@]+"${serial[@]}"}; do
	run_suite "$suite"
	report_suite "$suite"
done
if [ ${#bad_suites[@]} -ne 0 ]; then
	echo "failing suites: ${bad_suites[*]}"
fi
echo "$total_pass passed, $total_fail failed$([ "$total_skip" -gt 0 ] && echo ", $total_skip skipped")"
[ "$total_fail" -eq 0 ]
