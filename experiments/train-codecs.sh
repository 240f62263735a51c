#!/usr/bin/env bash
# train-codecs.sh - every codec side by side (make codecs): for each model,
# inc-train --scheme inc on the emulated cluster (cluster/train-cluster.sh)
# with no compression, INCEPTIONN at 2^-6/2^-8/2^-10 (the emulated NICs),
# truncation 16/22/24 bits, C_nat (stochastic and deterministic), the
# lossless sketch and INCEPTIONN+sketch, all at equal iterations; then
# `inc-bench codecs` on the gradient the uncompressed run saved
# (--save-grads: ratio and encode/decode GB/s next to memcpy on real
# gradients) and `inc-train report` (a Fig. 14-style chart of ratio and
# accuracy of every codec). Writes build/codecs/summary.md (one table per
# model) and build/codecs/<model>/fig14-compression.png.
#
#   train-codecs.sh [-i ITERATIONS] [-w WORKERS] [-r MBIT] [-m MODELS] [-T]
#
# -T: no runs, only the tables again from the logs already in build/codecs/.
# Defaults: 200 iterations (lr 0.05, x0.2 after 120), 4 workers, 250 Mbit/s,
# models "hdc lenet". Progress: one line per run with its iteration time
# and an ETA. Needs root.
set -u
cd "$(dirname "$0")/.."
iters=200 workers=4 rate=250 models="hdc lenet" table_only=0
while getopts "i:w:r:m:T" o; do
	case $o in
	i) iters=$OPTARG ;;
	w) workers=$OPTARG ;;
	r) rate=$OPTARG ;;
	m) models=$OPTARG ;;
	T) table_only=1 ;;
	*) echo "usage: train-codecs.sh [-i ITERS] [-w WORKERS] [-r MBIT] [-m MODELS] [-T]" >&2
	   exit 2 ;;
	esac
done
if [ "$table_only" = 0 ] && [ "$(id -u)" -ne 0 ]; then
	echo "codecs: needs root for the emulated cluster (network namespaces)" >&2
	exit 1
