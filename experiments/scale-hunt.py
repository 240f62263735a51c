#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The damped scaling's hunt, iteration by iteration: DDP's own all-reduce,
the hook's defaults and the defaults with patience (scale_patience) on one
seed of a torchvision network, from the first iteration to --iterations.

    experiments/scale-hunt.py [--arch resnet50] [--seed 3] [--iterations 100]
                              [--patience 2] [--replot]

Each way is examples/pytorch/train_torchvision.py under torchrun (4
workers, OpenBLAS's Zen kernels pinned as `make accuracy-torch` pins them,
so the runs repeat its logs' first iterations), logging every iteration
without evaluation: the training loss, the norm of the gradient the
optimizer stepped with (grad_norm) and the buckets' least / median /
largest scaling exponents after it. resnet50 takes the schedule of
`make accuracy-torch`'s resnet50 runs (128 a worker, lr 0.05 rising over
the first epoch), alexnet and vgg16 theirs (128 a worker, AdamW at lr
1e-4), the others its resnet18 schedule (32 a worker, lr 0.1).
The logs are kept in docs/results/torch/hunt-ARCH-sSEED-WAY.jsonl (a way
whose log has the iterations asked for is not run again); then a table
per 10 iterations from the warm-up's end (mean training loss and gradient
norm of each way), how often each compressed way's median exponent moved
and reversed its last move, and the plot docs/results/torch-hunt-ARCH.png.
--replot: the table and the plot from the kept logs, no run.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "docs", "results", "torch")
WARMUP = 50             # the hook's default warm-up (DEFAULT_WARMUP_ITERS)
BLAS_CORE = "Zen"       # experiments/accuracy-torch.py's
SCHEDULES = {
    "resnet50": ["--batch", "128", "--lr", "0.05", "--lr-warmup", "1", "--milestones", "3,4",
                 "--weight-decay", "5e-4"],
    # alexnet and vgg16 under AdamW as `make accuracy-torch` trains them
    "alexnet": ["--epochs", "5", "--batch", "128", "--milestones", "3,4", "--optimizer",
                "adamw", "--lr", "0.0001", "--weight-decay", "0.01"],
    "vgg16": ["--epochs", "2", "--batch", "128", "--milestones", "1.2,1.6", "--optimizer",
              "adamw", "--lr", "0.0001", "--weight-decay", "0.01"],
    None: ["--epochs", "5", "--batch", "32", "--lr", "0.1", "--milestones", "3,4",
           "--momentum", "0.9", "--weight-decay", "5e-4"],
}


def ways(patience):
    """(name, title, the trainer's arguments) of each way."""
    return [("ddp", "DDP all-reduce", ["--comm", "ddp"]),
            ("defaults", "the hook, defaults (scale_step=1)", ["--comm", "inceptionn"]),
            ("patience%d" % patience, "the defaults, scale_patience=%d" % patience,
             ["--comm", "inceptionn", "--scale-patience", str(patience)])]


def load(path):
    """The "iter" records of a log, by iteration; {} if there is none."""
    if not os.path.exists(path):
        return {}
    out = {}
    with open(path) as f:
        for line in f:
            try:
                r = json.loads(line)
            except ValueError:
                continue        # a run stopped mid-line
            if r.get("type") == "iter":
                out[r["iter"]] = r
    return out


