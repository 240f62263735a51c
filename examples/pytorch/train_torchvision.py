#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Train a torchvision network (resnet18, resnet50, alexnet, vgg16, ...) on
Fashion-MNIST with PyTorch DDP over gloo, gradients all-reduced by DDP
itself, by libinceptionn through inceptionn.torch, or by PyTorch's own
fp16 / PowerSGD hooks, so the four can be compared run for run.

    torchrun --redirects 2 --tee 2 --nproc_per_node 4 train_torchvision.py --arch resnet18 --comm inceptionn
    python3 -m inceptionn.run -n 4 train_torchvision.py --arch resnet18 --comm ddp
    cluster/train-cluster.sh -w 4 -r 250 -e /usr/bin/python3 -- train_torchvision.py --arch resnet18 ...

The images (28x28 grey) are repeated to three channels and resized
(bilinear) to --input-size, then normalised with Fashion-MNIST's mean and
standard deviation. The model's initial weights come from torch.manual_seed
(--seed), the data order from a generator seeded with --seed too: runs with
the same seed start from the same weights and see the same batches,
whatever carries their gradients, on one host: OpenBLAS picks its kernels
by the CPU (SkylakeX on an Intel Xeon with AVX-512, Zen on an AMD EPYC),
they round otherwise, and at a high lr the same seed leaves the same
trajectory within a few dozen iterations. OPENBLAS_CORETYPE pins the
choice: with OPENBLAS_CORETYPE=Zen a run on the Intel Xeon is the AMD
EPYC's run bit for bit (docs/pytorch.md). The log's config record names
the host's CPU (cpu_id) and the BLAS kernels in use (blas_core). Each of
the --workers' ranks takes its share of every global batch.

