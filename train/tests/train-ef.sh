#!/usr/bin/env bash
# Suite train-ef: error feedback in training (docs/train.md, "Error
# feedback").
#  - a short training with a decayed learning rate (3 ranks, HDC, 300
#    iterations, lr divided by 5 every 100), at each of SEEDS (1 2 3):
#    INCEPTIONN at 2^-10 without feedback ends GAP_MIN or more points below
#    the uncompressed run on the seeds' mean, and feedback closes at least
#    CLOSE_MIN of that mean gap. The criterion is also applied to the runs
#    without feedback, where it must fail (it can tell). One seed is not
#    enough: where the CPU's BLAS kernels change the float order, a seed's
#    share moves a lot (AMD EPYC, Zen 5: 67 / 62 / 21 % for seeds 1 / 2 / 3,
#    32 % for seed 7; pooled over 1-3: 51 %). Over a few hundred iterations
#    feedback wins back about half of the gap; over Table I's whole
#    schedule most of it (make accuracy: 77 % on HDC);
#  - replicas bit-identical with error feedback in every lossy mode
#    (software, nic, cnat and cnat-det with --error-feedback, inc+sketch,
#    truncation) and every schedule (sync, wfbp, bucket, mgwfbp; WA), also
#    with the values scaled per layer (--scale, --scale-ratio):
#    inc-train compares the replicas' digests every 10 iterations and at
#    the end, and every rank's final line must name the same weights;
#  - nic mode through the emulated NICs (they compress or pass each frame)
#    with feedback ends with exactly the weights of software mode on
#    loopback: the host quantises before the tagged socket (needs root);
#  - the defaults (a warm-up, error feedback and the library's balanced adaptive
#    scaling) against the paper's plain codec, same seeds: the defaults
#    close at least CLOSE_MIN of the plain codec's gap, by the criterion the
#    plain codec fails;
#  - --scale-ratio: asked for ratio 12 the run sends fewer bytes than
#    asked for 4;
#  - --warmup-iters N: a run whose warm-up covers every iteration ends with
#    the uncompressed run's weights, bit for bit (sync and wfbp), and one
#    that compresses after it with other weights, replicas identical, the
#    warm-up in the log; the default warm-up (2 % of the iterations with
#    the scaling, INC_WARMUP_ITERS); --warmup-error-bound: the warm-up
#    through the codec (other weights, sampled, logged);
#  - the choice is in the log, and nonsense combinations are refused.
# Last line "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
train=build/bin/inc-train run=build/bin/inc-run
GAP_MIN=${GAP_MIN:-2.0} CLOSE_MIN=${CLOSE_MIN:-0.4} SEEDS=${SEEDS:-1 2 3}
. tests/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export INC_TIMEOUT_MS=60000
digest() { grep -E '^inc-train: rank [0-9]+ iterations' "$1" | awk '{print $NF}' | sort -u; }
same_digest() {  # FILE N
	[ "$(digest "$1" | wc -l)" -eq 1 ] &&
		[ "$(grep -cE '^inc-train: rank [0-9]+ iterations' "$1")" -eq "$2" ]
}
acc_of() { grep -E '^inc-train: rank 0 iterations' "$1" | sed -nE 's/.*test-accuracy ([0-9.]+).*/\1/p'; }

