#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""How far the inceptionn hook's delivered gradients are from the true
mean gradient, parameter by parameter, for a few ways of the hook.

    experiments/hook-lag.py [--arch mobilenet_v2] [--seed 2] [--iterations 600]
                            [--every 100] [--way NAME]... [--params N]
                            [--png NAME] [--replot]

Each way is one run of examples/pytorch/train_torchvision.py (4 workers,
torchrun, its schedule, no evaluation) in which every bucket is also
all-reduced uncompressed by the process group, before the hook, so rank 0
holds both the mean gradient t and what the hook delivered, d. Per
parameter and window of --every iterations it records:

  relerr  sqrt(sum |d - t|^2 / sum |t|^2) over the window: the error of a
          step, relative to the step;
  cos     the mean cosine of d and t over the window;
  lag     |sum of every d so far - sum of every t so far| over the
          window's root-mean-square |t|: what error feedback still holds
          back, counted in steps.

Logs: docs/results/torch/lag-ARCH-WAY-seedS.jsonl (a record per parameter
and window, and one per window with the hook's stats() ratio and
whole_ratio); a line per way and window on stdout with the values weighted
by the parameters' sizes; the plot docs/results/torch-lag-ARCH.png (--png:
another name in docs/results).
--params N: also the N parameters through the codec whose last-window lag
grows most from the first way to any other, with each way's relerr and lag.
--replot: the summary and the plot from the kept logs, no run.
"""
import argparse
import json
import os
import runpy
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
from inceptionn.run import torchrun_command    # noqa: E402
RESULTS = os.path.join(ROOT, "docs", "results", "torch")
# the hook's ways: train_torchvision's options on top of --comm inceptionn
# (r6: the hook's defaults; r8: the defaults before DEFAULT_SCALE_RATIO)
WAYS = {
    "r8": ["--scale-ratio", "8"],
    "r6": ["--scale-ratio", "6"],
    "undamped": ["--scale-step", "0", "--scale-ratio", "8"],
    "plain": ["--plain"],
    "r6eb6": ["--scale-ratio", "6", "--error-bound", "6"],
    "r8eb6": ["--scale-ratio", "8", "--error-bound", "6"],
    # the scaling's policies at the hook's other defaults: balanced (the
    # default), least-error, and least-error bounded to balanced's headroom
    # + 1 binade a parameter
    "balanced": ["--scaling", "balanced"],
    "least": ["--scaling", "least-error"],
    "least1": ["--scaling", "least-error", "--scale-spread", "1"],
}
DEFAULT_WAYS = ["r8", "r6", "undamped"]
assert all(w in WAYS for w in DEFAULT_WAYS)


def worker(out_path, every, train_args):
    """Rank's side: wraps inceptionn_hook, then runs train_torchvision."""
    sys.path.insert(0, os.path.join(ROOT, "examples", "pytorch"))
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP
    import inceptionn.torch as inct

    names = {}
    register = DDP.register_comm_hook

    def named_register(self, state, hook):
        names.update((id(p), n) for n, p in self.module.named_parameters())
        return register(self, state, hook)

    DDP.register_comm_hook = named_register
    hook = inct.inceptionn_hook
    # parameter name -> its error summed since the start (sum of d - t), and
    # over the window: the cosines, steps, sum |t|^2 and sum |d - t|^2
    acc = {}
    out = open(out_path, "w") if int(os.environ.get("RANK", "0")) == 0 else None

    def measured(state, bucket):
        true = bucket.buffer().clone()
        dist.all_reduce(true)
        true /= dist.get_world_size()
        it, params = state.iteration, bucket.parameters()
        fut = hook(state, bucket)
        if out is None:
            return fut

        def record(f):
            v = f.value()
            got = v[0] if isinstance(v, (list, tuple)) else v
            off = 0
            for p in params:
                d, t = got[off:off + p.numel()], true[off:off + p.numel()]
                off += p.numel()
                a = acc.setdefault(names.get(id(p), str(tuple(p.shape))),
                                   {"err": torch.zeros(p.numel()), "cos": 0.0, "steps": 0,
                                    "t2": 0.0, "e2": 0.0})
                e = d - t
                a["err"] += e
                nt, nd = t.norm().item(), d.norm().item()
                a["cos"] += torch.dot(d, t).item() / (nd * nt) if nt > 0 and nd > 0 else 0.0
                a["steps"] += 1
                a["t2"] += nt * nt
                a["e2"] += e.norm().item() ** 2
            if bucket.is_last() and (it + 1) % every == 0:
                st = state.stats()
                out.write(json.dumps({"iter": it + 1, "ratio": st.get("ratio"),
                                      "whole_ratio": st.get("whole_ratio")}) + "\n")
                for name, a in acc.items():
                    if a["t2"] > 0:
                        rms = (a["t2"] / a["steps"]) ** 0.5
                        out.write(json.dumps({
                            "iter": it + 1, "param": name, "values": a["err"].numel(),
                            "relerr": (a["e2"] / a["t2"]) ** 0.5, "cos": a["cos"] / a["steps"],
                            "lag": a["err"].norm().item() / rms}) + "\n")
                    a.update(cos=0.0, steps=0, t2=0.0, e2=0.0)
                out.flush()
            return v

        return fut.then(record)

    inct.inceptionn_hook = measured
    script = os.path.join(ROOT, "examples", "pytorch", "train_torchvision.py")
    sys.argv = [script] + train_args
    runpy.run_path(script, run_name="__main__")


