#!/usr/bin/env bash
# train-accuracy.sh - equal accuracy over the paper's whole schedule (make
# accuracy; long): HDC and LeNet on Fashion-MNIST, 4 workers on loopback,
# Table I's schedule (batch 25 per worker, lr 0.1 divided by 5 every 2000
# iterations, 10000 iterations), software-mode compression (the values the
# NICs produce; `nic` with error feedback delivers the same bits, checked by
# make test-train-ef):
#   INC                                uncompressed
#   INC+C 2^-10 defaults               error feedback + the balanced adaptive scaling
#   INC+C 2^-6 / 2^-8 / 2^-10          the plain codec, and error feedback alone
#   C_nat                              unbiased natural compression
#   16b-T                              truncation, without and with feedback
#   INC+C 2^-10 EF, scaled             with --scale 2 and 3 (each layer's values
#                                      scaled by a power of two: the second lever)
#                                      and --scale-ratio 12, 10, 8 (the library's
#                                      balanced scaling at that target ratio)
# Writes the "Equal accuracy" section of docs/results.md (final accuracy,
# the first iteration at which each run reaches the uncompressed run's
# final accuracy minus 0.3 points, the ratio of what was sent, the paper's
# figures) and accuracy-vs-iteration plots under docs/results/.
#
#   ITERS=10000 MODELS="hdc lenet" RUNS="..." SEED=1 experiments/train-accuracy.sh
#
# RUNS picks a subset by name (default: all). SECTION=0 only runs (no table,
# no plots, docs/results.md untouched: for scripts that need some of the
# logs, e.g. experiments/train-time-to-accuracy.sh). A run whose log is complete
# (it has its summary record) is not run again: an interrupted make accuracy
# goes on where it stopped (REDO=1 runs everything anew). Hours on 2 cores.
set -u
cd "$(dirname "$0")/.."
iters=${ITERS:-10000} models=${MODELS:-hdc lenet} workers=${WORKERS:-4}
seed=${SEED:-1}
out=build/accuracy res=docs/results
# Another seed (SEED=N): logs, table and plots under build/accuracy-seedN,
# docs/results.md is left as it is (it holds seed 1's).
[ "$seed" = 1 ] || { out=build/accuracy-seed$seed res=$out; }
T=build/bin/inc-train R=build/bin/inc-run
all="inc inc-c10-default inc-c6 inc-c6-ef inc-c8 inc-c8-ef inc-c10 inc-c10-ef inc-c10-ef-s2 inc-c10-ef-s3 inc-c10-ef-r12 inc-c10-ef-r10 inc-c10-ef-r8 cnat t16 t16-ef"
runs=${RUNS:-$all}
mkdir -p "$out" "$res"
start=$(date +%s)
args() {  # RUN: inc-train arguments
	case $1 in
	inc) echo "--compression none" ;;
	inc-c10-default) echo "--compression software" ;;
	inc-c*-ef-s*) e=${1#inc-c}; echo "--compression software --error-bound ${e%%-*} --error-feedback --scale ${1##*-s}" ;;
	inc-c*-ef-r*) e=${1#inc-c}; echo "--compression software --error-bound ${e%%-*} --error-feedback --scale-ratio ${1##*-r}" ;;
	inc-c*-ef) e=${1#inc-c}; echo "--compression software --error-bound ${e%-ef} --error-feedback --scaling off" ;;
	inc-c*) echo "--compression software --error-bound ${1#inc-c} --no-error-feedback --scaling off" ;;
	cnat) echo "--compression cnat" ;;
	t16-ef) echo "--truncate 16 --error-feedback" ;;
	t16) echo "--truncate 16 --no-error-feedback" ;;
	*) echo "accuracy: unknown run $1" >&2; exit 2 ;;
	esac
}
n=0 total=0
for m in $models; do for r in $runs; do total=$((total + 1)); done; done
for m in $models; do
	for r in $runs; do
		n=$((n + 1))
		log=$out/$m-$r.json
		if [ -z "${REDO:-}" ] && { grep -q '"type":"summary"' "$log" 2>/dev/null ||
			grep -q 'training diverged' "$out/$m-$r.out" 2>/dev/null; }; then
			echo "accuracy: [$n/$total] $m $r: done before, kept"
			continue
		fi
		t0=$(date +%s)
		echo "accuracy: [$n/$total] $m $r ($(args "$r")) at $((t0 - start)) s"
		# shellcheck disable=SC2046
		"$R" -n "$workers" "$T" --model "$m" --scheme inc --iterations "$iters" --seed "$seed" \
			--eval-every $((iters / 40 > 0 ? iters / 40 : 1)) --log "$log" \
			$(args "$r") >"$out/$m-$r.out" 2>&1 ||
			# a run whose loss is no longer finite is a result (its table row
			# says where); any other failure stops make accuracy
			grep -q 'training diverged' "$out/$m-$r.out" ||
			{ echo "accuracy: $m $r failed:" >&2; tail -n 5 "$out/$m-$r.out" >&2; exit 1; }
		t1=$(date +%s)
		left=$(( (t1 - start) * (total - n) / n ))
		echo "accuracy: [$n/$total] $m $r: $(grep -o 'test-accuracy [0-9.]*\|diverged ([^)]*)' "$out/$m-$r.out" | head -n 1)," \
		     "$((t1 - t0)) s; about $left s left"
	done
done
secs=$(( $(date +%s) - start ))
if [ "${SECTION:-1}" = 0 ]; then
	echo "accuracy: logs in $out ($secs s); no section written (SECTION=0)"
	exit 0
fi
# The section covers every model with an uncompressed run in $out, not only
# the ones this call ran (MODELS=hdc must not drop LeNet's table).
tmodels=
for m in hdc lenet; do
	case " $models " in
	*" $m "*) tmodels="$tmodels $m" ;;
	*) [ -f "$out/$m-inc.json" ] && tmodels="$tmodels $m" ;;
	esac
done
tmodels=${tmodels# }
/usr/bin/python3 experiments/accuracy-table.py "$out" "$res" "$iters" "$workers" "$tmodels" "$seed" \
	>"$out/section.md" || exit 1
if [ "$seed" != 1 ]; then
	echo "accuracy: seed $seed: table in $out/section.md ($secs s), plots in $res/accuracy-*.png"
	exit 0
fi
scripts/doc-section.sh docs/results.md "## Equal accuracy" "$out/section.md" || exit 1
echo "accuracy: docs/results.md section written ($secs s); plots in $res/accuracy-*.png"
