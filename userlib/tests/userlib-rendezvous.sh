#!/usr/bin/env bash
# Suite userlib-rendezvous: a 4-rank job on 127.0.0.1 with a job id and a
# secret, attacked before and while its ranks join. On the master port: an
# HTTP request, random bytes, a truncated hello, hellos with another
# version, world size, job id, a rank out of range, a wrong secret, a
# duplicate rank, a connection that stays silent, a flood of 80 silent
# connections (more than the 64 open handshakes kept), and whole ranks of
# another job and with a wrong secret (refused with INC_E_REFUSED, the log
# naming both job ids). On every rank's data listener: random bytes and
# another job's hello (rank 1 also an HTTP request, a wrong secret and a
# silent connection). The job must complete with exact sums on every rank,
# every stranger must be refused the way it expects (rdv-check stranger),
# every rank must count exactly the strangers it met, and every listening
# socket of the job must be bound to 127.0.0.1 (ss -ltnp).
# Last line "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
bin=${1:-build/userlib-test/rdv-check}
run=build/bin/inc-run
tmp=$(mktemp -d)
declare -a rpid
bg=()
cleanup() {
	local p
	for p in "${rpid[@]}" "${bg[@]}"; do [ "$p" -gt 0 ] && kill "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT
. tests/lib.sh

unset RANK WORLD_SIZE MASTER_ADDR MASTER_PORT INC_BIND_ADDR
port=$("$run" -n 1 sh -c 'echo "$INC_MASTER_PORT"')
export INC_MASTER_ADDR=127.0.0.1 INC_MASTER_PORT=$port INC_WORLD_SIZE=4
export INC_JOB_ID=rdv-$$-$RANDOM INC_JOB_SECRET=correct-horse-$RANDOM INC_LOG=stderr
export INC_TIMEOUT_MS=60000 INC_HELLO_TIMEOUT_MS=3000

start_rank() {
	INC_RANK=$1 "$bin" rank "$tmp/go" >"$tmp/r$1.out" 2>"$tmp/r$1.err" &
	rpid[$1]=$!
}
stranger() {  # stranger NAME WHAT PORT [data] [ARG]: expect exit 0
	local name=$1; shift
	local out
	if out=$("$bin" stranger "$1" 127.0.0.1 "${@:2}" 2>&1); then
		ok "$name"
	else
		ko "$name: $out"
	fi
}
# The local addresses of pid's listening TCP sockets, one a line.
listeners() {
	ss -ltnpH 2>/dev/null | awk -v p="pid=$1," 'index($0, p) { print $4 }'
}
wait_for() {  # wait_for SECONDS CMD...: until CMD succeeds
	local i
	for ((i = 0; i < $1 * 20; i++)); do "${@:2}" && return 0; sleep 0.05; done
	return 1
}
master_listening() { ss -ltnH "sport = :$port" | grep -q LISTEN; }
master_closed() { ! master_listening; }

start_rank 0
if ! wait_for 20 master_listening; then
	ko "rank 0 does not listen on the master port $port"; finish
fi
# Rank 0 during the rendezvous: the master port and its data listener,
# both on 127.0.0.1.
l=$(listeners "${rpid[0]}")
[ "$(echo "$l" | grep -c .)" -ge 2 ] && ! echo "$l" | grep -qv '^127\.0\.0\.1:' \
	&& ok "rank 0 listens on 127.0.0.1 only: $(echo $l)" || ko "rank 0 listeners: $(echo $l)"

# Before the ranks join.
stranger "master: HTTP request closed" http "$port"
stranger "master: random bytes closed" random "$port"
stranger "master: truncated hello" truncated "$port"
stranger "master: another version refused" version "$port"
stranger "master: another world size refused" size "$port"
stranger "master: rank out of range refused" range "$port"
stranger "master: another job id refused, the reply names this job" job "$port"
stranger "master: wrong secret refused" secret "$port"
"$bin" stranger silent 127.0.0.1 "$port" 60 >"$tmp/silent.out" 2>&1 &
silent=$!
bg+=("$silent")
# More silent connections than the listener keeps open (64): the oldest go.
"$bin" stranger flood 127.0.0.1 "$port" 60 >"$tmp/flood.out" 2>&1 &
flood=$!
bg+=("$flood")
sleep 0.3
# Whole ranks that do not belong: another job, a wrong secret.
INC_RANK=3 INC_JOB_ID=other-job-$$ INC_TIMEOUT_MS=10000 "$bin" rank >/dev/null 2>"$tmp/other.err"
rc=$?
[ "$rc" -eq 44 ] && grep -q "other-job-$$" "$tmp/other.err" && grep -q "$INC_JOB_ID" "$tmp/other.err" \
	&& ok "a rank of another job is refused (INC_E_REFUSED), its log names both job ids" \
	|| ko "rank of another job: exit $rc, log: $(cat "$tmp/other.err")"
INC_RANK=3 INC_JOB_SECRET=wrong INC_TIMEOUT_MS=10000 "$bin" rank >/dev/null 2>"$tmp/wrong.err"
rc=$?
[ "$rc" -eq 44 ] && ok "a rank with a wrong secret is refused (INC_E_REFUSED)" \
	|| ko "rank with a wrong secret: exit $rc, log: $(cat "$tmp/wrong.err")"

# While they join.
start_rank 1
start_rank 2
joined() { grep -q "rank $1 joined" "$tmp/r0.err"; }
if wait_for 30 joined 1 && wait_for 30 joined 2; then
	ok "ranks 1 and 2 joined despite the strangers"
else
	ko "ranks 1 and 2 did not join: $(cat "$tmp/r0.err")"
fi
stranger "master: duplicate rank 1 refused" duplicate "$port" 1
stranger "master: HTTP request closed (while joining)" http "$port"
stranger "master: random bytes closed (while joining)" random "$port"
start_rank 3
wait_for 60 master_closed || ko "the master port stays open"
wait "$silent" && ok "master: a silent connection is closed" || ko "master: silent: $(cat "$tmp/silent.out")"
wait "$flood" && ok "master: a flood of 80 silent connections is closed, the ranks got in" \
	|| ko "master: flood: $(cat "$tmp/flood.out")"

# Every rank's data listener: bound to 127.0.0.1, the only listener left.
declare -a dport
for r in 0 1 2 3; do
	l=$(listeners "${rpid[$r]}")
	if [ "$(echo "$l" | grep -c .)" -eq 1 ] && echo "$l" | grep -q '^127\.0\.0\.1:'; then
		ok "rank $r: one listener, on 127.0.0.1 ($l)"
	else
		ko "rank $r listeners: $(echo $l)"
	fi
	dport[$r]=${l##*:}
done
# Strangers on the data listeners; they meet them in the first exchange.
spids=()
for r in 0 1 2 3; do
	"$bin" stranger random 127.0.0.1 "${dport[$r]}" data >"$tmp/d$r.random" 2>&1 & spids+=($!)
	"$bin" stranger job 127.0.0.1 "${dport[$r]}" data >"$tmp/d$r.job" 2>&1 & spids+=($!)
done
"$bin" stranger http 127.0.0.1 "${dport[1]}" data >"$tmp/d1.http" 2>&1 & spids+=($!)
"$bin" stranger secret 127.0.0.1 "${dport[1]}" data >"$tmp/d1.secret" 2>&1 & spids+=($!)
"$bin" stranger silent 127.0.0.1 "${dport[1]}" data 60 >"$tmp/d1.silent" 2>&1 & spids+=($!)
bg+=("${spids[@]}")
sleep 0.5   # let every stranger reach its backlog
touch "$tmp/go"
sfail=0
for p in "${spids[@]}"; do wait "$p" || sfail=$((sfail + 1)); done
[ "$sfail" -eq 0 ] && ok "data listeners: all ${#spids[@]} strangers refused as they expect" \
	|| ko "data listeners: $sfail strangers not refused as expected: $(cat "$tmp"/d*.*)"

for r in 0 1 2 3; do
	wait "${rpid[$r]}"
	rc=$?
	rpid[$r]=-1
	if [ "$rc" -eq 0 ] && grep -q "^rank $r: [0-9]* passed, 0 failed" "$tmp/r$r.out"; then
		ok "rank $r: exact sums (all-reduce, exchange, all-reduce)"
	else
		ko "rank $r: exit $rc: $(cat "$tmp/r$r.out" "$tmp/r$r.err" | grep -v joined | tail -n 5)"
	fi
done

# What each rank counted. count R REASON: the number in rank R's line.
count() { sed -nE "s/^rank $1: bootstrap .* $2=([0-9]+).*/\1/p" "$tmp/r$1.out"; }
want() {  # want R REASON N
	local got
	got=$(count "$1" "$2")
	[ "$got" = "$3" ] && ok "rank $1 counted $2=$3" || ko "rank $1: $2=${got:-?}, want $3"
}
# master port: http, random x2; the data listener: random
want 0 not_hello 5
want 0 truncated 1
want 0 version 1
want 0 size 1
want 0 rank 1
want 0 job 3          # the stranger, the rank of another job, the data-link stranger
want 0 secret 2       # the stranger and the rank with a wrong secret
want 0 duplicate 1
# the silent connection and the flood of 80: closed at their deadline or the
# end of the rendezvous (timeout), or to make room (overflow, at least 17)
s=$(( $(count 0 timeout) + $(count 0 overflow) ))
[ "$s" -eq 81 ] && [ "$(count 0 overflow)" -ge 17 ] \
	&& ok "rank 0 counted the 81 silent connections (timeout $(count 0 timeout), overflow $(count 0 overflow))" \
	|| ko "rank 0: timeout $(count 0 timeout) + overflow $(count 0 overflow), want 81 with overflow >= 17"
want 1 not_hello 2
want 1 job 1
for r in 2 3; do
	want $r not_hello 1
	want $r job 1
	want $r secret 0
done
# Rank 1's wrong-secret and silent strangers: refused as such, or as
# unfinished when the exchange's own links were all in first.
s=$(( $(count 1 secret) + $(count 1 timeout) ))
[ "$s" -eq 2 ] && ok "rank 1 counted the wrong secret and the silent connection" \
	|| ko "rank 1: secret + timeout = $s, want 2"
grep -q "refused a connection from 127.0.0.1:[0-9]* on the master port: another job ('other-job-$$', this job '$INC_JOB_ID')" \
	"$tmp/r0.err" && ok "rank 0's log names both job ids" || ko "rank 0's log: $(grep -c . "$tmp/r0.err") lines"

# INC_BIND_ADDR: rank 1 binds to (and reaches the master from) 127.0.0.3;
# the others reach its data listener there.
rm -f "$tmp/go"
port=$("$run" -n 1 sh -c 'echo "$INC_MASTER_PORT"')
export INC_MASTER_PORT=$port INC_WORLD_SIZE=3
start_rank 0
wait_for 20 master_listening
INC_BIND_ADDR=127.0.0.3 start_rank 1
start_rank 2
bound() { listeners "${rpid[1]}" | grep -q '^127\.0\.0\.3:'; }
wait_for 30 bound && l=$(listeners "${rpid[1]}") || l=
touch "$tmp/go"
okr=0
for r in 0 1 2; do
	wait "${rpid[$r]}" && grep -q "^rank $r: [0-9]* passed, 0 failed" "$tmp/r$r.out" && okr=$((okr + 1))
	rpid[$r]=-1
done
[ "$okr" -eq 3 ] && [ "$(echo "$l" | grep -c .)" -eq 1 ] && echo "$l" | grep -q '^127\.0\.0\.3:' \
	&& ok "INC_BIND_ADDR=127.0.0.3: rank 1 listens there only ($l), the job completes" \
	|| ko "INC_BIND_ADDR: $okr of 3 ranks passed, rank 1 listeners: $(echo $l)"
finish
