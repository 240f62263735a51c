#!/usr/bin/env bash
# Suite wireshark: the Lua dissector tools/wireshark/inceptionn.lua under
# tshark, against inc-pcap for the same frames.
#
# 1. Every capture in tests/fixtures compressed by inc-pcap: one dissected
#    INCEPTIONN frame per compressed frame, version 2, every tag-word sum
#    correct, and the sums of orig_len, payload_len and the four class
#    counts equal inc-pcap's payload_before, payload_after and
#    values_2bit/10bit/18bit/34bit; groups = ceil(n/8) per frame; frames
#    that are not compressed still dissected as TCP.
# 2. The tag-word sum of one compressed frame flipped: exactly that frame
#    has inceptionn.tag_sum_ok false (and inc-pcap decompress drops it).
# 3. (root) A capture of the emulated cluster's wire (nic-switch -w, two
#    ranks running the all-reduce in nic mode): the dissector's sums equal
#    what inc-pcap decompress reports for the same capture.
#
#   test_wireshark.sh [INC_PCAP [NIC_SWITCH [AR_CHECK]]]
# Last line: "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
pcapt=${1:-build/bin/inc-pcap}
sw=${2:-build/userlib-test/nic-switch}
ar=${3:-build/userlib-test/ar-check}
lua=tools/wireshark/inceptionn.lua
t=$(mktemp -d /tmp/inc-wireshark.XXXXXX)
prefix=incws$$
cl=cluster/netns-cluster.sh
swpid=
cleanup() {
	[ -n "$swpid" ] && kill "$swpid" 2>/dev/null
	[ -n "${up:-}" ] && "$cl" down -p "$prefix"
	rm -rf "$t"
}
trap cleanup EXIT
. tests/lib.sh
check() { # check DESCRIPTION COMMAND...
	local d=$1; shift
	if "$@"; then ok "$d"; else ko "$d"; fi
}
kv() { tr ' ' '\n' <"$2" | sed -n "s/^$1=//p"; }

if ! command -v tshark >/dev/null; then
	ko "tshark is not installed (make deps)"
	finish
fi
ts() { tshark -X lua_script:"$lua" "$@" 2>"$t/tshark.err"; }

# Sums of the dissector's fields over a capture: frames version_ok tag_sum_ok
# orig_len payload_len v2 v10 v18 v34 groups groups_expected
fields() {
	ts -r "$1" -Y inceptionn -T fields -e inceptionn.version -e inceptionn.tag_sum_ok \
		-e inceptionn.orig_len -e inceptionn.payload_len -e inceptionn.values_2bit \
		-e inceptionn.values_10bit -e inceptionn.values_18bit -e inceptionn.values_34bit \
		-e inceptionn.groups |
	awk '{ n++; v += ($1 == 2); ok += ($2 == 1 || $2 == "True"); for (i = 3; i <= 9; i++) s[i] += $i
	       g += int((int($3 / 4) + 7) / 8) }
	     END { printf "%d %d %d %d %d %d %d %d %d %d %d\n", n, v, ok, s[3], s[4], s[5], s[6], s[7], s[8], s[9], g }'
}

# compare NAME FIELDS-SUMS KV-FILE COUNT-KEY
compare() {
	local name=$1 kvf=$3 key=$4 n v okc ol pl a b c d g ge
	read -r n v okc ol pl a b c d g ge <<<"$2"
	check "$name: one dissected frame per $key frame ($n vs $(kv "$key" "$kvf"))" \
		test "$n" = "$(kv "$key" "$kvf")"
	check "$name: every frame version 2" test "$v" = "$n"
	check "$name: every tag-word sum correct ($okc of $n)" test "$okc" = "$n"
	check "$name: orig_len sum = inc-pcap's original payload bytes" \
		test "$ol" = "$(kv "$([ "$key" = compressed ] && echo payload_before || echo payload_after)" "$kvf")"
	check "$name: payload_len sum = inc-pcap's compressed payload bytes" \
		test "$pl" = "$(kv "$([ "$key" = compressed ] && echo payload_after || echo payload_before)" "$kvf")"
	check "$name: values_2bit = inc-pcap's ($a)" test "$a" = "$(kv values_2bit "$kvf")"
	check "$name: values_10bit = inc-pcap's ($b)" test "$b" = "$(kv values_10bit "$kvf")"
	check "$name: values_18bit = inc-pcap's ($c)" test "$c" = "$(kv values_18bit "$kvf")"
	check "$name: values_34bit = inc-pcap's ($d)" test "$d" = "$(kv values_34bit "$kvf")"
	check "$name: groups = ceil(n/8) per frame" test "$g" = "$ge"
}

