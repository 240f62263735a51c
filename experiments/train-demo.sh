#!/usr/bin/env bash
# train-demo.sh - the main job (make demo): HDC on Fashion-MNIST with 4
# workers on the emulated cluster (cluster/train-cluster.sh), the paper's
# four schemes WA, INC, WA+C, INC+C (error bound 2^-10, compression by the
# emulated NICs), then a Fig. 12-style table and the plots of
# `inc-train report` under build/demo/.
#
#   train-demo.sh [-i ITERATIONS] [-r MBIT] [-w WORKERS]
#
# Links are paced at 1000 Mbit/s of wire bytes by default. The emulated
# NICs run the model's frame logic with the SIMD kernels (about 4 us of
# CPU per 9000-byte frame, both NICs); on a 2-core machine the switch's
# packet I/O, not the wire, still limits the compressed runs at this rate:
# its counters (cpu_ms against link_ms) are in each log's wire record
# (docs/train.md). Needs root.
set -u
cd "$(dirname "$0")/.."
iters=80 rate=1000 workers=4
while getopts "i:r:w:" o; do
	case $o in
	i) iters=$OPTARG ;;
	r) rate=$OPTARG ;;
	w) workers=$OPTARG ;;
	*) echo "usage: train-demo.sh [-i ITERATIONS] [-r MBIT] [-w WORKERS]" >&2; exit 2 ;;
	esac
done
out=build/demo
if [ "$(id -u)" -ne 0 ]; then
	echo "demo: needs root for the emulated cluster (network namespaces)" >&2
	exit 1
fi
mkdir -p "$out"
rm -f "$out"/*.json "$out"/*.png
echo "demo: HDC (784-500-500-500-500-10) on Fashion-MNIST, $workers workers, batch 25 each,"
echo "      $iters iterations, links ${rate} Mbit/s (jumbo frames), error bound 2^-10"
start=$(date +%s)
logs=()
for run in wa:none inc:none wa:nic inc:nic; do
	scheme=${run%:*} comp=${run#*:}
	name=$scheme$([ "$comp" = nic ] && echo "-c")
	label=$(echo "$scheme" | tr a-z A-Z)$([ "$comp" = nic ] && echo "+C")
	echo "--- $label"
	cluster/train-cluster.sh -q -w "$workers" -r "$rate" -- --model hdc --scheme "$scheme" \
		--compression "$comp" --error-bound 10 --iterations "$iters" \
		--eval-every $((iters / 8 > 0 ? iters / 8 : 1)) --log "$out/$name.json" \
		| head -n 1 || { echo "demo: the $label run failed" >&2; exit 1; }
	logs+=("$out/$name.json")
done
build/bin/inc-train report "${logs[@]}" --out "$out" >/dev/null || exit 1
echo
echo "Per iteration, averaged over the workers (Fig. 12 form; full table: $out/report.md):"
printf '%-6s %9s %9s %9s %8s %9s %14s\n' scheme "iter ms" "compute" "comm" speedup "accuracy" "wire MB/iter"
wa_ms=
for f in "${logs[@]}"; do
	get() { grep -o "\"$1\":[0-9.e+-]*" "$f" | tail -n 1 | cut -d: -f2; }
	it=$(get iter_ms)
	comp=$(awk -v a="$(get data_ms)" -v b="$(get forward_ms)" -v c="$(get backward_ms)" \
		-v d="$(get update_ms)" 'BEGIN { printf "%.1f", a + b + c + d }')
	comm=$(awk -v a="$(get sum_ms)" -v b="$(get comm_ms)" 'BEGIN { printf "%.1f", a + b }')
	[ -z "$wa_ms" ] && wa_ms=$it
	name=$(basename "$f" .json)
	label=$(echo "${name%-c}" | tr a-z A-Z)$([ "${name%-c}" != "$name" ] && echo "+C")
	printf '%-6s %9.1f %9s %9s %7.2fx %8.2f%% %14.2f\n' "$label" "$it" "$comp" "$comm" \
		"$(awk -v w="$wa_ms" -v i="$it" 'BEGIN { print w / i }')" "$(get accuracy)" \
		"$(awk -v b="$(get bytes_wire_per_iter)" 'BEGIN { print b / 1e6 }')"
done
echo
echo "plots: $out/fig12-breakdown.png $out/fig13-accuracy.png $out/fig14-compression.png"
echo "logs:  ${logs[*]}"
echo "demo: done in $(( $(date +%s) - start )) s"
