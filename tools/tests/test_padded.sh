#!/usr/bin/env bash
# Suite pcap-padded: short ToS 0x28 TCP frames with Ethernet padding (zeros
# to 60 bytes, junk to 64, with and without a VLAN tag, payloads of 0..40
# bytes) go through inc-pcap stats, compress and decompress; the round trip
# restores each frame's IP datagram (tools/tests/padded.c check); compressed
# frames padded again on the way (as the far MAC does) decompress to the
# same bytes as unpadded ones. Several seeds and error bounds.
# Last line "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
padded=${1:-build/tests/padded}
pcapt=${INC_BIN:-build/bin}/inc-pcap
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
. tests/lib.sh
for seed in 1 2 3; do
	for eb in 10 6; do
		n="seed $seed eb $eb"
		"$padded" gen "$t/p.pcap" "$seed" >/dev/null || { ko "$n: gen"; continue; }
		"$pcapt" stats "$t/p.pcap" --error-bound $eb >"$t/stats" 2>&1 && ok "$n: stats" \
			|| ko "$n: stats: $(tail -n 1 "$t/stats")"
		if ! "$pcapt" compress "$t/p.pcap" "$t/c.pcap" --error-bound $eb 2>"$t/err" ||
		   ! "$pcapt" decompress "$t/c.pcap" "$t/d.pcap" --error-bound $eb 2>>"$t/err"; then
			ko "$n: compress/decompress: $(tail -n 1 "$t/err")"; continue
		fi
		comp=$(sed -nE 's/.*compressed ([0-9]+),.*/\1/p' "$t/stats")
		[ "${comp:-0}" -gt 100 ] && ok "$n: $comp of 246 padded frames compressed" \
			|| ko "$n: only ${comp:-0} frames compressed"
		out=$("$padded" check "$t/p.pcap" "$t/d.pcap" $eb)
		grep -E '^FAIL' <<<"$out" | head -n 5
		f=$(sed -nE 's/^([0-9]+) passed, ([0-9]+) failed$/\2/p' <<<"$out")
		[ "${f:-1}" -eq 0 ] && ok "$n: every frame restored to its datagram ($(tail -n 1 <<<"$out"))" \
			|| ko "$n: round trip: $(tail -n 1 <<<"$out")"
		"$padded" pad "$t/c.pcap" "$t/cp.pcap" "$seed"
		"$pcapt" decompress "$t/cp.pcap" "$t/dp.pcap" --error-bound $eb 2>"$t/err" \
			|| { ko "$n: decompress of padded compressed frames: $(tail -n 1 "$t/err")"; continue; }
		cmp -s "$t/d.pcap" "$t/dp.pcap" && ok "$n: compressed frames padded to 60/64 decompress identically" \
			|| ko "$n: padded compressed frames decompress differently"
	done
done
finish
