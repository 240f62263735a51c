#!/usr/bin/env bash
# Suite userlib-allreduce: the all-reduce correctness check (ar-check,
# built with ASan/UBSan) for N = 1..8 ranks on loopback, every mode
# (none, nic, software) and both algorithms (ring, wa), many sizes and
# segment sizes; the non-blocking calls (iar-check) for N = 1..5; the
# sketch modes (sketch-check) for N = 1..5; error feedback (ef-check) for
# N = 2..5. Prints one line per run and "N passed, N failed" last.
set -u
cd "$(dirname "$0")/../.."
ar=${1:-build/userlib-test/ar-check}
iar=${2:-build/userlib-test/iar-check}
skc=${3:-build/userlib-test/sketch-check}
efc=${4:-build/userlib-test/ef-check}
run=build/bin/inc-run
. tests/lib.sh
log=$(mktemp)
trap 'rm -f "$log"' EXIT
export INC_TIMEOUT_MS=60000
addr=127.0.0.1
one() {  # N ARGS...
	local n=$1; shift
	local start=$(date +%s%N)
	nice "$run" -n "$n" -a "$addr" "$ar" -q "$@" >"$log" 2>&1
	local rc=$?
	local p=0 f=0 line
	while read -r line; do
		p=$((p + $(sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed/\1/' <<<"$line")))
		f=$((f + $(sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed/\2/' <<<"$line")))
	done < <(grep -E '^rank [0-9]+: [0-9]+ passed, [0-9]+ failed' "$log")
	local ranks=$(grep -cE '^rank [0-9]+: ' "$log")
	if [ "$rc" -ne 0 ] || [ "$ranks" -ne "$n" ]; then
		grep -E 'FAIL|inc-run|ar-check' "$log" | head -n 10
		[ "$f" -eq 0 ] && f=1
	fi
	local ms=$(( ($(date +%s%N) - start) / 1000000 ))
	printf 'N=%d %-40s %6d passed, %d failed (%d.%03ds)\n' "$n" "$*" "$p" "$f" \
		$((ms / 1000)) $((ms % 1000))
	pass=$((pass + p)); fail=$((fail + f))
}
for n in 1 2 3 4 5 6 7 8; do
	one "$n"                                 # default sizes 0..300007, 64 KiB segments
done
one 3 -g 32 -s 0,1,8,9,95,96,97,1000,5003      # tiny segments: deep pipeline
one 4 -g 256 -e 3                              # another error bound
one 5 -g 4096 -e 20 -m software,nic
one 2 -s 3000000 -m none,software -a ring      # 12 MB: many segments in flight
INC_COMPRESSION=software INC_ALGO=wa INC_ERROR_BOUND=2^-10 one 4 -s 777 -m none -a ring
INC_COMPRESSION=nic one 3 -s 777 -m none -a ring
# Non-blocking calls (iar-check): ten requests in flight with a blocking
# call among them, every mode and algorithm, bit-identical to blocking.
for n in 1 2 3 4 5; do
	ar=$iar one "$n"
done
# The sketch modes on sparse and dense gradients (sketch-check): exact
# integer sums, both indices and algorithms, bytes, retries; N = 1..5.
for n in 1 2 3 4 5; do
	ar=$skc one "$n"
done
# Error feedback (ef-check): what each rank meant to send arrives, every
# lossy mode, ring and WA, blocking and bucketed non-blocking calls; the
# residuals stay bounded over 25 calls; replicas bit-identical.
for n in 2 3 4 5; do
	ar=$efc one "$n"
done
ar=$efc one 3 -s 777 -c 25 -e 6
ar=$efc one 4 -s 5 -c 3
ar=$efc one 3 -s 4099 -c 4 -x 6 -m software,nic,inc+sketch   # values scaled by 2^6
# adaptive scaling states (balanced): the same invariant, replicas and
# exponents identical on every rank, ring and WA, blocking and buckets
ar=$efc one 3 -s 4099 -c 6 -A -m software,nic,inc+sketch
ar=$efc one 4 -s 20011 -c 4 -A -m software
# IPv6: IPV6_TCLASS tagging and v6 address tables
if ip -6 addr show dev lo 2>/dev/null | grep -q '::1'; then
	addr=::1 INC_COMPRESSION=nic one 3 -s 1,1000,65541
fi
finish
