#!/usr/bin/env bash
# make synth, one top per run: Yosys synth_xilinx (7-series, the VC709's
# xc7vx690t), then static timing of the mapped netlist in OpenSTA.
#   synth/synth.sh TOP[@512]...   (make synth runs one job per top)
#   synth/synth.sh --summary TOP[@512]...   (the summary of finished tops)
#   synth/synth.sh --sta TOP[@512]...   (time an existing TOP.json again)
#
# Per top, in build/synth/: TOP.log (Yosys), TOP.stat.txt (cells),
# TOP.ltp.txt (longest path in cells: yosys ltp -noff, between flip-flops,
# RAM ports and I/O), TOP.json (mapped netlist), TOP.lib (Liberty library
# from synth/xc7-2-delays.txt, synth/xc7-liberty.py), TOP.sdc (the clock
# of constraints/inc_offload_250.xdc and the exceptions of
# inc_offload_common.xdc), TOP.sta.txt (OpenSTA, synth/sta.tcl:
# report_checks worst path and ten worst end points, slack against 4.0 ns),
# TOP.timing.txt (the figure with register names and the cross-check
# against synth/timing.py), and TOP.result, the top's summary line,
# written last: a top without it did not finish. TOP@512 synthesises TOP with
# DATA_WIDTH 512 (results named TOP_w512).
set -eu
cd "$(dirname "$0")/.."
out=${SYNTH_OUT:-build/synth}
xdc=constraints/inc_offload_250.xdc
common=constraints/inc_offload_common.xdc
mkdir -p "$out"

name_of() {
	case $1 in
	*@512) echo "${1%@*}_w512" ;;
	*@*) echo "synth: $1: the width must be 512 (256 is the default)" >&2; return 2 ;;
	*) echo "$1" ;;
	esac
}

# --summary: every top asked for that finished, its limiting paths, and the
# ones that did not finish (exit 1 then).
if [ "${1:-}" = --summary ]; then
	shift
	missing=()
	for spec in "$@"; do
		top=$(name_of "$spec")
		if [ -f "$out/$top.result" ]; then
			cat "$out/$top.result"
			sed -n '3,5p' "$out/$top.timing.txt"
		else
			missing+=("$spec")
		fi
	done
	if [ ${#missing[@]} -gt 0 ]; then
		echo "synth: not finished: ${missing[*]} (see $out/TOP.log and TOP.warn.txt)"
		exit 1
	fi
	exit 0
fi

command -v sta >/dev/null || { echo "synth: OpenSTA (sta) not found: apt-get install opensta" >&2; exit 1; }
period=$(sed -nE 's/^create_clock .*-period ([0-9.]+).*/\1/p' "$xdc")

# Static timing of $out/$top.json: the netlist for OpenSTA (bit-level nets,
# no parameters: the Debian OpenSTA's reader takes neither concatenated
# assigns nor #(...)), the library at the three hop figures, the clock from
# constraints/, then the figure with register names and the cross-check.
sta_top() {
	yosys -q -p "read_json $out/$top.json; hierarchy -top $mod; splitnets -ports; write_verilog -noattr -norename -noexpr $out/$top.sta.v.tmp" >/dev/null
	awk '/^  [A-Za-z0-9_]+ #\($/ { t = $1; skip = 1; next }
		skip && /^  \) / { sub(/^  \)/, "  " t); skip = 0; print; next }
		skip { next } { print }' "$out/$top.sta.v.tmp" >"$out/$top.sta.v" && rm -f "$out/$top.sta.v.tmp"
	{
		echo "# derived by synth/synth.sh from $xdc and $common"
		grep -h '^create_clock' "$xdc"
		grep -h '^set_false_path\|^set_multicycle_path\|^set_max_delay' "$common" || true
	} >"$out/$top.sdc"
	synth/xc7-liberty.py "$out/$top.json" --top "$mod" --corners "$out/$top" 2>>"$out/$top.warn.txt"
	reports=()
	for sfx in "" .low .high; do
		STA_LIB=$out/$top$sfx.lib STA_NETLIST=$out/$top.sta.v STA_TOP=$mod STA_SDC=$out/$top.sdc \
			sta -no_splash -exit synth/sta.tcl >"$out/$top.sta$sfx.txt" 2>&1 ||
			{ tail -n 20 "$out/$top.sta$sfx.txt" >&2; return 1; }
		reports+=("$out/$top.sta$sfx.txt")
	done
	rc=0
	synth/sta-report.py "$out/$top.json" --top "$mod" --name "$top" --period "$period" "${reports[@]}" \
		>"$out/$top.timing.txt" || rc=$?
	[ $rc -le 1 ] || { cat "$out/$top.timing.txt" >&2; return 1; }
	[ $rc -eq 0 ] || echo "synth: $top: OpenSTA and synth/timing.py disagree (see $out/$top.timing.txt)" >&2
	return 0
}

