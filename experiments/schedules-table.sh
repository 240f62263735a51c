#!/usr/bin/env bash
# schedules-table.sh - the table of make schedules: one row per model,
# workers, link setting and compression, one column per schedule with its
# ms per iteration (the fastest all-reduce schedule in bold), the MG-WFBP
# prediction, and the final test accuracy of sync and gossip (averaged
# model). Reads build/schedules/*.json (experiments/train-schedules.sh).
#
#   schedules-table.sh [DIR]
set -u
dir=${1:-build/schedules}
num() {  # FILE KEY: a number from the summary record
	grep '"type":"summary"' "$1" 2>/dev/null | sed -nE "s/.*\"$2\":([0-9.]+).*/\\1/p"
}
echo "| model | workers | link | compression | sync | wfbp | bucket | mgwfbp (predicted) | gossip | accuracy sync / gossip % |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for f in "$dir"/*-sync.json; do
	[ -f "$f" ] || continue
	base=${f%-sync.json}
	name=$(basename "$base")              # MODEL-wW-RATE[-DELAY]-COMP
	model=${name%%-*}
	rest=${name#*-}
	w=${rest%%-*}; w=${w#w}
	rest=${rest#*-}
	comp=${rest##*-}
	link=${rest%-*}
	best= bestv=
	for s in sync wfbp bucket mgwfbp; do
		v=$(num "$base-$s.json" iter_ms)
		[ -n "$v" ] && { [ -z "$bestv" ] || awk -v a="$v" -v b="$bestv" 'BEGIN { exit !(a < b) }'; } &&
			{ best=$s; bestv=$v; }
	done
	rate=${link%%-*} lat=
	[ "$link" != "$rate" ] && lat=" + ${link#*-}"
	row="| $model | $w | $(awk -v r="$rate" 'BEGIN { print (r >= 1000 ? r / 1000 " Gbit/s" : r " Mbit/s") }')$lat |"
	row="$row $([ "$comp" = nic ] && echo "2^-10 (NICs)" || echo none) |"
	for s in sync wfbp bucket mgwfbp gossip; do
		v=$(num "$base-$s.json" iter_ms)
		cell=$(printf '%.1f' "${v:-0}")
		[ -z "$v" ] && cell=-
		[ "$s" = "$best" ] && cell="**$cell**"
		[ "$s" = mgwfbp ] && [ -n "$v" ] && cell="$cell ($(printf '%.1f' "$(num "$base-$s.json" predicted_iter_ms)"))"
		row="$row $cell |"
	done
	echo "$row $(num "$base-sync.json" accuracy) / $(num "$base-gossip.json" accuracy) |"
done
