#!/bin/bash
# SPDX-License-Identifier: MIT
# formal/run.sh - the formal flow without SymbiYosys (not in Debian 12):
# Yosys (read_verilog -formal) writes an SMT-LIB2 model of each harness and
# yosys-smtbmc proves it with z3. Jobs are the lines of formal/jobs.txt.
#
#   formal/run.sh [-b "BLOCK..."] [-q] [-l] [-m] [-r RTLDIR] [-j JOB]
#     -b  only the jobs of these RTL modules (make formal BLOCKS="...")
#     -q  only the jobs marked quick (make test-formal-quick)
#     -l  the jobs marked long too (make formal-long; the engines' deep BMC)
#     -m  the mutation check instead: formal/mutants.txt, each mutant must
#         make its named job fail
#     -r  RTL directory (default rtl/; the mutation check passes a copy)
#     -j  one job by name
# The last line is "N passed, N failed[, N skipped]" (skipped: not closed
# within FORMAL_TIMEOUT seconds, default 900); exit status 1 when any failed.
# An engine's or the top's netlist may take FORMAL_NETLIST_TIMEOUT seconds
# (default 7200: inc_offload_top's took 40 minutes on 2 shared cores).
# FORMAL_JOBS jobs run at a time (default: the number of cores).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
blocks="" quick=0 mutants=0 rtl="$root/rtl" only="" long=0 lat=0
while getopts "b:qlmr:j:t" o; do
	case $o in
	b) blocks=$OPTARG ;;
	q) quick=1 ;;
	l) long=1 ;;
	m) mutants=1 ;;
	r) rtl=$OPTARG ;;
	j) only=$OPTARG ;;
	t) lat=1 ;;
	*) echo "usage: $0 [-b BLOCKS] [-q] [-l] [-m] [-r RTLDIR] [-j JOB] [-t]" >&2; exit 2 ;;
	esac
done
if [ $lat -eq 1 ]; then
	mkdir -p "${FORMAL_WORK:-$root/build/formal}/latency"
	for e in compress decompress; do
		x="${FORMAL_WORK:-$root/build/formal}/latency/$e.vvp"
		d=""; [ $e = decompress ] && d="-D F_DECOMPRESS"
		echo "== inc_${e}_engine (256 bits, MAX_FRAME 96)"
		iverilog -g2005 -D SYNTHESIS $d -I "$rtl" -o "$x" "$here/f_engine_latency_tb.v" "$rtl"/inc_*.v &&
			vvp -n "$x" || exit 1
	done
	exit 0
fi
for t in yosys yosys-smtbmc z3; do
	command -v $t >/dev/null || { echo "formal: $t not found (make deps)" >&2; exit 2; }
done
work=${FORMAL_WORK:-$root/build/formal}
mkdir -p "$work"
. "$root/tests/lib.sh"   # pool_run

# aig_lower [KEEP]: the Yosys commands that take a prepared design to an
# and-inverter graph with its flip-flops and the FORMAL assertions (the
# engines' netlists and the harnesses without one); KEEP, Yosys commands
# run before the memories are mapped (acover's selection of its covers)
aig_lower() {
	printf '%s\n' async2sync flatten 'delete t:$cover'
	[ -n "${1:-}" ] && printf '%s\n' "$1"
	printf '%s\n' memory_map 'opt -fast' dffunmap 'formalff -clk2ff' techmap aigmap
}

