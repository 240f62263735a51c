#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Every torchvision classification network through the PyTorch hook with
its defaults, for a few steps: does it run, do the replicas stay
bit-identical, what the hook makes of its buckets.

    experiments/hook-zoo.py [--only REGEX] [--max-params M] [--ranks R] [--steps S]

One torchrun job of R ranks (2) on loopback builds each network of
torchvision.models.list_models() with 10 classes and at most M million
parameters (150: vit_h_14, vit_l_*, regnet_y_32gf/128gf and
convnext_large are left out, for memory), the same weights on every rank,
and trains it S steps (6) with SGD on random images of 2 a rank
(3 x 64 x 64; 299 for inception_v3, 224 for the vision transformers, swin
and maxvit, which need it), through inceptionn.torch.register(ddp,
compression="software", warmup_iters=2): every default but the warm-up,
shortened so that the priming, DDP's bucket rebuild and compressed steps
all happen. The losses of auxiliary heads (googlenet, inception_v3) are
added as their users add them. After the last step the ranks compare
their parameters bit for bit. A line per network: its parameters, the
hook's buckets (compressed calls, through the process group), the values
exempt, kernel_ratio's choice, the ratio by the codec's classes, the
replicas, and seconds a step; an error names the network and the rest go
on. Exit status 1 if any network failed or differed.
"""
import argparse
import os
import re
import subprocess
import sys
import time
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BATCH = 2
WARMUP = 2


def input_size(name):
    if name.startswith(("vit_", "swin_", "maxvit")):
        return 224
    if name == "inception_v3":
        return 299      # its auxiliary head: a 5 x 5 convolution after a 5 x 5 pooling
    return 64


def step_loss(out, y):
    import torch.nn.functional as F
    if isinstance(out, tuple):        # googlenet's and inception_v3's auxiliary heads in training
        main = out[0]
        return F.cross_entropy(main, y) + sum(0.3 * F.cross_entropy(o, y) for o in out[1:] if o is not None)
    return F.cross_entropy(out, y)


def one(name, steps):
    """One network on this rank: (its line's fields, whether the replicas match)."""
    import torch
    import torch.distributed as dist
    import torchvision.models as tvm
    from torch.nn.parallel import DistributedDataParallel as DDP
    import inceptionn.torch as inct
    torch.manual_seed(0)
    kw = {"num_classes": 10}
    if name in ("googlenet", "inception_v3"):
        kw.update(aux_logits=True, init_weights=False)
    model = tvm.get_model(name, weights=None, **kw)
    n = sum(p.numel() for p in model.parameters())
    ddp = DDP(model)
    state = inct.register(ddp, compression="software", warmup_iters=WARMUP)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    s = input_size(name)
    g = torch.Generator().manual_seed(1 + dist.get_rank())
    for i in range(steps):
        if i == WARMUP:         # main() keeps steps > WARMUP
            t0 = time.monotonic()
        x = torch.randn(BATCH, 3, s, s, generator=g)
        y = torch.randint(0, 10, (BATCH,), generator=g)
        opt.zero_grad()
        step_loss(ddp(x), y).backward()
        opt.step()
    per_step = (time.monotonic() - t0) / (steps - WARMUP)
    st = state.stats()
    state.close()
    flat = torch.cat([p.detach().reshape(-1) for p in model.parameters()])
    all_ = [torch.empty_like(flat) for _ in range(dist.get_world_size())]
    dist.all_gather(all_, flat)
    same = all(torch.equal(all_[0], t) for t in all_[1:])
    kern = st.get("kernel_buckets")
    return ("%.1f M" % (n / 1e6), "%d / %d" % (st["calls"], st["fallback_calls"]),
            "%.1f M" % (st["exempt_values"] / 1e6), "%s" % (kern if kern else "-"),
            "%.1fx" % st["ratio"], "identical" if same else "DIFFER", "%.2f" % per_step), same


def worker(names, steps):
    import torch
    import torch.distributed as dist
    torch.set_num_threads(1)
    dist.init_process_group("gloo")
    rank0 = dist.get_rank() == 0
    bad = 0
    if rank0:
        print("| network | parameters | compressed calls / through the group | exempt | kernel buckets "
              "| ratio by classes | replicas | s a step |", flush=True)
        print("|---|---|---|---|---|---|---|---|", flush=True)
    for name in names:
        try:
            fields, same = one(name, steps)
            bad += not same
        except Exception as e:      # this network's failure; the others go on
            fields = ("FAILED: %s: %s" % (type(e).__name__, str(e).splitlines()[0][:160]),)
            bad += 1
            if rank0:
                traceback.print_exc()
        if rank0:
            print("| %s | %s |" % (name, " | ".join(fields)), flush=True)
        dist.barrier()
    dist.destroy_process_group()
    sys.exit(1 if bad else 0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default=".", help="networks whose names match this regex")
    ap.add_argument("--max-params", type=float, default=150, help="million parameters at most (150)")
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--steps", type=int, default=6, help="steps a network, %d of them warm-up (6)" % WARMUP)
    ap.add_argument("--worker", nargs="*", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.steps < WARMUP + 2 or not 1 <= a.ranks <= 16:
        ap.error("--steps >= %d, --ranks 1..16" % (WARMUP + 2))
    sys.path.insert(0, os.path.join(ROOT, "python"))
    if a.worker is not None:
        return worker(a.worker, a.steps)
    import torchvision.models as tvm
    try:
        pick = re.compile(a.only)
    except re.error as e:
        ap.error("--only: %s" % e)
    names = []
    for name in tvm.list_models(module=tvm):
        if not pick.search(name):
            continue
        n = next(iter(tvm.get_model_weights(name))).meta["num_params"]    # with 1000 classes
        if n <= a.max_params * 1e6:
            names.append(name)
        else:
            print("hook-zoo: %s left out: %.0f M parameters" % (name, n / 1e6), flush=True)
    if not names:
        ap.error("no network matches %r under %g M parameters" % (a.only, a.max_params))
    lib = os.path.join(ROOT, "build", "lib", "libinceptionn.so")
    if not os.path.exists(lib):
        subprocess.check_call(["make", "-C", ROOT, "--no-print-directory", "build/lib/libinceptionn.so"])
    from inceptionn.run import torchrun_command
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"), INC_LIBRARY=lib, OMP_NUM_THREADS="1")
    print("hook-zoo: %d networks, %d ranks, %d steps each (%d warm-up)" % (len(names), a.ranks, a.steps,
                                                                          WARMUP), flush=True)
    return subprocess.call(torchrun_command(a.ranks, [os.path.abspath(__file__), "--steps", str(a.steps),
                                                      "--worker"] + names), env=env, cwd=ROOT)


if __name__ == "__main__":
    sys.exit(main())
