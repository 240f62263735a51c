#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Train the paper's HDC network (or a LeNet) on Fashion-MNIST with PyTorch
DDP, gradients all-reduced by libinceptionn through inceptionn.torch.

    torchrun --redirects 2 --tee 2 --nproc_per_node 4 train_fashion_mnist.py --compression software
    inc-run -n 4 /usr/bin/python3 train_fashion_mnist.py --compression none
    cluster/train-cluster.sh -w 4 -e /usr/bin/python3 -- train_fashion_mnist.py --compression nic

It is inc-train (train/, docs/train.md) written as a PyTorch user would
write it, with the same command line where the two overlap, the same data
order, the same initial weights (the trainer's seeded generator) and the
same SGD, so that the two can be compared run for run. The line that makes
it an INCEPTIONN job is the inct.register() call; --compression gloo leaves
DDP's own all-reduce in place.
"""
import argparse
import gzip
import hashlib
import json
import math
import os
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

import inceptionn
import inceptionn.torch as inct

PROG = "train_fashion_mnist"
M64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


# ---------------------------------------------------------------- data
def read_idx(directory, split, kind, dims):
    """DIR/SPLIT-KIND-idxD-ubyte[.gz] as a numpy array (big-endian header)."""
    for name in ("%s-%s-%s-ubyte.gz", "%s-%s-%s-ubyte", "%s-%s.%s-ubyte.gz", "%s-%s.%s-ubyte"):
        path = os.path.join(directory, name % (split, kind, dims))
        if os.path.exists(path):
            break
    else:
        sys.exit("%s: %s: no such file (install the Debian package dataset-fashion-mnist, "
                 "or give --data DIR with IDX files)" % (PROG, path))
    with (gzip.open if path.endswith(".gz") else open)(path, "rb") as f:
        raw = f.read()
    nd = raw[3]
    shape = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(nd)]
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * nd).reshape(shape)


def load(directory, split):
    x = read_idx(directory, split, "images", "idx3").astype(np.float32) * np.float32(1.0 / 255.0)
    y = read_idx(directory, split, "labels", "idx1").astype(np.int64)
    return torch.from_numpy(x).unsqueeze(1), torch.from_numpy(y)


# ---------------------------------------------------------------- the trainer's generator
def mix64(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def rng_state(seed, stream):
    """tr_rng_seed (train/src/tr_util.c): splitmix64 state of (seed, stream)."""
    return mix64(seed ^ mix64((stream + GOLDEN) & M64))


def mix64_np(z):
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def rng_draws(state, n):
    """The next n outputs of tr_rng_next from state; returns (outputs, new state)."""
    k = np.arange(1, n + 1, dtype=np.uint64)
    with np.errstate(over="ignore"):
        out = mix64_np(np.uint64(state) + k * np.uint64(GOLDEN))
    return out, (state + n * GOLDEN) & M64


def init_params(model, seed):
    """tr_model_init_params: weights N(0, 1/fan_in) from the stream 0x1417 in
    layer order, biases 0."""
    s = rng_state(seed, 0x1417)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, (nn.Linear, nn.Conv2d)):
                w = m.weight
                fan_in = w[0].numel()
                d, s = rng_draws(s, 2 * w.numel())
                u1 = ((d[0::2] >> np.uint64(11)) + np.uint64(1)).astype(np.float64) * 2.0 ** -53
                u2 = (d[1::2] >> np.uint64(11)).astype(np.float64) * 2.0 ** -53
                z = np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * math.pi * u2)
                w.copy_(torch.from_numpy((math.sqrt(1.0 / fan_in) * z).astype(np.float32))
                        .view_as(w))
                m.bias.zero_()


class Order:
    """inc-train's data order: global sample position p = (iteration * workers +
    worker) * batch + i takes entry p mod n of epoch p div n's permutation
    (Fisher-Yates from the stream 0xda7a0000 + epoch)."""

    def __init__(self, n, seed):
        self.n, self.seed, self.epoch, self.perm = n, seed, -1, None

    def _shuffle(self, epoch):
        s = rng_state(self.seed, 0xDA7A0000 + epoch)
        perm = list(range(self.n))
        for i in range(self.n - 1, 0, -1):
            n = i + 1
            lim = M64 - M64 % n
            while True:
                s = (s + GOLDEN) & M64
                x = mix64(s)
                if x < lim:
                    break
            j = x % n
            perm[i], perm[j] = perm[j], perm[i]
        self.perm, self.epoch = perm, epoch

    def batch(self, it, workers, worker, batch):
        out = []
        for p in range((it * workers + worker) * batch, (it * workers + worker + 1) * batch):
            if p // self.n != self.epoch:
                self._shuffle(p // self.n)
            out.append(self.perm[p % self.n])
        return torch.tensor(out)


# ---------------------------------------------------------------- models
def hdc():
    """The paper's handwritten-digit classifier: 784-500-500-500-500-10, ReLU."""
    return nn.Sequential(nn.Flatten(), nn.Linear(784, 500), nn.ReLU(), nn.Linear(500, 500),
                         nn.ReLU(), nn.Linear(500, 500), nn.ReLU(), nn.Linear(500, 500),
                         nn.ReLU(), nn.Linear(500, 10))