# --- the gap, and how much of it feedback closes (means over SEEDS)
short=(--model hdc --scheme inc --iterations 300 --lr-step 100 --eval-every 0 --quiet)
declare -A sum=([none]=0 [noef]=0 [ef]=0 [default]=0)
nseeds=0
for seed in $SEEDS; do
	for r in none:"--compression none" \
		 noef:"--compression software --no-error-feedback --scaling off" \
		 ef:"--compression software --error-feedback --scaling off" \
		 default:"--compression software"; do
		name=${r%%:*}
		# shellcheck disable=SC2086
		timeout 600 nice "$run" -n 3 "$train" "${short[@]}" --seed "$seed" ${r#*:} \
			--log "$tmp/$name.json" >"$tmp/$name.out" 2>&1 ||
			ko "$name seed $seed: a rank failed: $(tail -n 3 "$tmp/$name.out")"
		a=$(acc_of "$tmp/$name.out")
		echo "seed $seed $name: ${a:-?}%"
		sum[$name]=$(awk -v s="${sum[$name]}" -v a="${a:-0}" 'BEGIN { print s + a }')
	done
	nseeds=$((nseeds + 1))
done
mean() { awk -v s="${sum[$1]}" -v n="$nseeds" 'BEGIN { printf "%.2f", n ? s / n : 0 }'; }
a_none=$(mean none) a_noef=$(mean noef) a_ef=$(mean ef) a_def=$(mean default)
# closes(A): the share of the gap a run with accuracy A closes
crit() {  # ACC -> exit 0 when the criterion holds
	awk -v n="${a_none:-0}" -v z="${a_noef:-0}" -v a="${1:-0}" -v g="$GAP_MIN" -v c="$CLOSE_MIN" \
		'BEGIN { gap = n - z; exit !(gap >= g && (a - z) >= c * gap) }'
}
share=$(awk -v n="${a_none:-0}" -v z="${a_noef:-0}" -v a="${a_ef:-0}" \
	'BEGIN { if (n - z > 0) printf "%.0f", 100 * (a - z) / (n - z); else print "?" }')
crit "$a_ef" && ok "error feedback closes $share% of the gap (means over seeds $SEEDS: uncompressed $a_none%, 2^-10 without" \
	"feedback $a_noef%, with $a_ef%; needs a gap >= $GAP_MIN points and >= $CLOSE_MIN of it closed)" \
	|| ko "error feedback: uncompressed $a_none%, without $a_noef%, with $a_ef% ($share% of the gap;" \
	"needs >= $GAP_MIN points of gap and >= $CLOSE_MIN closed)"
crit "$a_noef" && ko "the criterion holds without feedback too: it cannot tell" \
	|| ok "without feedback the same criterion fails (it can tell)"
# the defaults win back the same share of the plain codec's gap (over a few
# hundred iterations; equality is judged over whole schedules: make accuracy)
share_def=$(awk -v n="${a_none:-0}" -v z="${a_noef:-0}" -v a="${a_def:-0}" \
	'BEGIN { if (n - z > 0) printf "%.0f", 100 * (a - z) / (n - z); else print "?" }')
crit "$a_def" && ok "the defaults (a warm-up, feedback + balanced scaling) close $share_def% of the plain codec's gap" \
	"(means over seeds $SEEDS: $a_def% against $a_noef% plain, $a_none% uncompressed)" \
	|| ko "the defaults: $a_def% against $a_noef% plain, $a_none% uncompressed ($share_def% of the gap)"
grep -q '"scaling":"balanced"' "$tmp/default.json" && grep -q '"scaling":"off"' "$tmp/none.json" \
	&& ok "the log records the scaling (balanced by default, off uncompressed)" \
	|| ko "the log does not record the default scaling"
grep -q '"error_feedback":true' "$tmp/ef.json" && grep -q '"error_feedback":false' "$tmp/noef.json" \
	&& ok "the log records the choice" || ko "the log does not record the choice"
grep -q '"error_feedback":false' "$tmp/none.json" && ok "uncompressed: no feedback in the log" \
	|| ko "uncompressed run logs feedback"

# --- replicas bit-identical with feedback, every lossy mode and schedule
rep=(--model hdc --iterations 20 --seed 5 --check-every 10 --eval-every 0 --eval-samples 500 --quiet)
cases=(
	"software sync:--compression software"
	"nic sync:--compression nic"
	"cnat sync:--compression cnat --error-feedback"
	"cnat-det sync:--compression cnat-det --error-feedback"
	"inc+sketch sync:--compression inc+sketch"
	"truncation 16b sync:--truncate 16"
	"software wfbp:--compression software --schedule wfbp"
	"software bucket:--compression software --schedule bucket --bucket-kb 256"
	"nic mgwfbp:--compression nic --schedule mgwfbp"
	"truncation 16b bucket:--truncate 16 --schedule bucket --bucket-kb 256"
	"software wa:--compression software --scheme wa"
	"software sync, headroom scaling:--compression software --scale 3"
	"nic bucket, headroom scaling:--compression nic --schedule bucket --bucket-kb 256 --scale 2"
	"software wfbp, balanced scaling at 12:--compression software --schedule wfbp --scale-ratio 12"
	"software mgwfbp, each layer scaled:--compression software --schedule mgwfbp --scaling each"
	"nic bucket, least-error scaling:--compression nic --schedule bucket --bucket-kb 256 --scaling least-error"
	"inc+sketch bucket, balanced scaling:--compression inc+sketch --schedule bucket --bucket-kb 256"
	"software sync, WA algorithm, balanced scaling:--compression software"
	"nic bucket, balanced scaling damped to 1 binade a call:--compression nic --schedule bucket --bucket-kb 256 --scale-step 1"
	"software wfbp, balanced scaling damped, patience 2:--compression software --schedule wfbp --scale-step 1 --scale-patience 2"
)
i=0
for c in "${cases[@]}"; do
	name=${c%%:*} n=3
	case $c in *"--scheme wa"*) n=4 ;; esac
	i=$((i + 1))
	algo=ring
	case $name in *"WA algorithm"*) algo=wa ;; esac
	# shellcheck disable=SC2086
	INC_ALGO=$algo timeout 300 nice "$run" -n $n "$train" "${rep[@]}" ${c#*:} --log "$tmp/rep$i.json" \
		>"$tmp/rep$i.out" 2>&1 || ko "$name: a rank failed: $(tail -n 3 "$tmp/rep$i.out")"
	same_digest "$tmp/rep$i.out" $n && grep -q '"error_feedback":true' "$tmp/rep$i.json" \
		&& ok "$name with error feedback: replicas bit-identical ($n ranks)" \
		|| ko "$name with error feedback: replicas differ or feedback off"
done

# --- --scale-ratio R: the scale follows the ratio asked for
for R in 4 12; do
	timeout 300 nice "$run" -n 3 "$train" "${rep[@]}" --compression software --scale-ratio $R \
		--log "$tmp/ratio$R.json" >"$tmp/ratio$R.out" 2>&1 || ko "--scale-ratio $R: a rank failed"
done
# the ratio on the wire: bytes sent per iteration (the target is estimated
# from the sums, so it is not met exactly; its direction is)
bytes_of() { sed -nE 's/.*"type":"summary".*"bytes_per_iter":([0-9.]+).*/\1/p' "$1"; }
b4=$(bytes_of "$tmp/ratio4.json") b12=$(bytes_of "$tmp/ratio12.json")
awk -v a="${b4:-0}" -v b="${b12:-0}" 'BEGIN { exit !(a > 0 && b > 0 && b < 0.85 * a) }' \
	&& grep -q '"scale_ratio":12' "$tmp/ratio12.json" \
	&& ok "--scale-ratio: $b4 bytes per iteration when asked for ratio 4, $b12 for 12 (logged)" \
	|| ko "--scale-ratio: $b4 bytes per iteration when asked for ratio 4, $b12 for 12"

# --- --warmup-iters N: lossless sums first, then the codec
for sched in sync wfbp; do
	w=(--model hdc --iterations 12 --seed 4 --check-every 4 --eval-every 0 --eval-samples 500 --quiet
	   --schedule "$sched")
	timeout 300 nice "$run" -n 3 "$train" "${w[@]}" --compression none >"$tmp/w-none.out" 2>&1 ||
		ko "warm-up reference ($sched) failed"
	timeout 300 nice "$run" -n 3 "$train" "${w[@]}" --compression software --warmup-iters 12 \
		>"$tmp/w-all.out" 2>&1 || ko "--warmup-iters 12 ($sched) failed"
	timeout 300 nice "$run" -n 3 "$train" "${w[@]}" --compression software --warmup-iters 6 \
		--log "$tmp/w-half.json" >"$tmp/w-half.out" 2>&1 || ko "--warmup-iters 6 ($sched) failed"
	dn=$(digest "$tmp/w-none.out") da=$(digest "$tmp/w-all.out") dh=$(digest "$tmp/w-half.out")
	[ -n "$dn" ] && [ "$dn" = "$da" ] \
		&& ok "--warmup-iters 12 of 12 ($sched): the uncompressed run's weights $dn" \
		|| ko "--warmup-iters 12 of 12 ($sched): weights $da, uncompressed $dn"
	same_digest "$tmp/w-half.out" 3 && [ "$dh" != "$dn" ] && grep -q '"warmup_iters":6' "$tmp/w-half.json" \
		&& ok "--warmup-iters 6 of 12 ($sched): compressed after it (weights $dh), replicas identical, logged" \
		|| ko "--warmup-iters 6 of 12 ($sched): weights '$dh' (uncompressed $dn) or not logged"
	# through the codec at 2^-16 instead: lossy (not the uncompressed
	# weights), sampled by the codec statistics, logged
	timeout 300 nice "$run" -n 3 "$train" "${w[@]}" --compression software --warmup-iters 12 \
		--warmup-error-bound 16 --log "$tmp/w-coded.json" >"$tmp/w-coded.out" 2>&1 ||
		ko "--warmup-error-bound 16 ($sched) failed"
	dc=$(digest "$tmp/w-coded.out")
	cr=$(sed -nE 's/.*"type":"summary".*"codec_ratio":([0-9.]+).*/\1/p' "$tmp/w-coded.json")
	same_digest "$tmp/w-coded.out" 3 && [ -n "$dc" ] && [ "$dc" != "$dn" ] && [ "$dc" != "$dh" ] \
		&& awk -v r="${cr:-0}" 'BEGIN { exit !(r > 1) }' \
		&& grep -q '"warmup_error_bound":16' "$tmp/w-coded.json" \
		&& ok "--warmup-iters 12 --warmup-error-bound 16 ($sched): through the codec (weights $dc," \
		      "codec ratio $cr), replicas identical, logged" \
		|| ko "--warmup-error-bound 16 ($sched): weights '$dc' (uncompressed $dn), codec ratio '$cr'"
done

# --- nic through the emulated NICs == software on loopback, bit for bit
if [ "$(id -u)" -eq 0 ]; then
	# (the first 5 iterations a warm-up through the codec: the host's
	# scale_exp before the NIC's bound)
	eq=(--model lenet --scheme inc --iterations 15 --seed 9 --eval-every 0 --eval-samples 500 --quiet
	    --warmup-iters 5 --warmup-error-bound 16)
	timeout 300 nice "$run" -n 3 "$train" "${eq[@]}" --compression software >"$tmp/eq-sw.out" 2>&1 ||
		ko "software reference failed"
	timeout 600 cluster/train-cluster.sh -q -w 3 -r 2000 -P 29790 -- "${eq[@]}" --compression nic \
		--log "$tmp/eq-nic.json" >"$tmp/eq-nic.out" 2>&1 || ko "nic on the emulated cluster failed"
	w=$(grep '"type":"wire"' "$tmp/eq-nic.json" 2>/dev/null)
	c=$(sed -nE 's/.*"compressed":([0-9]+).*/\1/p' <<<"$w")
	b=$(sed -nE 's/.*"bypassed":([0-9]+).*/\1/p' <<<"$w")
	[ -n "$(digest "$tmp/eq-sw.out")" ] && [ "$(digest "$tmp/eq-sw.out")" = "$(digest "$tmp/eq-nic.out")" ] \
		&& [ "${c:-0}" -gt 0 ] \
		&& ok "nic through the emulated NICs, a coded warm-up first ($c frames compressed, ${b:-?} passed raw) ends with" \
		      "software mode's weights $(digest "$tmp/eq-sw.out")" \
		|| ko "nic ($(digest "$tmp/eq-nic.out")) vs software ($(digest "$tmp/eq-sw.out")), wire '$w'"
else
	skip "nic through the emulated NICs needs root (network namespaces)"
fi

# --- refused
"$train" --error-feedback --compression none >"$tmp/r1.out" 2>&1
[ $? -eq 2 ] && grep -q "error-feedback" "$tmp/r1.out" && ok "--error-feedback without a lossy mode refused" \
	|| ko "--error-feedback with none: $(cat "$tmp/r1.out")"
"$train" --scale 3 --compression none >"$tmp/r4.out" 2>&1
[ $? -eq 2 ] && grep -q "scale" "$tmp/r4.out" && ok "--scale without an INCEPTIONN mode refused" \
	|| ko "--scale with none: $(cat "$tmp/r4.out")"
"$train" --scale 3 --scale-ratio 12 --compression software >"$tmp/r5.out" 2>&1
[ $? -eq 2 ] && grep -q "scale-ratio" "$tmp/r5.out" && ok "--scale with --scale-ratio refused" \
	|| ko "--scale with --scale-ratio: $(cat "$tmp/r5.out")"
"$train" --scaling each --compression none >"$tmp/r6.out" 2>&1
[ $? -eq 2 ] && grep -q "scaling each" "$tmp/r6.out" && ok "--scaling each without an INCEPTIONN mode refused" \
	|| ko "--scaling each with none: $(cat "$tmp/r6.out")"
"$train" --scale-ratio 12 --scaling off --compression software >"$tmp/r7.out" 2>&1
[ $? -eq 2 ] && grep -q "scale-ratio" "$tmp/r7.out" && ok "--scale-ratio with --scaling off refused" \
	|| ko "--scale-ratio with --scaling off: $(cat "$tmp/r7.out")"
"$train" --scale-step 1 --scaling off --compression software >"$tmp/r8.out" 2>&1
[ $? -eq 2 ] && grep -q "scale-step" "$tmp/r8.out" && ok "--scale-step with --scaling off refused" \
	|| ko "--scale-step with --scaling off: $(cat "$tmp/r8.out")"
"$train" --scale-patience 2 --scaling off --compression software >"$tmp/r9.out" 2>&1
[ $? -eq 2 ] && grep -q "scale-patience" "$tmp/r9.out" && ok "--scale-patience with --scaling off refused" \
	|| ko "--scale-patience with --scaling off: $(cat "$tmp/r9.out")"
"$train" --error-feedback --compression software --schedule gossip >"$tmp/r2.out" 2>&1
[ $? -eq 2 ] && grep -q "gossip" "$tmp/r2.out" && ok "--error-feedback with gossip refused" \
	|| ko "--error-feedback with gossip: $(cat "$tmp/r2.out")"
# the default warm-up: TR_WARMUP_PERCENT (2 %) of the iterations with the
# scaling, none without it, INC_WARMUP_ITERS instead when set (the config
# record of a run that stops after its set-up)
warm_of() {  # ARGS... -> the warmup_iters its log records
	rm -f "$tmp/wd.json"
	"$train" --model hdc --iterations 300 --eval-every 0 --check-every 0 --eval-samples 1 \
		--log "$tmp/wd.json" --quiet "$@" >/dev/null 2>&1 &
	local pid=$! k
	for k in $(seq 100); do grep -q '"type":"config"' "$tmp/wd.json" 2>/dev/null && break; sleep 0.1; done
	kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
	sed -nE 's/.*"warmup_iters":([0-9]+).*/\1/p' "$tmp/wd.json"
}
wd=$(warm_of --compression software) wo=$(warm_of --compression software --scaling off)
wn=$(warm_of --compression none) we=$(INC_WARMUP_ITERS=7 warm_of --compression software --scaling off)
[ "$wd" = 6 ] && [ "$wo" = 0 ] && [ "$wn" = 0 ] && [ "$we" = 7 ] \
	&& ok "the default warm-up over 300 iterations: 6 with the scaling, 0 with --scaling off or" \
	      "uncompressed, INC_WARMUP_ITERS=7 gives 7" \
	|| ko "the default warm-up: '$wd' (want 6), scaling off '$wo', none '$wn', INC_WARMUP_ITERS=7 '$we'"
INC_WARMUP_ITERS=soon "$train" --compression software >"$tmp/r9.out" 2>&1
[ $? -eq 2 ] && grep -q "INC_WARMUP_ITERS" "$tmp/r9.out" && ok "INC_WARMUP_ITERS=soon refused" \
	|| ko "INC_WARMUP_ITERS=soon: $(cat "$tmp/r9.out")"
for bad in "--warmup-iters 5 --warmup-error-bound 8" "--warmup-iters 0 --warmup-error-bound 16"; do
	# shellcheck disable=SC2086
	"$train" --compression software $bad >"$tmp/r10.out" 2>&1
	[ $? -eq 2 ] && grep -q "warmup-error-bound" "$tmp/r10.out" && ok "$bad refused" \
		|| ko "$bad: $(cat "$tmp/r10.out")"
done
"$train" --warmup-iters 5 --compression none >"$tmp/r8.out" 2>&1
[ $? -eq 2 ] && grep -q "warmup-iters" "$tmp/r8.out" && ok "--warmup-iters without a lossy mode refused" \
	|| ko "--warmup-iters with none: $(cat "$tmp/r8.out")"
INC_ERROR_FEEDBACK=maybe "$train" --iterations 1 >"$tmp/r3.out" 2>&1
[ $? -ne 0 ] && ok "INC_ERROR_FEEDBACK=maybe refused" || ko "INC_ERROR_FEEDBACK=maybe accepted"
finish
