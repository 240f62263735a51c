#!/usr/bin/env bash
# Suite userlib-nicemu: the all-reduce with compression on the wire. The
# emulated cluster's bridge is replaced by nic-switch, which passes every
# frame through the model's inc_frame_compress (sender's NIC) and
# inc_frame_decompress (receiver's NIC). ar-check -p then expects nic mode to
# quantise on every hop, bit for bit, and every rank to end identical: this
# checks the owner step, the float alignment of every tagged segment (a
# misaligned one would decode to different values), and that the hello and
# call-header floats survive the codec. Untagged modes must pass unchanged.
# Needs root; removes its namespaces on exit.
#
# The same suite on the RTL (suite userlib-nicemu-rtl): NICEMU_SWITCH_ARGS
# gives the switch's options (e.g. "-b rtl -x" with nic-switch-rtl: every
# frame through Verilated compress and decompress engines, cross-checked
# with the model; the switch's exit status then also says whether the NICs'
# CSR counters equal its own counts), NICEMU_RANKS the cluster size [3],
# NICEMU_SIZES the sizes of the main run, NICEMU_SEG the segmented run's
# size [100000], NICEMU_EF_SIZE and NICEMU_EF_CALLS the error-feedback
# run's size and calls per case [65541, 4], NICEMU_EF_MODES its modes
# [nic,software], NICEMU_EF_SCALED_CALLS the scaled run's calls per case
# (at least 3, for its check that the scaling scaled) [4], NICEMU_UNTAGGED_SIZES
# the sizes of the untagged modes' run [1000,65541]. NICEMU_OFFLOAD=1 (suite
# userlib-nicemu-gso): the nodes keep TSO and checksum offload, so the
# switch's NICs cut super-frames into segments and coalesce them again
# (nic-switch, "Super-frames").
set -u
cd "$(dirname "$0")/../.."
ar=${1:-build/userlib-test/ar-check}
sw=${2:-build/userlib-test/nic-switch}
efc=${3:-build/userlib-test/ef-check}
cl=cluster/netns-cluster.sh
prefix=incnic$$
n=${NICEMU_RANKS:-3}
sizes=${NICEMU_SIZES:-1,7,1000,65541,300007}
segsize=${NICEMU_SEG:-100000}
read -r -a swargs <<<"${NICEMU_SWITCH_ARGS:-}"
tmp=$(mktemp -d)
. tests/lib.sh
swpid=
cleanup() {
	[ -n "$swpid" ] && kill "$swpid" 2>/dev/null
	"$cl" down -p "$prefix"
	rm -rf "$tmp"
}
trap cleanup EXIT
require_root userlib-nicemu
"$cl" up -p "$prefix" -n $n -x ${NICEMU_OFFLOAD:+-o} || { ko "the namespaces could not be created"; finish; }
ports=()
for ((i = 0; i < n; i++)); do ports+=("v$i"); done
"$cl" br -p "$prefix" "$sw" "${swargs[@]}" "${ports[@]}" >"$tmp/switch.log" 2>&1 &
swpid=$!
for i in $(seq 100); do grep -q "nic-switch:" "$tmp/switch.log" && break; sleep 0.1; done

run() {  # NAME PORT ARGS...
	local name=$1 port=$2 i rc=0 pids=() out p f
	shift 2
	for ((i = 0; i < n; i++)); do
		"$cl" exec -p "$prefix" $i env INC_RANK=$i INC_WORLD_SIZE=$n \
			INC_MASTER_ADDR=10.99.0.1 INC_MASTER_PORT=$port INC_COMPRESSION=nic \
			INC_TIMEOUT_MS=${NICEMU_TIMEOUT_MS:-30000} "$ar" -q -p "$@" >"$tmp/$name.$i.log" 2>&1 &
		pids+=($!)
	done
	for i in "${pids[@]}"; do wait "$i" || rc=1; done
	for ((i = 0; i < n; i++)); do
		out=$(tail -n 1 "$tmp/$name.$i.log")
		p=$(sed -nE 's/^rank [0-9]+: ([0-9]+) passed, ([0-9]+) failed$/\1/p' <<<"$out")
		f=$(sed -nE 's/^rank [0-9]+: ([0-9]+) passed, ([0-9]+) failed$/\2/p' <<<"$out")
		if [ -z "$p" ]; then p=0; f=1; fi
		[ "$f" -ne 0 ] && grep -E 'FAIL|ar-check' "$tmp/$name.$i.log" | head -n 5
		pass=$((pass + p)); fail=$((fail + f))
	done
	[ $rc -eq 0 ] || { fail=$((fail + 1)); echo "$name: a rank failed"; }
	echo "$name: $*: done"
}
run nic 29500 -m nic -a ring,wa -s "$sizes"
run nic-seg 29501 -m nic -a ring -g 4096 -s "$segsize"
run untagged 29502 -m none,software -a ring,wa -s "${NICEMU_UNTAGGED_SIZES:-1000,65541}"
# Error feedback through the NICs: the host quantises before the tagged
# socket, so the invariant holds whether a NIC compresses a frame or lets
# it pass (short frames, frames that would not shrink).
ar=$efc run ef 29504 -m "${NICEMU_EF_MODES:-nic,software}" -a ring,wa -s "${NICEMU_EF_SIZE:-65541}" \
	-c "${NICEMU_EF_CALLS:-4}"
