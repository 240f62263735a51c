#!/usr/bin/env bash
# study.sh - make simulate: the projections of docs/results.md ("Past one
# machine"), then their plots (simulate/plots.py). Every input is a file
# the project's tools write:
#   - HDC: an inc-train log of an INC+C run on the emulated cluster
#     (HDC_LOG, default the newest build/simulate/measured/hdc-inc-c-4-r*.json
#     of simulate/measure-cluster.sh, else docs/results/sim-measured/'s): its
#     parameters, its Table II compute timers, its compression ratio and
#     error bound, and its sum timer (the host's summation rate, gamma of
#     the paper's Fig. 15 formula; SUM_LOG: another ring or WA log);
#   - AlexNet, VGG-16, ResNet-50: simulate/models/*.json (parameters and
#     FLOPs per layer) at GPU_TFLOPS (default 7: a 14 TFLOP/s fp32 GPU at
#     half its peak) and BATCH images per worker (default 32); their
#     compression ratio is the "ratio" of the summary record of
#     experiments/accuracy-torch.py's Table III run of that network at the
#     HDC log's error bound (T3_DIR/t3-NET-ebE.jsonl, T3_DIR default
#     docs/results/torch), and HDC's ratio while that run does not exist;
#     OUT/ratios.tsv and the progress lines say which each network used;
#   - the NIC: simulate/rtl-nic.json (the RTL's clock and cycles) and
#     simulate/rtl-nic-512.json (the 512-bit build);
#   - the host codec: inc-bench codec's table (BENCH, default
#     build/simulate/inc-bench-codec.txt, written here when missing).
# Writes OUT/study.jsonl (one inc-sim line per case) and the PNGs in
# docs/results/. Progress: one line per batch of cases.
# Time to equal accuracy at scale: HDC's measured iterations to the target
# (make time-to-accuracy's table; plots.py --tta) times the iteration
# simulated here; its INC+C cases ("tta") use the ratio of the INC+C run
# that reached the target (plots.py --tta-ratio).
#   simulate/study.sh [-o OUT] [-j JOBS] [-q] [-t]   (-q: a few cases, for a
#   look; their plots go to OUT. -t: only the "tta" cases, into OUT/tta.jsonl,
#   then that table alone from them and OUT/study.jsonl: OUT/tta.md)
set -eu
cd "$(dirname "$0")/.."
out=build/simulate jobs=2 quick= ttaonly=
while getopts "o:j:qt" o; do
	case $o in o) out=$OPTARG ;; j) jobs=$OPTARG ;; q) quick=1 ;; t) ttaonly=1 ;;
	*) echo "usage: $0 [-o OUT] [-j JOBS] [-q] [-t]" >&2; exit 2 ;; esac
done
mkdir -p "$out" docs/results
tflops=${GPU_TFLOPS:-7} batch=${BATCH:-32} lat=${LATENCY_US:-5}
bench=${BENCH:-$out/inc-bench-codec.txt}
if [ ! -s "$bench" ]; then
	echo "study: inc-bench codec -> $bench"
	build/bin/inc-bench codec -M 16 -r 3 >"$bench"