# dut_netlist ENGINE CHPARAM: print the path of the engine's gate-level
# netlist (RTLIL: $_AND_/$_NOT_/$_FF_ and the RTL's FORMAL assertions),
# module f_dut_ENGINE, DATA_WIDTH and MAX_FRAME from the job's parameters
# (256 and 96 by default), built from $rtl when no netlist of the same
# sources exists.
#   cmp  inc_compress_engine      dcm  inc_decompress_engine
#   top  inc_offload_top (CNT_LO_BITS 17)
dut_netlist() {
	local e=$1 cp=$2 mod fl=() f mf=96 dw=256 key dir name more="" rd body
	case $e in
	cmp) mod=inc_compress_engine
	     for f in compress_engine compress_core tos_matcher csum_csa compress_block \
		decompress_block group_pack align_unit fifo ram; do fl+=("$rtl/inc_$f.v"); done ;;
	dcm) mod=inc_decompress_engine
	     for f in decompress_engine decompress_core tos_matcher csum_csa decompress_packer \
		group_walker decompress_unit decompress_block fifo ram; do fl+=("$rtl/inc_$f.v"); done ;;
	top) mod=inc_offload_top more=" -set CNT_LO_BITS 17"
	     for f in "$rtl"/inc_*.v; do fl+=("$f"); done ;;
	*) echo "unknown engine $e"; return 1 ;;
	esac
	case " $cp " in *" MAX_FRAME "*) mf=$(echo "$cp" | sed 's/.* MAX_FRAME \([0-9]*\).*/\1/') ;; esac
	case " $cp " in *" DATA_WIDTH "*) dw=$(echo "$cp" | sed 's/.* DATA_WIDTH \([0-9]*\).*/\1/') ;; esac
	# at 512 bits an engine is two 256-bit cores behind inc_lanes
	[ "$dw" = 512 ] && [ "$e" != top ] && for f in lanes lane_split lane_merge; do fl+=("$rtl/inc_$f.v"); done
	# the script's commands after reading the sources; the cache key is
	# theirs and the sources' (a changed lowering builds a new netlist)
	rd="read_verilog -formal -sv -D FORMAL -D SYNTHESIS -D F_NO_FIFO_SCOREBOARD -D F_NO_RAM_SCOREBOARD"
	body="chparam -set DATA_WIDTH $dw -set MAX_FRAME $mf$more $mod
