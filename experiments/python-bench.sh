#!/usr/bin/env bash
# python-bench.sh - PyTorch DDP on the emulated cluster (cluster/train-cluster.sh,
# the NICs emulated by nic-switch), with DDP's own gloo all-reduce and with
# the inceptionn hook in none / software / nic, with and without error
# feedback, next to inc-train's INC and INC+C in the same setting. Prints a
# markdown table (docs/results.md keeps a run) and leaves the logs in OUT.
#
#   python-bench.sh [-i ITERATIONS] [-r MBIT] [-w WORKERS] [-o OUT]
#
# Default: the demo's setting (80 iterations, 4 workers, 250 Mbit/s of wire
# bytes, jumbo frames), HDC, error bound 2^-10, per-worker batch 25. Root.
# Figures, not assertions: ms per iteration (training time, evaluation
# excluded), the hook's communicator busy time per iteration (overlaps
# backward; inc-train: its comm + sum rows, which do not), bytes on the
# emulated wire per iteration (all links, from the switch), test accuracy.
set -u
cd "$(dirname "$0")/.."
iters=80 rate=250 workers=4 out=build/python-bench
while getopts "i:r:w:o:" o; do
	case $o in
	i) iters=$OPTARG ;;
	r) rate=$OPTARG ;;
	w) workers=$OPTARG ;;
	o) out=$OPTARG ;;
	*) echo "usage: python-bench.sh [-i ITERATIONS] [-r MBIT] [-w WORKERS] [-o OUT]" >&2; exit 2 ;;
	esac
done
export PYTHONPATH=$PWD/python
mkdir -p "$out"
common=(--model hdc --iterations "$iters" --error-bound 10 --quiet)
run() {  # NAME PROGRAM ARGS...
	local name=$1 prog=$2; shift 2
	rm -f "$out/$name.jsonl"
	cluster/train-cluster.sh -q -w "$workers" -r "$rate" -e "$prog" -- "$@" \
		--log "$out/$name.jsonl" >"$out/$name.out" 2>&1 || { echo "$name failed:" >&2; tail -n 5 "$out/$name.out" >&2; }
}
ex=examples/pytorch/train_fashion_mnist.py
run pt-gloo /usr/bin/python3 $ex "${common[@]}" --compression gloo
run pt-none /usr/bin/python3 $ex "${common[@]}" --compression none
run pt-software /usr/bin/python3 $ex "${common[@]}" --compression software --no-error-feedback
run pt-software-ef /usr/bin/python3 $ex "${common[@]}" --compression software --error-feedback
run pt-nic /usr/bin/python3 $ex "${common[@]}" --compression nic --no-error-feedback
run pt-nic-ef /usr/bin/python3 $ex "${common[@]}" --compression nic --error-feedback
run inc-train-none build/bin/inc-train "${common[@]}" --compression none
run inc-train-nic-ef build/bin/inc-train "${common[@]}" --compression nic --error-feedback

echo "HDC, $workers workers, $iters iterations, ${rate} Mbit/s links (jumbo frames), 2^-10"
echo
echo "| run | ms/iter | speed-up over gloo | comm ms/iter | wire MB/iter | accuracy % |"
echo "|---|---|---|---|---|---|"
/usr/bin/python3 - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
names = ["pt-gloo", "pt-none", "pt-software", "pt-software-ef", "pt-nic", "pt-nic-ef",
         "inc-train-none", "inc-train-nic-ef"]
rec = {}
for n in names:
    s, w = {}, {}
    p = os.path.join(out, n + ".jsonl")
    if os.path.exists(p):
        for line in open(p):
            r = json.loads(line)
            if r.get("type") == "summary":
                s = r
            elif r.get("type") == "wire":
                w = r
    rec[n] = (s, w)
base = rec["pt-gloo"][0].get("iter_ms")
for n in names:
    s, w = rec[n]
    if not s:
        print("| %s | failed | | | | |" % n)
        continue
    comm = s.get("comm_ms", 0.0) + (s.get("sum_ms", 0.0) if n.startswith("inc-train") else 0.0)
    print("| %s | %.1f | %s | %s | %.2f | %.2f |" % (
        n, s["iter_ms"], "%.2fx" % (base / s["iter_ms"]) if base else "",
        "%.1f" % comm if n != "pt-gloo" else "n/a",
        w.get("bytes_wire_per_iter", 0) / 1e6, s["accuracy"]))
PY
