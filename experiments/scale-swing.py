#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The adaptive scaling call by call: the ratio at which one rank's buckets
travel in each iteration, and their exponents, with the choice undamped
(scale_step=0) and damped to one binade a call (scale_step=1).

    experiments/scale-swing.py [--arch mobilenet_v2] [--iterations 130] [--replot]

A torchvision network on Fashion-MNIST (32 x 32), 4 workers x batch 32
through the inceptionn hook with its defaults of when it was made (50
uncompressed iterations, then feedback and the balanced scaling at target
8, biases and norms uncompressed; the hook's default target is 6 now),
seed 1, lr 0.1, momentum 0.9, weight decay 5e-4, no lr
decay: one run per step, each its own torchrun. Rank 0 writes a record per
compressed iteration (its class counts since the last iteration, their
ratio, each bucket's exponents) to docs/results/torch/swing-ARCH-stepS.jsonl,
then the plot docs/results/torch-swing-ARCH.png (gnuplot) and a summary
line per step: the mean per-iteration ratio, its spread, how many
iterations travelled above 14x (nearly every value held back) and below 4x.
--replot: the summary and the plot from the kept logs, no run.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "docs", "results", "torch")
WARMUP = 50


def worker(a):
    sys.path.insert(0, os.path.join(ROOT, "examples", "pytorch"))
    import torch
    import torch.distributed as dist
    import torch.nn.functional as F
    import torchvision
    from torch.nn.parallel import DistributedDataParallel as DDP
    import train_torchvision as tt
    import inceptionn.torch as inct

    torch.set_num_threads(1)
    dist.init_process_group("gloo")
    rank, ws = dist.get_rank(), dist.get_world_size()
    x, y = tt.load(a.data, "train")
    order = tt.Order(len(x), 1, ws, 32)
    torch.manual_seed(1)
    model = getattr(torchvision.models, a.arch)(num_classes=10)
    ddp = DDP(model)
    state = inct.register(ddp, compression="software", warmup_iters=WARMUP, scale_step=a.step,
                          scale_ratio=8)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4)
    out = open(a.out, "w") if rank == 0 else None
    prev = None
    for it in range(a.iterations):
        idx = order.indices(it, rank)
        opt.zero_grad()
        F.cross_entropy(ddp(tt.prepare(x[idx], 32)), y[idx]).backward()
        opt.step()
        counts = state._counters()["class_values"]
        counts = counts if sum(counts) else None       # nothing through the codec yet
        if out and counts and prev is not None:
            d = [c - p for c, p in zip(counts, prev)]
            if sum(d):
                out.write(json.dumps({
                    "iter": it + 1, "classes": d, "ratio": inct._class_ratio(d),
                    "exponents": {str(i): sc.exponents() for i, sc in sorted(state.scales.items())},
                }) + "\n")
                out.flush()
        if counts:
            prev = counts
        if rank == 0 and (it + 1) % 20 == 0:
            print("scale-swing: step %d: iteration %d of %d" % (a.step, it + 1, a.iterations),
                  flush=True)
    state.close()
    if out:
        out.close()
    dist.barrier()
    os._exit(0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--arch", default="mobilenet_v2")
    ap.add_argument("--iterations", type=int, default=130)
    ap.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    ap.add_argument("--replot", action="store_true", help="the kept logs' summary and plot only")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--step", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.iterations <= WARMUP + 2:
        ap.error("--iterations: more than %d (the warm-up) + 2" % WARMUP)
    if a.worker:
        return worker(a)
    sys.path.insert(0, os.path.join(ROOT, "python"))
    from inceptionn.torch import _class_ratio as class_ratio   # the hook's ratio of class counts
    from inceptionn.run import torchrun_command
    os.makedirs(RESULTS, exist_ok=True)
    env = dict(os.environ, OMP_NUM_THREADS="1",
               PYTHONPATH=os.path.join(ROOT, "python") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    logs = {}
    for step in (0, 1):
        logs[step] = os.path.join(RESULTS, "swing-%s-step%d.jsonl" % (a.arch, step))
        if a.replot:
            if not os.path.exists(logs[step]):
                print("scale-swing: no %s: run without --replot first" % logs[step],
                      file=sys.stderr)
                return 1
            continue
        rc = subprocess.call(torchrun_command(4, [os.path.abspath(__file__), "--worker", "--arch", a.arch,
                                                  "--iterations", str(a.iterations), "--data", a.data,
                                                  "--step", str(step), "--out", logs[step]]),
                             env=env, cwd=ROOT, stdout=subprocess.DEVNULL)
        if rc:
            print("scale-swing: the run with scale_step=%d failed (exit %d)" % (step, rc),
                  file=sys.stderr)
            return 1
    for step, path in logs.items():
        with open(path) as f:
            recs = [json.loads(line) for line in f]
        r = [x["ratio"] for x in recs]
        tot = [sum(c) for c in zip(*(x["classes"] for x in recs))]
        print("scale-swing: %s scale_step=%d: %d compressed iterations, per iteration %.2fx mean "
              "(sd %.2f, %.2f-%.2fx), %d above 14x, %d below 4x; over them all %.2fx"
              % (a.arch, step, len(r), statistics.mean(r), statistics.pstdev(r), min(r), max(r),
                 sum(v > 14 for v in r), sum(v < 4 for v in r), class_ratio(tot)))
    png = os.path.join(ROOT, "docs", "results", "torch-swing-%s.png" % a.arch)
    tsv = {}
    for step, path in logs.items():     # gnuplot reads plain columns
        tsv[step] = os.path.join(ROOT, "build", "swing-step%d.tsv" % step)
        with open(path) as f, open(tsv[step], "w") as t:
            for line in f:
                x = json.loads(line)
                t.write("%d\t%.4f\n" % (x["iter"], x["ratio"]))
    gp = ("set terminal pngcairo size 900,420 noenhanced; set output '%s'; "
          "set key bottom left opaque; "
          "set xlabel 'iteration'; set ylabel 'rank 0: ratio of the iteration (codec classes)'; "
          "set yrange [0:18]; set title '%s through the hook (defaults): the scaling undamped "
          "and damped'; plot '%s' w lp pt 7 ps 0.5 t 'scale_step=0 (undamped)', "
          "'%s' w lp pt 5 ps 0.5 t 'scale_step=1'" % (png, a.arch, tsv[0], tsv[1]))
    subprocess.run(["gnuplot", "-e", gp], check=True)
    for p in tsv.values():
        os.remove(p)
    print("scale-swing: %s" % os.path.relpath(png, ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