def lenet():
    """conv 5x5x6, pool, conv 5x5x16, pool, fc 256-120-84-10 (as inc-train's)."""
    return nn.Sequential(nn.Conv2d(1, 6, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(6, 16, 5),
                         nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(256, 120), nn.ReLU(),
                         nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10))


# ---------------------------------------------------------------- main
def parse():
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", choices=("hdc", "lenet"), default="hdc")
    ap.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    ap.add_argument("--iterations", type=int, default=10000)
    ap.add_argument("--batch", type=int, default=25, help="per worker")
    ap.add_argument("--lr", type=float, default=0.1)
    ap.add_argument("--lr-step", type=int, default=2000)
    ap.add_argument("--lr-gamma", type=float, default=0.2)
    ap.add_argument("--momentum", type=float, default=0.9)
    ap.add_argument("--weight-decay", type=float, default=5e-5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--compression", default="none",
                    help="gloo (DDP's own all-reduce, no hook) or a mode of the library: %s"
                    % ", ".join(inct.compressions()))
    ap.add_argument("--error-bound", type=int, default=10, help="2^-N")
    ef = ap.add_mutually_exclusive_group()
    ef.add_argument("--error-feedback", dest="error_feedback", action="store_const", const=True)
    ef.add_argument("--no-error-feedback", dest="error_feedback", action="store_const", const=False)
    ap.add_argument("--scaling", choices=("off", "balanced", "each", "least-error"),
                    help="the adaptive scaling's policy, as inc-train --scaling (default the "
                    "hook's, inct.DEFAULT_SCALE_POLICY, where the mode has an error bound)")
    ap.add_argument("--scheme", choices=("inc",), default="inc",
                    help="ring all-reduce (the only scheme of the hook)")
    ap.add_argument("--bucket-mb", type=float, default=25,
                    help="DDP's bucket_cap_mb; 0: one bucket for the whole model, one all-reduce "
                    "per iteration as inc-train --schedule sync")
    ap.add_argument("--eval-every", type=int, default=0)
    ap.add_argument("--eval-samples", type=int, default=0, help="0: all")
    ap.add_argument("--log-every", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--log", help="JSON-lines log (rank 0)")
    ap.add_argument("--save", help="rank 0 writes the final weights: raw little-endian float32 "
                    "in parameter order (as inc-train --save)")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args()
    if a.compression != "gloo" and a.compression not in inct.compressions():
        ap.error("--compression: gloo or one of %s" % ", ".join(inct.compressions()))
    return a


def evaluate(model, x, y):
    """Test accuracy % and loss of rank 0's replica, on every rank (the
    replicas are identical: the others need not spend the CPU)."""
    out = [None]
    if dist.get_rank() == 0:
        out[0] = evaluate_local(model, x, y)
    dist.broadcast_object_list(out, src=0)
    return out[0]


def evaluate_local(model, x, y):
    model.eval()
    correct, loss = 0, 0.0
    with torch.no_grad():
        for i in range(0, len(x), 1000):
            out = model(x[i:i + 1000])
            loss += float(nn.functional.cross_entropy(out, y[i:i + 1000], reduction="sum"))
            correct += int((out.argmax(1) == y[i:i + 1000]).sum())
    model.train()
    return 100.0 * correct / len(x), loss / len(x)


def main():
    a = parse()
    torch.set_num_threads(a.threads)
    inct.launcher_env()          # started by inc-run or train-cluster.sh: as under torchrun
    if "RANK" in os.environ:
        dist.init_process_group("gloo")
    else:                        # alone
        dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % inceptionn.free_port(),
                                rank=0, world_size=1)
    rank, workers = dist.get_rank(), dist.get_world_size()
    log = open(a.log, "w") if a.log and rank == 0 else None

    def record(**kw):
        if log:
            log.write(json.dumps(kw, separators=(",", ":")) + "\n")
            log.flush()

    train_x, train_y = load(a.data, "train")
    test_x, test_y = load(a.data, "t10k")
    if a.eval_samples:
        test_x, test_y = test_x[:a.eval_samples], test_y[:a.eval_samples]

    model = hdc() if a.model == "hdc" else lenet()
    init_params(model, a.seed)
    if a.bucket_mb == 0:
        # DDP's first bucket after its rebuild is capped separately (1 MiB)
        dist._DEFAULT_FIRST_BUCKET_BYTES = 1 << 62
    ddp = DDP(model, bucket_cap_mb=a.bucket_mb or float(1 << 40))
    state = None
    if a.compression != "gloo":
        # the line that makes it an INCEPTIONN job (seed: cnat's draws, the
        # sketch's hashes, as inc-train --seed)
        state = inct.register(ddp, compression=a.compression, error_bound=a.error_bound,
                              error_feedback=a.error_feedback, seed=a.seed,
                              scaling=False if a.scaling == "off" else a.scaling)
    opt = torch.optim.SGD(ddp.parameters(), lr=a.lr, momentum=a.momentum,
                          weight_decay=a.weight_decay)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=a.lr_step, gamma=a.lr_gamma)
    order = Order(len(train_x), a.seed)
    record(type="config", model=a.model, scheme="inc", iterations=a.iterations,
           batch=a.batch, lr=a.lr, lr_step=a.lr_step, lr_gamma=a.lr_gamma, momentum=a.momentum,
           weight_decay=a.weight_decay, seed=a.seed, workers=workers, ranks=workers,
           compression=a.compression, error_bound=a.error_bound,
           error_feedback=state.stats()["error_feedback"] if state else False,
           params=sum(p.numel() for p in model.parameters()), framework="pytorch")

    log_every = a.log_every or max(1, a.iterations // 50)
    train_s = data_s = 0.0
    loss = torch.zeros(())
    accuracy = None
    for it in range(a.iterations):
        t0 = time.monotonic()
        idx = order.batch(it, workers, rank, a.batch)
        x, y = train_x[idx], train_y[idx]
        t1 = time.monotonic()
        opt.zero_grad()
        loss = nn.functional.cross_entropy(ddp(x), y)
        loss.backward()
        opt.step()
        sched.step()
        t2 = time.monotonic()
        data_s += t1 - t0
        train_s += t2 - t0
        if (it + 1) % log_every == 0:
            record(type="iter", iter=it + 1, time=train_s, loss=float(loss),
                   lr=sched.get_last_lr()[0])
            if rank == 0 and not a.quiet:
                print("%s: iter %d loss %.4f" % (PROG, it + 1, float(loss)), file=sys.stderr)
        if a.eval_every and (it + 1) % a.eval_every == 0 and it + 1 < a.iterations:
            accuracy, tl = evaluate(model, test_x, test_y)
            record(type="eval", iter=it + 1, time=train_s, accuracy=accuracy, test_loss=tl)
    accuracy, tl = evaluate(model, test_x, test_y)
    record(type="eval", iter=a.iterations, time=train_s, accuracy=accuracy, test_loss=tl)

    mean_loss = loss.detach().clone().reshape(1)
    dist.all_reduce(mean_loss)
    mean_loss = float(mean_loss) / workers
    h = hashlib.sha256()
    for p in model.parameters():
        h.update(p.detach().contiguous().numpy().tobytes())
    if a.save and rank == 0:
        with open(a.save, "wb") as f:
            for p in model.parameters():
                f.write(p.detach().contiguous().numpy().astype("<f4").tobytes())
    st = state.stats() if state else {}
    n = max(1, a.iterations)
    record(type="summary", iterations=a.iterations, train_s=train_s, iter_ms=1e3 * train_s / n,
           data_ms=1e3 * data_s / n, comm_ms=1e3 * st.get("seconds", 0.0) / n,
           codec_ms=1e3 * st.get("codec_seconds", 0.0) / n,
           bytes_per_iter=st.get("bytes_sent", 0) / n, values_per_iter=st.get("values_sent", 0) / n,
           accuracy=accuracy, loss=mean_loss, weights=h.hexdigest()[:16],
           compression=a.compression, error_feedback=st.get("error_feedback", False),
           workers=workers, model=a.model)
    sys.stdout.write("%s: rank %d iterations %d test-accuracy %.2f loss %.6f weights %s\n"
                     % (PROG, rank, a.iterations, accuracy, mean_loss, h.hexdigest()[:16]))
    sys.stdout.flush()
    if state:
        state.close()
    if log:
        log.close()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