# ... and with the adaptive scaling's states (the values the NICs see are
# the scaled ones; the exponents travel in the call header)
ar=$efc run ef-scaled 29505 -m nic -a ring,wa -s 20011 -c "${NICEMU_EF_SCALED_CALLS:-4}" -A
# The switch's float-boundary monitor must be able to fail: a tagged
# connection written in 1001-byte pieces with TCP_NODELAY (the payloads are
# not floats, so the NICs' quantisation does not matter) must be counted.
"$cl" exec -p "$prefix" 1 timeout 30 userlib/tests/odd-writes.py serve 29503 &
srv=$!
for i in $(seq 100); do
	"$cl" exec -p "$prefix" 1 ss -ltn | grep -q ":29503 " && break
	sleep 0.1
done
"$cl" exec -p "$prefix" 0 timeout 30 userlib/tests/odd-writes.py send 10.99.0.2 29503 20
wait "$srv"

kill "$swpid"; wait "$swpid" 2>/dev/null; swrc=$?; swpid=
stats=$(grep -E '^frames ' "$tmp/switch.log")
echo "nic-switch: $stats"
grep -E '^rtl: |^nic-switch: frame' "$tmp/switch.log"
if [ "$swrc" -eq 0 ]; then
	pass=$((pass + 1)); echo "ok   nic-switch exited cleanly${swargs[*]:+ (${swargs[*]}: no cross-check difference, CSR counters equal its counts)}"
else
	fail=$((fail + 1)); echo "FAIL nic-switch exit status $swrc"; tail -n 5 "$tmp/switch.log"
fi
comp=$(sed -nE 's/.* compressed ([0-9]+) .*/\1/p' <<<"$stats")
bin=$(sed -nE 's/.* bytes_in ([0-9]+) .*/\1/p' <<<"$stats")
bw=$(sed -nE 's/.* bytes_wire ([0-9]+).*/\1/p' <<<"$stats")
mal=$(sed -nE 's/.* malformed ([0-9]+) .*/\1/p' <<<"$stats")
if [ -n "$comp" ] && [ "$comp" -gt "${NICEMU_MIN_COMP:-100}" ]; then
	pass=$((pass + 1)); echo "ok   $comp frames compressed on the wire"
else
	fail=$((fail + 1)); echo "FAIL too few compressed frames: ${comp:-none}"
fi
if [ -n "$bw" ] && [ "$bw" -lt "$bin" ]; then
	pass=$((pass + 1)); echo "ok   wire bytes $bw < $bin sent ($(( 100 * bw / bin ))%)"
else
	fail=$((fail + 1)); echo "FAIL wire bytes ${bw:-?} not below ${bin:-?}"
fi
[ "${mal:-1}" -eq 0 ] && { pass=$((pass + 1)); echo "ok   no malformed frames"; } \
	|| { fail=$((fail + 1)); echo "FAIL malformed frames: ${mal:-?}"; }
# Format v2: every restored segment verified against the TCP checksum the
# kernel computed, carried through the sender's NIC.
bad=$(sed -nE 's/.* bad_payload_csum ([0-9]+).*/\1/p' <<<"$stats")
[ "${bad:-1}" -eq 0 ] && { pass=$((pass + 1)); echo "ok   every restored segment passed its TCP checksum"; } \
	|| { fail=$((fail + 1)); echo "FAIL payload checksum drops: ${bad:-?}"; }
# Every tagged segment of the library's sockets float-aligned; the odd
# writes of the control above are the only misaligned ones (the first is
# 1001 bytes at offset 0, every later one starts off a float boundary).
mis=$(sed -nE 's/.* misaligned ([0-9]+).*/\1/p' <<<"$stats")
nctl=$(grep -c 'misaligned tagged segment: port [0-9]* -> 29503,' "$tmp/switch.log")
if [ "${mis:-0}" -ge 10 ] && [ "$nctl" -eq 10 ]; then
	pass=$((pass + 1)); echo "ok   misaligned tagged segments: only the odd-write control's ($mis)"
else
	fail=$((fail + 1)); echo "FAIL misaligned tagged segments: ${mis:-?}, of the control among the first ten: $nctl"
	grep 'misaligned tagged segment' "$tmp/switch.log" | head -n 10
fi
# With offloads (NICEMU_OFFLOAD): the nodes' super-frames were cut by the
# sending NICs and passed up whole by the receiving ones, none lost.
if [ -n "${NICEMU_OFFLOAD:-}" ]; then
	seg=$(sed -nE 's/.* segmented ([0-9]+) coalesced ([0-9]+) gso_dropped ([0-9]+) gso_other ([0-9]+).*/\1 \2 \3 \4/p' <<<"$stats")
	read -r gs gc gd go <<<"${seg:-0 0 1 1}"
	if [ "$gs" -gt 100 ] && [ "$gc" -ge "$gs" ] && [ "$gd" -eq 0 ] && [ "$go" -eq 0 ]; then
		pass=$((pass + 1)); echo "ok   $gs super-frames cut into segments, $gc passed up whole"
	else
		fail=$((fail + 1)); echo "FAIL super-frames: segmented ${gs}, coalesced ${gc}, dropped ${gd}, other ${go}"
	fi
fi
finish
