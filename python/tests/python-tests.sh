#!/usr/bin/env bash
# Suite python: the inceptionn package and its DDP hook (docs/pytorch.md).
#
#   - python/tests/lib_check.py: ctypes declarations == the C header, names
#     from the library's table, errors (bad arguments, missing library);
#   - 3 ranks under torchrun (python/tests/ddp_check.py): none == DDP's gloo
#     all-reduce, software/cnat with and without error feedback keep replicas
#     identical, the sketch modes, float64 + odd-sized layers and a sparse
#     embedding (fallback buckets), bucket rebuild, DDP's own options
#     (gradient_as_bucket_view, static_graph, find_unused_parameters,
#     no_sync) with a frozen layer;
#     mismatched settings refused on every rank; the defaults (feedback +
#     adaptive scaling) on torchvision's resnet18 through a bucket rebuild,
#     InceptionnState.create + register_comm_hook, a state_dict()
#     checkpoint resumed bit for bit, misuse refused, the default warm-up
#     (INC_WARMUP_ITERS), the default exemption of biases and norms, pace=True
#     (replicas identical, resumed bit for bit, as experiments/adam-bursts.py
#     paces a stream), residual_decay (0 ends as error_feedback=False) and
#     stats()' whole_ratio;
#   - python3 -m inceptionn.run: torch's environment, a failing rank ends
#     the job; a script that ends right after its last step through the
#     hook exits 0 (its states closed at exit, before the interpreter
#     finalizes);
#   - a rank killed with SIGKILL, or stopped with SIGSTOP: the others raise
#     (at once; after INC_TIMEOUT_MS) (own launcher: torchrun would stop
#     them itself);
#   - nic mode on the emulated cluster (train-cluster.sh -e, NICs = nic-switch;
#     root only);
#   - make install PREFIX=tmp: the installed package loads the installed
#     library from anywhere; a package without a library names INC_LIBRARY;
#   - the example under inc-run (INC_* variables moved to torch's);
#   - examples/pytorch/train_fashion_mnist.py vs inc-train --model hdc
#     (4 workers, same data, hyperparameters and initial weights): test
#     accuracies within 1 point, without and with INCEPTIONN compression;
#   - examples/pytorch/train_torchvision.py with PowerSGD over resnet18's
#     several buckets (4 ranks): replicas identical, no gloo abort; a run
#     stopped after a checkpoint and resumed ends with the weights of the
#     uninterrupted one, with PowerSGD and with DDP's own all-reduce; its
#     --lr-warmup ramps the lr as it says; a run
#     started with --init-weights from another's --save-weights starts
#     from those weights.
#
# Every Python process is /usr/bin/python3 or /usr/bin/torchrun (another
# python3 may come first on PATH). Debian 12's torchrun (torch 1.13 on
# Python 3.11) cannot handle its default --redirects/--tee of 0 (Python
# 3.11 no longer lists a zero flag when iterating), hence "--redirects 2
# --tee 2". Last line "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
root=$PWD
export PYTHONPATH=$root/python
# the short runs below compress from their first iteration: no default
# warm-up (ddp_check scaling checks the default itself)
export INC_WARMUP_ITERS=0
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. tests/lib.sh
section() { echo "--- $* (at ${SECONDS}s)"; }
port() { "$py" -c 'import inceptionn; print(inceptionn.free_port())'; }
torchrun_() {  # SECONDS ARGS...
	local t=$1; shift
	timeout "$t" /usr/bin/torchrun --redirects 2 --tee 2 --log_dir "$tmp/torchrun-$RANDOM" \
		--master_addr 127.0.0.1 --master_port "$(port)" "$@"
}

