#!/usr/bin/env bash
# measure-cluster.sh - the measured side of the simulator's validation: short
# inc-train runs on the emulated cluster (cluster/train-cluster.sh, root)
# for HDC and LeNet, 4 and 8 workers, WA / INC / WA+C / INC+C, at RATE
# Mbit/s, ROUNDS times each (rounds FIRST_ROUND...), logs in OUT/<model>-<run>-<w>-r<round>.json.
# While it runs, /tmp/inc-quiet pauses the machine's background training;
# it is removed on exit (also on error or interrupt) and the script starts
# no new run after LIMIT seconds, so the quiet window stays bounded.
#
#   simulate/measure-cluster.sh [-i ITERS] [-r MBIT] [-s FIRST_ROUND] [-n ROUNDS] [-l LIMIT_S] [-o OUT] [-m "hdc lenet"] [-w "4 8"]
set -u
cd "$(dirname "$0")/.." || exit 1
iters=40 rate=250 first=1 rounds=2 limit=780 out=build/simulate/measured models="hdc lenet" ws="4 8"
while getopts "i:r:s:n:l:o:m:w:" o; do
	case $o in
	i) iters=$OPTARG ;; r) rate=$OPTARG ;; s) first=$OPTARG ;; n) rounds=$OPTARG ;; l) limit=$OPTARG ;;
	o) out=$OPTARG ;; m) models=$OPTARG ;; w) ws=$OPTARG ;;
	*) echo "usage: $0 [-i ITERS] [-r MBIT] [-s FIRST_ROUND] [-n ROUNDS] [-l LIMIT_S] [-o OUT] [-m MODELS] [-w WORKERS]" >&2; exit 2 ;;
	esac
done
[ "$(id -u)" -eq 0 ] || { echo "measure-cluster: needs root (network namespaces)" >&2; exit 1; }
mkdir -p "$out"
quiet=
[ -e /tmp/inc-quiet ] || { touch /tmp/inc-quiet && quiet=1; }
trap '[ -n "$quiet" ] && rm -f /tmp/inc-quiet' EXIT
trap 'exit 130' INT TERM
sleep 5
echo "measure-cluster: load $(cut -d' ' -f1-3 /proc/loadavg) at start"
t0=$(date +%s)
for r in $(seq "$first" $((first + rounds - 1))); do
	for m in $models; do
		for w in $ws; do
			for s in wa inc wa-c inc-c; do
				if [ $(( $(date +%s) - t0 )) -ge "$limit" ]; then
					echo "measure-cluster: ${limit} s reached, stopping before $m-$s-$w round $r"; exit 0
				fi
				case $s in
				wa) a="--scheme wa" ;; inc) a="--scheme inc" ;;
				wa-c) a="--scheme wa --compression nic" ;; inc-c) a="--scheme inc --compression nic" ;;
				esac
				f=$out/$m-$s-$w-r$r.json
				rm -f "$f"
				# shellcheck disable=SC2086
				if cluster/train-cluster.sh -q -w "$w" -r "$rate" -- --model "$m" $a \
					--iterations "$iters" --eval-every "$iters" --log "$f" >"$out/$m-$s-$w-r$r.out" 2>&1; then
					echo "measure-cluster: round $r $m $s $w: $(grep -o '"iter_ms":[0-9.]*' "$f")  load $(cut -d' ' -f1 /proc/loadavg)"
				else
					echo "measure-cluster: round $r $m $s $w failed (see $out/$m-$s-$w-r$r.out)" >&2
				fi
			done
		done
	done
done
echo "measure-cluster: done in $(( $(date +%s) - t0 )) s"