for in in tests/fixtures/*.pcap; do
	name=$(basename "$in" .pcap)
	"$pcapt" compress "$in" "$t/$name.c.pcap" --kv 2>"$t/$name.kv" ||
		{ ko "$name: inc-pcap compress failed"; continue; }
	sums=$(fields "$t/$name.c.pcap")
	check "$name: tshark loads the dissector" test ! -s "$t/tshark.err" -o -z "$(grep -v 'Running as user' "$t/tshark.err")"
	compare "$name" "$sums" "$t/$name.kv" compressed
	# Frames that are not compressed are still TCP.
	tcp_orig=$(tshark -r "$in" -Y tcp 2>/dev/null | wc -l)
	tcp_left=$(ts -r "$t/$name.c.pcap" -Y "tcp && !inceptionn" | wc -l)
	ncomp=$(kv compressed "$t/$name.kv")
	check "$name: uncompressed frames dissected as TCP ($tcp_left = $tcp_orig - $ncomp)" \
		test "$tcp_left" -eq $((tcp_orig - ncomp))
	echo "$name: $ncomp compressed frames, dissector sums $sums"
done

# A flipped tag-word sum in the first compressed frame of a capture.
python3 - "$t/inc-plain.c.pcap" "$t/flip.pcap" <<'EOF'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
off = 24
while off + 16 <= len(d):
    incl = struct.unpack_from('<I', d, off + 8)[0]
    f = off + 16
    l3 = 18 if d[f + 12:f + 14] == b'\x81\x00' else 14
    if d[f + l3 - 2:f + l3] == b'\x08\x00' and d[f + l3 + 9] == 253:
        ihl = (d[f + l3] & 15) * 4
        thl = (d[f + l3 + ihl + 12] >> 4) * 4
        d[f + l3 + ihl + thl + 5] ^= 0x01      # low byte of the tag-word sum
        break
    off = f + incl
open(sys.argv[2], 'wb').write(d)
EOF
nbad=$(ts -r "$t/flip.pcap" -Y "inceptionn.tag_sum_ok == 0" | wc -l)
ngood=$(ts -r "$t/flip.pcap" -Y "inceptionn.tag_sum_ok == 1" | wc -l)
ncomp=$(kv compressed "$t/inc-plain.kv")
check "flipped tag-word sum: exactly one frame flagged ($nbad)" test "$nbad" -eq 1
check "flipped tag-word sum: the others still correct ($ngood)" test "$ngood" -eq $((ncomp - 1))
check "flipped tag-word sum: the dissector says why" \
	sh -c "tshark -X lua_script:$lua -r $t/flip.pcap -Y 'inceptionn.tag_sum_ok == 0' -V 2>/dev/null | grep -q 'Tag-word sum wrong'"
"$pcapt" decompress "$t/flip.pcap" "$t/flip.d.pcap" --kv 2>"$t/flip.kv"
check "flipped tag-word sum: inc-pcap decompress drops that frame" test "$(kv dropped "$t/flip.kv")" = 1

# A capture of the emulated cluster's wire.
if [ "$(id -u)" -ne 0 ] || [ ! -x "$sw" ] || [ ! -x "$ar" ]; then
	skip "the nic-switch capture needs root, $sw and $ar"
else
	n=2
	if "$cl" up -p "$prefix" -n $n -x >/dev/null; then
		up=1
		"$cl" br -p "$prefix" "$sw" -c 1 -w "$t/wire.pcap" v0 v1 >"$t/switch.log" 2>&1 &
		swpid=$!
		for _ in $(seq 100); do grep -q "nic-switch:" "$t/switch.log" && break; sleep 0.1; done
		pids=()
		for ((i = 0; i < n; i++)); do
			"$cl" exec -p "$prefix" $i env INC_RANK=$i INC_WORLD_SIZE=$n INC_MASTER_ADDR=10.99.0.1 \
				INC_MASTER_PORT=29510 INC_COMPRESSION=nic INC_TIMEOUT_MS=30000 \
				"$ar" -q -p -m nic -a ring -s 1000,65541 >"$t/rank$i.log" 2>&1 &
			pids+=($!)
		done
		rc=0
		for p in "${pids[@]}"; do wait "$p" || rc=1; done
		check "cluster: the all-reduce ran" test $rc -eq 0
		kill "$swpid"; wait "$swpid" 2>/dev/null; swrc=$?; swpid=
		check "cluster: nic-switch exited cleanly (every frame cross-checked)" test "$swrc" -eq 0
		"$pcapt" decompress "$t/wire.pcap" "$t/wire.d.pcap" --kv 2>"$t/wire.kv"
		sums=$(fields "$t/wire.pcap")
		check "cluster: compressed frames on the wire" test "${sums%% *}" -gt 0
		compare "nic-switch capture" "$sums" "$t/wire.kv" decompressed
		echo "nic-switch capture: $(kv frames "$t/wire.kv") frames, $(kv decompressed "$t/wire.kv") compressed, dissector sums $sums"
	else
		ko "cluster: could not create the namespaces"
	fi
fi
finish
