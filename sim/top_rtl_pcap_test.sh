#!/usr/bin/env bash
# Suite rtl-pcap: build/bin/inc-rtl-pcap (the Verilated RTL) writes the same
# bytes as build/bin/inc-pcap (the model) on every committed capture and on
# padded short frames, for compress and decompress, with and without stalls
# and with other options; at DATA_WIDTH 256 and 512 (--width 512); on
# captures of a lossy link (flipped compressed frames), the same frames and
# the same drops by reason as inc-pcap.
set -u
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. tests/lib.sh
check() {   # check NAME CMD...: run both tools with the same arguments
	local name=$1; shift
	local mode=$1 in=$2; shift 2
	if ! build/bin/inc-pcap "$mode" "$in" "$tmp/ref.pcap" "$@" 2>"$tmp/ref.err"; then
		echo "FAIL $name: inc-pcap failed: $(tail -n 1 "$tmp/ref.err")"; fail=$((fail + 1)); return
	fi
	for w in 256 512; do
	for st in "" --stall; do
		if ! build/bin/inc-rtl-pcap "$mode" "$in" "$tmp/rtl.pcap" "$@" $st --width $w >"$tmp/rtl.out" 2>&1; then
			echo "FAIL $name $st --width $w: inc-rtl-pcap failed: $(tail -n 1 "$tmp/rtl.out")"; fail=$((fail + 1))
		elif ! grep -q "^beats/cycle ($w-bit)" "$tmp/rtl.out"; then
			echo "FAIL $name $st --width $w: not run at $w bits: $(tail -n 1 "$tmp/rtl.out")"; fail=$((fail + 1))
		elif cmp -s "$tmp/ref.pcap" "$tmp/rtl.pcap"; then
			pass=$((pass + 1))
		else
			echo "FAIL $name $st --width $w: output differs from inc-pcap ($(cmp "$tmp/ref.pcap" "$tmp/rtl.pcap" | head -n 1))"
			fail=$((fail + 1))
		fi
	done
	done
}
files=(tests/fixtures/*.pcap)
if [ ! -e "${files[0]}" ]; then
	ko "no captures in tests/fixtures"; finish
fi
for f in "${files[@]}"; do
	b=$(basename "$f" .pcap)
	check "$b compress" compress "$f"
	check "$b compress eb6" compress "$f" --error-bound 6
	check "$b compress tos 0x28/0xff" compress "$f" --tos 0x28/0xff
	build/bin/inc-pcap compress "$f" "$tmp/$b.c.pcap" 2>/dev/null
	check "$b decompress" decompress "$tmp/$b.c.pcap"
	check "$b decompress raw" decompress "$f"
	check "$b decompress tos 0/0" decompress "$tmp/$b.c.pcap" --tos 0/0
done
# Short frames with Ethernet padding (zeros to 60, junk to 64, with and
# without VLAN, payloads 0..40), and their compressed frames padded again by
# the far MAC (tools/tests/padded.c): RTL == model both ways.
for seed in 11 12; do
	build/tests/padded gen "$tmp/pad.pcap" $seed >/dev/null
	check "padded seed $seed compress" compress "$tmp/pad.pcap"
	check "padded seed $seed compress eb6" compress "$tmp/pad.pcap" --error-bound 6
	build/bin/inc-pcap compress "$tmp/pad.pcap" "$tmp/pad.c.pcap" 2>/dev/null
	build/tests/padded pad "$tmp/pad.c.pcap" "$tmp/pad.cp.pcap" $seed
	check "padded seed $seed decompress (compressed frames padded)" decompress "$tmp/pad.cp.pcap"
	check "padded seed $seed decompress raw" decompress "$tmp/pad.pcap"
done
# A lossy link: compressed frames with single-bit flips in the shim (tag-word
# sum, magic), the stream and the tail (sim/flip-frames.py). The engine
# drops the frames whose payload checksum fails; inc-rtl-pcap must write the
# same frames as inc-pcap, in order, and count the same drops by reason.
lossy() {   # lossy NAME IN
	local name=$1 in=$2 want reasons w st got
	if ! build/bin/inc-pcap decompress "$in" "$tmp/ref.pcap" >"$tmp/ref.out" 2>&1; then
		echo "FAIL $name: inc-pcap failed: $(tail -n 1 "$tmp/ref.out")"; fail=$((fail + 1)); return
	fi
	want=$(sed -nE 's/.*, dropped ([0-9]+).*/\1/p' "$tmp/ref.out" | head -n 1)
	# the reasons that drop, in the order of the reason codes
	reasons=$(for r in oversize bad_payload_csum; do
		sed -nE "s/.*by reason .* $r ([0-9]+).*/$r=\\1/p" "$tmp/ref.out" | head -n 1
	done | tr '\n' ' ' | sed 's/ $//')
	if [ -z "$want" ] || [ "$want" -eq 0 ]; then
		echo "FAIL $name: the capture has no frame inc-pcap drops"; fail=$((fail + 1)); return
	fi
	for w in 256 512; do
	for st in "" --stall; do
		if ! build/bin/inc-rtl-pcap decompress "$in" "$tmp/rtl.pcap" $st --width $w >"$tmp/rtl.out" 2>&1; then
			echo "FAIL $name $st --width $w: inc-rtl-pcap failed: $(tail -n 1 "$tmp/rtl.out")"; fail=$((fail + 1))
		elif ! cmp -s "$tmp/ref.pcap" "$tmp/rtl.pcap"; then
			echo "FAIL $name $st --width $w: output differs from inc-pcap ($(cmp "$tmp/ref.pcap" "$tmp/rtl.pcap" | head -n 1))"
			fail=$((fail + 1))
		elif ! grep -q ", $want dropped\$" "$tmp/rtl.out" ||
		     ! grep -q "^dropped by reason (engine): $reasons\$" "$tmp/rtl.out"; then
			got=$(grep -E 'dropped' "$tmp/rtl.out" | head -n 2 | tr '\n' ' ')
			echo "FAIL $name $st --width $w: drops '$got', want $want ($reasons)"; fail=$((fail + 1))
		else
			pass=$((pass + 1))
		fi
	done
	done
	echo "lossy $name: $want frames dropped ($reasons), the others identical to inc-pcap"
}
for f in "${files[@]}"; do
	b=$(basename "$f" .pcap)
	build/bin/inc-pcap compress "$f" "$tmp/$b.c.pcap" >/dev/null 2>&1
	sim/flip-frames.py "$tmp/$b.c.pcap" "$tmp/$b.flip.pcap" >/dev/null
	# captures with no whole compressed frame (snap96) have nothing to flip
	if build/bin/inc-pcap decompress "$tmp/$b.flip.pcap" /dev/null 2>&1 | grep -q ', dropped'; then
		lossy "$b flipped" "$tmp/$b.flip.pcap"
	fi
done
build/tests/padded gen "$tmp/pad.pcap" 13 >/dev/null
build/bin/inc-pcap compress "$tmp/pad.pcap" "$tmp/pad.c.pcap" 2>/dev/null
sim/flip-frames.py "$tmp/pad.c.pcap" "$tmp/pad.flip.pcap" 400 >/dev/null
lossy "padded seed 13 flipped (frames with a tail)" "$tmp/pad.flip.pcap"
# A bad invocation fails with one line and a non-zero status.
for bad in "bogus x y" "compress x y --width 384"; do
	if build/bin/inc-rtl-pcap $bad >/dev/null 2>"$tmp/err" || [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
		echo "FAIL '$bad' not rejected with one line"; fail=$((fail + 1))
	else
		pass=$((pass + 1))
	fi
done
finish
