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
# within FORMAL_TIMEOUT seconds, default 600); exit status 1 when any failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
blocks="" quick=0 mutants=0 rtl="$root/rtl" only="" long=0
while getopts "b:qlmr:j:" o; do
	case $o in
	b) blocks=$OPTARG ;;
	q) quick=1 ;;
	l) long=1 ;;
	m) mutants=1 ;;
	r) rtl=$OPTARG ;;
	j) only=$OPTARG ;;
	*) echo "usage: $0 [-b BLOCKS] [-q] [-l] [-m] [-r RTLDIR] [-j JOB]" >&2; exit 2 ;;
	esac
done
for t in yosys yosys-smtbmc z3; do
	command -v $t >/dev/null || { echo "formal: $t not found (make deps)" >&2; exit 2; }
done
work=${FORMAL_WORK:-$root/build/formal}
mkdir -p "$work"

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
	for l in "${jobs[@]}"; do
		run_job "$l" ""
		case $? in
		0) pass=$((pass + 1)) ;;
		3) open=$((open + 1)) ;;
		*) fail=$((fail + 1)) ;;
		esac
	done
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
			(rtl=$m; run_job "$jl" "mutant-$id-") >"$work/mutant-$id/row" 2>&1
			mrc=$?
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