fi
# shellcheck disable=SC2012
hdclog=${HDC_LOG:-$(ls -t build/simulate/measured/hdc-inc-c-4-r*.json 2>/dev/null | head -n 1 || true)}
[ -n "$hdclog" ] || hdclog=docs/results/sim-measured/hdc-inc-c-4-r3.json
ratio=$(grep '"type":"summary"' "$hdclog" | grep -o '"codec_ratio":[0-9.]*' | cut -d: -f2)
eb=$(grep '"type":"config"' "$hdclog" | grep -o '"error_bound":[0-9]*' | cut -d: -f2)
sumlog=${SUM_LOG:-$hdclog}
echo "study: HDC from $hdclog (ratio $ratio at 2^-$eb), GPU $tflops TFLOP/s, batch $batch, latency $lat us"
echo "study: host summation rate (Fig. 15's gamma) from the sum timer of $sumlog"
# each network's compression ratio: its Table III run's, else HDC's
t3dir=${T3_DIR:-docs/results/torch}
ratios=$out/ratios.tsv
printf 'hdc\t%s\t%s\n' "$ratio" "$hdclog (codec_ratio)" >"$ratios"
for m in alexnet vgg16 resnet50; do
	f=$t3dir/t3-$m-eb$eb.jsonl r=
	[ -s "$f" ] && r=$(/usr/bin/python3 -c '
import json, sys
for line in open(sys.argv[1]):
    try:
        d = json.loads(line)
    except ValueError:
        continue
    if d.get("type") == "summary" and (d.get("ratio") or 0) > 1:
        print(d["ratio"])' "$f" | tail -n 1)
	if [ -n "$r" ]; then
		printf '%s\t%s\t%s\n' $m "$r" "$f (ratio)" >>"$ratios"
		echo "study: $m compression ratio $r from $f"
	else
		printf '%s\t%s\t%s\n' $m "$ratio" "HDC's: no $f yet" >>"$ratios"
		echo "study: $m compression ratio $ratio, HDC's (no Table III run $f yet)"
	fi
done
ratio_of() { awk -F'\t' -v m="$1" '$1 == m { print $2 }' "$ratios"; }
# WA's segment size. The aggregator sends segment k back once it holds
# segment k from every worker, so a gradient in few segments stalls that
# pipeline (HDC's 4.6 MB in 4 MiB segments: twice the exchange of 64 KiB
# ones). WA cases cut each gradient into 64 segments (within 64 KiB, the
# library's default, and 4 MiB): the barrier then costs under 2 %.
wa_seg_kb() {
	/usr/bin/python3 -c '
import json, sys
m, log = sys.argv[1], sys.argv[2]
if m == "hdc":
    n = next(json.loads(l)["params"] for l in open(log) if "\"type\":\"config\"" in l) * 4
else:
    n = sum(x["params"] for x in json.load(open("simulate/models/%s.json" % m))["layers"]) * 4
print(max(64, min(4096, int(n / 64 / 1024))))' "$1" "$hdclog"
}

cases=$out/study-cases.txt
[ -n "$ttaonly" ] && cases=$out/tta-cases.txt
: >"$cases"
model_args() {
	case $1 in
	hdc) echo "--from-log $hdclog --ratio $(ratio_of hdc)" ;;
	*) echo "--model simulate/models/$1.json --gpu-tflops $tflops --batch $batch --ratio $(ratio_of "$1")" ;;
	esac
}
add() { echo "$*" >>"$cases"; }
if [ -n "$quick" ]; then models="alexnet" ps="4 64" gs="10"; else models="hdc alexnet vgg16 resnet50" ps="4 8 16 64 256 1024" gs="10 25 100"; fi
# Fig. 15 as the paper draws it: WA and INC without compression, 4-8
# workers at 10 Gbit/s, the host's summation charged (the paper's exchange
# time includes it), beside the paper's own formula (inc-sim's
# paper_formula_ms)
for m in $models; do
	for p in 4 5 6 7 8; do
		for s in wa inc; do
			seg=4096; [ $s = wa ] && seg=$(wa_seg_kb $m)
			add "fig15 --workers $p --link-gbps 10 --latency-us $lat $(model_args $m) --scheme $s --segment-kb $seg --sum-log $sumlog"
		done
	done
done
# the scaling study: sync schedule, star and a fat tree of 32-host leaves
# at 4:1, 10, 25 and 100 Gbit/s, up to 1,024 workers. A 1,024-worker ring
# moves 2 million messages whatever the link rate (its n/p chunks are one
# segment each at these sizes, so coarser segments would not help): 20-60 s
# of CPU per case, most of make simulate's time
for m in $models; do
	for g in $gs; do
		for p in $ps; do
			for topo in star fattree; do
				[ $topo = fattree ] && [ "$p" -le 32 ] && continue
				t="--topology $topo"; [ $topo = fattree ] && t="$t --leaf 32 --oversub 4"
				for s in "wa none" "inc none" "inc nic" "inc software"; do
					set -- $s
					[ "$1" = wa ] && [ $topo = fattree ] && continue
					[ "$2" = software ] && [ $topo = fattree ] && continue
					[ "$2" = software ] && [ "$p" -gt 256 ] && continue
					# 4 MiB segments keep 1,024-worker rings fast to simulate
					# (the NIC's engines stream, so the size barely matters:
					# README); the host codec works segment by segment, so
					# its cases keep segments small enough to pipeline
					seg=4096; [ "$2" = software ] && seg=256
					[ "$1" = wa ] && seg=$(wa_seg_kb $m)
					add "scale --workers $p --link-gbps $g --latency-us $lat $(model_args $m) --scheme $1 --compression $2 --segment-kb $seg $t --bench $bench --error-bound $eb"
				done
			done
		done
	done