prep -top $mod
$(aig_lower)
opt_clean
rename $mod f_dut_$e"
	key=$( { cat "${fl[@]}" "$rtl"/*.vh; printf '%s\n' "$rd" "$body"; } | md5sum | cut -c1-12)
	dir=${FORMAL_DUT_DIR:-$work/dut}
	mkdir -p "$dir"
	name=$e-$mf-$key
	[ "$dw" != 256 ] && name=$e-$dw-$mf-$key
	f="$dir/$name.il"
	# jobs run side by side (FORMAL_JOBS): the first to need a netlist
	# builds it, the others wait for it on the lock
	if [ ! -s "$f" ]; then
		(
		flock 9
		[ -s "$f" ] && exit 0
		cat >"$dir/$name.ys" <<YS
$rd -I $rtl ${fl[*]}
$body
write_rtlil $f.tmp
YS
		timeout ${FORMAL_NETLIST_TIMEOUT:-7200} yosys -q -l "$dir/$name.log" "$dir/$name.ys" >/dev/null 2>&1 &&
			mv "$f.tmp" "$f"
		) 9>"$f.lock" || { echo "$dir/$name.log"; return 1; }
	fi
	echo "$f"
}

# abc_trace DIR: the counterexample DIR/cex.aiw as the harness's ports,
# one line per cycle (hex, bit 0 on the right), in DIR/trace.txt; the
# ports' bits are found in the AIGER map DIR/model.aim (write_aiger -map)
abc_trace() {
	[ -s "$1/cex.aiw" ] && [ -s "$1/model.aim" ] || return 0
	awk 'FNR == NR { if ($1 == "input") { if (!($4 in w)) name[++np] = $4
				bit[$4, $3] = $2; if ($3 + 1 > w[$4]) w[$4] = $3 + 1 }
			 next }
	     FNR > 1 && /^[01]/ {
		line = "cycle " (FNR - 2) ":"
		for (i = 1; i <= np; i++) {
			p = name[i]; v = ""; n = 0
			for (b = w[p] - 1; b >= 0; b--) {
				n = n * 2 + substr($1, bit[p, b] + 1, 1)
				if (b % 4 == 0) { v = v sprintf("%x", n); n = 0 }
			}
			line = line " " p "=" v
		}
		print line
	     }' "$1/model.aim" "$1/cex.aiw" >"$1/trace.txt"
}

# run_abc DIR MODE DEPTH TOP DEFS CHPARAM FILES...: the engines' flow.
# Yosys writes the harness as an AIGER model (assertions = bad states,
# assumptions = constraints, free initial values for registers without
# one) and ABC checks it: only the logic in a property's cone of influence
# remains, so the 256-bit engines, whose every frame needs 16-38 cycles,
# are checked to depths where Yosys' sat and z3 run out of time or memory.
#   abmc    bmc3: no assertion fails within DEPTH cycles (reset cycle = 0)
#   aprove  bmc3 to DEPTH, then pdr (IC3) on every assertion: proven for
#           every reachable state, or, when pdr does not close within
#           FORMAL_PDR seconds (default 300), bounded to DEPTH
#   acover  the harness's f_cover_* (compiled as assertions of their
#           negation with F_COVERS): bmc3 on each one's cone, each reached within
#           DEPTH cycles; the row gives the cycle of each (the first in
#           which it is reachable: bmc3 goes cycle by cycle)
# Writes DIR/result (the table's text); returns 0 pass, 1 fail, 3 open.
# A failing assertion is named from DIR/asserts.txt (ABC's output index).
run_abc() {
	local d=$1 mode=$2 depth=$3 top=$4 defs=$5 cp=$6
	shift 6
	local tmo=${FORMAL_TIMEOUT:-900} keep="" dut="" files=() f
	[ $mode = acover ] && { defs="$defs -D F_COVERS"; keep='delete t:$assert */f_cover_* %d
select -assert-min 1 t:$assert'; }
	for f in "$@"; do
		case $f in
		@*) dut=${f#@} ;;
		*) files+=("$f") ;;
		esac
	done
	rm -f "$d/model.aig" "$d/asserts.txt" "$d/abc.log" "$d/abc2.log" "$d"/abc-*.log
	if [ -n "$dut" ]; then
		# the engine as an AIG-ready netlist, built once per RTL contents
		# (the parse and mapping of the 256-bit engine take minutes; the
		# harness around it seconds)
		local il
		il=$(dut_netlist "$dut" "$cp") || { echo "yosys error (engine netlist: $il)" >"$d/result"; return 1; }
		defs="$defs -D F_DUT=f_dut_$dut"
		cat >"$d/model.ys" <<YS
read_rtlil $il
read_verilog -formal -sv -D FORMAL -D SYNTHESIS -D FORMAL_TOP_$top$defs -I $rtl -I $root/formal ${files[*]}
$cp
hierarchy -top $top
proc $top
opt_clean $top
async2sync $top
dffunmap $top
formalff -clk2ff $top
techmap $top
aigmap $top
flatten
delete t:\$cover
$keep
setundef -undriven -anyseq
tee -q -o $d/asserts.txt select -list t:\$assert
write_aiger -zinit -map $d/model.aim $d/model.aig
YS
	else
		cat >"$d/model.ys" <<YS
read_verilog -formal -sv -D FORMAL -D SYNTHESIS -D FORMAL_TOP_$top$defs -I $rtl -I $root/formal ${files[*]}
$cp
prep -top $top
$(aig_lower "$keep")
setundef -undriven -anyseq
tee -q -o $d/asserts.txt select -list t:\$assert
write_aiger -zinit -map $d/model.aim $d/model.aig
YS
	fi
	if ! timeout $tmo yosys -q -l "$d/yosys.log" "$d/model.ys" >/dev/null 2>&1; then
		echo "yosys error ($d/yosys.log)" >"$d/result"; return 1
	fi
	local nas
	nas=$(grep -c . "$d/asserts.txt")
	local rc f k
	if [ $mode = acover ]; then
		# each cover in its own cone (bmc3 -a crashes in this ABC):
		# "Output 0 ... was asserted in frame F": reached in cycle F
		local got=0 list="" name open=0
		: >"$d/abc.log"
		for k in $(seq 0 $((nas - 1))); do
			name=$(sed -n "$((k + 1))p" "$d/asserts.txt"); name=${name##*/}
			timeout $((tmo + 60)) yosys-abc -c "read_aiger $d/model.aig; fold; strash; cone -O $k -s; bmc3 -F $depth -T $tmo" >"$d/abc-$k.log" 2>&1
			rc=$?
			{ echo "== $name"; cat "$d/abc-$k.log"; } >>"$d/abc.log"
			f=$(sed -n 's/.*Output 0 of miter .* was asserted in frame \([0-9]*\).*/\1/p' "$d/abc-$k.log")
			if [ -n "$f" ]; then
				list="$list ${name#f_cover_}@$f"; got=$((got + 1))
			else
				list="$list ${name#f_cover_}:no"
				[ $rc -eq 124 ] || grep -q "No output asserted in [0-9]* frames. Resource limit reached (timeout" "$d/abc-$k.log" && open=1
			fi
		done
		if [ $got -eq "$nas" ]; then
			echo "all $nas reached (cycle):$list" >"$d/result"; return 0
		fi
		echo "$got of $nas reached within $depth ($d/abc.log):$list" >"$d/result"
		[ $open -eq 1 ] && return 3
		return 1
	fi
	# line-buffered and verbose: a run stopped by the time limit inside a
	# frame still says which frames it finished
	timeout $((tmo + 60)) stdbuf -oL yosys-abc -c "read_aiger $d/model.aig; fold; strash; bmc3 -v -F $depth -T $tmo; write_cex -a $d/cex.aiw" >"$d/abc.log" 2>&1
	rc=$?
	f=$(sed -n 's/.*Output \([0-9]*\) of miter .* was asserted in frame \([0-9]*\).*/\1 \2/p' "$d/abc.log" | head -n 1)
	if [ -n "$f" ]; then
		set -- $f
		local name src
		name=$(sed -n "$(($1 + 1))p" "$d/asserts.txt")
		abc_trace "$d"
		echo "fails at cycle $2: ${name##*/} ($d/trace.txt)" >"$d/result"; return 1
	fi
	k=$(sed -n 's/.*No output asserted in \([0-9]*\) frames.*/\1/p' "$d/abc.log" | tail -n 1)
	if [ -z "$k" ]; then
		# bmc3 -v: "F + : Var = ..." when frame F is done
		k=$(sed -n 's/^ *\([0-9]*\) + : Var.*/\1/p' "$d/abc.log" | tail -n 1)
		if [ $rc -eq 124 ] && [ -n "$k" ]; then
			echo "bounded to $((k + 1)) only: time limit $tmo s" >"$d/result"; return 3
		fi
		if [ $rc -eq 124 ]; then echo "not closed in $tmo s (timeout)" >"$d/result"; return 3; fi
		echo "abc error ($d/abc.log)" >"$d/result"; return 1
	fi
	if [ "$k" -lt "$depth" ]; then
		echo "bounded to $k only: time limit $tmo s" >"$d/result"; return 3
	fi
	if [ $mode = abmc ]; then
		echo "bounded to $depth cycles" >"$d/result"; return 0
	fi
	local ptm=${FORMAL_PDR:-300}
	timeout $((ptm + 60)) yosys-abc -c "read_aiger $d/model.aig; fold; strash; pdr -T $ptm" >"$d/abc2.log" 2>&1
	if grep -q "Property proved" "$d/abc2.log"; then
		echo "proven (pdr; bmc3 $depth)" >"$d/result"; return 0
	fi
	f=$(sed -n 's/.*Output \([0-9]*\) of miter .* was asserted in frame \([0-9]*\).*/\1 \2/p' "$d/abc2.log" | head -n 1)
	if [ -n "$f" ]; then
		set -- $f
		echo "fails at cycle $2 (pdr): $(sed -n "$(($1 + 1))p" "$d/asserts.txt" | sed 's#.*/##') ($d/abc2.log)" >"$d/result"; return 1
	fi
	echo "bounded to $depth cycles (pdr open after $ptm s)" >"$d/result"; return 0
}

# job NAME: run it against $rtl, print one table row, return 0 on pass.
# jobs.txt columns: name block property mode depth quick top params files...
#   mode prove: BMC to depth (base case) + k-induction of length depth
#   mode bmc:   BMC to depth only (the reason is in jobs.txt's comment)
#   mode cover: every cover statement reached within depth
run_job() {
	local line=$1 tag=$2
	set -- $line
	local name=$1 block=$2 prop=$3 mode=$4 depth=$5 top=$7 params=$8
	shift 8
	local files=() f
	for f in "$@"; do
		case $f in
		formal/*) files+=("$root/$f") ;;
		ALL) files+=("$rtl"/*.v) ;;
		@*) files+=("$f") ;;   # a prebuilt engine netlist (run_abc)
		*) files+=("$rtl/$f") ;;
		esac
	done
	local d="$work/$tag$name"
	mkdir -p "$d"
	# params: NAME=VALUE (chparam of the top) and +NAME (a define), comma-separated
	local cp="" defs="" p
	if [ "$params" != "-" ]; then
		for p in ${params//,/ }; do
			case $p in
			+*) defs="$defs -D ${p#+}" ;;
			*) cp="$cp -set ${p%%=*} ${p#*=}" ;;
			esac
		done
	fi
	[ -n "$cp" ] && cp="chparam$cp $top"
	cat >"$d/model.ys" <<YS
read_verilog -formal -sv -D FORMAL -D SYNTHESIS -D FORMAL_TOP_$top$defs -I $rtl -I $root/formal ${files[*]}
$cp
prep -top $top
memory_map
opt -fast
async2sync
dffunmap
write_smt2 -wires $d/model.smt2
YS
	local t0=$SECONDS res=pass what=""
	case $mode in
	abmc|aprove|acover)
		run_abc "$d" "$mode" "$depth" "$top" "$defs" "$cp" "${files[@]}"
		local rc=$?
		what=$(cat "$d/result")
		printf '%-22s %-18s %-30s %-40s %5ds\n' "$block" "$name" "$prop" "$what" $((SECONDS - t0))
		[ $rc -eq 3 ] && return 3
		return $rc ;;
	sprove|sbmc|scover)
		# Yosys' own SAT solver (bit level): the wide parsers' barrel
		# shifters stall z3 at step 0; sprove = base case + induction of
		# length depth from any state, sbmc = BMC, scover = the harness's
		# F_COVER condition, asserted false, must fail within depth
		local satopt
		case $mode in
		sprove) satopt="-tempinduct -maxsteps $depth" ;;
		*) satopt="-seq $depth -set-init-zero" ;;
		esac
		sed -i "s#^write_smt2 .*#flatten\nselect -clear\ndelete t:\$cover\ntee -o $d/sat.log sat $satopt -prove-asserts -set-assumes -show-ports -timeout ${FORMAL_TIMEOUT:-900}#" "$d/model.ys"
		rm -f "$d/sat.log"
		timeout $(( ${FORMAL_TIMEOUT:-900} + 120 )) yosys -q -l "$d/yosys.log" "$d/model.ys" >/dev/null 2>&1
		local rc=$?
		if [ $rc -eq 124 ] || grep -q "TIMEOUT" "$d/sat.log" 2>/dev/null; then
			res=open what="not closed in ${FORMAL_TIMEOUT:-900} s (timeout)"
		elif [ $mode = scover ]; then
			if grep -q "model found.*FAIL!" "$d/sat.log" 2>/dev/null; then
				what="cover reached within $depth"
			else
				res=fail what="cover not reached within $depth ($d/sat.log)"
			fi
		elif [ $rc -eq 0 ] && grep -q "SUCCESS" "$d/sat.log" && ! grep -q "model found.*FAIL!" "$d/sat.log"; then
			if [ $mode = sprove ]; then what="proven (k-induction, k<=$depth)"; else what="bounded to depth $depth"; fi
		else
			if grep -q "model found.*FAIL!" "$d/sat.log" 2>/dev/null; then
				res=fail what="fails: counterexample ($d/sat.log)"
			elif grep -q "proof failed" "$d/sat.log" 2>/dev/null; then
				res=fail what="not closed by ${depth}-induction ($d/sat.log)"
			else
				res=fail what="yosys error ($d/yosys.log)"
			fi
		fi
		printf '%-22s %-18s %-30s %-40s %5ds\n' "$block" "$name" "$prop" "$what" $((SECONDS - t0))
		[ $res = open ] && return 3
		[ $res = pass ]
		return ;;
	esac
	if ! yosys -q -l "$d/yosys.log" "$d/model.ys" >/dev/null 2>&1; then
		res=fail what="yosys error ($d/yosys.log)"
	else
		case $mode in
		prove)
			# depth B/K: BMC to B cycles, induction of length K (K alone: both)
			local bd=${depth%/*} kd=${depth#*/}
			if ! yosys-smtbmc -s z3 --presat -t "$bd" --dump-vcd "$d/bmc.vcd" "$d/model.smt2" >"$d/bmc.log" 2>&1; then
				res=fail what="fails in BMC ($d/bmc.log, $d/bmc.vcd)"
			elif ! yosys-smtbmc -s z3 -i -t "$kd" --dump-vcd "$d/ind.vcd" "$d/model.smt2" >"$d/ind.log" 2>&1; then
				res=fail what="not closed by ${kd}-induction ($d/ind.log)"
			else
				what="proven (k-induction, k=$kd; BMC $bd)"
			fi ;;
		bmc)
			if ! yosys-smtbmc -s z3 --presat -t "$depth" --dump-vcd "$d/bmc.vcd" "$d/model.smt2" >"$d/bmc.log" 2>&1; then
				res=fail what="fails in BMC ($d/bmc.log, $d/bmc.vcd)"
			else
				what="bounded to depth $depth"
			fi ;;
		cover)
			if ! yosys-smtbmc -s z3 -c -t "$depth" --dump-vcd "$d/cover.vcd" "$d/model.smt2" >"$d/cover.log" 2>&1; then
				res=fail what="a cover not reached within $depth ($d/cover.log)"
			else
				what="all covers reached within $depth"
			fi ;;
		*) res=fail what="unknown mode $mode" ;;
		esac
	fi
	if [ $res = fail ]; then
		local at
		at=$(cat "$d"/*.log 2>/dev/null | tr '\r' '\n' | sed -n 's/.*Assert failed in [^:]*: \([^ ]*\) .*/\1/p' | head -n 1)
		[ -n "$at" ] && what="$what: assert at ${at##*/}"
	fi
	printf '%-22s %-18s %-30s %-40s %5ds\n' "$block" "$name" "$prop" "$what" $((SECONDS - t0))
	[ $res = pass ]
}

