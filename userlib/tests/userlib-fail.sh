#!/usr/bin/env bash
# Suite userlib-fail: a peer that dies (SIGKILL), stalls (SIGSTOP) or never
# starts makes every other rank's call return an error within the timeout;
# ranks that disagree about a call (count, mode, a skipped call, algorithm,
# scale, seed, scaling state) all fail at once, ranks that differ only in a
# setting their mode does not use do not;
# inc-run propagates a failing rank's status and stops the others; bad
# environment values give INC_E_ENV. Last line "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
fc=${1:-build/userlib-test/fail-check}
run=build/bin/inc-run
. tests/lib.sh
one() {
	local out p f
	out=$(timeout 120 "$fc" "$@" 2>&1)
	echo "$out" | grep -vE '^[0-9]+ passed' | sed 's/^/  /'
	p=$(echo "$out" | sed -nE 's/^([0-9]+) passed, ([0-9]+) failed$/\1/p' | tail -n 1)
	f=$(echo "$out" | sed -nE 's/^([0-9]+) passed, ([0-9]+) failed$/\2/p' | tail -n 1)
	[ -z "$p" ] && { p=0; f=1; echo "  no result line: $*"; }
	echo "fail-check $*: $p passed, $f failed"
	pass=$((pass + p)); fail=$((fail + f))
}
one -n 4 -x kill -v 2 -t 3000
one -n 4 -x stop -v 1 -t 1500
one -n 3 -x kill -v 0 -t 3000 -m nic
one -n 5 -x kill -v 4 -t 3000 -m software
one -n 4 -x kill -v 0 -t 3000 -a wa
one -n 4 -x kill -v 2 -t 3000 -a wa -m software
one -n 3 -x stop -v 0 -t 1500 -a wa
one -n 3 -x absent -v 2 -t 1500
one -n 2 -x stop -v 1 -t 1000 -c 100
# Non-blocking calls: 4 or 8 requests in flight when the peer dies or
# stalls; every rank's inc_wait fails within the timeout, no thread left.
one -n 4 -x kill -v 2 -t 3000 -i 4
one -n 3 -x kill -v 0 -t 3000 -i 8 -m nic
one -n 5 -x kill -v 3 -t 3000 -i 4 -m software -a wa
one -n 3 -x stop -v 1 -t 1500 -i 4 -m software
# Ranks that disagree about a call: every rank fails, none hangs.
one -n 4 -x mismatch1 -v 2 -t 3000
one -n 3 -x mismatch2 -v 0 -t 3000 -m nic
one -n 4 -x mismatch3 -v 1 -t 3000
one -n 3 -x mismatch1 -v 0 -t 3000 -a wa -m software
one -n 3 -x mismatch3 -v 2 -t 3000 -a wa
# ... about the algorithm, the scale, the seed, the scaling state: every rank
# fails at once (within MARGIN_MS), not after the 20 s timeout; ranks that
# differ only in a setting their mode does not use work together.
one -n 2 -x mismatch4 -v 1 -t 20000
one -n 3 -x mismatch4 -v 0 -t 20000 -a wa -m software
one -n 3 -x mismatch5 -v 1 -t 20000 -m nic
one -n 3 -x mismatch6 -v 2 -t 20000 -m sketch
one -n 3 -x mismatch7 -v 1 -t 20000 -m software
one -n 4 -x mismatch7 -v 0 -t 20000 -m software -a wa
one -n 3 -x agree8 -v 1 -t 3000
one -n 3 -x agree9 -v 2 -t 3000 -m software

# inc-run: a failing rank's status comes back and the others are stopped.
start=$(date +%s)
"$run" -n 3 sh -c 'if [ "$INC_RANK" = 1 ]; then exit 3; fi; exec sleep 60' 2>/dev/null
rc=$? secs=$(( $(date +%s) - start ))
[ "$rc" -eq 3 ] && [ "$secs" -lt 10 ] && ok "inc-run returns the failing rank's status 3 in ${secs}s" \
	|| ko "inc-run: status $rc after ${secs}s (want 3, < 10 s)"
"$run" -n 2 sh -c 'trap "" TERM; if [ "$INC_RANK" = 0 ]; then kill -9 $$; fi; exec sleep 60' 2>/dev/null
rc=$?
[ "$rc" -eq 137 ] && ok "inc-run: rank killed by SIGKILL -> 137, SIGTERM-proof rank killed" \
	|| ko "inc-run: status $rc, want 137"
"$run" -n 2 /nonexistent/program 2>/dev/null
rc=$?
[ "$rc" -eq 127 ] && ok "inc-run: missing program -> 127" || ko "inc-run: status $rc, want 127"
out=$("$run" -n 4 sh -c 'echo "$INC_RANK/$INC_WORLD_SIZE $INC_MASTER_ADDR $INC_MASTER_PORT"' | sort)
[ "$(echo "$out" | cut -d' ' -f1 | tr '\n' ' ')" = "0/4 1/4 2/4 3/4 " ] && \
	[ "$(echo "$out" | cut -d' ' -f3 | sort -u | wc -l)" -eq 1 ] && \
	ok "inc-run sets rank, size, master address and one port" || ko "inc-run environment: $out"
# The master port must lie outside the range the kernel gives to port-0
# binds and connects, where a rank's own socket could take it first.
read -r elo ehi </proc/sys/net/ipv4/ip_local_port_range
bad=0
for _ in 1 2 3 4 5 6 7 8; do
	p=$("$run" -n 1 sh -c 'echo "$INC_MASTER_PORT"')
	{ [ "$p" -ge 1024 ] && [ "$p" -le 65535 ] && { [ "$p" -lt "$elo" ] || [ "$p" -gt "$ehi" ]; }; } || bad="$p"
done
[ "$bad" = 0 ] && ok "inc-run: master ports outside the ephemeral range $elo-$ehi" \
	|| ko "inc-run: master port $bad inside the ephemeral range $elo-$ehi"
"$run" -n 1 true && ok "inc-run -n 1 true" || ko "inc-run -n 1 true"
"$run" -n 0 true 2>/dev/null; [ $? -eq 2 ] && ok "inc-run -n 0 rejected" || ko "inc-run -n 0 accepted"

# Bad environment: the init call returns INC_E_ENV (-33), it does not hang.
envt() {  # expected-rc description VAR=VALUE...
	local want=$1 what=$2; shift 2
	local rc
	env -u RANK -u WORLD_SIZE -u MASTER_ADDR -u MASTER_PORT "$@" \
		"$fc" -x envcheck >/dev/null 2>&1
	rc=$?
	[ "$rc" -eq "$want" ] && ok "env: $what" || ko "env: $what: exit $rc, want $want"
}
envt 33 "no rank variables"
envt 33 "rank >= size" INC_RANK=2 INC_WORLD_SIZE=2 INC_MASTER_ADDR=127.0.0.1 INC_MASTER_PORT=1
envt 33 "bad port" INC_RANK=0 INC_WORLD_SIZE=2 INC_MASTER_ADDR=127.0.0.1 INC_MASTER_PORT=99999
envt 33 "bad compression" INC_RANK=0 INC_WORLD_SIZE=1 INC_COMPRESSION=zip
envt 33 "bad error bound" INC_RANK=0 INC_WORLD_SIZE=1 INC_ERROR_BOUND=0
envt 0 "fallback RANK/WORLD_SIZE, size 1" RANK=0 WORLD_SIZE=1
envt 36 "master unreachable" INC_RANK=1 INC_WORLD_SIZE=2 INC_MASTER_ADDR=127.0.0.1 \
	INC_MASTER_PORT=9 INC_TIMEOUT_MS=300
finish