# checks NAME EXPECTED LOG RC: count the "ok"/"FAIL" lines of a run; a run
# that exits non-zero without a FAIL line, or reports fewer than EXPECTED
# checks, is one failure more.
checks() {
	local name=$1 want=$2 log=$3 rc=$4 o f
	# train-cluster.sh interleaves the ranks' streams through files that may
	# hold NUL padding: one record per line again
	tr '\000\r' '\n\n' <"$log" >"$log.lines" && log=$log.lines
	o=$(grep -acE '^ok ' "$log") f=$(grep -acE '^FAIL ' "$log")
	grep -aE '^(ok|FAIL) ' "$log"
	pass=$((pass + o)) fail=$((fail + f))
	if [ "$((o + f))" -lt "$want" ] || { [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; }; then
		ko "$name: exit status $rc, $((o + f)) of $want checks reported"
		grep -avE '^(ok|FAIL) ' "$log" | tail -n 15
	fi
}

section "library declarations"
timeout 120 "$py" python/tests/lib_check.py build >"$tmp/lib.log" 2>&1
checks lib_check 16 "$tmp/lib.log" $?

section "3 ranks under torchrun"
torchrun_ 300 --nproc_per_node 3 python/tests/ddp_check.py modes >"$tmp/modes.log" 2>&1
checks modes 23 "$tmp/modes.log" $?
torchrun_ 120 --nproc_per_node 3 python/tests/ddp_check.py mismatch >"$tmp/mismatch.log" 2>&1
checks mismatch 6 "$tmp/mismatch.log" $?
torchrun_ 600 --nproc_per_node 3 python/tests/ddp_check.py scaling >"$tmp/scaling.log" 2>&1
checks scaling 76 "$tmp/scaling.log" $?

section "python3 -m inceptionn.run"
# torch's environment without torchrun; a failing rank ends the job.
run=("$py" -m inceptionn.run)
timeout 180 "${run[@]}" -n 3 python/tests/run_check.py ddp >"$tmp/run.log" 2>&1
checks "inceptionn.run ddp" 9 "$tmp/run.log" $?
start=$SECONDS
timeout 120 "${run[@]}" -n 3 python/tests/run_check.py fail >"$tmp/runfail.log" 2>&1
rc=$?
[ $rc -eq 3 ] && grep -q 'inceptionn.run: rank 1 failed (exit status 3)' "$tmp/runfail.log" \
	&& ok "inceptionn.run: rank 1 exits 3, the job ends with status 3 after $((SECONDS - start)) s, the waiting ranks stopped" \
	|| { ko "inceptionn.run with a failing rank: exit status $rc"; tail -n 5 "$tmp/runfail.log"; }
# a script that ends right after its last step, the hook's threads maybe
# still finishing a Future: the states are closed at exit, before the
# interpreter finalizes (without that, 4 of 12 such jobs aborted in
# "terminate called without an active exception"); a forked child that
# exits normally leaves them alone (closing the parent's copy hung the job)
bad=0
for i in 1 2 3 4 5 6 7 8; do
	timeout 60 "${run[@]}" -n 2 python/tests/run_check.py exit >"$tmp/runexit.log" 2>&1 \
		|| { bad=$((bad + 1)); tail -n 3 "$tmp/runexit.log"; }
done
[ $bad -eq 0 ] && ok "a script ending right after its last step through the hook, a child forked on the way: 8 jobs of 2 ranks exit 0" \
	|| ko "a script ending right after its last step: $bad of 8 jobs failed"
out=$("${run[@]}" -n 3 -- /bin/sh -c 'echo "$RANK/$WORLD_SIZE $MASTER_ADDR:$MASTER_PORT $INC_JOB_ID"' 2>&1 | sort)
k=$(cut -d' ' -f2- <<<"$out" | sort -u | wc -l)
[ "$(cut -d' ' -f1 <<<"$out" | tr '\n' ' ')" = "0/3 1/3 2/3 " ] && [ "$k" -eq 1 ] \
	&& ok "inceptionn.run -- PROGRAM: ranks 0..2 of 3, one master and one job id" || ko "inceptionn.run -- PROGRAM: $out"
out=$("${run[@]}" -n 2 "$tmp/nosuch.py" 2>&1); rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <<<"$out")" -le 3 ] && grep -q 'no such file' <<<"$out" \
	&& ok "inceptionn.run on a missing script: exit status 2, $(tail -n 1 <<<"$out")" || ko "inceptionn.run missing script: rc $rc: $out"

section "a killed rank"
p=$(port) pids=()
for r in 0 1 2; do
	RANK=$r LOCAL_RANK=$r WORLD_SIZE=3 MASTER_ADDR=127.0.0.1 MASTER_PORT=$p INC_TIMEOUT_MS=10000 \
		timeout 120 "$py" python/tests/ddp_check.py kill >"$tmp/kill$r.log" 2>&1 &
	pids+=($!)
