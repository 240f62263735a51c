#!/usr/bin/env bash
# Consistency check of the clock estimate (synth/timing.py) on a public
# design with a known clock: axis_xgmii_rx_64 of Alex Forencich's
# verilog-ethernet (the 10G MAC's receive path, 64-bit XGMII with a 64-bit
# parallel CRC-32), which that project runs at 156.25 MHz on the VC709's
# Virtex-7 in its 10G example design. The same Yosys flow as make synth
# (synth/xc7.ys) and the same delay table; the source is not part of this
# repository: give a checkout of verilog-ethernet.
#   synth/timing-calibrate.sh PATH/TO/verilog-ethernet
set -eu
cd "$(dirname "$0")/.."
src=${1:?usage: synth/timing-calibrate.sh PATH/TO/verilog-ethernet}
for f in rtl/lfsr.v rtl/axis_xgmii_rx_64.v; do
	[ -f "$src/$f" ] || { echo "timing-calibrate: $src/$f not found (want a verilog-ethernet checkout)" >&2; exit 2; }
done
out=build/synth/calibrate
mkdir -p "$out"
sed "s|@OUT@|$out/axis_xgmii_rx_64|g" synth/xc7.ys >"$out/axis_xgmii_rx_64.ys"
nice yosys -q -l "$out/axis_xgmii_rx_64.log" -p "read_verilog $src/rtl/lfsr.v $src/rtl/axis_xgmii_rx_64.v; \
	hierarchy -check -top axis_xgmii_rx_64; script $out/axis_xgmii_rx_64.ys" >/dev/null
synth/timing.py "$out/axis_xgmii_rx_64.json" --top axis_xgmii_rx_64 | tee "$out/axis_xgmii_rx_64.timing.txt" | head -n 1
echo "published: 156.25 MHz (6.4 ns) on Virtex-7 (VC709 10G example design); an estimate at or above it is consistent"