jobs=()
while IFS= read -r l; do
	case $l in ''|'#'*) continue ;; esac
	set -- $l
	[ -n "$only" ] && [ "$1" != "$only" ] && continue
	[ $quick -eq 1 ] && [ "$6" != quick ] && continue
	[ $long -eq 0 ] && [ -z "$only" ] && [ "$6" = long ] && continue
	if [ -n "$blocks" ] && ! echo " $blocks " | grep -q " $2 "; then continue; fi
	jobs+=("$l")
done <"$here/jobs.txt"

pass=0 fail=0 open=0
if [ $mutants -eq 0 ]; then
	[ ${#jobs[@]} -eq 0 ] && { echo "formal: no job matches" >&2; exit 2; }
	printf '%-22s %-18s %-30s %-40s %6s\n' block job property result time
	# FORMAL_JOBS jobs at a time (default: one per core; each is one
	# solver process), their rows printed in jobs.txt's order as they end
	pool_done() {
		case $1 in
		0) pass=$((pass + 1)) ;;
		3) open=$((open + 1)) ;;
		*) fail=$((fail + 1)) ;;
		esac
	}
	POOL_JOBS=${FORMAL_JOBS:-$(nproc)} pool_init
	for l in "${jobs[@]}"; do pool_run run_job "$l" ""; done
	pool_wait