def windows(path):
    """A log's parameter records by window: {iteration: [record]}."""
    by = {}
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            if "param" in r:
                by.setdefault(r["iter"], []).append(r)
    return by


def weighted(by):
    """[(iteration, relerr, lag, cos)] of windows(), weighted by the
    parameters' sizes."""
    rows = []
    for it in sorted(by):
        rs = by[it]
        n = sum(r["values"] for r in rs)
        rows.append((it,) + tuple(sum(r["values"] * r[k] for r in rs) / n
                                  for k in ("relerr", "lag", "cos")))
    return rows


def last_window(by):
    """{parameter: (values, relerr, lag)} of windows()' last window."""
    return {r["param"]: (r["values"], r["relerr"], r["lag"]) for r in by[max(by)]} if by else {}


def by_param(wins, ways, n):
    """The n parameters whose last-window lag in some way exceeds the first
    way's most (by ratio), each way's relerr and lag beside (wins: each
    way's windows())."""
    win = {w: last_window(wins[w]) for w in ways}
    first, rest = ways[0], ways[1:]
    # the parameters through the codec in some way (an uncompressed one,
    # exempt, differs from the mean by rounding alone)
    common = [p for p in win[first] if all(p in win[w] for w in rest)
              and max(win[w][p][1] for w in ways) > 1e-3]
    if not rest or not common:
        print("hook-lag: --params: the ways' logs share no parameter through the codec",
              file=sys.stderr)
        return

    def growth(p):
        return max(win[w][p][2] for w in rest) / max(win[first][p][2], 1e-12)

    print("hook-lag: the %d parameters whose lag grows most from %s (last window; relerr / lag)"
          % (n, first))
    print("  %-36s %9s  %s" % ("parameter", "values", "  ".join("%15s" % w for w in ways)))
    for p in sorted(common, key=growth, reverse=True)[:n]:
        print("  %-36s %9d  %s" % (p, win[first][p][0], "  ".join(
            "%6.2f / %6.2f" % win[w][p][1:] for w in ways)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--arch", default="mobilenet_v2")
    ap.add_argument("--seed", type=int, default=2)
    ap.add_argument("--iterations", type=int, default=600)
    ap.add_argument("--every", type=int, default=100, help="iterations a window")
    ap.add_argument("--way", action="append", choices=sorted(WAYS),
                    help="the hook's way (repeatable; default: %s)" % ", ".join(DEFAULT_WAYS))
    ap.add_argument("--params", type=int, default=0,
                    help="the parameters whose lag grows most from the first way (this many)")
    ap.add_argument("--png", help="the plot's file name in docs/results (default: "
                    "torch-lag-ARCH.png)")
    ap.add_argument("--replot", action="store_true", help="the kept logs' summary and plot only")
    if sys.argv[1:2] == ["--worker"]:    # a rank: LOG EVERY, then train_torchvision's own
        return worker(sys.argv[2], int(sys.argv[3]), sys.argv[4:])
    a = ap.parse_args()
    if a.every < 1 or a.iterations < a.every:
        ap.error("--every: at least 1 and at most --iterations")
    ways = a.way or DEFAULT_WAYS
    if a.params < 0 or (a.params and len(set(ways)) < 2):
        ap.error("--params: a count of parameters, with two ways or more to compare")
    if a.png is not None and (os.path.basename(a.png) != a.png or not a.png.endswith(".png")):
        ap.error("--png: a file name ending in .png (it goes to docs/results)")
    env = dict(os.environ, OMP_NUM_THREADS="1",
               PYTHONPATH=os.path.join(ROOT, "python") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    os.makedirs(RESULTS, exist_ok=True)
    logs = {w: os.path.join(RESULTS, "lag-%s-%s-seed%d.jsonl" % (a.arch, w, a.seed)) for w in ways}
    for way, path in logs.items():
        if a.replot:
            if not os.path.exists(path):
                print("hook-lag: no %s: run without --replot first" % path, file=sys.stderr)
                return 1
            continue
        print("hook-lag: %s, %s, seed %d, %d iterations" % (a.arch, way, a.seed, a.iterations),
              flush=True)
        rc = subprocess.call(torchrun_command(4, [os.path.abspath(__file__), "--worker", path, str(a.every),
                                                  "--arch", a.arch, "--seed", str(a.seed),
                                                  "--comm", "inceptionn", "--iterations", str(a.iterations),
                                                  "--no-eval", "--log-every", str(a.every)] + WAYS[way]),
                             env=env, cwd=ROOT)
        if rc:
            print("hook-lag: the run of %s failed (exit %d)" % (way, rc), file=sys.stderr)
            return 1
    tsv, wins = {}, {w: windows(path) for w, path in logs.items()}
    for way in logs:
        rows = weighted(wins[way])
        print("hook-lag: %s %s seed %d, per window (iteration: relerr / lag / cos): %s"
              % (a.arch, way, a.seed,
                 " ".join("%d: %.2f / %.2f / %.2f" % r for r in rows)))
        tsv[way] = os.path.join(ROOT, "build", "lag-%s.tsv" % way)
        os.makedirs(os.path.dirname(tsv[way]), exist_ok=True)
        with open(tsv[way], "w") as t:
            t.writelines("%d\t%.4f\t%.4f\t%.4f\n" % r for r in rows)
    if a.params:
        by_param(wins, ways, a.params)
    png = os.path.join(ROOT, "docs", "results", a.png or "torch-lag-%s.png" % a.arch)

    def plots(col):
        return ", ".join("'%s' u 1:%d w lp pt 7 t '%s'" % (tsv[w], col, w) for w in ways)

    gp = ("set terminal pngcairo size 1000,460 noenhanced; set output '%s'; "
          "set multiplot layout 1,2 title '%s through the hook, seed %d: delivered against the "
          "true mean (weighted by parameter size)'; set key below horizontal; set xlabel 'iteration'; "
          "set ylabel 'relerr: |d - t| / |t| a step'; set yrange [0:*]; plot %s; "
          "set ylabel 'lag: held back, in steps'; plot %s; unset multiplot"
          % (png, a.arch, a.seed, plots(2), plots(3)))
    subprocess.run(["gnuplot", "-e", gp], check=True)
    for p in tsv.values():
        os.remove(p)
    print("hook-lag: %s" % os.path.relpath(png, ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
