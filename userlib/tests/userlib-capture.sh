#!/usr/bin/env bash
# Suite userlib-capture: all-reduce in nic mode on the emulated cluster
# (cluster/netns-cluster.sh, 3 namespaces, 1 Gbit/s links) with tcpdump on
# the bridge; pcap-check then asserts that data frames carry ToS 0x28 with
# 4-byte-multiple payloads starting on float boundaries, and that control
# frames are untagged. Ring and worker-aggregator (where rank 0's results
# travel back untagged). Needs root; cleans up its namespaces on exit.
set -u
cd "$(dirname "$0")/../.."
ar=${1:-build/userlib-test/ar-check}
pc=${2:-build/userlib-test/pcap-check}
cl=cluster/netns-cluster.sh
prefix=incap$$
n=3 port=29400
tmp=$(mktemp -d)
. tests/lib.sh
cleanup() {
	[ -n "${dump:-}" ] && kill "$dump" 2>/dev/null
	"$cl" down -p "$prefix"
	rm -rf "$tmp"
}
trap cleanup EXIT
require_root userlib-capture
command -v tcpdump >/dev/null || { ko "tcpdump missing (make deps)"; finish; }
"$cl" up -p "$prefix" -n $n || { ko "the namespaces could not be created"; finish; }

wait_dump() {  # STDERR_FILE: until tcpdump says it is listening (30 s at most)
	local i
	for i in $(seq 300); do
		grep -qs listening "$1" && return 0
		sleep 0.1
	done
	return 1
}

run() {  # NAME ALGO DOWN_TOS
	local name=$1 algo=$2 down=$3 pcap=$tmp/$1.pcap i rc=0 pids=() out p f
	"$cl" br -p "$prefix" tcpdump -i br0 -n -U --immediate-mode -B 32768 -s 0 -w "$pcap" tcp 2>"$tmp/$name.tcpdump" &
	dump=$!
	wait_dump "$tmp/$name.tcpdump" || { fail=$((fail + 1)); echo "FAIL $name: tcpdump did not start"; }
	for ((i = 0; i < n; i++)); do
		"$cl" exec -p "$prefix" $i env INC_RANK=$i INC_WORLD_SIZE=$n \
			INC_MASTER_ADDR=10.99.0.1 INC_MASTER_PORT=$port INC_COMPRESSION=nic \
			INC_ALGO=$algo INC_TIMEOUT_MS=30000 \
			"$ar" -q -m nic -a "$algo" -s ${SIZES:-1,1000,65541,300007} >"$tmp/$name.$i.log" 2>&1 &
		pids+=($!)
	done
	for i in "${pids[@]}"; do wait "$i" || rc=1; done
	sleep 0.3
	kill "$dump"; wait "$dump" 2>/dev/null; dump=
	for ((i = 0; i < n; i++)); do
		out=$(tail -n 1 "$tmp/$name.$i.log")
		p=$(sed -nE 's/^rank [0-9]+: ([0-9]+) passed, ([0-9]+) failed$/\1/p' <<<"$out")
		f=$(sed -nE 's/^rank [0-9]+: ([0-9]+) passed, ([0-9]+) failed$/\2/p' <<<"$out")
		if [ -z "$p" ]; then p=0; f=1; cat "$tmp/$name.$i.log" | tail -n 5; fi
		pass=$((pass + p)); fail=$((fail + f))
	done
	[ $rc -eq 0 ] || { fail=$((fail + 1)); echo "$name: a rank failed"; }
	echo "== $name ($algo, nic): $(grep -E 'packets (captured|dropped)' "$tmp/$name.tcpdump" | tr '\n' ' ')"
	out=$("$pc" -c $port -t 0x28 ${down:+-d $down} "$pcap" 2>&1)
	echo "$out"
	p=$(sed -nE 's/^([0-9]+) passed, ([0-9]+) failed$/\1/p' <<<"$out" | tail -n 1)
	f=$(sed -nE 's/^([0-9]+) passed, ([0-9]+) failed$/\2/p' <<<"$out" | tail -n 1)
	[ -z "$p" ] && { p=0; f=1; }
	pass=$((pass + p)); fail=$((fail + f))
	port=$((port + 1))
}
run ring ring ""
run wa wa 0

# Negative control: a tagged connection written in 1001-byte pieces with
# TCP_NODELAY must fail the length/offset checks, so the checker can fail.
# (--immediate-mode: without it tcpdump may exit before the packet ring
# hands over a short capture, leaving an empty file.)
neg() {  # ATTEMPT
	local pcap=$tmp/neg$1.pcap err=$tmp/neg$1.tcpdump srv i
	"$cl" br -p "$prefix" tcpdump -i br0 -n -U --immediate-mode -B 32768 -s 0 -w "$pcap" tcp 2>"$err" &
	dump=$!
	wait_dump "$err" || return 1
	"$cl" exec -p "$prefix" 1 userlib/tests/odd-writes.py serve $((29499 + $1)) &
	srv=$!
	for i in $(seq 100); do
		"$cl" exec -p "$prefix" 1 ss -ltn | grep -q ":$((29499 + $1)) " && break
		sleep 0.1
	done
	"$cl" exec -p "$prefix" 0 userlib/tests/odd-writes.py send 10.99.0.2 $((29499 + $1)) 50
	wait "$srv"
	sleep 0.3
	kill "$dump"; wait "$dump" 2>/dev/null; dump=
	echo "== negative control: $(grep -E 'packets captured' "$err")"
	out=$("$pc" -c $port -t 0x28 "$pcap" 2>&1)
	grep -qE '^[0-9]+ passed, [1-9][0-9]* failed$' <<<"$out" && grep -q 'not a multiple of 4' <<<"$out"
}
if neg 0 || neg 1; then
	pass=$((pass + 1)); echo "ok   negative control: odd writes are flagged"
else
	fail=$((fail + 1)); echo "FAIL negative control not flagged:"; echo "$out"
fi
finish