done
# the 512-bit engines (simulate/rtl-nic-512.json) beside the 256-bit ones, 64 workers
for m in $models; do
	for g in $gs; do
		add "nic512 --workers 64 --link-gbps $g --latency-us $lat $(model_args $m) --scheme inc --compression nic --segment-kb 4096 --rtl simulate/rtl-nic-512.json"
	done
done
# time to equal accuracy at scale (HDC, star): INC+C at the ratio of the
# INC+C run that reached the target (WA and INC are the scale cases above)
tta_ratio=$(/usr/bin/python3 simulate/plots.py --tta-ratio)
if [ -n "$tta_ratio" ]; then
	echo "study: time to accuracy: INC+C at ratio $tta_ratio (the INC+C run that reached the target)"
	[ -n "$ttaonly" ] && : >"$cases"
	for g in $gs; do
		for p in $ps; do
			add "tta --workers $p --link-gbps $g --latency-us $lat --from-log $hdclog --ratio $tta_ratio --scheme inc --compression nic --segment-kb 4096 --topology star --bench $bench --error-bound $eb"
		done
	done
else
	echo "study: time to accuracy: no INC+C run reaches the target in the measured table; no tta cases"
fi
[ -n "$ttaonly" ] && [ -z "$tta_ratio" ] && exit 1
# the layer-wise schedules: ResNet-50 and VGG-16, 64 workers, 10 Gbit/s, INC and INC+C
[ -n "$ttaonly" ] || for m in resnet50 vgg16; do
	for c in none nic; do
		for sch in sync wfbp bucket mgwfbp; do
			add "sched --workers 64 --link-gbps 10 --latency-us $lat $(model_args $m) --scheme inc --compression $c --segment-kb 1024 --schedule $sch"
		done
	done
done
n=$(wc -l <"$cases")
echo "study: $n cases, $jobs at a time"
res=$out/study.jsonl
[ -n "$ttaonly" ] && res=$out/tta.jsonl
: >"$res"
i=0
# each case: its tag, the model's name and the inc-sim line
run_case() {
	local tag=$1 m; shift
	m=$(echo "$*" | grep -o 'models/[a-z0-9]*\|from-log' | sed 's,models/,,; s,from-log,hdc,')
	echo "{\"case\":\"$tag\",\"model\":\"$m\",\"sim\":$(nice -n 5 build/bin/inc-sim "$@")}"
}
export -f run_case
while mapfile -t -n 24 batch_lines && [ ${#batch_lines[@]} -gt 0 ]; do
	printf '%s\n' "${batch_lines[@]}" | xargs -P "$jobs" -I{} bash -c 'run_case {}' >>"$res"
	i=$((i + ${#batch_lines[@]}))
	echo "study: $i/$n cases done ($(date +%T))"
done <"$cases"
[ "$(wc -l <"$res")" -eq "$n" ] || { echo "study: $(wc -l <"$res") of $n cases ran" >&2; exit 1; }
if [ -n "$ttaonly" ]; then
	/usr/bin/python3 simulate/plots.py --tta "$out/study.jsonl" "$res"
# -q looks only: its plots go to OUT, not to docs/results/
elif [ -n "$quick" ]; then
	SIM_PNG_DIR=$out /usr/bin/python3 simulate/plots.py "$res" "$ratios"
else
	/usr/bin/python3 simulate/plots.py "$res" "$ratios"
fi
