#!/usr/bin/env bash
# train-schedules.sh - the communication schedules side by side (make
# schedules): for each model, link setting and compression, inc-train
# --scheme inc with --schedule sync, wfbp, bucket, mgwfbp and gossip on the
# emulated cluster (cluster/train-cluster.sh), evaluating every 10
# iterations, then `inc-train report` (iteration time split into
# computation and the communication left after backward, the MG-WFBP
# prediction next to the measurement, accuracy vs time of every schedule)
# under build/schedules/.
#
#   train-schedules.sh [-i ITERATIONS] [-w WORKERS] [-m MODELS] [-l LINKS] [-c COMPS]
#
# MODELS default "hdc lenet"; LINKS a list of RATE[/DELAY] (Mbit/s, one-way
# latency the switch adds to every frame), default "1000 10000/100us"; COMPS default "none nic"
# (nic: the emulated NICs at 2^-10). Progress: one line per run with its
# iteration time. Needs root.
set -u
cd "$(dirname "$0")/.."
iters=60 workers=4 models="hdc lenet" links="1000 10000/100us" comps="none nic"
while getopts "i:w:m:l:c:" o; do
	case $o in
	i) iters=$OPTARG ;;
	w) workers=$OPTARG ;;
	m) models=$OPTARG ;;
	l) links=$OPTARG ;;
	c) comps=$OPTARG ;;
	*) echo "usage: train-schedules.sh [-i ITERS] [-w WORKERS] [-m MODELS] [-l LINKS] [-c COMPS]" >&2
	   exit 2 ;;
	esac
done
if [ "$(id -u)" -ne 0 ]; then
	echo "schedules: needs root for the emulated cluster (network namespaces)" >&2
	exit 1
fi
out=build/schedules
mkdir -p "$out"
total=0
scheds="sync wfbp bucket mgwfbp gossip"
for _ in $models; do for _ in $links; do for _ in $comps; do total=$((total + 5)); done; done; done
done_n=0 start=$(date +%s) rc=0
for model in $models; do
	for link in $links; do
		rate=${link%%/*} delay=
		[ "$link" != "$rate" ] && delay=${link#*/}
		logs=()
		for comp in $comps; do
			for sch in $scheds; do
				name=$model-w$workers-$rate${delay:+-$delay}-$comp-$sch
				extra=(); [ "$sch" = bucket ] && [ "$model" = lenet ] && extra=(--bucket-kb 64)
				timeout 900 cluster/train-cluster.sh -q -w "$workers" -r "$rate" ${delay:+-d "$delay"} \
					-P $((29800 + done_n % 50)) -- --model "$model" --iterations "$iters" \
					--lr 0.05 --seed 1 --scheme inc --compression "$comp" --schedule "$sch" \
					--eval-every 10 --eval-samples 2000 \
					"${extra[@]}" --log "$out/$name.json" >"$out/$name.out" 2>&1 ||
					{ echo "schedules: $name failed: $(tail -n 2 "$out/$name.out")" >&2; rc=1; }
				done_n=$((done_n + 1))
				el=$(( $(date +%s) - start ))
				it=$(sed -nE 's/.*"iter_ms":([0-9.]+).*/\1/p' "$out/$name.json" 2>/dev/null)
				pr=$(grep '"type":"summary"' "$out/$name.json" 2>/dev/null |
					sed -nE 's/.*"predicted_iter_ms":([0-9.]+).*/\1/p')
				printf 'schedules: %2d/%d %-36s %8s ms/iter%s  (%ds elapsed, eta %ds)\n' \
					"$done_n" "$total" "$name" "${it:-?}" \
					"$([ "$sch" = mgwfbp ] && echo " (predicted ${pr:-?})")" "$el" \
					$(( el * (total - done_n) / done_n ))
				logs+=("$out/$name.json")
			done
		done
		build/bin/inc-train report "${logs[@]}" --out "$out/$model-w$workers-$rate${delay:+-$delay}" >/dev/null ||
			rc=1
	done
done
experiments/schedules-table.sh "$out" >"$out/summary.md"
cat "$out/summary.md"
echo "schedules: reports under $out/*/report.md, the table above in $out/summary.md"
exit $rc
