#!/usr/bin/env bash
# Suite userlib-nicemu-rtl: the all-reduce checks of userlib-nicemu with
# live Linux TCP between namespaces through the RTL: nic-switch-rtl gives
# every node a Verilated inc_offload_top (its own compress and decompress
# engine, configured over AXI4-Lite), cross-checked frame by frame with the
# model (-x), for 2 and 4 ranks (3, an odd ring, runs through the
# model's NICs in userlib-nicemu; here it took 90 s and covered nothing
# the 4-rank run's uneven chunks do not). ar-check -p expects every hop
# quantised exactly as the model does and every rank identical; the switch
# must end with no cross-check difference and every NIC's CSR counters
# equal to its own per-frame counts. The 2-rank run also asks for waveforms: frames
# 30-31 of every NIC (-t) and the first frame an engine gives no_payload
# (-T), and checks the FST files exist; a last run cross-checks against the
# model at another error bound (-X 6), which must stop the switch with the
# frames in mismatch.pcap. The error-feedback runs are smaller than with
# the model's NICs (20011 values and 3 calls per case, against 65541 and 4;
# nic mode only: software mode's frames are untagged, which the NICs pass
# as in the untagged run): the Verilated NICs forward about 2.5 Mbit/s of
# frames, and those runs took 90 % of the suite's time. The untagged modes
# run at 1000 values only (the NICs pass their frames as any other
# untagged ones; 65541 more values of them, through the model's NICs in
# userlib-nicemu). Needs root.
# Usage: userlib-nicemu-rtl.sh AR_CHECK NIC_SWITCH_RTL EF_CHECK
set -u
cd "$(dirname "$0")/../.."
ar=${1:-build/userlib-test/ar-check}
sw=${2:-build/userlib-test/nic-switch-rtl}
efc=${3:-build/userlib-test/ef-check}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. tests/lib.sh
require_root userlib-nicemu-rtl
for n in 2 4; do
	args="-b rtl -x"
	[ "$n" -eq 2 ] && args="$args -t 30-31 -T no_payload -d $tmp"
	echo "=== $n ranks, nic-switch-rtl $args"
	out=$(NICEMU_SWITCH_ARGS="$args" NICEMU_RANKS=$n NICEMU_SIZES=1,7,1000,20011 \
		NICEMU_SEG=30000 NICEMU_EF_SIZE=20011 NICEMU_EF_CALLS=3 NICEMU_EF_MODES=nic \
		NICEMU_EF_SCALED_CALLS=3 NICEMU_UNTAGGED_SIZES=1000 \
		userlib/tests/userlib-nicemu.sh "$ar" "$sw" "$efc" 2>&1)
	grep -E '^(ok|FAIL|rtl:|nic-switch:|[a-z-]+: a rank failed)' <<<"$out"
	last=$(tail -n 1 <<<"$out")
	p=$(sed -nE 's/^([0-9]+) passed, ([0-9]+) failed(, [0-9]+ skipped)?$/\1/p' <<<"$last")
	f=$(sed -nE 's/^([0-9]+) passed, ([0-9]+) failed(, [0-9]+ skipped)?$/\2/p' <<<"$last")
	[ -z "$p" ] && { p=0; f=1; echo "FAIL $n ranks: no result line"; }
	pass=$((pass + p)); fail=$((fail + f))
done
# The cross-check must catch a difference: the model at 2^-6 against the
# NICs at 2^-10 stops the switch (status 3) with the frames in mismatch.pcap.
echo "=== 2 ranks, nic-switch-rtl -b rtl -X 6 (cross-check against another error bound)"
mkdir -p "$tmp/x"
out=$(NICEMU_SWITCH_ARGS="-b rtl -X 6 -d $tmp/x" NICEMU_RANKS=2 NICEMU_SIZES=1000 NICEMU_TIMEOUT_MS=3000 \
	NICEMU_SEG=9000 userlib/tests/userlib-nicemu.sh "$ar" "$sw" "$efc" 2>&1)
# the run's own "FAIL nic-switch exit status 3" is the expected outcome here
grep -E '^nic-switch: frame|exit status' <<<"$out" | head -n 3 | sed 's/^FAIL nic-switch exit/expected: nic-switch exit/'
if grep -q 'FAIL nic-switch exit status 3' <<<"$out" && [ -s "$tmp/x/mismatch.pcap" ]; then
	pass=$((pass + 1)); echo "ok   a cross-check difference stops the switch and keeps the frames"
else
	fail=$((fail + 1)); echo "FAIL the cross-check did not catch a different error bound"
fi
for f in nic0.fst nic1.fst; do
	if [ -s "$tmp/$f" ] && [ "$(stat -c %s "$tmp/$f")" -gt 1000 ]; then
		pass=$((pass + 1)); echo "ok   waveform of frames 30-31: $f ($(stat -c %s "$tmp/$f") bytes)"
	else
		fail=$((fail + 1)); echo "FAIL no waveform $f for frames 30-31"
	fi
done
trig=$(ls "$tmp"/trigger-frame*-nic*-*.fst 2>/dev/null | head -n 1)
if [ -n "$trig" ] && [ -s "$trig" ]; then
	pass=$((pass + 1)); echo "ok   waveform of the first no_payload frame: $(basename "$trig")"
else
	fail=$((fail + 1)); echo "FAIL no trigger waveform"
fi
finish