else
	# formal/mutants.txt: id job file sed-script; the mutant must change the
	# file and make the job fail, and the job must pass on the clean RTL.
	printf '%-10s %-18s %s\n' mutant job caught
	while IFS= read -r l; do
		case $l in ''|'#'*) continue ;; esac
		id=$(echo "$l" | cut -f1) job=$(echo "$l" | cut -f2)
		file=$(echo "$l" | cut -f3) expr=$(echo "$l" | cut -f4)
		mlong=$(echo "$l" | cut -f5)
		[ $long -eq 0 ] && [ "$mlong" = long ] && continue
		[ $long -eq 0 ] && [ "$(grep -P "^$job\s" "$here/jobs.txt" | awk '{print $6}')" = long ] && continue
		if [ -n "$blocks" ]; then
			b=$(grep -P "^$job\s" "$here/jobs.txt" | awk '{print $2}')
			echo " $blocks " | grep -q " $b " || continue
		fi
		m="$work/mutant-$id/rtl"
		rm -rf "$m"; mkdir -p "$m"; cp "$root"/rtl/*.v "$root"/rtl/*.vh "$m"/
		sed -i "$expr" "$m/$file"
		jl=$(grep -P "^$job\s" "$here/jobs.txt") mrc=""
		if cmp -s "$root/rtl/$file" "$m/$file"; then
			printf '%-10s %-18s %s\n' "$id" "$job" "NO (the mutation did not apply)"; fail=$((fail + 1))
		elif [ -z "$jl" ]; then
			printf '%-10s %-18s %s\n' "$id" "$job" "NO (no such job)"; fail=$((fail + 1))
		else
			(rtl=$m FORMAL_DUT_DIR="$work/mutant-$id/dut"; run_job "$jl" "mutant-$id-") >"$work/mutant-$id/row" 2>&1
			mrc=$?
			rm -rf "$work/mutant-$id/dut"   # an engine netlist: 200 MB
		fi
		if [ -z "$mrc" ]; then
			:
		elif [ $mrc -eq 0 ]; then
			printf '%-10s %-18s %s\n' "$id" "$job" "NO (the job passes)"; fail=$((fail + 1))
		elif [ $mrc -eq 3 ]; then
			printf '%-10s %-18s %s\n' "$id" "$job" "NO (not closed in time)"; fail=$((fail + 1))
		elif grep -q "yosys error" "$work/mutant-$id/row"; then
			printf '%-10s %-18s %s\n' "$id" "$job" "NO (yosys error, $work/mutant-$id-$job/yosys.log)"; fail=$((fail + 1))
		else
			printf '%-10s %-18s %s\n' "$id" "$job" "yes: $(cut -c72- "$work/mutant-$id/row" | sed 's/ *[0-9]*s$//; s/ ([^)]*)//')"
			pass=$((pass + 1))
		fi
	done <"$here/mutants.txt"
fi
# a job the solver did not finish in time is neither: counted as skipped
echo "$pass passed, $fail failed$([ $open -gt 0 ] && echo ", $open skipped")"
[ $fail -eq 0 ]