--log FILE writes JSON lines: a config record, every --log-every iterations
an "iter" record (training loss, lr, grad_norm: the L2 norm of the gradient
the optimizer stepped with, and with the hook its cumulative values, class
shares and the scaling's least / median / largest exponent), an "eval"
record per evaluation and a summary.

--checkpoint DIR makes the run resumable: every --checkpoint-every
iterations, at the end of every epoch and, with --checkpoint-minutes M, at
the first progress line M minutes after the last checkpoint (rank 0's clock
decides for all ranks) each rank writes its state (model,
optimizer, the communication hook's state: error-feedback residuals and
scaling, PowerSGD's error and warm-start state), and a restarted run with
the same arguments continues from the last complete checkpoint, with the
log cut back to it and a "resume" record naming the CPU it went on with:
on the same host the result is that of the uninterrupted run.

--save-weights ITER:PATH keeps the weights one run reached at an iteration
(rank 0 writes the model's state_dict), and --init-weights PATH starts
another run from them instead of the seed's random weights: e.g. the
codec's statistics at a phase of training where the network learns.
"""
import argparse
import contextlib
import hashlib
import json
import os
import sys
import time
from datetime import timedelta

import numpy as np
import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

from train_fashion_mnist import read_idx     # the IDX reader, beside this script

PROG = "train_torchvision"
MEAN, STD = 0.2860, 0.3530          # Fashion-MNIST training set, pixel values in [0, 1]


# ---------------------------------------------------------------- data
def load(directory, split):
    """Images as uint8 N x 1 x 28 x 28 (converted per batch), labels int64."""
    x = torch.from_numpy(read_idx(directory, split, "images", "idx3").copy()).unsqueeze(1)
    y = torch.from_numpy(read_idx(directory, split, "labels", "idx1").astype(np.int64))
    return x, y


def prepare(x, size):
    """uint8 grey batch -> normalised float32 3 x size x size."""
    x = (x.float() * (1.0 / 255.0) - MEAN) / STD
    if size != x.shape[-1]:
        x = F.interpolate(x, size=(size, size), mode="bilinear", align_corners=False)
    return x.expand(-1, 3, -1, -1).contiguous()


class Order:
    """The global data order: epoch e is a permutation drawn from a generator
    seeded with (seed, e); global batch i of an epoch is entries
    [i * B, (i + 1) * B) of it (B = workers x batch), and worker w takes its
    w-th slice. The last partial batch of an epoch is dropped."""

    def __init__(self, n, seed, workers, batch):
        self.n, self.seed, self.workers, self.batch = n, seed, workers, batch
        self.per_epoch = n // (workers * batch)
        self.epoch, self.perm = -1, None

    def indices(self, it, worker):
        e, i = divmod(it, self.per_epoch)
        if e != self.epoch:
            g = torch.Generator()
            g.manual_seed(self.seed * 1000003 + e)
            self.perm, self.epoch = torch.randperm(self.n, generator=g), e
        start = (i * self.workers + worker) * self.batch
        return self.perm[start:start + self.batch]


# ---------------------------------------------------------------- communication
def powersgd_bytes(model, rank, min_rate=2.0):
    """Bytes one rank hands to PowerSGD's all-reduces per iteration: P and Q
    for each matrix worth compressing (PowerSGDState's min_compression_rate
    rule), the rest (vectors, small matrices) raw."""
    total = 0
    for p in model.parameters():
        n = p.shape[0]
        m = p.numel() // n
        if p.dim() > 1:
            r = min(n, m, rank)
            if n * m > (n + m) * r * min_rate:
                total += 4 * (n + m) * r
                continue
        total += 4 * p.numel()
    return total


def serialised(hook):
    """The hook with each bucket's collectives started only after the
    previous bucket's have finished. PowerSGD starts its P and Q
    all-reduces from the callbacks of earlier ones, on gloo's threads, while
    DDP's thread starts the next bucket's: the ranks can then start them in
    different orders, and gloo fails (seen with PyTorch 1.13 on resnet18:
    "op.preamble.length <= op.nbytes"). Waiting here costs the overlap of
    one bucket's exchange with the next one's, not with the backward pass."""
    last = [None]

    def run(state, bucket):
        if last[0] is not None:
            last[0].wait()
        if run.plain:
            from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
            fut = default_hooks.allreduce_hook(state.process_group, bucket)
        else:
            fut = hook(state, bucket)
        last[0] = fut
        return fut

    @contextlib.contextmanager
    def plain_pass():
        """While active every bucket goes through a plain all-reduce,
        outside PowerSGD's state: the pass in which a resumed run lets DDP
        rebuild its buckets (PowerSGD's per-bucket state is keyed by the
        rebuilt layout; DDP's first iteration in a process has another)."""
        run.plain = True
        try:
            yield
        finally:
            run.plain = False
    run.plain = False
    run.plain_pass = plain_pass
    return run


def make_comm(a, ddp, model):
    """Register the chosen hook. Returns (state, kind)."""
    if a.comm == "ddp":
        return None, "ddp"
    if a.comm == "fp16":
        from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
        ddp.register_comm_hook(None, default_hooks.fp16_compress_hook)
        return None, "fp16"
    if a.comm == "powersgd":
        from torch.distributed.algorithms.ddp_comm_hooks import powerSGD_hook as ps
        state = ps.PowerSGDState(process_group=None, matrix_approximation_rank=a.powersgd_rank,
                                 start_powerSGD_iter=a.powersgd_warmup, use_error_feedback=True,
                                 warm_start=True, random_seed=a.seed)
        hook = serialised(ps.powerSGD_hook)
        ddp.register_comm_hook(state, hook)
        return (state, hook), "powersgd"
    import inceptionn.torch as inct
    kw = {}
    if a.error_bound is not None:
        kw["error_bound"] = a.error_bound
    if a.plain:
        kw["error_feedback"] = False
        kw["scaling"] = False
    if a.scaling is not None:
        kw["scaling"] = {"off": False}.get(a.scaling, a.scaling)
    if a.no_error_feedback:
        kw["error_feedback"] = False
    if a.scale_ratio is not None:
        kw["scale_ratio"] = a.scale_ratio
    if a.warmup_iters is not None:
        kw["warmup_iters"] = a.warmup_iters
    if a.warmup_error_bound is not None:
        kw["warmup_error_bound"] = a.warmup_error_bound
    if a.ratio_floor is not None:
        kw["ratio_floor"] = a.ratio_floor
    if a.ratio_steer is not None:
        kw["ratio_steer"] = a.ratio_steer
    if a.scale_step is not None:
        kw["scale_step"] = a.scale_step
    if a.scale_patience is not None:
        kw["scale_patience"] = a.scale_patience
    if a.scale_spread is not None:
        kw["scale_spread"] = a.scale_spread
    if a.scale_part is not None:
        kw["scale_part"] = a.scale_part
    if a.scale_prime is not None:
        kw["scale_prime"] = a.scale_prime
    if a.scale_ramp is not None:
        kw["scale_ramp"] = a.scale_ramp
    if a.exempt is not None:
        kw["exempt"] = a.exempt         # "none": every parameter through the codec
    if a.kernel_ratio is not None:
        kw["kernel_ratio"] = a.kernel_ratio
    if a.pace:
        kw["pace"] = True
    if a.residual_decay is not None:
        kw["residual_decay"] = a.residual_decay
    # the line that makes it an INCEPTIONN job
    state = inct.register(ddp, compression=a.compression, **kw)
    return state, "inceptionn"


def comm_state_dict(state, kind):
    if state is None:
        return None
    if kind == "inceptionn":
        return state.state_dict()
    return state[0].__getstate__()       # PowerSGDState without its process group


def comm_load(state, kind, saved):
    if state is None or saved is None:
        return
    if kind == "inceptionn":
        state.load_state_dict(saved)
    else:
        ps = state[0]
        group = ps.process_group
        ps.__setstate__(saved)
        ps.process_group = group


# ---------------------------------------------------------------- checkpoints
def ckpt_paths(d, it, rank):
    return os.path.join(d, "it%07d-rank%d.pt" % (it, rank)), os.path.join(d, "latest.json")


def save_checkpoint(a, rank, it, ddp, opt, sched, state, kind, clock):
    path, latest = ckpt_paths(a.checkpoint, it, rank)
    blob = {"iteration": it, "model": ddp.module.state_dict(), "optimizer": opt.state_dict(),
            "scheduler": sched.state_dict(), "comm": comm_state_dict(state, kind),
            "clock": clock, "args": vars(a),
            # dropout's masks (mobilenet_v2, mobilenet_v3, alexnet, vgg16)
            # come from torch's generator: a resumed run draws the same ones
            "rng": torch.get_rng_state()}
    torch.save(blob, path + ".tmp")
    os.replace(path + ".tmp", path)
    dist.barrier()
    if rank == 0:
        prev = None
        if os.path.exists(latest):
            with open(latest) as f:
                prev = json.load(f).get("iteration")
        with open(latest + ".tmp", "w") as f:
            json.dump({"iteration": it}, f)
        os.replace(latest + ".tmp", latest)
        if prev is not None and prev != it:
            for r in range(dist.get_world_size()):
                try:
                    os.remove(ckpt_paths(a.checkpoint, prev, r)[0])
                except FileNotFoundError:
                    pass
    dist.barrier()


def checkpoint_due(since, minutes):
    """Whether --checkpoint-minutes have passed since the monotonic time
    SINCE, by rank 0's clock: every rank must checkpoint at the same
    iteration (save_checkpoint's barriers), and each rank's clock differs."""
    flag = torch.tensor([int(time.monotonic() - since >= 60 * minutes)])
    dist.broadcast(flag, 0)
    return bool(flag.item())


def load_checkpoint(a, rank):
    if not a.checkpoint:
        return None
    os.makedirs(a.checkpoint, exist_ok=True)
    _, latest = ckpt_paths(a.checkpoint, 0, rank)
    if not os.path.exists(latest):
        return None
    with open(latest) as f:
        it = json.load(f)["iteration"]
    blob = torch.load(ckpt_paths(a.checkpoint, it, rank)[0])
    for k in ("arch", "comm", "seed", "batch", "lr", "epochs", "compression", "input_size"):
        if blob["args"].get(k) != getattr(a, k):
            sys.exit("%s: the checkpoint in %s was made with --%s %r, this run has %r: give another "
                     "--checkpoint directory" % (PROG, a.checkpoint, k.replace("_", "-"),
                                                 blob["args"].get(k), getattr(a, k)))
    return blob


# ---------------------------------------------------------------- evaluation
def sync_buffers(model):
    """Rank 0's batch-norm statistics to every rank: each rank's last forward
    updated its own (DDP broadcasts them at the start of the next one)."""
    for b in model.buffers():
        dist.broadcast(b, 0)


def evaluate(model, x, y, size, rank, workers):
    """Top-1 accuracy % and mean loss of rank 0's model on the whole test
    set, each rank taking a contiguous share, summed over the ranks."""
    sync_buffers(model)
    model.eval()
    n = len(x)
    lo, hi = n * rank // workers, n * (rank + 1) // workers
    acc = torch.zeros(2, dtype=torch.float64)
    with torch.no_grad():
        for i in range(lo, hi, 500):
            j = min(hi, i + 500)
            out = model(prepare(x[i:j], size))
            acc[0] += float((out.argmax(1) == y[i:j]).sum())
            acc[1] += float(F.cross_entropy(out, y[i:j], reduction="sum"))
    model.train()
    dist.all_reduce(acc)
    return 100.0 * float(acc[0]) / n, float(acc[1]) / n


# the CPU features that pick PyTorch's and oneDNN's kernels: the same seed
# on CPUs that differ in them rounds differently and, at lr 0.1, leaves
# the same run's trajectory within 20 iterations (shufflenet_v2, seed 2:
# loss 0.451 on one host, 1.305 on one with AVX-512 BF16)
ISA_FLAGS = ("avx2", "avx512f", "avx512_vnni", "avx512_bf16", "amx_tile")


def cpu_id():
    """The host's CPU model and its ISA_FLAGS present, for the log."""
    model, flags = "unknown", set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                k, _, v = line.partition(":")
                if k.strip() == "model name":
                    model = v.strip()
                elif k.strip() == "flags":
                    flags = set(v.split())
                    break
    except OSError:
        pass
    return "%s [%s]" % (model, " ".join(x for x in ISA_FLAGS if x in flags))


def blas_core():
    """The kernel set of the OpenBLAS this process runs ("Zen", "SkylakeX",
    ...: OPENBLAS_CORETYPE or its choice by the CPU), None for another BLAS."""
    import ctypes
    try:
        with open("/proc/self/maps") as f:
            libs = {p for p in (line.split()[-1] for line in f) if "blas" in p}
    except OSError:
        return None
    for path in sorted(libs):
        try:
            fn = ctypes.CDLL(path).openblas_get_corename
        except (OSError, AttributeError):
            continue
        fn.restype = ctypes.c_char_p
        return fn().decode()
    return None


def digest(model):
    h = hashlib.sha256()
    for p in model.parameters():
        h.update(p.detach().contiguous().numpy().tobytes())
    for b in model.buffers():
        h.update(b.detach().contiguous().numpy().tobytes())
    return h.hexdigest()[:16]


# ---------------------------------------------------------------- main
def parse():
    import torchvision
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    ap.add_argument("--arch", default="resnet18",
                    help="a torchvision classification model (resnet18, resnet50, alexnet, vgg16, ...)")
    ap.add_argument("--input-size", type=int, default=0,
                    help="image side in pixels (default 32; 64 for alexnet, whose first layers need it)")
    ap.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    ap.add_argument("--epochs", type=float, default=5)
    ap.add_argument("--iterations", type=int, default=0, help="stop after this many (0: --epochs)")
    ap.add_argument("--batch", type=int, default=32, help="per worker")
    ap.add_argument("--lr", type=float, default=0.1)
    ap.add_argument("--milestones", default="3,4",
                    help="epochs at which the lr is multiplied by --lr-gamma (comma separated)")
    ap.add_argument("--lr-gamma", type=float, default=0.1)
    ap.add_argument("--lr-warmup", type=float, default=0,
                    help="epochs over which the lr rises linearly from lr / N to lr (N: their "
                         "iterations) before the steps (default 0: none)")
    ap.add_argument("--optimizer", choices=("sgd", "adamw"), default="sgd",
                    help="SGD with --momentum, or AdamW (its default betas; --momentum unused); "
                         "either with --weight-decay (AdamW's decoupled)")
    ap.add_argument("--momentum", type=float, default=0.9)
    ap.add_argument("--weight-decay", type=float, default=5e-4)
    ap.add_argument("--seed", type=int, default=1, help="initial weights and data order")
    ap.add_argument("--comm", choices=("ddp", "inceptionn", "fp16", "powersgd"), default="ddp",
                    help="what all-reduces the gradients: DDP's own gloo all-reduce, the "
                         "inceptionn hook, PyTorch's fp16_compress_hook or its PowerSGD hook")
    ap.add_argument("--compression", default="software", help="inceptionn: the library's mode")
    ap.add_argument("--error-bound", type=int, default=None, help="inceptionn: 2^-N")
    ap.add_argument("--plain", action="store_true",
                    help="inceptionn: the paper's plain codec (no error feedback, no scaling)")
    ap.add_argument("--scale-ratio", type=float, default=None,
                    help="inceptionn: the adaptive scaling's target compression ratio")
    ap.add_argument("--scaling", choices=("balanced", "least-error", "each", "off"),
                    help="inceptionn: the adaptive scaling's policy (default: the hook's)")
    ap.add_argument("--no-error-feedback", action="store_true",
                    help="inceptionn: error feedback off")
    ap.add_argument("--warmup-iters", type=int, default=None,
                    help="inceptionn: the first N iterations travel uncompressed "
                         "(default: the hook's)")
    ap.add_argument("--warmup-error-bound", type=int, default=None,
                    help="the warm-up's buckets through the codec, bounded by 2^-N, no feedback "
                         "(default: uncompressed)")
    ap.add_argument("--ratio-floor", type=float, default=None,
                    help="inceptionn: steer the scaling's target so that the measured ratio "
                         "stays at or above this (0: none; default: the hook's)")
    ap.add_argument("--ratio-steer", choices=("step", "plan"), default=None,
                    help="inceptionn: how the floor steers the target: 'step' (by a fixed "
                         "factor while the run's ratio is out of its band) or 'plan' (planned "
                         "each check from the last window's ratio; default: the hook's)")
    ap.add_argument("--scale-step", type=int, default=None,
                    help="inceptionn: the most a bucket's scaling exponents move per call "
                         "(0: any; default: the hook's)")
    ap.add_argument("--scale-patience", type=int, default=None,
                    help="inceptionn: the calls in a row that must ask a bucket's scaling "
                         "exponent to move the same way before it moves (1: at once; default: "
                         "the hook's)")
    ap.add_argument("--scale-spread", type=int, default=None,
                    help="inceptionn, --scaling least-error: the most binades a parameter's "
                         "headroom may exceed the balanced policy's (default: no bound)")
    ap.add_argument("--scale-part", type=int, default=None,
                    help="inceptionn: the most values of a parameter one scaling exponent "
                         "covers (default: the hook's, one per parameter)")
    ap.add_argument("--scale-prime", action=argparse.BooleanOptionalAction, default=None,
                    help="inceptionn: each bucket's scaling starts from the last warm-up "
                         "iteration's sum (--scale-prime) or from exponent 0 "
                         "(--no-scale-prime; default: the hook's)")
    ap.add_argument("--scale-ramp", type=int, default=None,
                    help="inceptionn: compressed iterations over which the scaling's target "
                         "rises from 3 to its ratio (scale_ramp; default: the hook's)")
    ap.add_argument("--pace", action="store_true",
                    help="inceptionn: each value error feedback held back for k iterations "
                         "reaches the optimizer spread over the next k (pace=True)")
    ap.add_argument("--residual-decay", type=float, default=None,
                    help="inceptionn: error feedback's residual multiplied by this before "
                         "each call (residual_decay; default: kept whole)")
    ap.add_argument("--exempt", choices=("vectors", "vectors+kernels", "none"), default=None,
                    help="inceptionn: parameters that travel uncompressed (vectors: biases "
                         "and norms; vectors+kernels: and convolutions' kernels; default: "
                         "the hook's)")
    ap.add_argument("--kernel-ratio", type=kernel_ratio, default=None,
                    help="inceptionn: the scaling's target for the buckets of mostly "
                         "convolutions' kernels, 'auto' or 'off' (kernel_ratio; default: "
                         "the hook's)")
    ap.add_argument("--powersgd-rank", type=int, default=1)
    ap.add_argument("--powersgd-warmup", type=int, default=10,
                    help="PowerSGD: iterations of plain all-reduce first (start_powerSGD_iter)")
    ap.add_argument("--eval-every", type=int, default=0,
                    help="iterations between test-set evaluations (0: four per epoch)")
    ap.add_argument("--no-eval", action="store_true",
                    help="no test-set evaluation (runs that only gather the hook's statistics)")
    ap.add_argument("--eval-samples", type=int, default=0,
                    help="evaluate on the test set's first N images (0: all 10,000; the log's "
                         "config names N when it is set)")
    ap.add_argument("--eval-bn-before-last", action="store_true",
                    help="also evaluate the final weights with the batch-norm statistics of "
                         "before the last iteration's forward (summary: accuracy_bn_before_last): "
                         "how much of the final accuracy is rank 0's last batch")
    ap.add_argument("--log-every", type=int, default=20, help="iterations between progress lines")
    ap.add_argument("--checkpoint", help="directory for checkpoints (resume from it when present)")
    ap.add_argument("--checkpoint-every", type=int, default=200)
    ap.add_argument("--checkpoint-minutes", type=float, default=0,
                    help="also checkpoint at the first progress line (--log-every) this many "
                         "minutes after the last checkpoint: what a stop can lose on a network "
                         "whose --checkpoint-every iterations take long (0: off)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--save-weights", metavar="ITER:PATH",
                    help="rank 0 writes the model's weights (its state_dict) after iteration ITER "
                         "to PATH, for another run's --init-weights")
    ap.add_argument("--init-weights", metavar="PATH",
                    help="start from these weights (a --save-weights file of the same --arch) "
                         "instead of --seed's random ones; --seed still sets the data order")
    ap.add_argument("--log", help="JSON-lines log (rank 0)")
    a = ap.parse_args()
    if not hasattr(torchvision.models, a.arch) or a.arch.startswith("_"):
        ap.error("--arch: no torchvision model %r" % a.arch)
    if not a.input_size:
        a.input_size = 64 if a.arch == "alexnet" else 32
    if a.batch < 1 or a.lr <= 0 or a.epochs <= 0:
        ap.error("--batch, --lr and --epochs must be positive")
    if a.lr_warmup < 0:
        ap.error("--lr-warmup: epochs >= 0")
    if a.eval_samples < 0:
        ap.error("--eval-samples: N >= 0 (0: the whole test set)")
    if a.checkpoint_every < 1 or a.log_every < 1:
        ap.error("--checkpoint-every and --log-every: iterations >= 1")
    if a.checkpoint_minutes < 0:
        ap.error("--checkpoint-minutes: minutes >= 0 (0: off)")
    a.save_at = None
    if a.save_weights:
        at, _, path = a.save_weights.partition(":")
        if not at.isdigit() or int(at) < 1 or not path:
            ap.error("--save-weights: ITER:PATH with ITER >= 1, got %r" % a.save_weights)
        a.save_at, a.save_path = int(at), path
    if a.init_weights and not os.path.isfile(a.init_weights):
        ap.error("--init-weights: no file %s (a run's --save-weights writes one)" % a.init_weights)
    try:
        a.milestone_list = [float(m) for m in a.milestones.split(",") if m.strip()]
    except ValueError:
        ap.error("--milestones: comma-separated epochs, got %r" % a.milestones)
    return a


def kernel_ratio(v):
    """--kernel-ratio: "auto", "off" or a number."""
    if v in ("auto", "off"):
        return v
    try:
        return float(v)
    except ValueError:
        raise argparse.ArgumentTypeError("'auto', 'off' or a target ratio, got %r" % v)


def grad_norm(model):
    """The L2 norm of the gradient the optimizer stepped with (DDP's
    average, or the hook's), in float64: the same on every rank."""
    with torch.no_grad():
        sq = sum(float(p.grad.double().square().sum()) for p in model.parameters()
                 if p.grad is not None)
    return sq ** 0.5


def main():
    import torchvision
    a = parse()
    torch.set_num_threads(a.threads)
    import inceptionn.torch as inct
    inct.launcher_env()          # started by cluster/train-cluster.sh or inc-run: as under torchrun
    if "RANK" not in os.environ:
        sys.exit("%s: start it with torchrun, python3 -m inceptionn.run or cluster/train-cluster.sh "
                 "(RANK is not set)" % PROG)
    dist.init_process_group("gloo", timeout=timedelta(hours=2))
    rank, workers = dist.get_rank(), dist.get_world_size()

    train_x, train_y = load(a.data, "train")
    test_x, test_y = load(a.data, "t10k")
    if a.eval_samples:
        test_x, test_y = test_x[:a.eval_samples], test_y[:a.eval_samples]
    order = Order(len(train_x), a.seed, workers, a.batch)
    total = a.iterations or int(round(a.epochs * order.per_epoch))
    milestones = [int(round(m * order.per_epoch)) for m in a.milestone_list]
    eval_every = a.eval_every or max(1, order.per_epoch // 4)

    torch.manual_seed(a.seed)
    model = getattr(torchvision.models, a.arch)(num_classes=10)
    init = None
    if a.init_weights:
        try:
            model.load_state_dict(torch.load(a.init_weights, map_location="cpu"))
        except (RuntimeError, KeyError) as e:
            sys.exit("%s: --init-weights %s does not fit --arch %s: %s"
                     % (PROG, a.init_weights, a.arch, str(e).splitlines()[0]))
        init = {"path": a.init_weights, "weights": digest(model)}
    ddp = DDP(model)
    state, kind = make_comm(a, ddp, model)
    if a.optimizer == "adamw":
        opt = torch.optim.AdamW(ddp.parameters(), lr=a.lr, weight_decay=a.weight_decay)
    else:
        opt = torch.optim.SGD(ddp.parameters(), lr=a.lr, momentum=a.momentum,
                              weight_decay=a.weight_decay)
    ramp = int(round(a.lr_warmup * order.per_epoch))
    if ramp:    # the lr rising linearly over the first ramp iterations, then the steps
        sched = torch.optim.lr_scheduler.LambdaLR(
            opt, lambda i: min(1.0, (i + 1) / ramp) * a.lr_gamma ** sum(i >= m for m in milestones))
    else:
        sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=milestones,
                                                     gamma=a.lr_gamma)

    start, clock = 0, {"train_s": 0.0, "data_s": 0.0, "eval_s": 0.0}
    blob = load_checkpoint(a, rank)
    if blob is not None:
        start = blob["iteration"]
        model.load_state_dict(blob["model"])
        opt.load_state_dict(blob["optimizer"])
        sched.load_state_dict(blob["scheduler"])
        comm_load(state, kind, blob["comm"])
        clock = blob["clock"]
        rng = blob.get("rng")       # absent in checkpoints made before it was kept
        del blob
        # DDP's first iteration in a process has its first bucket layout;
        # let it rebuild its layout before the first real iteration, as the
        # uninterrupted run did at its start: the inceptionn hook's and
        # PowerSGD's per-bucket state fits the rebuilt layout only (the pass
        # runs outside their state), and where the buckets are cut decides
        # the order in which gloo sums each value (DDP's own all-reduce and
        # fp16 resumed without the pass end on other weights)
        keep = {k: v.clone() for k, v in model.state_dict().items()}
        idx = order.indices(start, rank)
        if kind == "inceptionn":
            passing = state.no_comm()
        elif kind == "powersgd":
            passing = state[1].plain_pass()
        else:
            passing = contextlib.nullcontext()
        with passing:
            F.cross_entropy(ddp(prepare(train_x[idx], a.input_size)), train_y[idx]).backward()
        opt.zero_grad(set_to_none=True)
        model.load_state_dict(keep)
        if rng is not None:         # after the rebuild pass, whose dropout drew from it
            torch.set_rng_state(rng)

    log = None
    if a.log and rank == 0:
        kept = []
        if start and os.path.exists(a.log):      # cut the log back to the checkpoint
            with open(a.log) as f:
                for line in f:
                    try:
                        r = json.loads(line)
                    except ValueError:
                        break
                    if r.get("type") == "config" or (r.get("type") in ("iter", "eval", "resume")
                                                     and r["iter"] <= start):
                        kept.append(line)
        log = open(a.log + ".tmp", "w")
        log.writelines(kept)
        log.flush()
        os.replace(a.log + ".tmp", a.log)

    def record(**kw):
        if log:
            log.write(json.dumps(kw, separators=(",", ":")) + "\n")
            log.flush()

    nparams = sum(p.numel() for p in model.parameters())
    if start == 0:
        record(type="config", arch=a.arch, input_size=a.input_size, comm=kind,
               compression=a.compression if kind == "inceptionn" else None,
               settings=state.settings if kind == "inceptionn" else None,
               plain=a.plain, powersgd_rank=a.powersgd_rank if kind == "powersgd" else None,
               powersgd_warmup=a.powersgd_warmup if kind == "powersgd" else None,
               epochs=a.epochs, iterations=total, per_epoch=order.per_epoch, batch=a.batch,
               workers=workers, lr=a.lr, milestones=milestones, lr_gamma=a.lr_gamma,
               lr_warmup=ramp,
               optimizer=a.optimizer, momentum=a.momentum if a.optimizer == "sgd" else None,
               weight_decay=a.weight_decay, seed=a.seed, params=nparams,
               torch=torch.__version__, torchvision=torchvision.__version__, cpu=cpu_id(), blas=blas_core(),
               **({"init_weights": init} if init else {}),
               **({"eval_samples": len(test_x)} if a.eval_samples else {}))
    else:       # where it went on: another CPU continues the run on another trajectory
        record(type="resume", iter=start, cpu=cpu_id(), blas=blas_core())
    if rank == 0 and a.save_at and start >= a.save_at and not os.path.exists(a.save_path):
        print("%s: warning: resumed at iteration %d, past --save-weights' %d, and %s is missing"
              % (PROG, start, a.save_at, a.save_path), flush=True)
    if rank == 0:
        print("%s: %s, %d workers x batch %d, %d iterations (%.1f epochs of %d), %s%s"
              % (PROG, a.arch, workers, a.batch, total, total / order.per_epoch, order.per_epoch,
                 kind, " (resumed at %d)" % start if start else ""), flush=True)

    # the progress line's rate: over the last logged window, so that a run
    # paused (SIGSTOP) or slowed for a while shows its rate again at once;
    # the window's evaluations and checkpoints are left out of the rate and
    # the evaluations still to come added to the ETA at their mean time
    t_run, it0 = time.monotonic(), start
    t_aside, evals_s, evals_n = 0.0, 0.0, 0
    t_ckpt = t_run
    loss = torch.zeros(())
    for it in range(start, total):
        t0 = time.monotonic()
        idx = order.indices(it, rank)
        x, y = prepare(train_x[idx], a.input_size), train_y[idx]
        t1 = time.monotonic()
        opt.zero_grad(set_to_none=True)
        if a.eval_bn_before_last and it == total - 1:
            bn_before = [b.clone() for b in model.buffers()]
        loss = F.cross_entropy(ddp(x), y)
        loss.backward()
        opt.step()
        sched.step()
        t2 = time.monotonic()
        clock["data_s"] += t1 - t0
        clock["train_s"] += t2 - t0
        done = it + 1
        if done == a.save_at and rank == 0:
            torch.save(model.state_dict(), a.save_path + ".tmp")
            os.replace(a.save_path + ".tmp", a.save_path)
            print("%s: iter %d weights written to %s" % (PROG, done, a.save_path), flush=True)
        if done % a.log_every == 0 or done == total:
            more = {}
            if kind == "inceptionn":       # cumulative: a window's shares are differences
                st = state.stats()
                more = {"values": st["values"], "classes": st.get("classes"),
                         "scale_exponents": st.get("scale_exponents"),
                         "scale_target": st.get("scale_target")}
            # a pass over every gradient: only where the record is written
            record(type="iter", iter=done, time=clock["train_s"], loss=float(loss),
                   lr=sched.get_last_lr()[0], grad_norm=grad_norm(model) if log else None,
                   **more)
            if rank == 0:
                now = time.monotonic()
                rate = (done - it0) / max(1e-9, now - t_run - t_aside)
                t_run, it0, t_aside = now, done, 0.0
                eta = (total - done) / max(1e-9, rate)
                if evals_n and not a.no_eval:
                    # from this iteration on, at the last if off the period, and after the loop
                    left = (total // eval_every - (done - 1) // eval_every
                            + (1 if total % eval_every else 0) + 1)
                    eta += left * evals_s / evals_n
                print("%s: iter %d/%d epoch %.2f loss %.4f %.2f it/s eta %dm%02ds"
                      % (PROG, done, total, done / order.per_epoch, float(loss), rate,
                         eta // 60, eta % 60), flush=True)
        if not a.no_eval and (done % eval_every == 0 or done == total):
            t3 = time.monotonic()
            acc, tl = evaluate(model, test_x, test_y, a.input_size, rank, workers)
            spent = time.monotonic() - t3
            clock["eval_s"] += spent
            t_aside, evals_s, evals_n = t_aside + spent, evals_s + spent, evals_n + 1
            rec = {"type": "eval", "iter": done, "epoch": done / order.per_epoch,
                   "time": clock["train_s"], "accuracy": acc, "test_loss": tl}
            if kind == "inceptionn":
                rec["ratio"] = state.stats().get("ratio")
            record(**rec)
            if rank == 0:
                print("%s: iter %d test accuracy %.2f %% loss %.4f" % (PROG, done, acc, tl),
                      flush=True)
        if a.checkpoint and done < total and (
                done % a.checkpoint_every == 0 or done % order.per_epoch == 0
                or (a.checkpoint_minutes > 0 and done % a.log_every == 0
                    and checkpoint_due(t_ckpt, a.checkpoint_minutes))):
            t3 = time.monotonic()
            save_checkpoint(a, rank, done, ddp, opt, sched, state, kind, clock)
            t_ckpt = time.monotonic()
            t_aside += t_ckpt - t3

    acc, tl = (None, None) if a.no_eval else evaluate(model, test_x, test_y, a.input_size, rank,
                                                      workers)
    extra = {}
    if a.eval_bn_before_last and not a.no_eval and start < total:
        # evaluate() left every rank with rank 0's statistics: put rank 0's
        # from before its last forward in, evaluate, and put them back
        after = [b.clone() for b in model.buffers()]
        with torch.no_grad():
            for b, v in zip(model.buffers(), bn_before):
                b.copy_(v)
            extra["accuracy_bn_before_last"], _ = evaluate(model, test_x, test_y, a.input_size,
                                                           rank, workers)
            for b, v in zip(model.buffers(), after):
                b.copy_(v)
        if rank == 0:
            print("%s: with the batch-norm statistics of before the last forward: test accuracy "
                  "%.2f %%" % (PROG, extra["accuracy_bn_before_last"]), flush=True)
    sync_buffers(model)
    dg = digest(model)
    every = [None] * workers
    dist.all_gather_object(every, dg)
    st = state.stats() if kind == "inceptionn" else {}
    if kind == "inceptionn":
        # exempt parameters (exempt="vectors") travel at 32 bits
        x = st.get("exempt_values", 0) / max(1, st.get("values", 0) + st.get("exempt_values", 0))
        bytes_iter = 4.0 * nparams * ((1 - x) / st["ratio"] + x) if st.get("ratio") else None
    elif kind == "powersgd":
        bytes_iter = float(powersgd_bytes(model, a.powersgd_rank))
    else:
        bytes_iter = (2.0 if kind == "fp16" else 4.0) * nparams
    n = max(1, total)
    record(type="summary", iterations=total, accuracy=acc, test_loss=tl, weights=dg,
           replicas_identical=all(d == dg for d in every), train_s=clock["train_s"],
           iter_ms=1e3 * clock["train_s"] / n, bytes_per_iter=bytes_iter,
           ratio=4.0 * nparams / bytes_iter if bytes_iter else None,
           stats={k: v for k, v in st.items() if isinstance(v, (int, float, str, bool, dict))},
           **extra)
    if rank == 0:
        print("%s: done: %d iterations, test accuracy %s, weights %s, replicas %s"
              % (PROG, total, "%.2f %%" % acc if acc is not None else "not measured", dg,
                 "identical" if all(d == dg for d in every) else "DIFFER"), flush=True)
    if kind == "inceptionn":
        state.close()
    if log:
        log.close()
    # every rank here, then out without the destructors: a rank that tore
    # the process group down hung in ~ProcessGroupGloo (via ~Reducer, GIL
    # held) joining a gloo thread that waited for the GIL to run a future's
    # callback (seen after PowerSGD runs, the other ranks gone)
    dist.barrier()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
