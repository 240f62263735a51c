#!/usr/bin/env bash
# validate.sh - measured (emulated cluster) vs simulated iteration times:
# for every inc-train log DIR/<model>-<run>-<workers>-r<round>.json that
# simulate/measure-cluster.sh wrote, the median measured iter_ms over the
# rounds beside inc-sim --from-log on the same log (its compute timers,
# ratio and wire bytes; the link at the log's rate; the switch's per-frame
# latency LAT_US), as a markdown table with the difference in %.
#
#   simulate/validate.sh [-d DIR] [-l LAT_US] [-r MBIT]
set -u
cd "$(dirname "$0")/.." || exit 1
dir=build/simulate/measured lat=0 rate=250 segus=0
while getopts "d:l:r:u:" o; do
	case $o in d) dir=$OPTARG ;; l) lat=$OPTARG ;; r) rate=$OPTARG ;; u) segus=$OPTARG ;;
	*) echo "usage: $0 [-d DIR] [-l LAT_US] [-r MBIT]" >&2; exit 2 ;; esac
done
sim=build/bin/inc-sim
[ -x $sim ] || { echo "validate: build $sim first (make)" >&2; exit 1; }
gbps=$(awk -v r="$rate" 'BEGIN { print r / 1000 }')
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
jnum() { grep -o "\"$1\":[0-9.eE+-]*" | head -n 1 | cut -d: -f2; }
echo "| model | run | workers | rounds | measured iter ms (median) | simulated iter ms | sim − meas | measured comm ms | simulated exchange ms |"
echo "|---|---|---|---|---|---|---|---|---|"
for m in hdc lenet; do
	for w in 4 8; do
		for s in wa inc wa-c inc-c; do
			logs=$(ls "$dir/$m-$s-$w"-r*.json 2>/dev/null) || continue
			[ -n "$logs" ] || continue
			meas=() sims=() comms=() exch=()
			for f in $logs; do
				grep -q '"type":"summary"' "$f" || continue
				case $s in wa) a="--scheme wa --compression none" ;; inc) a="--scheme inc --compression none" ;;
				wa-c) a="--scheme wa --compression nic" ;; inc-c) a="--scheme inc --compression nic" ;; esac
				# shellcheck disable=SC2086
				out=$($sim --from-log "$f" --link-gbps "$gbps" --latency-us "$lat" --segment-us "$segus" $a) || exit 1
				meas+=("$(grep '"type":"summary"' "$f" | jnum iter_ms)")
				comms+=("$(grep '"type":"summary"' "$f" | jnum comm_ms)")
				sims+=("$(echo "$out" | jnum iter_ms)")
				exch+=("$(echo "$out" | jnum exchange_ms)")
			done
			[ ${#meas[@]} -gt 0 ] || continue
			mm=$(printf '%s\n' "${meas[@]}" | median) ms=$(printf '%s\n' "${sims[@]}" | median)
			mc=$(printf '%s\n' "${comms[@]}" | median) me=$(printf '%s\n' "${exch[@]}" | median)
			run=$(echo "$s" | tr a-z A-Z | sed 's/-C/+C/')
			awk -v m="$m" -v r="$run" -v w="$w" -v n="${#meas[@]}" -v a="$mm" -v b="$ms" -v c="$mc" -v d="$me" \
				'BEGIN { printf "| %s | %s | %s | %d | %.1f | %.1f | %+.1f %% | %.1f | %.1f |\n", m, r, w, n, a, b, (b - a) / a * 100, c, d }'
		done
	done
done