def moves(recs, first, last):
    """How often the median exponent moved from iteration first to last,
    and how often a move reversed the one before it."""
    med = [recs[i]["scale_exponents"][1] for i in range(first, last + 1)
           if i in recs and recs[i].get("scale_exponents")]
    steps = [b - a for a, b in zip(med, med[1:]) if b != a]
    return len(steps), sum(1 for a, b in zip(steps, steps[1:]) if a * b < 0), len(med) - 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--arch", default="resnet50")
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--iterations", type=int, default=100)
    ap.add_argument("--patience", type=int, default=2)
    ap.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    ap.add_argument("--replot", action="store_true")
    a = ap.parse_args()
    if a.iterations < WARMUP + 10:
        ap.error("--iterations: at least %d (the warm-up and 10 compressed)" % (WARMUP + 10))
    if not 2 <= a.patience <= 64:
        ap.error("--patience: 2..64")
    sys.path.insert(0, os.path.join(ROOT, "python"))
    from inceptionn.run import torchrun_command
    os.makedirs(RESULTS, exist_ok=True)
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_CORETYPE=BLAS_CORE,
               INC_LIBRARY=os.path.join(ROOT, "build", "lib", "libinceptionn.so"),
               PYTHONPATH=os.path.join(ROOT, "python") + os.pathsep
               + os.environ.get("PYTHONPATH", ""))
    logs = {}
    for name, _, args in ways(a.patience):
        path = os.path.join(RESULTS, "hunt-%s-s%d-%s.jsonl" % (a.arch, a.seed, name))
        logs[name] = path
        have = load(path)
        if all(i in have for i in range(1, a.iterations + 1)):
            continue
        if a.replot:
            print("scale-hunt: %s has not the %d iterations: run without --replot first"
                  % (os.path.relpath(path, ROOT), a.iterations), file=sys.stderr)
            return 1
        print("scale-hunt: %s, seed %d, %s: %d iterations" % (a.arch, a.seed, name, a.iterations),
              flush=True)
        cmd = torchrun_command(4, [os.path.join(ROOT, "examples", "pytorch", "train_torchvision.py"),
                                   "--arch", a.arch, "--seed", str(a.seed), "--iterations", str(a.iterations),
                                   "--data", a.data, "--log-every", "1", "--no-eval", "--log", path + ".part"]
                               + SCHEDULES.get(a.arch, SCHEDULES[None]) + args)
        rc = subprocess.call(cmd, env=env, cwd=ROOT)
        if rc:
            print("scale-hunt: the %s run failed (exit %d); its log so far: %s.part"
                  % (name, rc, os.path.relpath(path, ROOT)), file=sys.stderr)
            return 1
        os.replace(path + ".part", path)
    recs = {n: load(p) for n, p in logs.items()}
    names = [n for n, _, _ in ways(a.patience)]
    print("scale-hunt: %s, seed %d: mean training loss / gradient norm per 10 iterations"
          % (a.arch, a.seed))
    print("%-10s %s" % ("iterations", "  ".join("%-17s" % n for n in names)))
    for lo in range(WARMUP + 1, a.iterations + 1, 10):
        hi = min(lo + 9, a.iterations)
        cells = []
        for n in names:
            got = [recs[n][i] for i in range(lo, hi + 1) if i in recs[n]]
            cells.append("%6.3f / %8.2f" % (statistics.mean(r["loss"] for r in got),
                                             statistics.mean(r["grad_norm"] for r in got))
                         if got else "-")
        print("%-10s %s" % ("%d-%d" % (lo, hi), "  ".join("%-17s" % c for c in cells)))
    for n in names[1:]:
        moved, reversed_, calls = moves(recs[n], WARMUP + 1, a.iterations)
        print("scale-hunt: %s: the median exponent moved at %d of %d calls, %d of the moves "
              "reversing the one before" % (n, moved, calls, reversed_))
    png = os.path.join(ROOT, "docs", "results", "torch-hunt-%s.png" % a.arch)
    tsv = {}
    for n in names:     # gnuplot reads plain columns
        tsv[n] = os.path.join(ROOT, "build", "hunt-%s.tsv" % n)
        os.makedirs(os.path.dirname(tsv[n]), exist_ok=True)
        with open(tsv[n], "w") as t:
            for i in sorted(recs[n]):
                r = recs[n][i]
                ex = r.get("scale_exponents")
                t.write("%d\t%.5f\t%.4f\t%s\n" % (i, r["loss"], r["grad_norm"],
                                                 ex[1] if ex else "NaN"))
    title = dict((n, t) for n, t, _ in ways(a.patience))
    x0 = WARMUP - 10
    color = dict(zip(names, ("#000000", "#d62728", "#1f77b4")))     # the same in every panel
    plot = lambda col, sel: ", ".join(
        "'%s' u 1:%d w lp pt %d ps 0.6 lc rgb '%s' t \"%s\"" % (tsv[n], col, 7 + 2 * k,
                                                                 color[n], title[n])
        for k, n in enumerate(names) if n in sel)
    gp = ("set terminal pngcairo size 900,900 noenhanced; set output '%s'; "
          "set multiplot layout 3,1 title '%s, seed %d: DDP, the hook and its scaling, iteration "
          "by iteration (%d uncompressed first)'; set xrange [%d:%d]; set key bottom right opaque; "
          "set grid; set ylabel 'median exponent after'; set ytics 1; set offsets 0, 0, 0.5, 0.5; "
          "plot %s; set offsets 0, 0, 0, 0; set key top right; set ytics autofreq; set ylabel 'gradient norm stepped with'; plot %s; "
          "set xlabel 'iteration'; set ylabel 'training loss (rank 0)'; plot %s; unset multiplot"
          % (png, a.arch, a.seed, WARMUP, x0, a.iterations, plot(4, names[1:]), plot(3, names),
             plot(2, names)))
    subprocess.run(["gnuplot", "-e", gp], check=True)
    for p in tsv.values():
        os.remove(p)
    print("scale-hunt: %s" % os.path.relpath(png, ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