done
rcs=()
for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null; rcs+=($?); done
cat "$tmp/kill0.log" "$tmp/kill1.log" >"$tmp/kill.log"
checks kill 2 "$tmp/kill.log" $((rcs[0] | rcs[1]))
[ "${rcs[2]}" -eq 137 ] && ok "rank 2 died of SIGKILL" || ko "rank 2: exit status ${rcs[2]}"

section "a stalled rank"
p=$(port) pids=()
for r in 0 1 2; do
	RANK=$r LOCAL_RANK=$r WORLD_SIZE=3 MASTER_ADDR=127.0.0.1 MASTER_PORT=$p INC_TIMEOUT_MS=3000 \
		timeout 120 "$py" python/tests/ddp_check.py stall >"$tmp/stall$r.log" 2>&1 &
	pids+=($!)
done
rcs=()
for i in 0 1; do wait "${pids[$i]}" 2>/dev/null; rcs+=($?); done
# timeout(1) passes SIGTERM on to the stopped rank, with a SIGCONT
kill -TERM "${pids[2]}" 2>/dev/null
wait "${pids[2]}" 2>/dev/null
cat "$tmp/stall0.log" "$tmp/stall1.log" >"$tmp/stall.log"
checks stall 2 "$tmp/stall.log" $((rcs[0] | rcs[1]))
# the first to time out resets its links, so the other may see them close
grep -aq 'stalled' "$tmp/stall.log" && ok "a rank reported the stall as a timeout" \
	|| ko "no rank reported a timeout"

section "nic mode through the emulated NICs"
if [ "$(id -u)" -eq 0 ]; then
	timeout 300 cluster/train-cluster.sh -w 3 -P "$(port)" -t 20000 -e "$py" -- \
		python/tests/ddp_check.py nic >"$tmp/nic.log" 2>&1
	checks nic 2 "$tmp/nic.log" $?
	sw=$(grep -aE '^nic-switch: frames' "$tmp/nic.log")
	c=$(sed -nE 's/.* compressed ([0-9]+) .*/\1/p' <<<"$sw") m=$(sed -nE 's/.* misaligned ([0-9]+).*/\1/p' <<<"$sw")
	[ "${c:-0}" -gt 0 ] && [ "${m:-1}" -eq 0 ] && ok "the NICs compressed $c frames, none misaligned ($sw)" \
		|| ko "nic-switch: $sw"
else
	skip "nic mode: network namespaces need root"
fi

section "make install"
prefix=$tmp/prefix dest=$tmp/prefix/lib/python3/dist-packages
if make --no-print-directory install PREFIX="$prefix" >"$tmp/install.log" 2>&1; then
	ok "make install PREFIX=$prefix"
else
	ko "make install"; tail -n 20 "$tmp/install.log"
