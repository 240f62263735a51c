#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""What the PyTorch hook costs in memory, against DDP's own all-reduce:
each rank's peak resident memory over a training step, in bytes a
gradient value, after DDP's bucket rebuild.

    experiments/hook-memory.py [--values 50] [--ranks 2] [--steps 4]

A model of two linear layers (--values million parameters, most in one
weight, a bias beside it as in every layer of a CNN) trained by SGD with
DDP over gloo on loopback, once per way: DDP alone, then the hook
(inceptionn.torch.register, no warm-up) in software mode with its
defaults, with error feedback off, with every parameter through the codec
(exempt="none"), with pace=True, and in "none" mode. Each step's peak is
read from /proc/self/status (VmHWM, reset before the step); the table
gives the last step's on rank 0, and its excess over DDP's in the same run
divided by the values, which leaves out what every way has (PyTorch
itself, the data). What the excess holds: the residual of error feedback
(4 bytes a compressed value); the compressed values' copy where exempt
parameters cut a bucket's into several spans (4; the default
exempt="vectors" sends biases and norms uncompressed, which cut every
bucket of a CNN, and here the one bucket); pace's state (12).
"""
import argparse
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# way: (what it is, the hook's settings; None: DDP alone)
WAYS = {"ddp": ("DDP's gloo all-reduce", None),
        "software": ("hook, software, the defaults", {}),
        "noef": ("hook, software, error_feedback=False", {"error_feedback": False}),
        "noexempt": ("hook, software, exempt=\"none\"", {"exempt": "none"}),
        "pace": ("hook, software, pace=True", {"pace": True}),
        "none": ("hook, \"none\" (uncompressed through the library)", {"compression": "none"})}


def hwm_mb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM in /proc/self/status")


def worker(way, values, steps):
    """One rank of one way (under torchrun): prints the last step's peak on rank 0."""
    import torch
    import torch.distributed as dist
    import torch.nn as nn
    from torch.nn.parallel import DistributedDataParallel as DDP
    torch.set_num_threads(1)
    dist.init_process_group("gloo")
    torch.manual_seed(0)
    hidden = max(1, values // 5000)
    model = nn.Sequential(nn.Linear(5000, hidden), nn.ReLU(), nn.Linear(hidden, 10))
    ddp = DDP(model)
    kw = WAYS[way][1]
    if kw is not None:
        import inceptionn.torch as inct
        kw = dict(kw)
        inct.register(ddp, compression=kw.pop("compression", "software"), warmup_iters=0, **kw)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    x, y = torch.randn(8, 5000), torch.randint(0, 10, (8,))
    for _ in range(steps):
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")        # VmHWM back to the current resident size
        opt.zero_grad()
        nn.functional.cross_entropy(ddp(x), y).backward()
        opt.step()
    if dist.get_rank() == 0:
        n = sum(p.numel() for p in model.parameters())
        print("PEAK %s %d %.1f" % (way, n, hwm_mb()), flush=True)
    dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--values", type=float, default=50, help="million parameters (default 50)")
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--steps", type=int, default=4, help="steps a way; the first two hold "
                    "DDP's bucket rebuild, the last is reported (default 4)")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.values <= 0 or a.ranks < 1 or a.steps < 3:
        ap.error("--values > 0, --ranks >= 1, --steps >= 3")
    values = int(a.values * 1e6)
    if a.worker:
        worker(a.worker, values, a.steps)
        return
    sys.path.insert(0, os.path.join(ROOT, "python"))
    from inceptionn.run import torchrun_command
    lib = os.path.join(ROOT, "build", "lib", "libinceptionn.so")
    if not os.path.exists(lib):
        subprocess.check_call(["make", "-C", ROOT, "--no-print-directory", "build/lib/libinceptionn.so"])
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"), INC_LIBRARY=lib,
               OMP_NUM_THREADS="1")
    got = {}
    with tempfile.TemporaryDirectory() as logs:
        for way, (what, _) in WAYS.items():
            print("hook-memory: %s, %d ranks, %.0f M values ..." % (what, a.ranks, a.values),
                  flush=True)
            cmd = torchrun_command(a.ranks, [os.path.abspath(__file__), "--values", str(a.values),
                                             "--steps", str(a.steps), "--worker", way],
                                   log_dir=os.path.join(logs, way))
            p = subprocess.run(cmd, env=env, capture_output=True, text=True)
            line = next((ln for ln in p.stdout.splitlines() if "PEAK " in ln), None)
            if p.returncode or line is None:
                sys.exit("hook-memory: %s failed (exit %d):\n%s" % (way, p.returncode,
                                                                   p.stderr[-3000:]))
            f = line.split("PEAK ", 1)[1].split()
            got[way] = (int(f[1]), float(f[2]))
    n, ddp = got["ddp"]
    print("\n%d ranks, %d values (%.0f MB of float32), step %d of %d, rank 0\n"
          % (a.ranks, n, n * 4 / 2**20, a.steps, a.steps))
    print("| way | peak MB | bytes a value | over DDP, bytes a value |")
    print("|---|---|---|---|")
    for way, (what, _) in WAYS.items():
        peak = got[way][1]
        print("| %s | %.0f | %.1f | %+.1f |" % (what, peak, peak * 2**20 / n,
                                                (peak - ddp) * 2**20 / n))


if __name__ == "__main__":
    main()
