#!/usr/bin/env bash
# make synth: Yosys synth_xilinx (7-series, the VC709's xc7vx690t) on the
# compress engine, the decompress engine and the offload top. Prints LUT,
# FF, BRAM (RAMB18/RAMB36), DSP and CARRY4 counts and the longest
# combinational path in cells (yosys ltp -noff: cells between flip-flops,
# RAM ports and I/O), and a clock estimate of the mapped netlist
# (scripts/timing.py with the Virtex-7 -2 delay table synth/xc7-2-delays.txt:
# worst path, Fmax, LUT levels). Results in build/synth/ (TOP.log,
# TOP.stat.txt, TOP.ltp.txt, TOP.json, TOP.timing.txt, summary.txt).
# TOP@512 synthesises TOP with DATA_WIDTH 512 (results named TOP_w512).
#   scripts/synth.sh [TOP[@512]...]   default: the three at 256, the engines at 512
set -eu
cd "$(dirname "$0")/.."
out=build/synth
mkdir -p "$out"
tops=("$@")
[ ${#tops[@]} -eq 0 ] && tops=(inc_compress_engine inc_decompress_engine inc_offload_top
	inc_compress_engine@512 inc_decompress_engine@512)
srcs=$(ls rtl/*.v)
summary=$out/summary.txt
: >"$summary.new"
names=()
for spec in "${tops[@]}"; do
	mod=${spec%@*}
	chparam=
	top=$mod
	case $spec in
	*@512) chparam="chparam -set DATA_WIDTH 512 $mod;"; top=${mod}_w512 ;;
	*@*) echo "synth: $spec: the width must be 512 (256 is the default)" >&2; exit 2 ;;
	esac
	names+=("$top")
	sed "s|@OUT@|$out/$top|g" synth/xc7.ys >"$out/$top.ys"
	echo "synth: $top (log $out/$top.log)"
	start=$(date +%s)
	# Yosys narrows the data ports of block RAMs it maps in 1K x 18 mode and
	# warns once per port; those are counted, every other warning is shown.
	nice yosys -q -l "$out/$top.log" -p "read_verilog -Irtl $(echo $srcs); $chparam hierarchy -check -top $mod; script $out/$top.ys" \
		>/dev/null 2>"$out/$top.warn.txt" || { cat "$out/$top.warn.txt" >&2; exit 1; }
	grep -v 'Resizing cell port ' "$out/$top.warn.txt" >&2 || true
	nres=$(grep -c 'Resizing cell port ' "$out/$top.warn.txt" || true)
	[ "$nres" -gt 0 ] && echo "synth: $top: $nres block RAM port-width warnings (ports narrowed to the mode used; see $out/$top.warn.txt)"
	secs=$(( $(date +%s) - start ))
	s=$out/$top.stat.txt
	cnt() { awk -v pat="$1" '$1 ~ pat { n += $2 } END { print n + 0 }' "$s"; }
	luts=$(cnt '^LUT[1-6]$')
	ffs=$(cnt '^FD[CPRSE]+$')
	b36=$(cnt '^RAMB36E1$')
	b18=$(cnt '^RAMB18E1$')
	lutram=$(cnt '^RAM(32|64|128|256)[MX0-9D]*$')
	dsp=$(cnt '^DSP48E1$')
	carry=$(cnt '^CARRY4$')
	ltp=$(grep -o 'Longest topological path in [^ ]* (length=[0-9]*)' "$out/$top.ltp.txt" | grep -o 'length=[0-9]*' | cut -d= -f2)
	# Clock estimate from the mapped netlist (synth/xc7-2-delays.txt).
	scripts/timing.py "$out/$top.json" --top "$mod" >"$out/$top.timing.txt" ||
		{ cat "$out/$top.timing.txt" >&2; exit 1; }
	fmax=$(sed -nE '1s/.*Fmax ([0-9]+) MHz.*/\1/p' "$out/$top.timing.txt")
	levels=$(sed -nE '1s/.* ([0-9]+) LUT levels.*/\1/p' "$out/$top.timing.txt")
	printf '%-22s LUT %6s  FF %6s  RAMB36 %3s  RAMB18 %3s  LUTRAM %4s  DSP %3s  CARRY4 %5s  longest path %s cells  est. Fmax %s MHz (%s LUT levels)  (%ss)\n' \
		"$top" "$luts" "$ffs" "$b36" "$b18" "$lutram" "$dsp" "$carry" "${ltp:-?}" "${fmax:-?}" "${levels:-?}" "$secs" | tee -a "$summary.new"
	sed -n '1p' "$out/$top.timing.txt"
done
# Keep the lines of tops not synthesised this time.
if [ -f "$summary" ]; then
	for top in "${names[@]}"; do sed -i "/^$top /d" "$summary"; done
	cat "$summary" >>"$summary.new"
fi
sort -o "$summary" "$summary.new" && rm -f "$summary.new"