fi
out=build/codecs
mkdir -p "$out"
# name|inc-train arguments|codec as inc-bench codecs names it
configs=(
	"none|--compression none|none"
	"inc-eb6|--compression nic --error-bound 6|INCEPTIONN 2^-6"
	"inc-eb8|--compression nic --error-bound 8|INCEPTIONN 2^-8"
	"inc-eb10|--compression nic --error-bound 10|INCEPTIONN 2^-10"
	"trunc16|--compression none --truncate 16|truncation 16b"
	"trunc22|--compression none --truncate 22|truncation 22b"
	"trunc24|--compression none --truncate 24|truncation 24b"
	"cnat|--compression cnat|C_nat"
	"cnat-det|--compression cnat-det|C_nat det"
	"sketch|--compression sketch|sketch"
	"inc-sketch|--compression inc+sketch --error-bound 10|INCEPTIONN+sketch"
)
nm=$(wc -w <<<"$models")
total=$((nm * ${#configs[@]})) done_n=0 start=$(date +%s) rc=0
for model in $models; do
	[ "$table_only" = 1 ] && break
	mkdir -p "$out/$model"
	logs=()
	for cfg in "${configs[@]}"; do
		IFS='|' read -r name args _ <<<"$cfg"
		extra=(); [ "$name" = none ] && extra=(--save-grads "$out/$model/grads.f32")
		# shellcheck disable=SC2086
		timeout 1800 cluster/train-cluster.sh -q -w "$workers" -r "$rate" \
			-P $((29700 + done_n % 50)) -- --model "$model" --iterations "$iters" \
			--lr 0.05 --lr-step $((iters * 3 / 5)) --lr-gamma 0.2 --seed 1 --scheme inc \
			$args --eval-every $((iters / 10 > 0 ? iters / 10 : 1)) --eval-samples 10000 \
			"${extra[@]}" --log "$out/$model/$name.json" >"$out/$model/$name.out" 2>&1 ||
			{ echo "codecs: $model $name failed: $(tail -n 2 "$out/$model/$name.out")" >&2; rc=1; }
		done_n=$((done_n + 1))
		el=$(( $(date +%s) - start ))
		it=$(sed -nE 's/.*"iter_ms":([0-9.]+).*/\1/p' "$out/$model/$name.json" 2>/dev/null)
		printf 'codecs: %2d/%d %-6s %-10s %9s ms/iter  (%ds elapsed, eta %ds)\n' "$done_n" "$total" \
			"$model" "$name" "${it:-?}" "$el" $(( el * (total - done_n) / done_n ))
		logs+=("$out/$model/$name.json")
	done
	build/bin/inc-train report "${logs[@]}" --out "$out/$model" >/dev/null || rc=1
	if [ -s "$out/$model/grads.f32" ]; then
		build/bin/inc-bench codecs -r 5 "$out/$model/grads.f32" >"$out/$model/bench.txt" || rc=1
	else
		echo "codecs: $model: no saved gradient" >&2
		rc=1
	fi
done

# One table per model: the bench's ratio and speed on the real gradient,
# the run's communication and accuracy.
field() {  # FILE KEY [DECIMALS]: a number from the summary record
	local v
	v=$(grep '"type":"summary"' "$1" 2>/dev/null | sed -nE "s/.*\"$2\":([0-9.eE+-]+).*/\\1/p")
	if [ -n "$v" ]; then printf "%.${3:-1}f" "$v"; else echo "?"; fi
}
{
	echo "Written by \`make codecs\` (experiments/train-codecs.sh -i $iters -w $workers -r $rate) on"
	echo "$(nproc) cores, $(date -u +%Y-%m-%d). Ratio and throughput: \`inc-bench codecs\` on the"
	echo "last gradient of worker 0 of the uncompressed run (real gradients; GB/s of raw"
	echo "bytes, memcpy of the same bytes in the same row). comm ms: the communication"
	echo "row per iteration on the emulated cluster ($workers workers, $rate Mbit/s, jumbo"
	echo "frames; INCEPTIONN rows through the emulated NICs, whose software codec in"
	echo "the switch, not the link, limits them; the other codecs run in the hosts)."
	echo "Truncation's ratio is nominal: the values travel as full floats. Accuracy:"
	echo "final test accuracy after $iters iterations."
	for model in $models; do
		b=$out/$model/bench.txt
		echo
		echo "### $model ($(sed -nE 's/^Codecs on .*: ([0-9]+) values \(([0-9.]+)% zero\).*/\1 values, \2% zero/p' "$b" 2>/dev/null))"
		echo
		echo "| codec | ratio | encode GB/s (x memcpy) | decode GB/s (x memcpy) | wire bytes/iter | comm ms/iter | iter ms | accuracy % |"
		echo "|---|---|---|---|---|---|---|---|"
		for cfg in "${configs[@]}"; do
			IFS='|' read -r name _ codec <<<"$cfg"
			j=$out/$model/$name.json
			row=$(grep -E "^$(sed 's/[+^]/\\&/g' <<<"$codec") +[0-9]" "$b" 2>/dev/null | tail -n 1)
			row=${row#"$codec"}
			read -r ratio _ enc encx dec decx <<<"$row"
			wire=$(grep '"type":"wire"' "$j" 2>/dev/null | sed -nE 's/.*"bytes_wire_per_iter":([0-9.]+).*/\1/p')
			[ -z "$wire" ] && wire=$(field "$j" bytes_per_iter)
			printf '| %s | %s | %s (%s) | %s | %s | %s | %s | %s |\n' "$codec" "${ratio:-?}" \
				"${enc:-?}" "${encx:-?}" "$([ "${dec:--}" = - ] && echo - || echo "${dec:-?} (${decx:-?})")" \
				"$(printf '%.0f' "${wire:-0}")" "$(field "$j" comm_ms)" "$(field "$j" iter_ms)" \
				"$(field "$j" accuracy 2)"
		done
	done
} >"$out/summary.md"
cat "$out/summary.md"
echo "codecs: charts under $out/<model>/fig14-compression.png, the tables above in $out/summary.md"
exit $rc