fi
out=$(cd / && PYTHONPATH=$dest "$py" -c 'import inceptionn, inceptionn.torch as t, inceptionn._lib as l
print(l._lib._name, inceptionn.__file__, " ".join(t.compressions()))' 2>&1)
names=$("$py" -c 'import inceptionn.torch as t; print(" ".join(t.compressions()))')
[ "$out" = "$prefix/lib/libinceptionn.so.0 $dest/inceptionn/__init__.py $names" ] \
	&& ok "installed package loads the installed library: $out" || ko "installed package: $out"
mkdir -p "$tmp/alone" && cp -r python/inceptionn "$tmp/alone/" && rm -rf "$tmp/alone/inceptionn/__pycache__"
out=$(cd / && PYTHONPATH=$tmp/alone LD_LIBRARY_PATH= "$py" -c 'import inceptionn.torch' 2>&1 | tail -n 1)
grep -q 'INC_LIBRARY=/path/libinceptionn.so' <<<"$out" && ok "no library: $out" || ko "no library: $out"
out=$(cd / && PYTHONPATH=$tmp/alone INC_LIBRARY=$prefix/lib/libinceptionn.so "$py" -c \
	'import inceptionn._lib as l; print(l._lib._name)' 2>&1)
[ "$out" = "$prefix/lib/libinceptionn.so" ] && ok "INC_LIBRARY=$out" || ko "INC_LIBRARY: $out"

# The same call sites on both sides: inc-train all-reduces each layer on its
# own (--schedule wfbp), DDP each parameter tensor (--bucket-mb 1e-6). How
# the gradient is cut into calls moves the points where the ring quantises
# a sum, and with compression that alone moves the accuracy after 200
# iterations by about a point (docs/pytorch.md). Which BLAS kernels the CPU
# gets moves it too: on an AMD EPYC (Zen 5) inc-train itself ends software
# mode at 77.94 / 78.66 / 77.54 % with --schedule sync / wfbp / bucket, a
# spread of 1.1 points. So the compressed run may differ by 2 points (without
# error feedback the gap to uncompressed training is 4-7 points), the
# uncompressed one by 1.
section "the example under inc-run"
out=$(timeout 120 build/bin/inc-run -n 2 "$py" examples/pytorch/train_fashion_mnist.py --model lenet \
	--iterations 5 --eval-samples 500 --compression software --quiet 2>&1)
n=$(grep -c '^train_fashion_mnist: rank [01] iterations 5 ' <<<"$out")
w=$(sed -nE 's/^train_fashion_mnist: rank [01] .* weights ([0-9a-f]+)$/\1/p' <<<"$out" | sort -u | wc -l)
[ "$n" -eq 2 ] && [ "$w" -eq 1 ] && ok "inc-run -n 2: LeNet, software, both ranks end with the same weights" \
	|| ko "inc-run: $(tail -n 3 <<<"$out")"

# the same configuration on both sides: software with error feedback and no
# scaling. Their defaults differ where the scaling is on (the hook: 50
# warm-up iterations, biases and norms exempt, the scaling damped and
# primed; inc-train: 2 % warm-up, undamped)
section "the PyTorch example next to inc-train (HDC, 4 workers)"
args=(--model hdc --iterations 200 --lr 0.05 --lr-step 100 --lr-gamma 0.2 --quiet)
for comp in none software; do
	pol=()
	[ "$comp" = none ] || pol=(--scaling off)
	a=$(timeout 300 build/bin/inc-run -n 4 build/bin/inc-train "${args[@]}" --schedule wfbp \
		--compression "$comp" "${pol[@]}" 2>&1 |
		sed -nE 's/^inc-train: rank 0 .*test-accuracy ([0-9.]+).*/\1/p')
	b=$(torchrun_ 300 --nproc_per_node 4 examples/pytorch/train_fashion_mnist.py "${args[@]}" \
		--bucket-mb 1e-6 --compression "$comp" "${pol[@]}" 2>&1 |
		sed -nE 's/^train_fashion_mnist: rank 0 .*test-accuracy ([0-9.]+).*/\1/p')
	tol=1
	if [ -n "$a" ] && [ -n "$b" ] &&
	   awk -v a="$a" -v b="$b" -v t="$tol" 'BEGIN { d = a - b; exit !(d <= t && d >= -t) }'; then
		ok "$comp${pol[1]:+, scaling ${pol[1]}}: inc-train $a%, PyTorch $b% after ${args[3]} iterations (within $tol point(s))"
	else
		ko "$comp${pol[1]:+, scaling ${pol[1]}}: inc-train '$a'%, PyTorch '$b'% after ${args[3]} iterations (want within $tol point(s))"
	fi
done

# PowerSGD starts its later all-reduces from gloo's threads: over several
# buckets the ranks started them in different orders and gloo aborted at the
# first compressed iteration; train_torchvision serialises the buckets.
section "train_torchvision: PowerSGD over several buckets (resnet18), resumed; DDP resumed"
tv() { timeout 600 build/bin/inc-run -n 4 "$py" examples/pytorch/train_torchvision.py "$@" 2>&1; }
weights() { sed -n 's/^train_torchvision: done: .* weights \([0-9a-f]*\), replicas identical$/\1/p' <<<"$1"; }
# config_of LOG KEY...: the value under KEY... in a run log's config record
config_of() {
	"$py" -c 'import json, sys
v = json.loads(open(sys.argv[1]).readline())
for k in sys.argv[2:]:
    v = v.get(k) if isinstance(v, dict) else None
print(v)' "$@" 2>&1
}
# resumed LABEL KIND DIR WHOLE ARGS...: the run of ARGS stopped after its
# checkpoint at 4, then the same run again to 8 ends with the weights WHOLE
# of the uninterrupted one
resumed() {
	local label=$1 kind=$2 dir=$3 whole=$4 out
	shift 4
	tv "$@" --iterations 5 --checkpoint "$dir" --log "$dir/log.jsonl" >/dev/null
	out=$(tv "$@" --iterations 8 --checkpoint "$dir" --log "$dir/log.jsonl")
	if grep -q "$kind (resumed at 4)" <<<"$out" && [ -n "$whole" ] && [ "$(weights "$out")" = "$whole" ]; then
		ok "$label resumed at iteration 4: weights $whole, as uninterrupted"
	else
		ko "$label resumed: '$(weights "$out")' against '$whole': $(grep -aE 'resumed|Error|done' <<<"$out" | tail -n 3)"
	fi
	# the log: one config record naming the host's CPU, the iterations
	# after the checkpoint once, a resume record where the run went on
	local got
	got=$("$py" -c 'import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
cfg = [r for r in rs if r["type"] == "config"]
res = [(r["iter"], bool(r.get("cpu"))) for r in rs if r["type"] == "resume"]
its = [r["iter"] for r in rs if r["type"] == "iter"]
print(len(cfg), bool(cfg and cfg[0].get("cpu")), res, its)' "$dir/log.jsonl" 2>&1)
	[ "$got" = "1 True [(4, True)] [4, 8]" ] &&
		ok "$label's log: the host's CPU in its config, a resume record at 4, iterations 4 and 8 once" ||
		ko "$label's log: $got (want 1 True [(4, True)] [4, 8])"
}
psgd=(--arch resnet18 --batch 4 --no-eval --log-every 4
	--comm powersgd --powersgd-rank 1 --powersgd-warmup 2 --checkpoint-every 4)
out=$(tv "${psgd[@]}" --iterations 8)
whole=$(weights "$out")
[ -n "$whole" ] &&
	ok "PowerSGD rank 1, 6 compressed iterations over resnet18's buckets: replicas identical" ||
	ko "PowerSGD: $(grep -aE 'enforce|Error|done' <<<"$out" | tail -n 3)"
# PowerSGD's per-bucket state fits DDP's rebuilt buckets, not the first
# iteration's
resumed PowerSGD powersgd "$tmp/psgd" "$whole" "${psgd[@]}"
# DDP's own all-reduce has no state to carry, but the buckets of its first
# iteration in a process are cut otherwise than the rebuilt ones, and gloo
# sums each value in an order that follows the cut: a resumed run goes on
# with the rebuilt layout, as the uninterrupted one, or ends on other weights.
# Its checkpoint at 4 is the time's (--checkpoint-minutes, due at every
# progress line here), not the iteration count's
plain=(--arch resnet18 --batch 4 --no-eval --log-every 4 --comm ddp --checkpoint-every 1000
	--checkpoint-minutes 1e-9)
resumed "DDP's own all-reduce" ddp "$tmp/ddp" "$(weights "$(tv "${plain[@]}" --iterations 8)")" \
	"${plain[@]}"

# --lr-warmup: the lr rises linearly over the first E epochs' iterations
# (here 4 of mobilenet_v3_small's 1875 an epoch at 4 x 8), then holds
section "train_torchvision: --lr-warmup"
out=$(tv --arch mobilenet_v3_small --batch 8 --iterations 5 --no-eval --comm ddp --lr 0.1 \
	--lr-warmup 0.00214 --log-every 1 --log "$tmp/lrw.jsonl")
lrs=$("$py" -c 'import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
print(rs[0]["lr_warmup"], " ".join("%g" % r["lr"] for r in rs if r["type"] == "iter"))' "$tmp/lrw.jsonl" 2>&1)
[ "$lrs" = "4 0.05 0.075 0.1 0.1 0.1" ] &&
	ok "lr after iterations 1-5 of a 4-iteration ramp to 0.1: ${lrs#4 }" ||
	ko "--lr-warmup: lr_warmup and the lrs after iterations 1-5: $lrs (want 4 0.05 0.075 0.1 0.1 0.1); $(tail -n 2 <<<"$out")"

# --eval-bn-before-last evaluates once more with rank 0's batch-norm
# statistics of before the last forward and puts the final ones back: the
# final weights and statistics (the digest covers both) and the final
# accuracy are those of the run without it (on the test set's first 1,000
# images, --eval-samples: the evaluation of all 10,000 took 60 of this
# section's 90 s)
section "train_torchvision: --eval-bn-before-last leaves the run as it was"
bn=(--arch mobilenet_v3_small --batch 8 --iterations 3 --eval-every 100 --comm ddp --eval-samples 1000)
bn_acc() { sed -n 's/^train_torchvision: done: .* test accuracy \([0-9.]*\) %.*/\1/p' <<<"$1"; }
plain_out=$(tv "${bn[@]}" --save-weights "3:$tmp/w3.pt" --log "$tmp/bn.jsonl")
n=$(config_of "$tmp/bn.jsonl" eval_samples)
[ "$n" = 1000 ] && ok "--eval-samples 1000: the log's config names eval_samples 1000" ||
	ko "--eval-samples: the config's eval_samples is '$n' (want 1000)"
bn_out=$(tv "${bn[@]}" --eval-bn-before-last)
if [ -n "$(weights "$plain_out")" ] && [ "$(weights "$bn_out")" = "$(weights "$plain_out")" ] &&
   [ "$(bn_acc "$bn_out")" = "$(bn_acc "$plain_out")" ] &&
   grep -q 'statistics of before the last forward: test accuracy [0-9.]* %' <<<"$bn_out"; then
	ok "mobilenet_v3_small, 3 iterations: weights $(weights "$bn_out") and $(bn_acc "$bn_out") % with and without it; $(grep -o 'before the last forward: test accuracy [0-9.]* %' <<<"$bn_out")"
else
	ko "--eval-bn-before-last: weights '$(weights "$bn_out")' against '$(weights "$plain_out")', accuracy '$(bn_acc "$bn_out")' against '$(bn_acc "$plain_out")': $(grep -aE 'before the last|Error|done' <<<"$bn_out" | tail -n 3)"
fi

# mobilenet_v3_small has dropout, whose masks come from torch's generator:
# the checkpoint carries its state, or the resumed run draws other masks;
# trained with AdamW (--optimizer), whose moments the checkpoint carries too
section "train_torchvision: a network with dropout (mobilenet_v3_small), AdamW, resumed"
drop=(--arch mobilenet_v3_small --batch 8 --no-eval --log-every 4 --comm inceptionn
	--warmup-iters 2 --checkpoint-every 4 --optimizer adamw --lr 0.001 --weight-decay 0.01)
resumed mobilenet_v3_small inceptionn "$tmp/drop" "$(weights "$(tv "${drop[@]}" --iterations 8)")" \
	"${drop[@]}"

# --save-weights kept rank 0's weights after the last iteration of the
# run above (plain_out); --init-weights starts another run from exactly
# them (the config record's digest), and refuses another network's
section "train_torchvision: --init-weights from a run's --save-weights"
sw=(--batch 8 --no-eval --comm ddp --iterations 1)
b_out=$(tv --arch mobilenet_v3_small "${sw[@]}" --init-weights "$tmp/w3.pt" --log "$tmp/init.jsonl")
init=$(config_of "$tmp/init.jsonl" init_weights weights)
[ -n "$(weights "$plain_out")" ] && [ "$init" = "$(weights "$plain_out")" ] &&
	ok "a run started from the weights another ended with: $init" ||
	ko "--init-weights: the run started from '$init', the saving run ended at '$(weights "$plain_out")': $(tail -n 2 <<<"$b_out")"
c_out=$(timeout 300 build/bin/inc-run -n 1 "$py" examples/pytorch/train_torchvision.py --arch resnet18 \
	"${sw[@]}" --init-weights "$tmp/w3.pt" 2>&1)
grep -q "does not fit --arch resnet18" <<<"$c_out" &&
	ok "mobilenet_v3_small's weights refused for resnet18" ||
	ko "--init-weights of another network: $(tail -n 2 <<<"$c_out")"

echo "suite time ${SECONDS}s"
finish
