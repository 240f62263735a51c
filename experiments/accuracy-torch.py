#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""make accuracy-torch: torchvision networks on Fashion-MNIST through DDP,
the inceptionn hook and PyTorch's own compression hooks, several seeds each,
whole schedules (examples/pytorch/train_torchvision.py).

    experiments/accuracy-torch.py run [--only REGEX] [--list]
    experiments/accuracy-torch.py status
    experiments/accuracy-torch.py table     # docs/results.md section + PNG from the kept logs
    experiments/accuracy-torch.py probe     # the ratio each scaling target gives (60 iterations)

Each run has a name (arch-comm-seedN); a finished run's log is kept in
docs/results/torch/NAME.jsonl and is not run again. A run in progress lives
in build/accuracy-torch/NAME/ (log, checkpoints, and a copy of the Python
package and libinceptionn.so taken when it started, so that a run resumed
after the library changed is still the run it began as); a stopped run
resumes from its last checkpoint. While the file /tmp/inc-quiet exists the
running job is paused (SIGSTOP), so that timing measurements elsewhere on
the machine see a quiet CPU; it continues when the file goes.
"""
import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "docs", "results", "torch")
WORK = os.path.join(ROOT, "build", "accuracy-torch")
QUIET = "/tmp/inc-quiet"
SCRIPT = os.path.join(ROOT, "examples", "pytorch", "train_torchvision.py")
WORKERS = 4
EXIT_GRACE_S = 120      # a run whose log has its summary is ended this long after

# resnet18's whole schedule: 5 epochs of 468 iterations (4 workers x 32),
# lr 0.1 divided by 10 at epochs 3 and 4, momentum 0.9, weight decay 5e-4.
SCHEDULE = ["--epochs", "5", "--batch", "32", "--lr", "0.1", "--milestones", "3,4",
            "--momentum", "0.9", "--weight-decay", "5e-4"]
COMMS = {
    "ddp": ["--comm", "ddp"],
    # kept, never run again (None): made before the scaling's estimate of
    # the sum's zeros was fixed (42b3337), which moved the ratios
    "incpre": None,
    "r10pre": None,
    # error feedback and the balanced adaptive scaling, no warm-up
    "inc": ["--comm", "inceptionn", "--compression", "software", "--warmup-iters", "0"],
    "r10": ["--comm", "inceptionn", "--compression", "software", "--scale-ratio", "10"],
    # the paper's plain codec: no error feedback, no scaling
    "plain": ["--comm", "inceptionn", "--compression", "software", "--plain"],
    # the choices the defaults were decided against
    "ef": ["--comm", "inceptionn", "--compression", "software", "--scaling", "off"],
    "each": ["--comm", "inceptionn", "--compression", "software", "--scaling", "each"],
    # the hook's defaults: feedback and scaling after 50 uncompressed
    # iterations (2 % of the schedule)
    "warm50": ["--comm", "inceptionn", "--compression", "software", "--warmup-iters", "50"],
    "fp16": ["--comm", "fp16"],
    "psgd1": ["--comm", "powersgd", "--powersgd-rank", "1"],
    "psgd4": ["--comm", "powersgd", "--powersgd-rank", "4"],
}
# the order runs are taken in: the defaults against DDP over three seeds
# first (the claim), then the runs that show what each part brings, then
# the other hooks
ORDER = [("ddp", 1), ("ddp", 2), ("warm50", 1), ("ddp", 3), ("warm50", 2), ("warm50", 3),
         ("inc", 1), ("plain", 1), ("fp16", 1), ("psgd1", 1), ("psgd4", 1),
         ("inc", 2), ("inc", 3), ("plain", 2), ("plain", 3),
         ("fp16", 2), ("psgd1", 2), ("psgd4", 2), ("fp16", 3), ("psgd1", 3), ("psgd4", 3),
         ("ef", 1), ("each", 1), ("ef", 2), ("ef", 3), ("each", 2), ("each", 3)]


# Table III / Fig. 14 per network: the plain codec's classes at each error
# bound over the first T3_ITERS iterations (4 workers x batch 16, seed 1)
T3_ARCHS = ("alexnet", "vgg16", "resnet50", "resnet18")
T3_BOUNDS = (10, 8, 6)
T3_ITERS = 40
T3_AFTER = ("inc", 1)        # taken after this run of ORDER


def runs():
    out = []
    for comm, seed in ORDER:
        out.append(("resnet18-%s-seed%d" % (comm, seed),
                    ["--arch", "resnet18"] + SCHEDULE + COMMS[comm] + ["--seed", str(seed)]))
        if (comm, seed) == T3_AFTER:
            for arch in T3_ARCHS:
                for eb in T3_BOUNDS:
                    out.append(("t3-%s-eb%d" % (arch, eb),
                                ["--arch", arch, "--iterations", str(T3_ITERS), "--batch", "16",
                                 "--comm", "inceptionn", "--compression", "software", "--plain",
                                 "--error-bound", str(eb), "--no-eval", "--seed", "1",
                                 "--log-every", "5"]))
    return out


def summary_of(path):
    """The summary record of the log at path, or None (no file, or the run
    not finished; a line still being written is skipped)."""
    try:
        with open(path) as f:
            for line in f:
                try:
                    r = json.loads(line)
                except ValueError:
                    continue
                if r.get("type") == "summary":
                    return r
    except OSError:
        pass
    return None


def finished(name):
    return summary_of(os.path.join(RESULTS, name + ".jsonl"))


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def snapshot(d):
    """The package and library a run uses for its whole life."""
    snap = os.path.join(d, "snap")
    if os.path.exists(os.path.join(snap, "ok")):
        return snap
    shutil.rmtree(snap, ignore_errors=True)
    lib = os.path.join(ROOT, "build", "lib", "libinceptionn.so")
    if not os.path.exists(lib):
        subprocess.check_call(["make", "-C", ROOT, "--no-print-directory", "build/lib/libinceptionn.so"])
    shutil.copytree(os.path.join(ROOT, "python", "inceptionn"), os.path.join(snap, "inceptionn"),
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(lib, os.path.join(snap, "libinceptionn.so"))
    shutil.copy(SCRIPT, os.path.join(snap, "train_torchvision.py"))
    shutil.copy(os.path.join(os.path.dirname(SCRIPT), "train_fashion_mnist.py"), snap)
    rev = subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty"],
                         capture_output=True, text=True).stdout.strip()
    with open(os.path.join(snap, "ok"), "w") as f:
        f.write(rev + "\n")
    return snap


def run_one(name, args):
    d = os.path.join(WORK, name)
    os.makedirs(d, exist_ok=True)
    snap = snapshot(d)
    env = dict(os.environ, PYTHONPATH=snap, INC_LIBRARY=os.path.join(snap, "libinceptionn.so"),
               INC_TIMEOUT_MS="3600000", OMP_NUM_THREADS="1")
    cmd = ["/usr/bin/torchrun", "--redirects", "2", "--tee", "2", "--log_dir", os.path.join(d, "torchrun"),
           "--nproc_per_node", str(WORKERS), "--master_port", str(free_port()),
           os.path.join(snap, "train_torchvision.py")] + args + \
          ["--checkpoint", os.path.join(d, "ckpt"), "--log", os.path.join(d, "log.jsonl")]
    with open(os.path.join(d, "cmd"), "w") as f:
        f.write(" ".join(cmd) + "\n")
    out = open(os.path.join(d, "out.txt"), "a")
    p = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         start_new_session=True, text=True, bufsize=1)
    paused = False
    done_at = None
    os.set_blocking(p.stdout.fileno(), False)
    while p.poll() is None:
        # a finished run whose processes do not exit (seen once: rank 0 in
        # gloo's destroy_process_group after the others had left) is ended
        if done_at is None and summary_of(os.path.join(d, "log.jsonl")):
            done_at = time.time()
        if done_at is not None and time.time() - done_at > EXIT_GRACE_S:
            print("accuracy-torch: %s finished but did not exit in %d s: ended" % (name, EXIT_GRACE_S),
                  flush=True)
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            out.close()
            return 0
        quiet = os.path.exists(QUIET)
        if quiet != paused:
            os.killpg(p.pid, signal.SIGSTOP if quiet else signal.SIGCONT)
            paused = quiet
            print("accuracy-torch: %s %s" % (name, "paused (%s exists)" % QUIET if quiet else "continues"),
                  flush=True)
        try:
            chunk = p.stdout.read()
        except (BlockingIOError, TypeError):
            chunk = None
        if chunk:
            out.write(chunk)
            out.flush()
            for line in chunk.splitlines():
                if "train_torchvision:" in line and "rank" not in line[:12]:
                    print("accuracy-torch: %s: %s" % (name, line.split("train_torchvision: ", 1)[-1]),
                          flush=True)
        time.sleep(2)
    rest = p.stdout.read()
    if rest:
        out.write(rest)
    out.close()
    return p.returncode


LABELS = {
    "ddp": "DDP's gloo all-reduce (uncompressed)",
    "incpre": "inceptionn hook, feedback + balanced scaling, ratio 8, before 42b3337",
    "r10pre": "inceptionn hook, feedback + balanced scaling, ratio 10, before 42b3337",
    "inc": "inceptionn hook, feedback + balanced scaling, ratio 8, no warm-up",
    "r10": "inceptionn hook, feedback + balanced scaling at ratio 10",
    "plain": "inceptionn hook, the paper's plain codec (no feedback, no scaling)",
    "ef": "inceptionn hook, feedback only (scaling off)",
    "each": "inceptionn hook, feedback + scaling per parameter (each)",
    "warm50": "inceptionn hook, defaults: feedback + balanced scaling after 50 uncompressed iterations",
    "fp16": "PyTorch fp16_compress_hook",
    "psgd1": "PyTorch PowerSGD, rank 1 (feedback, warm start)",
    "psgd4": "PyTorch PowerSGD, rank 4 (feedback, warm start)",
}
SECTION = "## Equal accuracy by default: resnet18 through the hook"


def load_log(path):
    recs = []
    with open(path) as f:
        for line in f:
            recs.append(json.loads(line))
    return recs


def whole_ratio(recs, ratio=None):
    """The run's ratio (default its summary's; or another of the library's
    ratios, e.g. wire_ratio) with its warm-up iterations (uncompressed)
    counted at 32 bits: every iteration carries the same gradient values,
    so of N iterations W travel at 1x. From the config's warmup_iters, not
    from the stats' counters: a run resumed before the hook carried them
    in its state_dict() counts only the iterations after the resume."""
    summ = next(r for r in recs if r["type"] == "summary")
    cfg = next(r for r in recs if r["type"] == "config")
    ratio = ratio or summ["ratio"]
    w = (cfg.get("settings") or {}).get("warmup_iters") or 0
    n = summ["iterations"]
    return n / ((n - w) / ratio + w) if 0 < w < n else ratio


def table():
    """The section of docs/results.md and its plot, from the kept logs."""
    got = {}
    for comm in COMMS:
        for seed in (1, 2, 3):
            path = os.path.join(RESULTS, "resnet18-%s-seed%d.jsonl" % (comm, seed))
            if os.path.exists(path) and finished("resnet18-%s-seed%d" % (comm, seed)):
                got.setdefault(comm, {})[seed] = load_log(path)
    if "ddp" not in got:
        print("accuracy-torch: no finished uncompressed run yet", file=sys.stderr)
        return 1
    summ = lambda recs: next(r for r in recs if r["type"] == "summary")
    ref = {s: summ(r)["accuracy"] for s, r in got["ddp"].items()}
    spread = max(ref.values()) - min(ref.values())
    cfg = next(r for r in next(iter(got["ddp"].values())) if r["type"] == "config")
    lines = [SECTION, "",
             "torchvision's `resnet18` (11.2 M parameters, batch norm) on Fashion-MNIST, "
             "images repeated to 3 channels and resized to %d x %d, %d workers x batch %d, "
             "%g epochs of %d iterations, SGD lr %g divided by %g at iterations %s, momentum %g, "
             "weight decay %g; the same seed gives the same initial weights and data order "
             "whatever carries the gradients. Final accuracy on the whole 10,000-image test set. "
             "Made by `make accuracy-torch` (experiments/accuracy-torch.py; logs in "
             "docs/results/torch/)." % (cfg["input_size"], cfg["input_size"], cfg["workers"],
                                        cfg["batch"], cfg["epochs"], cfg["per_epoch"], cfg["lr"],
                                        1 / cfg["lr_gamma"], cfg["milestones"], cfg["momentum"],
                                        cfg["weight_decay"]), "",
             "| gradients | seeds | final accuracy per seed | mean | vs uncompressed (same seeds) "
             "| ratio | bytes ratio | ms per iteration (loopback, 2 cores) |",
             "|---|---|---|---|---|---|---|---|"]
    for comm in COMMS:
        if comm not in got:
            continue
        runs = got[comm]
        accs = {s: summ(r)["accuracy"] for s, r in runs.items()}
        mean = sum(accs.values()) / len(accs)
        both = [s for s in accs if s in ref]
        gap = sum(accs[s] - ref[s] for s in both) / len(both) if both else float("nan")
        ratios = [whole_ratio(r) for r in runs.values() if summ(r).get("ratio")]
        ms = sum(summ(r)["iter_ms"] for r in runs.values()) / len(runs)
        wires = [whole_ratio(r, summ(r)["stats"]["wire_ratio"]) for r in runs.values()
                 if (summ(r).get("stats") or {}).get("wire_ratio")]
        lines.append("| %s | %s | %s | %.2f %% | %s | %s | %s | %.0f |" % (
            LABELS[comm], ",".join(str(s) for s in sorted(accs)),
            " / ".join("%.2f" % accs[s] for s in sorted(accs)), mean,
            "" if comm == "ddp" else "%+.2f" % gap,
            "%.1fx" % (sum(ratios) / len(ratios)) if ratios else ("1x" if comm == "ddp" else ""),
            "%.1fx" % (sum(wires) / len(wires)) if wires else "", ms))
    lines += ["", "The uncompressed runs' seed-to-seed spread (largest minus smallest final "
              "accuracy): %.2f points over %d seed(s). The ratio is 32 bits over the mean bits of "
              "the codec's classes of what each rank contributed (the hook's `stats()['ratio']`; "
              "warm-up iterations counted at 32 bits), or the raw bytes over the hook's bytes for "
              "fp16 and PowerSGD; the bytes ratio is the hook's `wire_ratio` (values sent x 4 "
              "over bytes sent, framing and the all-gather's denser sums included; warm-up "
              "iterations counted at 32 bits)." % (spread, len(ref)),
              "", "![accuracy against iteration](results/torch-resnet18-accuracy.png)", ""]
    # the plot: mean accuracy over the seeds at every evaluation
    dat = os.path.join(WORK, "plot")
    os.makedirs(dat, exist_ok=True)
    plots = []
    for comm in COMMS:
        if comm not in got:
            continue
        pts = {}
        for recs in got[comm].values():
            for r in recs:
                if r["type"] == "eval":
                    pts.setdefault(r["iter"], []).append(r["accuracy"])
        path = os.path.join(dat, comm + ".dat")
        with open(path, "w") as f:
            for it in sorted(pts):
                f.write("%d %.3f\n" % (it, sum(pts[it]) / len(pts[it])))
        plots.append("'%s' using 1:2 with linespoints title '%s (%d seeds)'"
                     % (path, comm, len(got[comm])))
    png = os.path.join(ROOT, "docs", "results", "torch-resnet18-accuracy.png")
    gp = ("set terminal pngcairo size 900,560 font ',10'; set output '%s'; "
          "set title 'resnet18 on Fashion-MNIST, 4 workers: test accuracy (mean over seeds)'; "
          "set xlabel 'iteration'; set ylabel 'test accuracy %%'; set yrange [70:95]; "
          "set key bottom right; set grid; plot %s" % (png, ", ".join(plots)))
    subprocess.run(["gnuplot", "-e", gp], check=True)
    sect = os.path.join(dat, "section.md")
    with open(sect, "w") as f:
        f.write("\n".join(lines).rstrip("\n") + "\n\n")   # a blank line before the next heading
    subprocess.run([os.path.join(ROOT, "scripts", "doc-section.sh"),
                    os.path.join(ROOT, "docs", "results.md"), SECTION, sect], check=True)
    print("\n".join(lines))
    return 0


# probe: what the hook's scaling target gives on resnet18 (error bound,
# target ratio), 60 iterations from seed 1, no evaluation
PROBES = [(10, 8), (10, 5), (12, 8), (12, 4)]
PROBE_ITERS = 60


def probe():
    """Ratio, bytes ratio and class shares per (error bound, target)."""
    print("| error bound | target | stats()['ratio'] | wire_ratio | 2 / 10 / 18 / 34-bit shares |")
    print("|---|---|---|---|---|")
    for eb, target in PROBES:
        name = "probe-eb%d-r%d" % (eb, target)
        d = os.path.join(WORK, name)
        shutil.rmtree(d, ignore_errors=True)
        args = ["--arch", "resnet18", "--iterations", str(PROBE_ITERS), "--batch", "32",
                "--comm", "inceptionn", "--compression", "software", "--error-bound", str(eb),
                "--scale-ratio", str(target), "--no-eval", "--seed", "1"]
        if run_one(name, args) != 0:
            print("accuracy-torch: %s failed; see %s" % (name, os.path.join(d, "out.txt")),
                  file=sys.stderr)
            return 1
        st = summary_of(os.path.join(d, "log.jsonl"))["stats"]
        print("| 2^-%d | %d | %.2fx | %.2fx | %s |" % (
            eb, target, st["ratio"], st["wire_ratio"],
            " / ".join("%.1f %%" % (100 * st["classes"][k]) for k in ("2", "10", "18", "34"))),
            flush=True)
    return 0


def main():
    ap = argparse.ArgumentParser(prog="accuracy-torch", description=__doc__.split("\n\n")[0])
    ap.add_argument("cmd", choices=("run", "status", "table", "probe"))
    ap.add_argument("--only", help="regular expression on run names")
    ap.add_argument("--list", action="store_true", help="print the runs and exit")
    a = ap.parse_args()
    if a.cmd == "table":
        return table()
    if a.cmd == "probe":
        return probe()
    todo = [(n, args) for n, args in runs() if not a.only or re.search(a.only, n)]
    if a.cmd == "status" or a.list:
        for n, args in todo:
            s = finished(n)
            state = ("done %.2f %%" % s["accuracy"] if s.get("accuracy") is not None else
                     "done %.1fx" % (s.get("ratio") or 0)) if s else \
                ("started" if os.path.exists(os.path.join(WORK, n)) else "to run")
            print("%-28s %-14s %s" % (n, state, " ".join(args) if a.list else ""))
        return 0
    os.makedirs(RESULTS, exist_ok=True)
    failed = []
    for i, (n, args) in enumerate(todo):
        if finished(n):
            continue
        for attempt in range(3):
            log = os.path.join(WORK, n, "log.jsonl")
            if summary_of(log):     # it ended but was not kept (stopped at its exit)
                rc = 0
            else:
                print("accuracy-torch: [%d/%d] %s%s" % (i + 1, len(todo), n,
                      " (attempt %d)" % (attempt + 1) if attempt else ""), flush=True)
                rc = run_one(n, args)
            if rc == 0 and os.path.exists(log):
                shutil.copy(log, os.path.join(RESULTS, n + ".jsonl"))
                if finished(n):
                    shutil.rmtree(os.path.join(WORK, n, "ckpt"), ignore_errors=True)
                    break
            print("accuracy-torch: %s exited %d; see %s" % (n, rc, os.path.join(WORK, n, "out.txt")),
                  flush=True)
        else:
            failed.append(n)
    if failed:
        print("accuracy-torch: failed: %s" % " ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