# The summary line of a top, written last.
result() {
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
	fmax=$(sed -nE '1s/.*Fmax ([0-9]+) MHz.*/\1/p' "$out/$top.timing.txt")
	range=$(sed -nE '1s/.*MHz \(([0-9]+\.\.[0-9]+) MHz.*/\1/p' "$out/$top.timing.txt")
	worst=$(sed -nE '1s/.*worst path ([0-9.]+) ns.*/\1/p' "$out/$top.timing.txt")
	levels=$(sed -nE '1s/.* ([0-9]+) LUT levels.*/\1/p' "$out/$top.timing.txt")
	printf '%-22s LUT %6s  FF %6s  RAMB36 %3s  RAMB18 %3s  LUTRAM %4s  DSP %3s  CARRY4 %5s  longest path %s cells  est. Fmax %s MHz (%s; worst path %s ns, %s LUT levels)  %ds\n' \
		"$top" "$luts" "$ffs" "$b36" "$b18" "$lutram" "$dsp" "$carry" "${ltp:-?}" "${fmax:-?}" "${range:-?}" "${worst:-?}" "${levels:-?}" "$1" \
		>"$out/$top.result.tmp"
	mv "$out/$top.result.tmp" "$out/$top.result"
	cat "$out/$top.result"
	cat "$out/$top.timing.txt"
}

sta_only=0
[ "${1:-}" = --sta ] && { sta_only=1; shift; }
srcs=$(ls rtl/*.v)
for spec in "$@"; do
	top=$(name_of "$spec")
	mod=${spec%@*}
	start=$(date +%s)
	if [ $sta_only -eq 1 ]; then
		# --sta: time an existing netlist again (the runtime is the timing's)
		[ -f "$out/$top.json" ] || { echo "synth: $out/$top.json: no netlist" >&2; exit 1; }
		rm -f "$out/$top.result"
		sta_top || exit 1
		result $(( $(date +%s) - start ))
		continue
	fi
	chparam=
	[ "$top" != "$mod" ] && chparam="chparam -set DATA_WIDTH 512 $mod;"
	rm -f "$out/$top.result"
	sed "s|@OUT@|$out/$top|g" synth/xc7.ys >"$out/$top.ys"
	echo "synth: $top (log $out/$top.log)"
	# Yosys narrows the data ports of block RAMs it maps in 1K x 18 mode and
	# warns once per port; those are counted, every other warning is shown.
	nice yosys -q -l "$out/$top.log" -p "read_verilog -Irtl $(echo $srcs); $chparam hierarchy -check -top $mod; script $out/$top.ys" \
		>/dev/null 2>"$out/$top.warn.txt" || { cat "$out/$top.warn.txt" >&2; exit 1; }
	grep -v 'Resizing cell port ' "$out/$top.warn.txt" >&2 || true
	nres=$(grep -c 'Resizing cell port ' "$out/$top.warn.txt" || true)
	[ "$nres" -gt 0 ] && echo "synth: $top: $nres block RAM port-width warnings (ports narrowed to the mode used; see $out/$top.warn.txt)"
	sta_top || exit 1
	result $(( $(date +%s) - start ))
done
