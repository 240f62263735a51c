#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""make accuracy-torch: torchvision networks on Fashion-MNIST through DDP,
the inceptionn hook and PyTorch's own compression hooks, several seeds each,
whole schedules (examples/pytorch/train_torchvision.py).

    experiments/accuracy-torch.py run [--only REGEX] [--list]
    experiments/accuracy-torch.py status
    experiments/accuracy-torch.py table     # docs/results.md section + PNG from the kept logs
    experiments/accuracy-torch.py probe     # the ratio each scaling target gives (60 iterations)
    experiments/accuracy-torch.py screen [--only REGEX]   # mobilenet_v2's short screen
    experiments/accuracy-torch.py ratios --only REGEX [--at 200,585]
        # the codec's ratio (stats()['ratio']) of kept runs as it stood at those iterations
    experiments/accuracy-torch.py losses --only REGEX [--window 60]
        # kept hook runs' mean training loss per window beside their DDP run's
    experiments/accuracy-torch.py targets --only REGEX [--png FILE]
        # kept runs' scaling target and ratio so far at every logged iteration
        # (PNG, default docs/results/torch-targets.png)

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
import math
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "docs", "results", "torch")
WORK = os.path.join(ROOT, "build", "accuracy-torch")
QUIET = "/tmp/inc-quiet"
SCRIPT = os.path.join(ROOT, "examples", "pytorch", "train_torchvision.py")
WORKERS = 4
# a checkpoint also at the first progress line this long after the last:
# vgg16's 200 iterations between checkpoints take about 37 minutes here
CHECKPOINT_MINUTES = 15
# the seeds the tables read: a run of another seed is kept but not tabled
SEEDS = (1, 2, 3, 4, 5)
EXIT_GRACE_S = 120      # a run whose log has its summary is ended this long after
# OpenBLAS's kernels for every run started from now on (OPENBLAS_CORETYPE):
# its choice by the CPU is what parted two hosts' runs of the same seed
# (SkylakeX on the Intel Xeon, Zen on the AMD EPYC; oneDNN's and PyTorch's
# own kernels round alike on both), and with Zen pinned the Intel host
# repeats the AMD host's runs bit for bit, so a run pairs with DDP's run of
# its seed from either host. A run started before the pin keeps its host's
# choice to its end (snapshot's "blas" file says which it took).
BLAS_CORE = "Zen"

# resnet18's whole schedule: 5 epochs of 468 iterations (4 workers x 32),
# lr 0.1 divided by 10 at epochs 3 and 4, momentum 0.9, weight decay 5e-4.
SCHEDULE = ["--epochs", "5", "--batch", "32", "--lr", "0.1", "--milestones", "3,4",
            "--momentum", "0.9", "--weight-decay", "5e-4"]
# every parameter through the codec: the hook's default before biases and
# norms were exempt (DEFAULT_EXEMPT); the runs made then keep their meaning
# the scaling undamped: the hook's choice before DEFAULT_SCALE_STEP (the
# runs made then keep their meaning whatever the default is)
UNDAMPED = ["--scale-step", "0"]
# the library's target, the hook's default before DEFAULT_SCALE_RATIO (6):
# the ways measured before it name it
R8 = ["--scale-ratio", "8"]
# the hook's kernel_ratio before DEFAULT_KERNEL_RATIO: the runs made then
# keep their meaning (no effect where kernels are most of the values)
KOFF = ["--kernel-ratio", "off"]
ALL = ["--exempt", "none"] + UNDAMPED + KOFF
# 50 uncompressed iterations, then the parameters of at most one dimension
# (biases, batch norm) uncompressed: the hook's warm-up and exemption
EXEMPT50 = ["--comm", "inceptionn", "--compression", "software", "--warmup-iters", "50",
            "--exempt", "vectors"] + KOFF
# the hook's defaults before DEFAULT_SCALE_PRIME named in full: the same,
# the exponents moving at most one binade a call, target 6, each bucket's
# scaling starting from exponent 0, its target not ramped (x50s1r6 and the
# ways that vary it; the ways that prime or ramp it add --scale-prime or
# --scale-ramp N, which come later and win)
DEFAULTS = EXEMPT50 + ["--scale-step", "1", "--scale-ratio", "6", "--no-scale-prime",
                       "--scale-ramp", "0"]
R12E8 = ["--comm", "inceptionn", "--compression", "software", "--error-bound", "8",
         "--scale-ratio", "12"] + ALL
# feedback alone after the defaults' warm-up (no scaling, every parameter
# through the codec)
EF50 = ["--comm", "inceptionn", "--compression", "software", "--scaling", "off",
        "--warmup-iters", "50"]
# resnet50's schedule (below): 128 a worker at lr 0.05, and the same with
# the lr rising over the first epoch
B128 = ["--batch", "128", "--lr", "0.05"]
B128W = B128 + ["--lr-warmup", "1"]
# the defaults primed with the least-error policy (the x50s1r6*pl* ways)
LEAST = DEFAULTS + ["--scale-prime", "--scaling", "least-error"]
# the schedule with AdamW instead of SGD with momentum (later: wins)
ADAMW = ["--optimizer", "adamw", "--lr", "0.001", "--weight-decay", "0.01"]
# alexnet's schedule from x50s1r6b128paw4 on: AdamW at lr 1e-4 (alexnet
# with SGD stays near ln 10 for its first 150-250 iterations at lr 0.01,
# below)
ADAMW4 = ["--optimizer", "adamw", "--lr", "0.0001", "--weight-decay", "0.01"]
VGG_E2 = ["--epochs", "2", "--milestones", "1.2,1.6"]
T3W_AT = 234     # the iteration whose weights the t3w runs start from (below)
T3W_FILE = "weights-it%d.pt" % T3W_AT        # in the DDP run's folder
COMMS = {
    "ddp": ["--comm", "ddp"],
    # kept, never run again (None): made before the scaling's estimate of
    # the sum's zeros was fixed (42b3337), which moved the ratios
    "incpre": None,
    "r10pre": None,
    # error feedback and the balanced adaptive scaling, no warm-up
    "inc": ["--comm", "inceptionn", "--compression", "software", "--warmup-iters", "0"] + ALL
    + R8,
    "r10": ["--comm", "inceptionn", "--compression", "software", "--scale-ratio", "10"] + ALL,
    # the paper's plain codec: no error feedback, no scaling
    "plain": ["--comm", "inceptionn", "--compression", "software", "--plain"],
    # the choices the defaults were decided against
    "ef": ["--comm", "inceptionn", "--compression", "software", "--scaling", "off"],
    "each": ["--comm", "inceptionn", "--compression", "software", "--scaling", "each"]
    + UNDAMPED + R8,
    # the hook's defaults before DEFAULT_EXEMPT: feedback and scaling after
    # 50 uncompressed iterations (2 % of the schedule), every parameter
    # through the codec
    "warm50": ["--comm", "inceptionn", "--compression", "software", "--warmup-iters", "50"]
    + ALL + R8,
    # the same with the parameters of at most one dimension (biases, batch
    # norm) uncompressed, what closed mobilenet_v2's gap: the hook's defaults
    # before scale_step
    "x50": EXEMPT50 + UNDAMPED + R8,
    # the same with the warm-up through the codec at 2^-16 (no feedback):
    # resnet18's early gradients are mostly under 2^-16, so the warm-up
    # travels at ~8x instead of 1x
    "warm50e16": ["--comm", "inceptionn", "--compression", "software", "--warmup-iters", "50",
                  "--warmup-error-bound", "16"] + ALL + R8,
    # towards 10x with the warm-up: a coarser bound and the scaling's
    # highest target (12.3x by the codec's classes in the probe), 40
    # uncompressed iterations
    "r12e8": R12E8 + ["--warmup-iters", "40"],
    # feedback alone after the defaults' warm-up: where the scaling is
    # suspected (mobilenet_v2)
    "ef50": EF50,
    # the same with the scaling's exponents moving at most one binade a
    # call (scale_step=1): the undamped choice swings between calls that
    # hold nearly everything back and calls that send it at 16 bits. The
    # hook's defaults before DEFAULT_SCALE_RATIO
    "x50s1": EXEMPT50 + ["--scale-step", "1"] + R8,
    # the same at the target ratio 6: damped, the runs travel at 10.6-13.4x
    # against the target 8; a lower target buys precision where the
    # MobileNets fall behind. The hook's defaults (DEFAULT_SCALE_RATIO),
    # named in full
    "x50s1r6": DEFAULTS,
    # the same with ratio_floor 8: target 6 where the ranks' measured ratio
    # stays at 8x or more (every network so far), raised where it falls
    # below, so that an unmeasured network keeps 8x
    # Kept, never run again (None): ratio_floor steered on the last 10
    # iterations' ratio before 4894bcd, on the run's since
    "x50s1r6f8": None,
    # the same at the error bound 2^-6 (the paper's Table III bound): the
    # 8-bit class spans [2^-6, 2^-3) in steps of 2^-7 (2 to 15 steps), not
    # [2^-7, 2^-5) (1 to 3 steps) as at 2^-10: where the MobileNets' dense
    # gradients travel, 3-4 significant bits instead of 1-2
    "x50s1r6e6": DEFAULTS + ["--error-bound", "6"],
    # mobilenet_v2 at lr 0.1 spikes in its first epoch, DDP's own runs too
    # (losses of 5-10), and DDP's seeds end 1.0 point apart: too wide to
    # judge a way by (docs/results.md). The same schedule at lr 0.05, DDP
    # and the defaults (each against DDP at lr 0.05: BASELINE)
    "ddplr05": ["--comm", "ddp", "--lr", "0.05"],
    "x50s1r6lr05": DEFAULTS + ["--lr", "0.05"],
    # where the gap forms: the defaults from the first lr decay on only
    # (iteration 1404, epoch 3 of SCHEDULE; uncompressed through the hook
    # before it): the low-lr phase's share of the gap
    "x1404": DEFAULTS + ["--warmup-iters", "1404"],
    # the same question inside the lr-0.1 phase: the defaults from the end
    # of the first epoch on (iteration 468), or from iteration 200 (run
    # over seeds on four networks as a candidate default: not adopted,
    # docs/results.md); and what more precision buys: the defaults at
    # target 4 throughout (below 8x: not a setting)
    "x468": DEFAULTS + ["--warmup-iters", "468"],
    "x200": DEFAULTS + ["--warmup-iters", "200"],
    "x50s1r4": DEFAULTS + ["--scale-ratio", "4"],
    # primed at target 4 (against ddpre): resnet34 with the defaults ended
    # 1.09 below DDP at 11.4x by classes (seed 1), 1.0 behind from the
    # first lr decay; does more precision close it? Seed 1: -0.57 at
    # 11.2x, the target not binding (below)
    "x50s1r4p": DEFAULTS + ["--scale-prime", "--scale-ratio", "4"],
    # resnet34 at target 4 travels at the same 11.4x as at 6 (91 % of the
    # values 2-bit): the K = 0 cap binds, each parameter's largest sum
    # setting where 2^-10 cuts. The primed defaults with each parameter's
    # scaling in parts of at most 4096 values (scale_part=4096), which let
    # more values through: tried on resnet50 only on the schedule whose DDP
    # seeds span 9 points (x50s1r6b128p4k), never on a converging one.
    # Seed 1: -1.46 at 9.7x, behind the defaults throughout
    "x50s1r6pp4k": DEFAULTS + ["--scale-prime", "--scale-part", "4096"],
    # the paper's alexnet and vgg16 have no batch norm: the same schedule
    # at lr 0.01, as their Table III rows (at 0.1 alexnet's loss does not
    # leave ln 10; alexnet at 64 x 64, train_torchvision's default for it),
    # DDP and the defaults (BASELINE)
    "ddplr01": ["--comm", "ddp", "--lr", "0.01"],
    "x50s1r6lr01": DEFAULTS + ["--lr", "0.01"],
    # at 128 a worker (585 iterations instead of 2340): alexnet (61 M
    # values) takes 5 s an iteration at 32 a worker with DDP on 2 cores
    # (3.3 hours a run), at 128 a worker 7 s with DDP and 8.6 s with the
    # hook (68 and 84 minutes). DDP at lr 0.02 (0.01 scaled by the square
    # root of the 4x larger batch) rising over the first epoch, as
    # resnet50's: alexnet swung between 10 % and 27 % on the test set over
    # its first 3 epochs (loss back at ln 10 at iterations 145, 203, 290,
    # 319) and ended at 52.58 % (kept; the defaults not run on it)
    "ddpb128wlr02": ["--comm", "ddp"] + B128W + ["--lr", "0.02"],
    # DDP and the defaults (primed) at lr 0.01, where alexnet had begun to
    # learn on the way up (23 % at iteration 87, lr 0.015) (BASELINE);
    # DDP's run keeps its weights of T3W_AT for the t3w runs ({dir}: the
    # run's folder)
    "ddpb128wlr01": ["--comm", "ddp"] + B128W + ["--lr", "0.01", "--save-weights",
                                                 "%d:{dir}/%s" % (T3W_AT, T3W_FILE)],
    "x50s1r6b128wplr01": DEFAULTS + B128W + ["--scale-prime", "--lr", "0.01"],
    # resnet50 (25.6 M values) at resnet18's batch of 32 a worker takes
    # 1.9 s an iteration on 2 cores with DDP (74 minutes a run), and its
    # loss jumps to 18 in the first iterations at lr 0.1: the same 5 epochs
    # at 128 a worker (585 iterations of 512 images, 3.1-3.4 s each) and lr
    # 0.05 (at 0.1 and 0.2 its loss stayed at 2.1-2.4 for the first 40
    # iterations, at 0.05 it fell),
    # DDP and the defaults (BASELINE)
    "ddpb128": ["--comm", "ddp"] + B128,
    "x50s1r6b128": DEFAULTS + B128,
    # the same with each parameter's scaling in parts of at most 4096
    # values (scale_part=4096) instead of one exponent for the parameter:
    # at one exponent the largest of a parameter's values sets where the
    # error bound cuts, so on resnet50's heavy-tailed gradients 93 % of
    # the values are held back whatever the target (K = 0 binds); parts
    # bring each run of values' own largest under 1 (resnet18, 60
    # iterations: 10.9x -> 9.05x by the codec's classes, 90.1 -> 86.0 %
    # 2-bit). Seed 1 ended 3.68 points below DDP (the defaults 1.10) at
    # 8.9x, 83.2 % 2-bit: more values through the codec's coarse 8-bit
    # class did not buy accuracy, so seeds 2-3 were not run
    "x50s1r6b128p4k": DEFAULTS + B128 + ["--scale-part", "4096"],
    # on the schedule of ddpb128 DDP's loss stays above 2 for the first
    # 150-200 iterations (its seeds end at 84.69, 85.23 and 76.25 %: the
    # plateau decides). With the lr rising over the first epoch
    # (--lr-warmup 1) it does not (seed 3: 82.65 % at iteration 145 against
    # 17.80): the schedule resnet50 is judged on, DDP and the defaults
    # (BASELINE), then feedback alone on it
    "ddpb128w": ["--comm", "ddp"] + B128W,
    # DDP on that schedule again, on the host of a hook's run whose DDP run
    # of the same seed was made on another (the hosts' kernels round
    # differently: train_torchvision's cpu_id); BASELINE prefers it
    "ddpb128wre": ["--comm", "ddp"] + B128W,
    "x50s1r6b128w": DEFAULTS + B128W,
    "ef50b128w": EF50 + B128W,
    # the defaults with each bucket's scaling primed from the warm-up's last
    # sum (scale_prime=True): unprimed, a new state starts at exponent 0 and
    # the damping (scale_step=1) lets it move one binade a call, so for the
    # first compressed iterations the parts that need a higher exponent are
    # held back and those that need a lower one sent raw (resnet50
    # with the defaults falls behind DDP from the first evaluation after the
    # warm-up: 56.45 against 77.96 % at iteration 87, seed 1)
    "x50s1r6b128wp": DEFAULTS + B128W + ["--scale-prime"],
    # on resnet18's schedule: the hook's defaults (DEFAULT_SCALE_PRIME) named
    # in full
    "x50s1r6p": DEFAULTS + ["--scale-prime"],
    # primed, with the target rising from 3 to 6 over the first 150
    # compressed iterations (scale_ramp=150): where resnet50 falls behind
    # (training loss 0.89 against DDP's 0.59, mean of iterations 80, 100
    # and 120), more values through the codec (a 120-iteration probe at
    # target 3 throughout: 0.63)
    "x50s1r6b128wpr": DEFAULTS + B128W + ["--scale-prime", "--scale-ramp", "150"],
    # primed, an exponent moving only when two calls in a row ask it to
    # (scale_patience=2): damped alone, the exponents of resnet50's seed 3
    # alternate a binade every call from the warm-up's end (docs/results.md,
    # "the damped scaling hunts"), where the primed defaults blow up; a
    # 100-iteration probe held them and halved the excess of the training
    # loss over DDP's in iterations 51-70 (1.55 / 1.69 against 2.13 / 2.14;
    # DDP 1.07 / 0.99)
    "x50s1r6b128wpt2": DEFAULTS + B128W + ["--scale-prime", "--scale-patience", "2"],
    # the primed defaults at the error bound 2^-12: on the resnets the
    # target does not set the bits (each parameter's largest sum just
    # under 1, K = 0), the bound does: every value under 2^-10 of its
    # parameter's largest sum is held back. resnet50 travels at 9.3-9.4x
    # by classes with the defaults; resnet18's 60-iteration probe at 2^-12
    # kept 10.7x against 10.8x at 2^-10
    "x50s1r6b128wpe12": DEFAULTS + B128W + ["--scale-prime", "--error-bound", "12"],
    # resnet50's seed 3 ran (DDP, the primed defaults, the ramp) on the
    # Intel host, whose rounding parts from the AMD host's within the
    # warm-up (training loss 1.7537 against 1.3911 at iteration 20): DDP
    # and the primed defaults again on this path (BLAS_CORE), so that the
    # patience run of the seed is judged against runs of its own path
    "ddpb128wz": ["--comm", "ddp"] + B128W,
    "x50s1r6b128wpz": DEFAULTS + B128W + ["--scale-prime"],
    "x50s1r6pt2": DEFAULTS + ["--scale-prime", "--scale-patience", "2"],
    # the same again, a run started with BLAS_CORE pinned: on the Intel host
    # it takes the AMD host's rounding path (its warm-up repeats DDP's run
    # of the seed made there), so it pairs with that run (the ramp's seed 2
    # took the Intel host's own kernels: 86.65 %)
    "x50s1r6b128wprz": DEFAULTS + B128W + ["--scale-prime", "--scale-ramp", "150"],
    # the same on resnet18's schedule (shufflenet_v2's seed 2 on the host of
    # 2026-11-29: DDP 88.96 %, the defaults 87.04, primed 87.17, both at
    # 10.00 % at iteration 117)
    "x50s1r6pr": DEFAULTS + ["--scale-prime", "--scale-ramp", "150"],
    # the defaults (primed) after 200 uncompressed iterations: shufflenet_v2
    # falls behind in its first compressed iterations (seeds 1 and 2 on the
    # host of 2026-11-29: -0.94 and -1.79 primed; the ramp -3.09 and -0.62),
    # and after 200 unprimed ones it ended level on the earlier host
    "x200p": DEFAULTS + ["--warmup-iters", "200", "--scale-prime"],
    # the defaults with scale_prime=False named (the same as x50s1r6, the
    # hook's default then): shufflenet_v2's seed 2 again, on the
    # CPU its primed run took (its DDP, unprimed and primed runs of seed 2
    # left the same trajectory by iteration 20 of the common warm-up:
    # the hosts' kernels round differently, train_torchvision's cpu_id)
    "x50s1r6np": DEFAULTS + ["--no-scale-prime"],
    # primed, after 10 warm-up iterations instead of 50 (against ddpre):
    # the 50 were decided unprimed, when a new state started at exponent 0
    "x10s1r6p": DEFAULTS + ["--scale-prime", "--warmup-iters", "10"],
    # DDP again, on the host of the primed runs (x50s1r6p, x50s1r6np: their
    # BASELINE): the pairs judged on one trajectory
    "ddpre": ["--comm", "ddp"],
    # primed, is the long warm-up still needed? 50 uncompressed iterations
    # are 8.5 % of resnet50's 585 (5.3x over the run at 9.1x by classes);
    # 10 are 1.7 %
    "x10s1r6b128wp": DEFAULTS + B128W + ["--warmup-iters", "10", "--scale-prime"],
    "fp16": ["--comm", "fp16"],
    # PyTorch's fp16 hook on the host of the primed runs (against ddpre):
    # a perturbation of every sum by 2^-11 of its size, no values held
    # back. shufflenet_v2's compressed runs scatter far more than DDP's
    # (-0.94 / -1.79 / +0.26 primed): does any perturbation of the sums
    # do that on its schedule, or the codec's?
    "fp16re": ["--comm", "fp16"],
    # the same on resnet50's schedule (128 a worker, lr 0.05 rising over
    # the first epoch): the defaults end 0.41-0.80 below DDP there on each
    # seed of this host's path; does the smallest perturbation PyTorch offers cost as much?
    "fp16b128w": ["--comm", "fp16"] + B128W,
    # resnet50's defaults at the target 4 held at 8x or more by
    # ratio_floor=8 (the target rises where the measured ratio falls under
    # 8x): the most precision 8x allows where the target has a grip. At
    # target 6 resnet50 travels at 9.1-9.3x by the codec's classes
    # (kept, never run again: ratio_floor's windowed steering, before
    # 4894bcd)
    "x50s1r4f8b128wp": None,
    # resnet50's defaults with the least-error policy (scaling="least-error"):
    # each parameter its own headroom, the bucket's squared error least at
    # the target, where balanced gives every parameter the same. Offline, on
    # resnet50's sums after 3 steps, the summed step's relative error at
    # 9.2x is 0.28 against balanced's 0.40 at 8.8x; a 120-iteration probe of
    # seed 1 ended at a training loss of 0.77 (mean of iterations 80, 100
    # and 120) against balanced's 0.89 and DDP's 0.59
    "x50s1r6b128wpl": LEAST + B128W,
    # the same on resnet18's schedule: does it cost where balanced is level?
    "x50s1r6pl": LEAST,
    # least-error lands nearer its target than balanced (shufflenet_v2's
    # seed 1: 8.1x by classes against balanced's 9.0x): the same held at 8x
    # or more by ratio_floor=8, which moves the target only where the
    # measured ratio falls under 8x
    # (kept, never run again: ratio_floor's windowed steering, before
    # 4894bcd, which took it to 8.8x)
    "x50s1r6plf8": None,
    # least-error bounded to balanced's headroom + 1 binade a parameter
    # (scale_spread=1): mobilenet_v2's seed 1 unbounded ended 1.71 below
    # DDP (balanced +0.49), its training loss 14-20 % above DDP's
    "x50s1r6pls1": LEAST + ["--scale-spread", "1"],
    "x50s1r6b128wpls1": LEAST + B128W + ["--scale-spread", "1"],
    # bounded least-error travels at 7.9-8.1x by classes at the target 6
    # (balanced 8.7-9.2x): the same at the target 6.5, to keep 8x
    "x50s1r65pls1": LEAST + ["--scale-ratio", "6.5", "--scale-spread", "1"],
    # on shufflenet_v2 at lr 0.1 the gap might follow the ratio rather than
    # the policy (bounded 8.1x +0.03, bounded 8.5x -0.64, balanced 8.9x
    # -0.82 over seeds 1-3): balanced at a target that lands near 8.1x
    "x50s1r55p": DEFAULTS + ["--scale-prime", "--scale-ratio", "5.5"],
    # balanced at 8.2-8.5x ended -1.56 there: the gain is the bounded
    # policy's. The least target over 6 that may keep 8x on mobilenet_v2
    "x50s1r62pls1": LEAST + ["--scale-ratio", "6.2", "--scale-spread", "1"],
    # bounded least-error at the target 6 held at 8x by ratio_floor=8 as it
    # steers since 4894bcd (on the run's ratio, ending just above the
    # floor): the target moves only where the run falls under 8.16x
    # (mobilenet_v2: 7.9x at the target 6)
    "x50s1r6pls1f8": LEAST + ["--scale-spread", "1", "--ratio-floor", "8"],
    # the same again on DDP's rounding path (AVX-512): mobilenet_v2's seed 3
    # of it ran on an AVX2 host, where its unfloored pair and DDP ran on
    # AVX-512, so that seed compared paths as well as the floor
    "x50s1r6pls1f8re": LEAST + ["--scale-spread", "1", "--ratio-floor", "8"],
    # bounded least-error again on DDP's rounding path (AVX-512), where its
    # shufflenet_v2 seeds 1-3 and mobilenet_v2 seeds 1-2 ran on AVX2: the
    # pair of the planned floor's runs on one path
    "x50s1r6pls1re": LEAST + ["--scale-spread", "1"],
    # the same held at 8x by the floor's planned steering (ratio_steer=
    # "plan"): the target moves only as far as the last window says the run
    # needs, where the fixed step swung mobilenet_v2's between 6 and 7.59
    "x50s1r6pls1f8p": LEAST + ["--scale-spread", "1", "--ratio-floor", "8",
                               "--ratio-steer", "plan"],
    # the hook's defaults in full as of 36620eb (the floor included), named:
    # for networks on which nothing was decided
    "x50s1r6pf8": DEFAULTS + ["--scale-prime", "--kernel-ratio", "auto", "--ratio-floor", "8"],
    # mobilenet_v2 at lr 0.1 is unstable with DDP's own all-reduce as well,
    # and its least-error run of seed 1 lost its gap there while its steps
    # were nearer the true mean than balanced's (experiments/hook-lag.py):
    # the policies at lr 0.05, where it trains stably, against DDP at lr
    # 0.05 again on this host's path (its ddplr05 runs were made before
    # BLAS_CORE)
    "ddplr05re": ["--comm", "ddp", "--lr", "0.05"],
    "x50s1r6pls1lr05": LEAST + ["--scale-spread", "1", "--lr", "0.05"],
    # the same schedule with AdamW (lr 0.001, decoupled weight decay 0.01)
    # instead of SGD with momentum, DDP and the defaults (BASELINE): with
    # Adam the held-back values reach the second moment late and in bursts
    # (error feedback is linear, Adam's variance is not)
    "ddpaw": ["--comm", "ddp"] + ADAMW,
    "x50s1r6paw": DEFAULTS + ["--scale-prime"] + ADAMW,
    # shufflenet_v2 at lr 0.05, as mobilenet_v2 (DDP and the defaults,
    # BASELINE): at lr 0.1 DDP's own seeds span 0.55 on one host (88.96 to
    # 89.51) and its runs dip by 1-3 points in the lr-0.1 phase, wider than
    # the 0.5 a comparison needs; at 0.05 mobilenet_v2's gap fell from -1.28
    # to -0.29
    "x50s1r6plr05": DEFAULTS + ["--scale-prime", "--lr", "0.05"],
    # the same after 10 uncompressed iterations instead of 50: counting the
    # warm-up and the exempt values at 32 bits, the defaults' runs travel
    # at 7.0x on shufflenet_v2 (8.8x by the codec's classes) and at 5.3x on
    # resnet50's 585 iterations (9.1x); primed, is the long warm-up still
    # needed?
    "x10s1r6plr05": DEFAULTS + ["--scale-prime", "--lr", "0.05", "--warmup-iters", "10"],
    # alexnet on a schedule it learns from the first iterations: AdamW at lr
    # 1e-4 (weight decay 0.01), 128 a worker, the lr / 10 at epochs 3 and 4.
    # With SGD at lr 0.01 its DDP run stayed near ln 10 for 140 iterations
    # and fell back to 10 % at 203 (59.42 % at the end: not converged, and
    # the defaults' -4.78 is as much when it left the plateau as anything);
    # one worker x 128 with AdamW at 1e-4: 55.57 % at iteration 40, 75.76 at
    # 160, where SGD at 0.01 was at loss 2.295 at 80 (torchrun
    # --nproc_per_node 1 examples/pytorch/train_torchvision.py --arch alexnet
    # --batch 128 --iterations 160 --eval-every 40, with --optimizer adamw
    # --lr 0.0001 --weight-decay 0.01 or with --lr 0.01). DDP and the
    # defaults (BASELINE)
    "ddpb128aw4": ["--comm", "ddp"] + B128 + ADAMW4,
    # the same again, on the script's path now (BLAS_CORE): alexnet's seed 1
    # of DDP (and x50s1r6b128paw4) left another trajectory within the
    # warm-up than the hook's later runs of the seed (k1, n, q), which a
    # run with the Zen kernels pinned repeats (loss 1.3805 at iteration 20)
    "ddpb128aw4re": ["--comm", "ddp"] + B128 + ADAMW4,
    "x50s1r6b128paw4": DEFAULTS + B128 + ["--scale-prime"] + ADAMW4,
    # the same at the target ratio 3: the defaults' alexnet with AdamW
    # learns slower than DDP from the end of the warm-up (56.52 against
    # 67.19 % at iteration 58, 78.04 against 84.50 at 319), with 84 % of
    # the values 2-bit (0) in each call. A value the codec holds back
    # travels in bursts as its residual grows: Adam divides each value's
    # step by the root of its mean square, which bursts inflate, so such a
    # value moves slower than its steady gradient would move it. Fewer
    # values held back (target 3) should close the gap if that is the cause
    "x50s1r3b128paw4": DEFAULTS + B128 + ["--scale-prime", "--scale-ratio", "3"] + ADAMW4,
    # target 3 came to -0.52: the held-back values are the cause. The same
    # as the defaults with each held-back value spread over as many
    # iterations as it was held back (pace=True; experiments/adam-bursts.py:
    # Adam moves a steady value as far as the dense stream again), at the
    # defaults' ratio; on mobilenet_v3_small with AdamW and on resnet18 with
    # SGD (the defaults level with DDP there: pacing must not cost them)
    "x50s1r6b128paw4q": DEFAULTS + B128 + ["--scale-prime", "--pace"] + ADAMW4,
    # paced it ended at 82.48 % (-4.44): not the rate. The training loss
    # rises when the warm-up ends (0.854 at iteration 40 for every way;
    # at 60 DDP 0.631, the defaults 0.957, paced 1.177, target 3 0.698):
    # the values error feedback delivers late, each given a full step by
    # Adam whatever its size, disturb the network; SGD moves small values
    # little. Without error feedback (the held-back values dropped, the
    # scaling as in the defaults) 67.06 % at iteration 58 (DDP 67.19) and
    # 72.96 at 100, 9.3x by classes (100 iterations, no checkpoint:
    # train_torchvision.py with these arguments and --iterations 100
    # --eval-every 29). Over the schedule, and with the residual fading
    # (residual_decay=0.9: staleness bounded, the sum no longer kept)
    "x50s1r6b128paw4n": DEFAULTS + B128 + ["--scale-prime", "--no-error-feedback"] + ADAMW4,
    "x50s1r6b128paw4d9": DEFAULTS + B128 + ["--scale-prime", "--residual-decay", "0.9"] + ADAMW4,
    # the residual fading at 0.9 disturbs it as much at first (55.69 % at
    # iteration 58, loss 1.013 at 60; 68.49 % at 100: 100 iterations as
    # above with --residual-decay 0.9): whole-schedule run last. Without
    # error feedback on mobilenet_v3_small with AdamW, where the defaults
    # are level with DDP (+0.16 over 3 seeds)
    "x50s1r6pawn": DEFAULTS + ["--scale-prime", "--no-error-feedback"] + ADAMW,
    # delivering the held-back values late and dropping them both cost
    # alexnet under AdamW; fewer of them (target 3) does not. Target 3
    # early, rising to 6 over the first 200 compressed iterations
    # (scale_ramp=200): the ratio over the run between 6.7x and 9.2x
    "x50s1r6b128paw4r200": DEFAULTS + B128 + ["--scale-prime", "--scale-ramp", "200"] + ADAMW4,
    # where the defaults disturb alexnet under AdamW: 100 iterations as
    # above with the convolutions' bucket (5 kernels, 2.47 M of the 57 M
    # values; the linear layers' 54.6 M in two buckets of their own)
    # uncompressed: 66.42 % at iteration 58 (DDP 67.19, the defaults 56.52),
    # 72.28 at 87 (DDP 72.96), loss 0.702 at 60 (DDP 0.631), the linear
    # layers at 9.5x by classes; the same bucket through the codec at
    # target 1 (its exponents as fine as the codec's range allows): 64.63,
    # 67.41. Over the schedule: the kernels uncompressed
    # (exempt="vectors+kernels"), the bound; and at target 1
    # (kernel_ratio=1)
    "x50s1r6b128paw4xk": DEFAULTS + B128 + ["--scale-prime", "--exempt", "vectors+kernels"]
    + ADAMW4,
    "x50s1r6b128paw4k1": DEFAULTS + B128 + ["--scale-prime", "--kernel-ratio", "1"] + ADAMW4,
    # the candidate default (bounded least-error at the target 6 held at 8x
    # by ratio_floor=8) on the paper's alexnet and vgg16, whose runs so far
    # are all balanced
    "x50s1r6b128paw4kals1f8": LEAST + B128 + ["--kernel-ratio", "auto", "--scale-spread", "1",
                                              "--ratio-floor", "8"] + ADAMW4,
    # pacing was judged (x50s1r6b128paw4q) while the kernels at target 6
    # cost 3.4 points; with them at target 1 what remains (seed 2: 0.79
    # below DDP, 0.80 with the kernels uncompressed) is the linear layers',
    # where Adam's 1/sqrt(k) from the bursts (experiments/adam-bursts.py)
    # would act: the defaults paced
    "x50s1r6b128paw4k1q": DEFAULTS + B128 + ["--scale-prime", "--kernel-ratio", "1", "--pace"]
    + ADAMW4,
    # at target 1 the kernels still cost (seed 2 0.79 below DDP, 4-5 points
    # behind at iteration 87 on both seeds); uncompressed they do not, but
    # count 4.3 % of the values at 32 bits (6.9x with the rest at target
    # 6): the kernels uncompressed and the rest at target 10, 8.4x counting
    # them (100-iteration diagnostic, seed 1: 66.15 / 72.76 % at 58 / 87,
    # at target 1 64.63 / 67.41, uncompressed at 6 66.42 / 72.28)
    "x50s1r6b128paw4xk10": DEFAULTS + B128 + ["--scale-prime", "--exempt", "vectors+kernels",
                                              "--scale-ratio", "10"] + ADAMW4,
    # the defaults' run again on the host of the paced one (its warm-up's
    # evaluation at iteration 29 differs from the first host's: 56.42
    # against 56.28 %), so that pacing is judged on one host
    "x50s1r6b128paw4re": DEFAULTS + B128 + ["--scale-prime"] + ADAMW4,
    "x50s1r6pawq": DEFAULTS + ["--scale-prime", "--pace"] + ADAMW,
    "x50s1r6pq": DEFAULTS + ["--scale-prime", "--pace"],
    # vgg16 (134 M values; 0.43 G multiply-adds an image at 32 x 32 against
    # alexnet's 0.1 G at 64 x 64) the same way over 2 epochs, the lr / 10 at
    # 1.2 and 1.6 (234 iterations): 5 epochs would take 4-6 hours a run on
    # 2 cores. One worker x 128 with AdamW at 1e-4: 54.10 % at iteration
    # 30, 64.61 at 60 (the command above with --arch vgg16 --iterations 60
    # --eval-every 30). DDP and the defaults (BASELINE)
    "ddpb128aw4e2": ["--comm", "ddp"] + B128 + ADAMW4 + VGG_E2,
    "x50s1r6b128paw4e2": DEFAULTS + B128 + ["--scale-prime"] + ADAMW4 + VGG_E2,
    # the same with kernel_ratio="auto" (vgg16's 14.7 M kernels are 11 % of
    # its values: the buckets of kernels at target 1)
    "x50s1r6b128paw4e2ka": DEFAULTS + B128 + ["--scale-prime", "--kernel-ratio", "auto"]
    + ADAMW4 + VGG_E2,
    "x50s1r6b128paw4e2kals1f8": LEAST + B128 + ["--kernel-ratio", "auto", "--scale-spread", "1",
                                                "--ratio-floor", "8"] + ADAMW4 + VGG_E2,
    # the same paced (pace=True): vgg16's training loss is DDP's until its
    # first lr decay and above it after (accuracy-torch.py losses), where
    # the bursts' cost under Adam (adam-bursts.py) would act; not in ORDER
    # (too large for this host's memory, see there)
    "x50s1r6b128paw4e2kaq": DEFAULTS + B128 + ["--scale-prime", "--kernel-ratio", "auto",
                                               "--pace"] + ADAMW4 + VGG_E2,
    "psgd1": ["--comm", "powersgd", "--powersgd-rank", "1"],
    "psgd4": ["--comm", "powersgd", "--powersgd-rank", "4"],
}
# the order runs are taken in: the defaults against DDP over three seeds
# first (the claim), then the runs that show what each part brings, then
# the other hooks
ORDER = [("ddp", 1), ("ddp", 2), ("warm50", 1), ("ddp", 3), ("warm50", 2), ("warm50", 3),
         ("inc", 1), ("warm50e16", 1), ("warm50e16", 2), ("warm50e16", 3),
         ("plain", 1), ("fp16", 1), ("psgd1", 1), ("psgd4", 1),
         ("plain", 2), ("psgd1", 2), ("psgd4", 2),
         ("r12e8", 1),
         ("mobilenet_v2", "ddp", 1), ("mobilenet_v2", "warm50", 1),
         ("mobilenet_v2", "ddp", 2), ("mobilenet_v2", "warm50", 2), ("mobilenet_v2", "ef50", 1),
         ("mobilenet_v2", "x50", 1), ("mobilenet_v2", "x50", 2), ("x50", 1),
         ("mobilenet_v2", "ddp", 3), ("mobilenet_v2", "x50", 3), ("x50", 2), ("x50", 3),
         ("plain", 3), ("psgd1", 3), ("psgd4", 3),
         ("shufflenet_v2_x1_0", "ddp", 1), ("shufflenet_v2_x1_0", "x50", 1),
         ("shufflenet_v2_x1_0", "x50s1", 1), ("x50s1", 1), ("mobilenet_v2", "x50s1", 1),
         ("mobilenet_v3_small", "ddp", 1), ("mobilenet_v3_small", "x50s1", 1),
         ("regnet_x_400mf", "ddp", 1), ("regnet_x_400mf", "x50s1", 1),
         ("mobilenet_v3_small", "x50", 1),
         ("mobilenet_v2", "x50s1r6", 1), ("mobilenet_v3_small", "x50s1r6", 1),
         ("x50s1r6", 1), ("shufflenet_v2_x1_0", "x50s1r6", 1),
         ("mobilenet_v2", "x50s1", 2), ("mobilenet_v2", "x50s1r6", 2),
         ("mobilenet_v3_small", "ddp", 2), ("mobilenet_v3_small", "x50s1", 2),
         ("mobilenet_v3_small", "x50s1r6", 2), ("x50s1", 2), ("x50s1", 3),
         ("x50s1r6", 2), ("x50s1r6", 3), ("mobilenet_v2", "x50s1r6", 3),
         ("mobilenet_v3_small", "ddp", 3), ("mobilenet_v3_small", "x50s1", 3),
         ("mobilenet_v3_small", "x50s1r6", 3),
         ("mobilenet_v2", "x50s1r6e6", 2), ("mobilenet_v2", "x50s1r6e6", 1),
         ("mobilenet_v2", "ddplr05", 1), ("mobilenet_v2", "x50s1r6lr05", 1),
         ("mobilenet_v2", "ddplr05", 2), ("mobilenet_v2", "x50s1r6lr05", 2),
         ("mobilenet_v2", "ddplr05", 3), ("mobilenet_v2", "x50s1r6lr05", 3),
         ("shufflenet_v2_x1_0", "ddp", 2), ("shufflenet_v2_x1_0", "x50s1", 2),
         ("shufflenet_v2_x1_0", "x50s1r6", 2),
         ("shufflenet_v2_x1_0", "x1404", 2), ("mobilenet_v3_small", "x1404", 1),
         ("shufflenet_v2_x1_0", "x468", 2), ("shufflenet_v2_x1_0", "x50s1r4", 2),
         ("shufflenet_v2_x1_0", "x200", 2), ("mobilenet_v3_small", "x468", 1),
         ("shufflenet_v2_x1_0", "x200", 1), ("mobilenet_v3_small", "x200", 1),
         ("mobilenet_v3_small", "x200", 2), ("mobilenet_v3_small", "x200", 3),
         ("x200", 1), ("mobilenet_v2", "x200", 1), ("x200", 2), ("mobilenet_v2", "x200", 2),
         ("x200", 3), ("mobilenet_v2", "x200", 3),
         ("resnet50", "ddpb128", 1), ("resnet50", "x50s1r6b128", 1),
         ("resnet50", "ddpb128", 2), ("resnet50", "x50s1r6b128", 2),
         ("resnet50", "x50s1r6b128p4k", 1), ("resnet50", "ddpb128", 3),
         ("resnet50", "ddpb128w", 1), ("resnet50", "x50s1r6b128w", 1),
         ("resnet50", "ddpb128w", 2), ("resnet50", "x50s1r6b128wp", 1),
         ("resnet50", "x50s1r6b128wp", 2),
         ("shufflenet_v2_x1_0", "x50s1r6p", 2), ("mobilenet_v3_small", "x50s1r6p", 1),
         ("shufflenet_v2_x1_0", "x50s1r6np", 2), ("x50s1r6p", 1),
         ("shufflenet_v2_x1_0", "ddpre", 2), ("resnet50", "x50s1r6b128wpr", 1),
         ("shufflenet_v2_x1_0", "x50s1r6pr", 2),
         ("mobilenet_v3_small", "ddpre", 1),
         ("mobilenet_v3_small", "x50s1r6np", 1), ("mobilenet_v3_small", "x50s1r6pr", 1),
         ("ddpre", 1), ("x50s1r6np", 1), ("x50s1r6pr", 1),
         ("alexnet", "ddpb128wlr02", 1),
         ("ddpre", 2), ("x50s1r6p", 2), ("ddpre", 3), ("x50s1r6p", 3),
         # the ramp against primed over seeds on one host (one seed each
         # way before: shufflenet_v2 +1.17, the other three -0.10 to -0.34);
         # on shufflenet_v2's seed 1 it ended 2.15 below primed: no more
         # ramp runs. Then a 200-iteration warm-up, primed (x200p)
         ("shufflenet_v2_x1_0", "ddpre", 1), ("shufflenet_v2_x1_0", "x50s1r6p", 1),
         ("shufflenet_v2_x1_0", "x50s1r6pr", 1), ("shufflenet_v2_x1_0", "ddpre", 3),
         ("shufflenet_v2_x1_0", "x50s1r6p", 3),
         ("shufflenet_v2_x1_0", "x200p", 1), ("shufflenet_v2_x1_0", "x200p", 2),
         ("shufflenet_v2_x1_0", "x200p", 3),
         # x200p's seed 2 blew up at iteration ~1000 (loss 0.84 against
         # DDP's 0.27) and ended 3.09 below DDP: not a fix, not run further
         ("alexnet", "ddpb128wlr01", 1), ("alexnet", "x50s1r6b128wplr01", 1),
         ("shufflenet_v2_x1_0", "fp16re", 1), ("shufflenet_v2_x1_0", "fp16re", 2),
         ("shufflenet_v2_x1_0", "fp16re", 3),
         ("shufflenet_v2_x1_0", "ddplr05", 1), ("shufflenet_v2_x1_0", "x50s1r6plr05", 1),
         ("shufflenet_v2_x1_0", "ddplr05", 2), ("shufflenet_v2_x1_0", "x50s1r6plr05", 2),
         ("shufflenet_v2_x1_0", "ddplr05", 3), ("shufflenet_v2_x1_0", "x50s1r6plr05", 3),
         ("shufflenet_v2_x1_0", "x10s1r6plr05", 1), ("shufflenet_v2_x1_0", "x10s1r6plr05", 2),
         ("shufflenet_v2_x1_0", "x10s1r6plr05", 3),
         ("mobilenet_v3_small", "ddpaw", 1), ("mobilenet_v3_small", "x50s1r6paw", 1),
         ("mobilenet_v3_small", "ddpaw", 2), ("mobilenet_v3_small", "x50s1r6paw", 2),
         ("mobilenet_v3_small", "ddpaw", 3), ("mobilenet_v3_small", "x50s1r6paw", 3),
         ("x10s1r6p", 1),
         ("alexnet", "ddpb128aw4", 1), ("alexnet", "x50s1r6b128paw4", 1),
         ("alexnet", "x50s1r3b128paw4", 1),
         ("alexnet", "x50s1r6b128paw4q", 1), ("alexnet", "x50s1r6b128paw4n", 1),
         # the paper's networks first (vgg16 over a schedule, resnet50's
         # third seed, alexnet's second): resnet18's seed 1 primed after 10
         # warm-up iterations ended 0.41 below DDP (50: 0.08 below)
         ("vgg16", "ddpb128aw4e2", 1),
         ("alexnet", "x50s1r6b128paw4k1", 1), ("vgg16", "x50s1r6b128paw4e2ka", 1),
         # vgg16 with kernel_ratio="auto" ended 0.99 below DDP: alexnet's
         # seeds 2 and 3 with it next, then vgg16 without it
         ("alexnet", "ddpb128aw4", 2), ("alexnet", "x50s1r6b128paw4k1", 2),
         ("alexnet", "x50s1r6b128paw4xk10", 2),
         # mobilenet_v2 at lr 0.1 with the primed defaults (its last runs
         # there were unprimed: 1.28 behind over 3 seeds), DDP on this host
         ("mobilenet_v2", "ddpre", 1), ("mobilenet_v2", "x50s1r6p", 1),
         ("mobilenet_v2", "ddpre", 2), ("mobilenet_v2", "x50s1r6p", 2),
         ("mobilenet_v2", "ddpre", 3), ("mobilenet_v2", "x50s1r6p", 3),
         ("alexnet", "ddpb128aw4", 3), ("alexnet", "x50s1r6b128paw4k1", 3),
         # two networks nothing was decided or tuned on, resnet18's schedule
         # unchanged, DDP and the defaults on one host: a deeper residual
         # network (resnet34, 21.3 M values) and one with squeeze-and-
         # excitation, SiLU and stochastic depth (efficientnet_b0, 4.0 M)
         ("efficientnet_b0", "ddpre", 1), ("efficientnet_b0", "x50s1r6p", 1),
         ("resnet34", "ddpre", 1), ("resnet34", "x50s1r6p", 1),
         # resnet34 with the defaults ended 1.09 below DDP at 11.4x (seed
         # 1): the defaults at target 4 and with scaling parts on seed 1,
         # then its seeds 2 and 3
         ("resnet34", "x50s1r4p", 1), ("resnet34", "x50s1r6pp4k", 1),
         ("resnet34", "ddpre", 2), ("resnet34", "x50s1r6p", 2),
         ("resnet34", "ddpre", 3), ("resnet34", "x50s1r6p", 3),
         # on a host at half the speed of the first (1.2 s an iteration of
         # resnet34's DDP run against 0.63), the runs that still fit a
         # sitting after resnet34's: mobilenet_v3_small's second seed. Then
         # the claims over seeds before the diagnoses: resnet50's third
         # seed, alexnet's bound, vgg16's second seed, vgg16 without
         # kernel_ratio. alexnet's ramp (x50s1r6b128paw4r200, its kernels at
         # target 6) is withdrawn: the ramp ended -0.34 over four networks
         # and kernel_ratio="auto" has since replaced the kernels' target 6
         ("mobilenet_v3_small", "ddpre", 2), ("mobilenet_v3_small", "x50s1r6p", 2),
         ("resnet50", "ddpb128w", 3), ("resnet50", "x50s1r6b128wp", 3),
         # resnet50's seed 3 with the primed defaults blew up after the
         # warm-up (loss 5.6 at iteration 70 against DDP's 1.75) and ended
         # 5.36 below DDP; 100-iteration probes of it with the target ramped
         # from 3 (scale_ramp=150) or at target 3 stay on DDP's loss: the
         # ramp over resnet50's seeds 3 and 2 first
         ("resnet50", "x50s1r6b128wpr", 3), ("resnet50", "x50s1r6b128wpr", 2),
         # the ramp's seed 2 ran on the Intel host, DDP's seed 2 on the AMD
         # one (they part within the warm-up): DDP's seed 2 again there
         ("resnet50", "ddpb128wre", 2),
         # the ramp's seed 2 on the AMD host's path (BLAS_CORE), against
         # DDP's seed 2 of that host
         ("resnet50", "x50s1r6b128wprz", 2),
         # whether the ramp becomes the default: its seeds on resnet18 and
         # shufflenet_v2 not yet run, against DDP's runs on the AMD host
         # (ddpre: the path BLAS_CORE takes on any host). They leave it an
         # option: better on resnet18 and resnet50, worse on shufflenet_v2,
         # and under 8x after 200 iterations (ratios)
         ("shufflenet_v2_x1_0", "x50s1r6pr", 3), ("x50s1r6pr", 2), ("x50s1r6pr", 3),
         ("alexnet", "ddpb128aw4re", 1),
         ("alexnet", "x50s1r6b128paw4xk", 1),
         ("vgg16", "ddpb128aw4e2", 2), ("vgg16", "x50s1r6b128paw4e2ka", 2),
         ("vgg16", "x50s1r6b128paw4e2", 1),
         # alexnet's seed 1 with the kernels uncompressed ended 0.09 below
         # DDP (the defaults 0.18): the same bound on seed 2, where the
         # defaults end 0.79 below, splits that gap between the kernels
         # and the linear layers
         ("alexnet", "x50s1r6b128paw4xk", 2),
         ("alexnet", "x50s1r6b128paw4", 2), ("x10s1r6p", 2),
         # networks the defaults were not decided on, DDP and the defaults
         # on this host's path: regnet_x_400mf (its DDP run of seed 1 was
         # made before BLAS_CORE), densenet121 (none before)
         ("regnet_x_400mf", "ddpre", 1), ("regnet_x_400mf", "x50s1r6p", 1),
         ("alexnet", "x50s1r6b128paw4k1q", 2),
         ("densenet121", "ddpre", 1), ("densenet121", "x50s1r6p", 1),
         # densenet121's seed 1 ended 0.54 below DDP: its seeds 2-3 say
         # whether that is the network or the seed
         ("densenet121", "ddpre", 2), ("densenet121", "x50s1r6p", 2),
         # the defaults' seed 2 climbs to loss 5.2 at iteration 120 where
         # DDP's bumps to 1.1: the ramp that removed resnet50's blow-up
         ("densenet121", "x50s1r6pr", 2),
         ("densenet121", "ddpre", 3), ("densenet121", "x50s1r6p", 3),
         # the damped scaling hunts (docs/results.md): held by patience on
         # resnet50's seed 3, where the primed defaults blow up (5.36 below
         # DDP), then on densenet121's seed 2 and resnet18's seed 1
         ("resnet50", "x50s1r6b128wpt2", 3), ("resnet50", "ddpb128wz", 3),
         ("resnet50", "x50s1r6b128wpz", 3),
         # vgg16's third seed, the paper's network under AdamW over 2 epochs:
         # the defaults were -0.99 and -0.60 on seeds 1-2
         ("vgg16", "ddpb128aw4e2", 3), ("vgg16", "x50s1r6b128paw4e2ka", 3),
         # not ("vgg16", "x50s1r6b128paw4e2kaq", 1): pace=True keeps 12 bytes
         # a value, 1.6 GB a rank on vgg16, and 4 ranks of it do not fit in
         # this host's 24 GB (killed by the kernel as compression started)
         # patience on seed 3 ended at 88.82 % (9.2x): seeds 1 and 2 (DDP's
         # and the primed defaults' runs of them on this path)
         ("resnet50", "x50s1r6b128wpt2", 1), ("resnet50", "x50s1r6b128wpt2", 2),
         # patience ended 0.04 below the defaults on seed 1, 0.15 on seed 3,
         # and blew up on seed 2 (-5.35): not run on densenet121 and
         # resnet18 ("x50s1r6pt2"), which it was to be tried on next. The
         # bound instead, first on seed 1 (the defaults -0.41): -1.11, so
         # not on seeds 2-3
         ("resnet50", "x50s1r6b128wpe12", 1),
         # resnet50 after 10 warm-up iterations: a 120-iteration probe of
         # seed 1 climbed to loss 4.2 at iterations 20-40 (docs/results.md)
         ("x10s1r6p", 3),
         # resnet50 with the most precision 8x allows, on its worst seed of
         # this host's path (the defaults -0.80); PyTorch's fp16 hook on its
         # schedule: is its 0.6-point gap the codec's, or what any rounding
         # of the sums costs there?
         # (resnet50's x50s1r4f8b128wp seed 2 ran here, kept: COMMS)
         ("resnet50", "fp16b128w", 1),
         ("resnet50", "x10s1r6b128wp", 1),
         # the least-error policy on resnet50's seeds 1 and 2, then on
         # resnet18's seed 1
         ("resnet50", "x50s1r6b128wpl", 1), ("resnet50", "x50s1r6b128wpl", 2),
         ("x50s1r6pl", 1),
         # resnet50's seed 1 with it ended 0.14 below DDP (balanced 0.41) at
         # 8.3x by classes: resnet50's seed 3 on this host's path, resnet18's
         # seeds 2-3 (where balanced is level), then the networks balanced
         # leaves behind or has not been run on with it
         ("resnet50", "x50s1r6b128wpl", 3),
         # on a host where resnet18 takes about 65 minutes a run and the
         # small networks 10-30: the networks balanced leaves behind or has
         # not been run on with it first, then resnet18's seeds 2-3
         ("shufflenet_v2_x1_0", "x50s1r6pl", 1),
         # shufflenet_v2's seed 1 ended 0.07 below DDP (the balanced defaults
         # 0.94) at 8.1x by classes: the same held at 8x by ratio_floor
         # (x50s1r6plf8's seed 1 ran here, kept: COMMS)
         ("mobilenet_v2", "x50s1r6pl", 1),
         ("mobilenet_v3_small", "x50s1r6pl", 1),
         # mobilenet_v2's seed 1 with least-error ended 1.71 below DDP at
         # 7.9x (balanced +0.49): least-error bounded to balanced's
         # headroom + 1 there, then where unbounded it gained (shufflenet_v2
         # seed 1, resnet50 seed 2)
         ("mobilenet_v2", "x50s1r6pls1", 1), ("shufflenet_v2_x1_0", "x50s1r6pls1", 1),
         # bounded, it kept shufflenet_v2's gain (+0.24) and halved
         # mobilenet_v2's loss (-1.02), on one seed of two networks whose
         # runs at lr 0.1 scatter by a point under any perturbation
         # (shufflenet_v2's seed 2 lost 1.60 to the fp16 hook): both
         # policies on their seeds 2 and 3 before the slower networks
         ("shufflenet_v2_x1_0", "x50s1r6pls1", 2), ("shufflenet_v2_x1_0", "x50s1r6pl", 2),
         ("mobilenet_v2", "x50s1r6pls1", 2), ("mobilenet_v2", "x50s1r6pl", 2),
         ("shufflenet_v2_x1_0", "x50s1r6pls1", 3), ("shufflenet_v2_x1_0", "x50s1r6pl", 3),
         # at the target 6 bounded least-error is under 8x on mobilenet_v2
         # (7.9x by classes), so it cannot be the default there: the target
         # 6.5 on the networks that decide it first
         ("shufflenet_v2_x1_0", "x50s1r65pls1", 1), ("shufflenet_v2_x1_0", "x50s1r65pls1", 2),
         ("shufflenet_v2_x1_0", "x50s1r65pls1", 3),
         # there it ended -0.64 over seeds 1-3 at 8.5x (the target 6 +0.03 at
         # 8.1x, balanced -0.82 at 8.9x), so not on mobilenet_v2 (its seed 1
         # was stopped as it began); balanced at the target 5.5 instead:
         # is bounded least-error's gain there the policy's or the ratio's?
         ("shufflenet_v2_x1_0", "x50s1r55p", 1), ("shufflenet_v2_x1_0", "x50s1r55p", 2),
         ("shufflenet_v2_x1_0", "x50s1r55p", 3),
         # it ended -1.56 over seeds 1-3 at 8.2-8.5x: the gain is the bounded
         # policy's. Its ratio at the target 6.2 on mobilenet_v2 (at 6:
         # 7.9x), then its accuracy where the target 6.5 lost it
         ("mobilenet_v2", "x50s1r62pls1", 1),
         # there it ended -1.58 (the target 6 -1.02 at 7.9x): the target 6
         # raised only where a run falls under 8x, by ratio_floor as it
         # steers since 4894bcd, first where the target alone stays under
         ("mobilenet_v2", "x50s1r6pls1f8", 1), ("shufflenet_v2_x1_0", "x50s1r6pls1f8", 1),
         ("mobilenet_v2", "x50s1r6pls1f8", 2), ("shufflenet_v2_x1_0", "x50s1r6pls1f8", 2),
         ("shufflenet_v2_x1_0", "x50s1r6pls1f8", 3), ("mobilenet_v2", "x50s1r6pls1f8", 3),
         # the defaults in full on networks nothing was decided on, small
         # enough for this host, as a user would run them (resnet18's
         # schedule)
         # (mnasnet0_5's DDP run ends at 10.00 %: torchvision's MNASNet
         # keeps its batch-norm statistics with momentum 0.0003, so after
         # 2340 iterations the evaluation still uses nearly the initial
         # ones; its training loss falls to 0.4-0.6. Not a comparison: its
         # hook run was stopped)
         ("mnasnet0_5", "ddpre", 1),
         # (squeezenet1_1 has no batch norm and does not learn at lr 0.1:
         # DDP's run stays at loss ln 10 and 10.00 % throughout. Not a
         # comparison either)
         ("squeezenet1_1", "ddpre", 1),
         ("regnet_y_400mf", "ddpre", 1), ("regnet_y_400mf", "x50s1r6pf8", 1),
         # bounded least-error held at 8x on the paper's alexnet and vgg16
         # (their schedules under AdamW; the defaults there -0.50 and -1.21
         # over seeds 1-3)
         ("alexnet", "x50s1r6b128paw4kals1f8", 1),
         # regnet_y_400mf's seed 1 ended +0.58 at 11.1x: a claim needs 3
         ("regnet_y_400mf", "ddpre", 2), ("regnet_y_400mf", "x50s1r6pf8", 2),
         ("regnet_y_400mf", "ddpre", 3), ("regnet_y_400mf", "x50s1r6pf8", 3),
         # (the same on vgg16, after regnet_y_400mf's pairs: the longer
         # run: 41-96 minutes for its earlier DDP and hook runs, 87
         # minutes for this one on an AVX-512 host)
         ("vgg16", "x50s1r6b128paw4e2kals1f8", 1),
         ("shufflenet_v2_x1_0", "x50s1r62pls1", 1),
         ("shufflenet_v2_x1_0", "x50s1r62pls1", 2), ("shufflenet_v2_x1_0", "x50s1r62pls1", 3),
         ("mobilenet_v2", "x50s1r6pls1", 3), ("mobilenet_v2", "x50s1r6pl", 3),
         # bounded least-error on resnet50 over seeds 1-3 (unbounded there
         # -0.28 against balanced's -0.61, better on each seed): with
         # shufflenet_v2 at lr 0.1 (+0.03 against -0.82) the networks where
         # the defaults miss the 0.3 under SGD; about 27 minutes a run on an
         # AVX-512 host
         ("resnet50", "x50s1r6b128wpls1", 1), ("resnet50", "x50s1r6b128wpls1", 2),
         ("resnet50", "x50s1r6b128wpls1", 3),
         # bounded least-error held at 8x on mobilenet_v2's seed 3 again, on
         # the path of DDP's run and of the unfloored run of that seed
         ("mobilenet_v2", "x50s1r6pls1f8re", 3),
         # bounded least-error held at 8x by the planned steering, on the
         # network where the bound alone travels under 8x (mobilenet_v2,
         # 7.9x) and where the fixed step cost 0.17-0.60 a seed; then
         # shufflenet_v2 at lr 0.1 (8.1x, just under the floor's 8.16)
         *[(arch, "x50s1r6pls1f8p", seed) for arch in ("mobilenet_v2", "shufflenet_v2_x1_0")
           for seed in (1, 2, 3)],
         # the bound alone on DDP's path where it ran on AVX2 (shufflenet_v2
         # seed 1: +0.24 there, -1.51 held by the plan on DDP's path): the
         # planned floor's pairs on one path
         *[(arch, "x50s1r6pls1re", seed) for arch, seed in
           (("shufflenet_v2_x1_0", 1), ("shufflenet_v2_x1_0", 2), ("shufflenet_v2_x1_0", 3),
            ("mobilenet_v2", 1), ("mobilenet_v2", 2))],
         # the same, the candidate default, on resnet18 and mobilenet_v3_small
         # (unbounded least-error's seed 1: -0.01 and +0.00), with DDP's
         # mobilenet_v3_small seed 3 on this path
         *[("resnet18", "x50s1r6pls1f8p", seed) for seed in (1, 2, 3)],
         ("mobilenet_v3_small", "x50s1r6pls1f8p", 1), ("mobilenet_v3_small", "x50s1r6pls1f8p", 2),
         ("mobilenet_v3_small", "ddpre", 3), ("mobilenet_v3_small", "x50s1r6pls1f8p", 3),
         *[("mobilenet_v2", way, seed) for seed in (1, 2, 3)
           for way in ("ddplr05re", "x50s1r6plr05", "x50s1r6pls1lr05")],
         # seeds 4 and 5 of the three ways least-error and balanced were
         # compared on at lr 0.1 (DDP, the defaults, bounded least-error):
         # one seed moves a way's gap there by up to 2.7 points, so 3 seeds
         # leave the policies' difference (0.85 on shufflenet_v2, 0.03 on
         # mobilenet_v2) within the noise
         *[(arch, way, seed) for arch in ("shufflenet_v2_x1_0", "mobilenet_v2")
           for seed in (4, 5) for way in ("ddpre", "x50s1r6p", "x50s1r6pls1")],
         ("mobilenet_v3_small", "x50s1r6pl", 2),
         ("x50s1r6pl", 2), ("x50s1r6pl", 3),
         # the fp16 hook over resnet50's seeds 2 and 3 (a claim over seeds)
         ("resnet50", "fp16b128w", 2), ("resnet50", "fp16b128w", 3),
         ("mobilenet_v3_small", "x50s1r6p", 3),
         ("alexnet", "x50s1r6b128paw4", 3),
         ("vgg16", "ddpb128wlr01", 1), ("vgg16", "x50s1r6b128wplr01", 1),
         ("resnet50", "x50s1r6b128w", 2), ("resnet50", "x50s1r6b128w", 3),
         ("resnet50", "x50s1r6b128", 3), ("resnet50", "ef50b128w", 1),
         ("alexnet", "ddplr01", 1), ("alexnet", "x50s1r6lr01", 1),
         ("vgg16", "ddplr01", 1), ("vgg16", "x50s1r6lr01", 1),
         ("mobilenet_v2", "x50s1", 3),
         ("regnet_x_400mf", "x50", 1), ("regnet_x_400mf", "x50s1r6", 1),
         ("fp16", 2), ("fp16", 3), ("r12e8", 2), ("r12e8", 3),
         ("mobilenet_v2", "warm50", 3),
         ("inc", 2), ("inc", 3),
         ("ef", 1), ("each", 1), ("ef", 2), ("ef", 3), ("each", 2), ("each", 3),
         ("mobilenet_v2", "x50s1r6e6", 3), ("x50s1r6e6", 1),
         ("alexnet", "x50s1r6b128paw4re", 1), ("alexnet", "x50s1r6b128paw4d9", 1),
         ("mobilenet_v3_small", "x50s1r6pawn", 1),
         ("mobilenet_v3_small", "x50s1r6pawq", 1), ("x50s1r6pq", 1)]


# Table III / Fig. 14 per network: the plain codec's classes at each error
# bound over iterations T3_WARMUP..T3_ITERS after T3_WARMUP uncompressed
# ones (4 workers x batch 16, seed 1, lr 0.01: alexnet and vgg16 have no
# batch norm, and at 0.1 alexnet's loss does not leave ln 10)
T3_ARCHS = ("alexnet", "vgg16", "resnet50", "resnet18")
T3_BOUNDS = (10, 8, 6)
T3_ITERS = 40
T3_WARMUP = 10
T3_AFTER = ("inc", 1)        # taken after this run of ORDER
# alexnet and vgg16 have not begun to learn in those iterations (loss ln
# 10, nearly every value 2-bit): the same runs again from the weights DDP's
# run T3W_FROM of each reached at iteration T3W_AT (end of the second of
# its 5 epochs, lr 0.01: the network learning), after that run
T3W_ARCHS = ("alexnet", "vgg16")
T3W_FROM = ("ddpb128wlr01", 1)


# an ORDER entry (COMM, SEED) is resnet18's; (ARCH, COMM, SEED) another
# network's on the same schedule: the defaults against DDP where they were
# not decided (OTHER_SECTION)
OTHER_ARCHS = ("mobilenet_v2", "shufflenet_v2_x1_0", "mobilenet_v3_small", "regnet_x_400mf",
               "efficientnet_b0", "resnet34", "densenet121", "alexnet", "resnet50", "vgg16",
               "regnet_y_400mf")


def t3_args(arch, eb):
    return ["--arch", arch, "--iterations", str(T3_ITERS), "--batch", "16",
            "--lr", "0.01", "--warmup-iters", str(T3_WARMUP),
            "--comm", "inceptionn", "--compression", "software", "--plain",
            "--error-bound", str(eb), "--no-eval", "--seed", "1", "--log-every", "5"]


def run_dir(name):
    """A run's folder, relative to the tree (the runs start there)."""
    return os.path.relpath(os.path.join(WORK, name), ROOT)


def run_name(arch, way, seed):
    return "%s-%s-seed%d" % (arch, way, seed)


def kept_log(name):
    """Where a run's log is kept once it has finished."""
    return os.path.join(RESULTS, name + ".jsonl")


def order():
    """ORDER's entries as (arch, way, seed): an entry of two is resnet18's."""
    return [e if len(e) == 3 else ("resnet18",) + e for e in ORDER]


def defaults_named(args):
    """args with the hook's defaults named where a hook run leaves them to
    the hook, as every such way ran before the default changed, so that
    a change of default does not change the runs of it made later: the
    scaling's policy (balanced, before inct.DEFAULT_SCALE_POLICY could be
    another) and no ratio floor (before inct.DEFAULT_RATIO_FLOOR; 0 is
    none, whatever the mode)."""
    if "inceptionn" not in args or "--plain" in args:
        return args
    if "--ratio-floor" not in args:
        args = args + ["--ratio-floor", "0"]
    if "--scaling" in args:
        return args
    at = len(args) - 1 - args[::-1].index("--compression") if "--compression" in args else None
    mode = args[at + 1] if at is not None else "software"
    return args + ["--scaling", "balanced"] if mode in ("software", "nic") else args


def runs():
    out = []
    for arch, comm, seed in order():
        name = run_name(arch, comm, seed)
        out.append((name, defaults_named(["--arch", arch] + SCHEDULE +
                                         [x.replace("{dir}", run_dir(name)) for x in COMMS[comm]] +
                                         ["--seed", str(seed)])))
        if (comm, seed) == T3_AFTER and arch == "resnet18":
            for arch in T3_ARCHS:
                for eb in T3_BOUNDS:
                    out.append(("t3-%s-eb%d" % (arch, eb), t3_args(arch, eb)))
        if (comm, seed) == T3W_FROM and arch in T3W_ARCHS:
            for eb in T3_BOUNDS:
                out.append(("t3w-%s-eb%d" % (arch, eb), t3_args(arch, eb) + [
                    "--init-weights", os.path.join(run_dir(name), T3W_FILE)]))
    return out


# A short screen on mobilenet_v2, the network the defaults fail on: half of
# resnet18's schedule (2.5 epochs, lr 0.1 divided by 10 at epochs 1.5 and
# 2), seed 1 (DDP also seed 2, for the seed-to-seed spread), one run per
# way. It ranks ways to try over whole schedules; it decides nothing alone.
SCREEN_SCHEDULE = ["--epochs", "2.5", "--batch", "32", "--lr", "0.1", "--milestones", "1.5,2",
                   "--momentum", "0.9", "--weight-decay", "5e-4"]
X50 = COMMS["x50"]
SCREEN = [("ddp", 1, COMMS["ddp"], "DDP's gloo all-reduce"),
          ("ddp", 2, COMMS["ddp"], "DDP's gloo all-reduce"),
          ("warm50", 1, COMMS["warm50"], "every parameter through the codec (the earlier defaults)"),
          ("eb16", 1, COMMS["warm50"] + ["--error-bound", "16"], "the same at 2^-16"),
          ("x50", 1, X50, "biases and norms uncompressed (exempt='vectors'), undamped (the "
           "defaults then)"),
          ("x50r10", 1, X50 + ["--scale-ratio", "10"], "the same, target 10"),
          ("x50r12", 1, X50 + ["--scale-ratio", "12"], "the same, target 12"),
          ("x50ef", 1, X50 + ["--scaling", "off"], "the same, scaling off (feedback alone)"),
          ("x50each", 1, X50 + ["--scaling", "each"], "the same, scaling each parameter alone"),
          ("x50f8", 1, X50 + ["--ratio-floor", "8"],
           "the same, ratio_floor 8 (steering on 10 iterations' ratio, before 4894bcd)"),
          ("x50s1", 1, X50 + ["--scale-step", "1"],
           "the same, the exponents moving at most 1 binade a call (scale_step=1)"),
          ("x50s2", 1, X50 + ["--scale-step", "2"], "the same, scale_step=2")]
SCREEN_SECTION = "## Equal accuracy by default: mobilenet_v2, a short screen"


def screen_runs():
    return [("screen-mobilenet_v2-%s-seed%d" % (way, seed),
             defaults_named(["--arch", "mobilenet_v2"] + SCREEN_SCHEDULE + args +
                           ["--seed", str(seed)]))
            for way, seed, args, _ in SCREEN]


def screen_table():
    """SCREEN_SECTION's lines, or None when no screen run is kept."""
    logs = {}
    for (way, seed, _, _), (name, _) in zip(SCREEN, screen_runs()):
        if finished(name):
            logs[way, seed] = load_kept(name)
    if not logs:
        return None
    rows = []
    for way, seed, _, label in SCREEN:
        if (way, seed) not in logs:
            continue
        r = logs[way, seed]
        sr = summ(r)
        st = sr.get("stats") or {}
        ref = summ(logs[("ddp", seed)]) if ("ddp", seed) in logs else None
        evals = {e["iter"]: e["accuracy"] for e in r if e["type"] == "eval"}
        rows.append("| %s | %d | %.2f %% | %s | %s | %s | %s | %s |" % (
            label, seed, sr["accuracy"],
            "%+.2f" % (sr["accuracy"] - ref["accuracy"]) if ref and way != "ddp" else "",
            "%.2f %%" % evals[702] if 702 in evals else "",
            "%.1fx" % st["ratio"] if st.get("ratio") else "",
            "%.1fx" % st["whole_ratio"] if st.get("whole_ratio") else "",
            " / ".join("%.1f" % (100 * st["classes"][k]) for k in CLASSES)
            if st.get("classes") else ""))
    return [SCREEN_SECTION, "",
            "mobilenet_v2, 4 workers x batch 32, 32 x 32 inputs, 1,170 iterations (2.5 epochs; lr "
            "0.1 divided by 10 at epochs 1.5 and 2, momentum 0.9, weight decay 5e-4), 50 "
            "uncompressed iterations first in every hook run, one seed a way: a screen that "
            "ranks what to run over whole schedules and seeds, not a result (DDP's two seeds "
            "end 0.9 points apart). The gap is to DDP with the same seed; the accuracy at "
            "iteration 702 is before the first lr decay; the ratios are the hook's "
            "`stats()['ratio']` (the codec's classes) and `whole_ratio` (the warm-up and "
            "exempt values at 32 bits); the shares are the 2 / 10 / 18 / 34-bit classes (%). "
            "Made by `experiments/accuracy-torch.py screen` (logs in "
            "docs/results/torch/screen-*).", "",
            "| way | seed | accuracy | gap | at 702 | ratio | whole | classes |",
            "|---|---|---|---|---|---|---|---|"] + rows + [""]


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
    return summary_of(kept_log(name))


def torchrun_command(nproc, argv, log_dir):
    """inceptionn.run.torchrun_command: the flags Debian 12's torchrun needs,
    the master on a port outside the ephemeral range (inc_free_port)."""
    lib = os.path.join(ROOT, "python")
    if lib not in sys.path:
        sys.path.insert(0, lib)
    from inceptionn.run import torchrun_command as command
    return command(nproc, argv, log_dir=log_dir)


def snapshot(d):
    """The package and library a run uses for its whole life: taken when
    it starts, and again when it restarts without a checkpoint (nothing of
    it is kept, so it begins as a new run would)."""
    snap = os.path.join(d, "snap")
    if os.path.exists(os.path.join(snap, "ok")) \
            and os.path.exists(os.path.join(d, "ckpt", "latest.json")):
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
    with open(os.path.join(snap, "blas"), "w") as f:
        f.write(BLAS_CORE + "\n")
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
    env.pop("OPENBLAS_CORETYPE", None)
    blas = os.path.join(snap, "blas")
    if os.path.exists(blas):        # else a run started before BLAS_CORE: the CPU's choice
        with open(blas) as f:
            env["OPENBLAS_CORETYPE"] = f.read().strip()
    with open(os.path.join(snap, "train_torchvision.py")) as f:
        if "--checkpoint-minutes" in f.read():      # not in a run begun before it was there
            args = args + ["--checkpoint-minutes", str(CHECKPOINT_MINUTES)]
    cmd = torchrun_command(WORKERS, [os.path.join(snap, "train_torchvision.py")] + args +
                           ["--checkpoint", os.path.join(d, "ckpt"), "--log", os.path.join(d, "log.jsonl")],
                           os.path.join(d, "torchrun"))
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
    "warm50": "inceptionn hook, feedback + balanced scaling after 50 uncompressed iterations, "
              "every parameter through the codec (the defaults before the exemption)",
    "warm50e16": "inceptionn hook, feedback + balanced scaling after 50 iterations of the plain codec at 2^-16",
    "r12e8": "inceptionn hook, feedback + balanced scaling at ratio 12 and 2^-8 after 40 uncompressed iterations",
    "ef50": "inceptionn hook, feedback alone (scaling off) after 50 uncompressed iterations",
    "x50": "inceptionn hook, feedback + balanced scaling after 50 uncompressed iterations, "
           "biases and norms uncompressed (exempt='vectors'), the scaling undamped (the "
           "defaults before scale_step)",
    "x50s1": "inceptionn hook, the same with the exponents moving at most 1 binade a call "
             "(scale_step=1), target 8 (the defaults before DEFAULT_SCALE_RATIO)",
    "x50s1r6": "inceptionn hook, the same at the target ratio 6 (DEFAULT_SCALE_RATIO; the "
               "defaults before DEFAULT_SCALE_PRIME)",
    "x50s1r6f8": "inceptionn hook, the same with ratio_floor=8 (steering on 10 iterations' "
                 "ratio, before 4894bcd)",
    "x50s1r6e6": "inceptionn hook, the unprimed defaults at the error bound 2^-6",
    "x200": "inceptionn hook, the unprimed defaults after 200 uncompressed iterations (warmup_iters=200)",
    "ddpre": "DDP's gloo all-reduce again, on the host of the rows above that name it (their "
             "baseline; against DDP's run of 2026-11-28 in the gap column)",
    "x50s1r6p": "inceptionn hook, defaults: the same with the scaling primed from the warm-up's "
                "last sum (DEFAULT_SCALE_PRIME), against DDP on its host",
    "x50s1r6np": "inceptionn hook, the same unprimed (scale_prime=False), against DDP on its host",
    "x10s1r6p": "inceptionn hook, the defaults after 10 warm-up iterations instead of 50 "
                "(warmup_iters=10), against DDP on its host",
    "x50s1r6pl": "inceptionn hook, the defaults with each parameter its own headroom, the "
                 "bucket's squared error least at the target (scaling='least-error'), against "
                 "DDP on its host",
    "x50s1r6plf8": "inceptionn hook, the same least-error held at 8x or more (ratio_floor=8, "
                   "steering on 10 iterations' ratio, before 4894bcd), against DDP on its host",
    "x50s1r6pls1": "inceptionn hook, the same least-error, no parameter's headroom more than "
                   "1 binade above balanced's (scale_spread=1), against DDP on its host",
    "x50s1r65pls1": "inceptionn hook, the same bounded least-error at the target ratio 6.5 "
                    "(scale_ratio=6.5, scale_spread=1), against DDP on its host",
    "x50s1r55p": "inceptionn hook, the defaults at the target ratio 5.5 (scale_ratio=5.5), "
                 "against DDP on its host",
    "x50s1r62pls1": "inceptionn hook, the same bounded least-error at the target ratio 6.2 "
                    "(scale_ratio=6.2, scale_spread=1), against DDP on its host",
    "x50s1r6pls1f8": "inceptionn hook, the same bounded least-error at the target 6 held at 8x "
                     "(scale_spread=1, ratio_floor=8 on the run's ratio), against DDP on its "
                     "host",
    "x50s1r6pls1f8re": "inceptionn hook, the same bounded least-error held at 8x again, on "
                       "DDP's rounding path",
    "x50s1r6pls1re": "inceptionn hook, the same bounded least-error again, on DDP's "
                     "rounding path",
    "x50s1r6pls1f8p": "inceptionn hook, the same bounded least-error held at 8x by the "
                      "floor's planned steering (ratio_steer='plan'), against DDP on its host",
    "x50s1r6pf8": "inceptionn hook, the defaults in full: the same with kernel_ratio='auto' "
                  "and ratio_floor=8 (as of 36620eb), against DDP on its host",
    "x200p": "inceptionn hook, the defaults after 200 uncompressed iterations "
             "(warmup_iters=200), against DDP on its host",
    "x50s1r4p": "inceptionn hook, the defaults at the target ratio 4 (scale_ratio=4), "
                "against DDP on its host",
    "x50s1r6pp4k": "inceptionn hook, the defaults with each parameter's scaling in parts "
                   "of at most 4096 values (scale_part=4096), against DDP on its host",
    "x50s1r6pr": "inceptionn hook, the defaults, the target rising from 3 to 6 over the "
                 "first 150 compressed iterations (scale_ramp=150), against DDP on its host",
    "x50s1r6pq": "inceptionn hook, the defaults with each held-back value paced over as many "
                 "iterations as it was held back (pace=True), against DDP on its host",
    "fp16": "PyTorch fp16_compress_hook",
    "fp16re": "PyTorch fp16_compress_hook, against DDP on its host",
    "ddpaw": "DDP's gloo all-reduce, AdamW (lr 0.001, weight decay 0.01)",
    "x50s1r6paw": "inceptionn hook, the defaults, AdamW (lr 0.001, weight decay 0.01; against "
                  "DDP with it)",
    "psgd1": "PyTorch PowerSGD, rank 1 (feedback, warm start, buckets serialised on gloo)",
    "psgd4": "PyTorch PowerSGD, rank 4 (feedback, warm start, buckets serialised on gloo)",
}
SECTION = "## Equal accuracy by default: resnet18 through the hook"


def load_log(path):
    recs = []
    with open(path) as f:
        for line in f:
            recs.append(json.loads(line))
    return recs


# the codec's classes as the hook's stats()['classes'] names them (bits)
CLASSES = ("2", "10", "18", "34")

_KEPT = {}


def load_kept(name):
    """The records of a run's kept log (kept_log), read once while the file
    is unchanged: the tables ask for a pair's logs more than once."""
    path = kept_log(name)
    st = os.stat(path)
    key = (st.st_mtime_ns, st.st_size)
    if _KEPT.get(path, (None,))[0] != key:
        _KEPT[path] = (key, load_log(path))
    return _KEPT[path][1]


def summ(recs):
    """The summary record of a finished run's records."""
    return next(r for r in recs if r["type"] == "summary")


def whole_ratio(recs, ratio=None):
    """The run's ratio (default the hook's stats()['ratio'], else the
    summary's; or another of the library's ratios, e.g. wire_ratio) with its
    exempt values and its warm-up iterations (uncompressed)
    counted at 32 bits: every iteration carries the same gradient values,
    so of N iterations W travel at 1x. From the config's warmup_iters, not
    from the stats' counters: a run resumed before the hook carried them
    in its state_dict() counts only the iterations after the resume."""
    sr = summ(recs)
    cfg = next(r for r in recs if r["type"] == "config")
    st = sr.get("stats") or {}
    # the codec's own ratio: the summary's is train_torchvision's bytes
    # ratio, the exempt values already in it
    ratio = ratio or st.get("ratio") or sr["ratio"]
    if st.get("exempt_values"):     # exempt parameters travel at 32 bits too
        x = st["exempt_values"] / (st["values"] + st["exempt_values"])
        ratio = 1 / ((1 - x) / ratio + x)
    if (cfg.get("settings") or {}).get("warmup_error_bound"):
        return ratio        # the warm-up went through the codec: counted already
    w = (cfg.get("settings") or {}).get("warmup_iters") or 0
    n = sr["iterations"]
    return n / ((n - w) / ratio + w) if 0 < w < n else ratio


def ratio_at(recs, it):
    """The hook's stats()['ratio'] (32 bits over the mean bits of the
    codec's classes, over every compressed iteration so far) as it stood at
    iteration it: from the last iteration record at or before it that
    carries the classes; None before the first."""
    cls = None
    for r in recs:
        if r["type"] == "iter" and r["iter"] <= it and r.get("classes"):
            cls = r["classes"]
    if not cls:
        return None
    return shares_ratio([cls[k] for k in CLASSES])


def ratios(only, at):
    """Prints ratio_at for the kept runs whose names match only."""
    names = kept_matching(only)
    if not names:
        print("accuracy-torch: no kept run matches %r" % only, file=sys.stderr)
        return 1
    print("%-44s %s" % ("run", " ".join("%8s" % ("at %d" % i) for i in at)))
    for n in names:
        recs = load_kept(n)
        print("%-44s %s" % (n, " ".join("%8s" % _times(ratio_at(recs, i))
                                        for i in at)))
    return 0


def targets(only, png):
    """For the kept hook runs whose names match only: the scaling's target
    (scale_target, where ratio_floor steered it) and the run's ratio by the
    codec's classes at every logged iteration, as a PNG of two panels (png)
    and one line a run (the target's least and largest, its moves, the last
    ratio)."""
    steered = {n: [r for r in load_kept(n) if r["type"] == "iter" and r.get("scale_target")]
               for n in kept_matching(only)}
    names = [n for n in steered if steered[n]]
    if not names:
        print("accuracy-torch: no kept hook run with a scaling target matches %r" % only,
              file=sys.stderr)
        return 1
    dat = os.path.join(WORK, "plot")
    os.makedirs(dat, exist_ok=True)
    tplots, rplots = [], []
    print("%-44s %6s %6s %6s %7s" % ("run", "least", "most", "moves", "ratio"))
    for n in names:
        pts = [(r["iter"], r["scale_target"], ratio_at([r], r["iter"])) for r in steered[n]]
        path = os.path.join(dat, n + "-targets.dat")
        with open(path, "w") as f:
            for it, t, ra in pts:
                f.write("%d %.4f %s\n" % (it, t, "%.4f" % ra if ra else "NaN"))
        tplots.append("'%s' using 1:2 with steps title '%s'" % (path, n))
        rplots.append("'%s' using 1:3 with lines title '%s'" % (path, n))
        ts = [t for _, t, _ in pts]
        last = next((ra for _, _, ra in reversed(pts) if ra), None)
        print("%-44s %6.2f %6.2f %6d %7s" % (n, min(ts), max(ts),
                                            sum(a != b for a, b in zip(ts, ts[1:])),
                                            _times(last)))
    gp = ("set terminal pngcairo size 1000,760 font ',10'; set output '%s'; "
          "set termoption noenhanced; set multiplot layout 2,1; set grid; set key outside right; "
          "set title 'the scaling target (scale_target) at each logged iteration'; "
          "set xlabel 'iteration'; set ylabel 'target'; plot %s; "
          "set title 'the run''s ratio by the codec''s classes so far'; set ylabel 'ratio (x)'; "
          "plot %s; unset multiplot" % (png, ", ".join(tplots), ", ".join(rplots)))
    subprocess.run(["gnuplot", "-e", gp], check=True)
    print("accuracy-torch: %s" % os.path.relpath(png, ROOT))
    return 0


def kept_matching(only):
    """The names of the kept logs (docs/results/torch/NAME.jsonl) that match
    the regular expression only, sorted."""
    kept = (f[:-len(".jsonl")] for f in os.listdir(RESULTS) if f.endswith(".jsonl"))
    return sorted(n for n in kept if re.search(only, n))


def window_losses(recs, window, last):
    """The mean training loss logged in each window of iterations
    (0, window], (window, 2 window], ... up to last: None for a window
    without a record."""
    got = [[] for _ in range(0, last, window)]
    for r in recs:
        if r["type"] == "iter" and 0 < r["iter"] <= last:
            got[(r["iter"] - 1) // window].append(r["loss"])
    return [statistics.mean(g) if g else None for g in got]


def losses(only, window):
    """Prints, for the kept hook runs whose names match only, the mean
    training loss per window of iterations beside that of the DDP run they
    are judged against (baseline_of), and their excess over it."""
    run = re.compile(r"^[^-]+-[^-]+-seed[0-9]+$")     # run_name's form: ARCH-WAY-seedN
    names = [n for n in kept_matching(only)
             if run.match(n) and not n.split("-")[1].startswith("ddp")]
    if not names:
        print("accuracy-torch: no kept hook run matches %r" % only, file=sys.stderr)
        return 1
    for n in names:
        arch, way, seed = n.split("-")
        seed = int(seed[len("seed"):])
        base = baseline_of(arch, way, seed)
        bname = run_name(arch, base, seed) if base else None
        if not bname or not finished(bname) or not finished(n):
            print("%s: no finished DDP run to judge it against" % n)
            continue
        recs, brecs = load_kept(n), load_kept(bname)
        mine_s = summ(recs)
        acc, bacc, last = mine_s["accuracy"], summ(brecs)["accuracy"], mine_s["iterations"]
        mine, ddp = window_losses(recs, window, last), window_losses(brecs, window, last)
        print("%s against %s: final accuracy %.2f against %.2f %% (%+.2f)"
              % (n, bname, acc, bacc, acc - bacc))
        print("  %-11s %9s %9s %8s" % ("iterations", "hook", "DDP", "excess"))
        for k, (m, d) in enumerate(zip(mine, ddp)):
            if m is None or d is None:
                continue
            print("  %-11s %9.4f %9.4f %+7.1f%%" % ("%d-%d" % (k * window + 1,
                                                            min(last, (k + 1) * window)),
                                                   m, d, 100.0 * (m / d - 1)))
    return 0


def warm_iters(recs):
    """Iterations a run carried uncompressed before its compressed ones: the
    hook's warm-up, PowerSGD's start_powerSGD_iter (10 when the config
    predates the field)."""
    cfg = next(r for r in recs if r["type"] == "config")
    if cfg["comm"] == "powersgd":
        return cfg.get("powersgd_warmup", 10) or 0
    return (cfg.get("settings") or {}).get("warmup_iters") or 0


def cluster_clock(comm, recs, cms):
    """iteration -> seconds on the emulated cluster, or None when a figure
    is missing: the run's warm-up iterations at DDP's steady ms (through
    the codec: the plain codec's), the rest at its own way's (CLUSTER_COMMS;
    CLUSTER_SAME's ways' those of the way they vary only in their warm-up)."""
    own = cms.get(CLUSTER_SAME.get(comm, comm))
    cfg = next(r for r in recs if r["type"] == "config")
    # a warm-up through the codec (warmup_error_bound) at the plain codec's
    warm = cms.get("plain") if (cfg.get("settings") or {}).get("warmup_error_bound") \
        else cms.get("ddp")
    if own is None or warm is None:
        return None
    w = warm_iters(recs)
    return lambda it: (min(it, w) * warm + max(0, it - w) * own) / 1e3


def time_to(recs, target, clock):
    """Seconds (clock) to the first evaluation at or above target, or None."""
    for r in recs:
        if r["type"] == "eval" and r["accuracy"] >= target:
            return clock(r["iter"])
    return None


def stdev(xs):
    """The sample standard deviation of xs (0 for fewer than two)."""
    xs = list(xs)
    return statistics.stdev(xs) if len(xs) >= 2 else 0.0


# runs that shared the 2 cores with other work for part of their time:
# their iteration times are left out of the tables
SHARED_CORES = {"resnet18-x50s1r6p-seed1", "resnet18-x50s1r6pr-seed1"}


def table():
    """The section of docs/results.md and its plot, from the kept logs."""
    got = {}
    for comm in COMMS:
        for seed in SEEDS:
            name = run_name("resnet18", comm, seed)
            if finished(name):
                got.setdefault(comm, {})[seed] = load_kept(name)
    if "ddp" not in got:
        print("accuracy-torch: no finished uncompressed run yet", file=sys.stderr)
        return 1
    ref = {s: summ(r)["accuracy"] for s, r in got["ddp"].items()}
    spread = max(ref.values()) - min(ref.values())
    sd = stdev(ref.values())
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
             "| ratio | bytes ratio | bytes per iteration | ms per iteration (loopback, 2 cores) "
             "| ms per iteration (emulated cluster, %d Mbit/s) | time to DDP's final - 0.3 "
             "(emulated cluster) |" % CLUSTER_RATE,
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    cms = cluster_ms()
    clocks = {}
    for comm in COMMS:
        if comm not in got:
            continue
        runs = got[comm]
        accs = {s: summ(r)["accuracy"] for s, r in runs.items()}
        mean = sum(accs.values()) / len(accs)
        # against DDP on the same schedule and host where a way names one
        # (BASELINE), else DDP's runs above
        base = ref
        if comm in BASELINE:
            base = {}
            for s in runs:
                b = got.get(baseline_of("resnet18", comm, s), {})
                if s in b:
                    base[s] = summ(b[s])["accuracy"]
        both = [s for s in accs if s in base]
        gap = sum(accs[s] - base[s] for s in both) / len(both) if both else float("nan")
        ratios = [whole_ratio(r) for r in runs.values() if summ(r).get("ratio")]
        timed = [summ(r)["iter_ms"] for s, r in runs.items()
                 if "resnet18-%s-seed%d" % (comm, s) not in SHARED_CORES]
        ms = "%.0f" % (sum(timed) / len(timed)) if timed else ""
        wires = [whole_ratio(r, summ(r)["stats"]["wire_ratio"]) for r in runs.values()
                 if (summ(r).get("stats") or {}).get("wire_ratio")]
        # one rank's gradient in the encoding, warm-up iterations at 4 bytes
        # a value (as the ratio column counts them)
        nbytes = [4.0 * next(c for c in r if c["type"] == "config")["params"] / whole_ratio(r)
                  if summ(r).get("ratio") else summ(r)["bytes_per_iter"]
                  for r in runs.values() if summ(r).get("bytes_per_iter")]
        # the cluster's ms per iteration over the whole schedule (warm-up
        # iterations at DDP's), and the time to the same seed's DDP final
        # accuracy minus 0.3 (the mean over the seeds that reach it)
        cl_ms, tta = "", ""
        clk = {s: cluster_clock(comm, r, cms) for s, r in runs.items()}
        if all(clk.values()):
            clocks[comm] = clk
            n0 = summ(next(iter(runs.values())))["iterations"]
            cl_ms = "%.0f" % (1e3 * sum(clk[s](n0) for s in runs) / len(runs) / n0)
            reach = {s: time_to(runs[s], base[s] - 0.3, clk[s]) for s in runs if s in base}
            got_t = [t for t in reach.values() if t is not None]
            tta = ("%.0f s (%d of %d seed%s)" % (sum(got_t) / len(got_t), len(got_t), len(reach),
                                                "s" if len(reach) > 1 else "")
                   if got_t else "not reached (%d seed%s)" % (len(reach), "s" if len(reach) > 1 else "")) if reach else ""
        lines.append("| %s | %s | %s | %.2f %% | %s | %s | %s | %s | %s | %s | %s |" % (
            LABELS[comm], ",".join(str(s) for s in sorted(accs)),
            " / ".join("%.2f" % accs[s] for s in sorted(accs)), mean,
            "" if comm == "ddp" or math.isnan(gap) else "%+.2f" % gap,
            "%.1fx" % (sum(ratios) / len(ratios)) if ratios else ("1x" if comm == "ddp" else ""),
            "%.1fx" % (sum(wires) / len(wires)) if wires else "",
            "%.2f MB" % (sum(nbytes) / len(nbytes) / 1e6) if nbytes else "", ms, cl_ms, tta))
    lines += ["", "The uncompressed runs' seed-to-seed spread (largest minus smallest final "
              "accuracy): %.2f points over %d seed(s), a standard deviation of %.2f. The ratio is 32 bits over the mean bits of "
              "the codec's classes of what each rank contributed (the hook's `stats()['ratio']`; "
              "warm-up iterations counted at 32 bits), or the raw bytes over the hook's bytes for "
              "fp16 and PowerSGD; the bytes ratio is the hook's `wire_ratio` (values sent x 4 "
              "over bytes sent, framing and the all-gather's denser sums included; warm-up "
              "iterations counted at 32 bits)." % (spread, len(ref), sd),
              "",
              "Bytes per iteration: what one rank's gradient takes in the hook's encoding (the "
              "full gradient's 4 bytes a value over the ratio; PowerSGD's P and Q, fp16's 2 "
              "bytes a value). The emulated cluster's figures are measured apart from these runs "
              "(`experiments/accuracy-torch.py cluster`: %d iterations of each way on "
              "cluster/train-cluster.sh, 4 namespaces, every link paced at %d Mbit/s of wire "
              "bytes, ms per iteration from iteration %d on, the training runs paused meanwhile); "
              "a run's time is its warm-up iterations (the hook's, PowerSGD's "
              "start_powerSGD_iter) at DDP's figure and the rest at its own way's. Time to "
              "accuracy is to the first evaluation (4 an epoch) at or above the same seed's "
              "DDP final accuracy minus 0.3." % (CLUSTER_ITERS, CLUSTER_RATE, CLUSTER_FROM), "",
              "| way | ms per iteration, emulated cluster at %d Mbit/s (steady state) |" % CLUSTER_RATE,
              "|---|---|"] + ["| %s | %.0f |" % (c, cms[c]) for c in CLUSTER_COMMS if c in cms] + [
              "", "![accuracy against iteration](results/torch-resnet18-accuracy.png)", ""]
    if clocks:
        lines += ["![accuracy against time on the emulated cluster]"
                  "(results/torch-resnet18-accuracy-time.png)", ""]
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
        plots.append("'%s' using 1:2 with linespoints title '%s (%d seed%s)'"
                     % (path, comm, len(got[comm]), "s" if len(got[comm]) > 1 else ""))
    png = os.path.join(ROOT, "docs", "results", "torch-resnet18-accuracy.png")
    gp = ("set terminal pngcairo size 900,560 font ',10'; set output '%s'; "
          "set title 'resnet18 on Fashion-MNIST, 4 workers: test accuracy (mean over seeds)'; "
          "set xlabel 'iteration'; set ylabel 'test accuracy %%'; set yrange [70:95]; "
          "set key bottom right; set grid; plot %s" % (png, ", ".join(plots)))
    subprocess.run(["gnuplot", "-e", gp], check=True)
    # the paper's Fig. 13 form: the same curves against time on the cluster
    tplots = []
    for comm, clk in clocks.items():
        pts = {}
        for s, recs in got[comm].items():
            for r in recs:
                if r["type"] == "eval":
                    pts.setdefault(r["iter"], []).append((clk[s](r["iter"]), r["accuracy"]))
        path = os.path.join(dat, comm + "-time.dat")
        with open(path, "w") as f:
            for it in sorted(pts):
                v = pts[it]
                f.write("%.1f %.3f\n" % (sum(t for t, _ in v) / len(v) / 60, sum(a for _, a in v) / len(v)))
        tplots.append("'%s' using 1:2 with linespoints title '%s (%d seed%s)'"
                      % (path, comm, len(got[comm]), "s" if len(got[comm]) > 1 else ""))
    if tplots:
        png = os.path.join(ROOT, "docs", "results", "torch-resnet18-accuracy-time.png")
        gp = ("set terminal pngcairo size 900,560 font ',10'; set output '%s'; "
              "set title 'resnet18 on Fashion-MNIST, 4 workers: test accuracy against time on the "
              "emulated cluster (%d Mbit/s)'; set xlabel 'minutes'; set ylabel 'test accuracy %%'; "
              "set yrange [70:95]; set key bottom right; set grid; plot %s"
              % (png, CLUSTER_RATE, ", ".join(tplots)))
        subprocess.run(["gnuplot", "-e", gp], check=True)
    sect = os.path.join(dat, "section.md")
    write_section(lines, sect)
    for more in (other_table(), screen_table(), t3_table()):
        if more:
            write_section(more, sect)
    return 0


def write_section(lines, sect):
    """Put lines (a section, its heading first) in docs/results.md through
    the scratch file sect, and print them."""
    with open(sect, "w") as f:
        f.write("\n".join(lines).rstrip("\n") + "\n\n")   # a blank line before the next heading
    subprocess.run([os.path.join(ROOT, "scripts", "doc-section.sh"),
                    os.path.join(ROOT, "docs", "results.md"), lines[0], sect], check=True)
    print("\n".join(lines))


OTHER_SECTION = "## Equal accuracy by default: other networks through the hook"


OTHER_LABELS = {"warm50": "the defaults before the exemption (every parameter through the codec)",
                "ef50": "feedback alone, after the same warm-up, every parameter through the codec",
                "x50": "biases and norms uncompressed, the scaling undamped (the defaults before "
                       "scale_step)",
                "x50s1": "the same, the exponents moving at most 1 binade a call "
                         "(scale_step=1), target 8 (the defaults before DEFAULT_SCALE_RATIO)",
                "x50s1r6": "the same at the target ratio 6 (DEFAULT_SCALE_RATIO; the defaults "
                           "before DEFAULT_SCALE_PRIME)",
                "x50s1r6f8": "the same with ratio_floor=8 (steering on 10 iterations' ratio, "
                             "before 4894bcd)",
                "x50s1r6e6": "the unprimed defaults at the error bound 2^-6",
                "x50s1r6lr05": "the unprimed defaults, the schedule at lr 0.05 (against DDP at lr 0.05)",
                "x50s1r6plr05": "the defaults, the schedule at lr 0.05 (against DDP at lr 0.05)",
                "x10s1r6plr05": "the same after 10 warm-up iterations instead of 50 "
                                "(warmup_iters=10; against DDP at lr 0.05)",
                "x50s1r6b128paw4": "the defaults before kernel_ratio='auto' (the kernels at "
                                   "target 6), the schedule at 128 a worker with AdamW at lr "
                                   "1e-4, weight decay 0.01 (against DDP with it)",
                "x50s1r3b128paw4": "the same at the target ratio 3 (scale_ratio=3)",
                "x50s1r6b128paw4q": "the defaults (target 6) with each held-back value paced "
                                    "over as many iterations as it was held back (pace=True)",
                "x50s1r6b128paw4r200": "the defaults with the target rising from 3 to 6 "
                                       "over the first 200 compressed iterations "
                                       "(scale_ramp=200)",
                "x50s1r6b128paw4n": "the defaults without error feedback "
                                    "(error_feedback=False: held-back values dropped)",
                "x50s1r6b128paw4d9": "the defaults with the residual fading "
                                     "(residual_decay=0.9)",
                "x50s1r6b128paw4xk": "the defaults with the convolutions' kernels uncompressed "
                                     "(exempt=\"vectors+kernels\")",
                "x50s1r6b128paw4k1": "the defaults: the buckets of kernels at target 1 "
                                     "(kernel_ratio=1, what 'auto' chooses here)",
                "x50s1r6b128paw4k1q": "the defaults (the kernels at target 1) with each held-back "
                                      "value paced over as many iterations as it was held back "
                                      "(pace=True)",
                "x50s1r6b128paw4xk10": "the kernels uncompressed, the other buckets at target 10 "
                                       "(exempt=\"vectors+kernels\", scale_ratio=10)",
                "x50s1r6b128paw4re": "the defaults again, on the host of the paced run "
                                     "(against DDP on the first host)",
                "x50s1r6pawn": "the defaults with AdamW, without error feedback "
                               "(error_feedback=False; against DDP with AdamW)",
                "x50s1r6pawq": "the defaults with AdamW, each held-back value paced over as "
                               "many iterations as it was held back (pace=True; against DDP "
                               "with AdamW)",
                "x50s1r6b128paw4e2ka": "the defaults (kernel_ratio='auto'), 128 a worker "
                                       "with AdamW at lr 1e-4, weight decay 0.01, over 2 "
                                       "epochs, the lr / 10 at 1.2 and 1.6 (against DDP "
                                       "with it)",
                "x50s1r6b128paw4kals1f8": "bounded least-error at the target 6 held at 8x, the "
                                          "kernels at target 1 (kernel_ratio='auto', "
                                          "scaling='least-error', scale_spread=1, "
                                          "ratio_floor=8)",
                "x50s1r6b128paw4e2kals1f8": "the same bounded least-error held at 8x "
                                            "(scaling='least-error', scale_spread=1, "
                                            "ratio_floor=8)",
                "x50s1r6b128paw4e2kaq": "the same with each held-back value paced over as many "
                                        "iterations as it was held back (pace=True)",
                "x50s1r6b128paw4e2": "the defaults before kernel_ratio='auto', 128 a worker "
                                     "with AdamW at lr 1e-4, weight "
                                     "decay 0.01, over 2 epochs, the lr / 10 at 1.2 and 1.6 "
                                     "(against DDP with it)",
                "x50s1r6lr01": "the unprimed defaults, the schedule at lr 0.01 (against DDP at lr 0.01)",
                "x50s1r6b128wplr01": "the defaults before kernel_ratio='auto', the schedule at "
                                     "128 a worker, lr 0.01 rising "
                                     "over the first epoch (against DDP on it)",
                "x50s1r6b128": "the unprimed defaults, the schedule at 128 a worker and lr 0.05 (against DDP "
                               "on it)",
                "x50s1r6b128w": "the unprimed defaults, the schedule at 128 a worker, lr 0.05 rising over "
                                "the first epoch (against DDP on it)",
                "x50s1r6b128wp": "defaults: the same with the scaling primed from the warm-up's "
                                 "last sum (DEFAULT_SCALE_PRIME)",
                "x50s1r6pr": "the defaults, the target rising from 3 to 6 over the "
                             "first 150 compressed iterations (scale_ramp=150; against DDP on "
                             "its host)",
                "x50s1r6np": "the same at the target ratio 6, unprimed (scale_prime=False: the "
                             "defaults before DEFAULT_SCALE_PRIME, on the host of the primed "
                             "runs, against DDP on it)",
                "x50s1r6b128wpr": "the same primed, the target rising from 3 to 6 over the "
                                  "first 150 compressed iterations (scale_ramp=150; "
                                  "against DDP on its host)",
                "x50s1r6b128wpz": "the primed defaults again on the AMD host's rounding path "
                                  "(BLAS_CORE; against DDP's run there)",
                "x50s1r6b128wpe12": "the same primed at the error bound 2^-12 (error_bound=12)",
                "x50s1r6b128wpt2": "the same primed, an exponent moving only when two calls in "
                                   "a row ask it to (scale_patience=2)",
                "x50s1r6pt2": "the defaults, an exponent moving only when two calls in a row "
                              "ask it to (scale_patience=2; against DDP on its host)",
                "x50s1r6b128wprz": "the same ramp again on the AMD host's rounding path "
                                   "(OpenBLAS's Zen kernels pinned, BLAS_CORE; against "
                                   "DDP's run there)",
                "x10s1r6b128wp": "the same with 10 warm-up iterations instead of 50 "
                                 "(warmup_iters=10)",
                "x50s1r6p": "defaults: the same with the scaling primed from the warm-up's "
                            "last sum (DEFAULT_SCALE_PRIME; against DDP on its host)",
                "ef50b128w": "feedback alone after the same warm-up, on the same schedule "
                             "(against DDP on it)",
                "x50s1r6b128p4k": "the same with scaling parts of at most 4096 values "
                                  "(scale_part=4096)",
                "x1404": "the unprimed defaults after the first lr decay only (warmup_iters=1404: "
                         "uncompressed before it)",
                "x468": "the unprimed defaults after the first epoch only (warmup_iters=468)",
                "x200": "the unprimed defaults after 200 iterations (warmup_iters=200)",
                "x200p": "the defaults after 200 iterations (warmup_iters=200; against DDP "
                         "on its host)",
                "x50s1r4": "the unprimed defaults at the target ratio 4",
                "x50s1r4p": "the defaults at the target ratio 4 (scale_ratio=4; against DDP "
                            "on its host)",
                "x50s1r6pp4k": "the defaults with scaling parts of at most 4096 values "
                               "(scale_part=4096; against DDP on its host)",
                "fp16re": "not the hook: PyTorch's fp16_compress_hook (against DDP on its "
                          "host)",
                "fp16b128w": "not the hook: PyTorch's fp16_compress_hook",
                "x50s1r4f8b128wp": "the same primed at the target 4, held at 8x or more "
                                   "(scale_ratio=4, ratio_floor=8, steering on 10 "
                                   "iterations' ratio, before 4894bcd)",
                "x50s1r6paw": "the defaults, the schedule with AdamW at lr 0.001, weight decay "
                              "0.01 (against DDP with it)",
                "x50s1r6b128wpl": "the same primed, each parameter its own headroom, the "
                                  "bucket's squared error least at the target "
                                  "(scaling='least-error')",
                "x50s1r6pl": "the defaults with each parameter its own headroom, the "
                             "bucket's squared error least at the target "
                             "(scaling='least-error'; against DDP on its host)",
                "x50s1r6plf8": "the same least-error held at 8x or more (ratio_floor=8, "
                               "steering on 10 iterations' ratio, before 4894bcd; against "
                               "DDP on its host)",
                "x50s1r6pls1": "the same least-error, no parameter's headroom more than 1 "
                               "binade above balanced's (scale_spread=1; against DDP on its "
                               "host)",
                "x50s1r65pls1": "the same bounded least-error at the target ratio 6.5 "
                                "(scale_ratio=6.5, scale_spread=1; against DDP on its host)",
                "x50s1r55p": "the defaults at the target ratio 5.5 (scale_ratio=5.5; "
                             "against DDP on its host)",
                "x50s1r62pls1": "the same bounded least-error at the target ratio 6.2 "
                                "(scale_ratio=6.2, scale_spread=1; against DDP on its host)",
                "x50s1r6pls1f8": "the same bounded least-error at the target 6 held at 8x "
                                 "(scale_spread=1, ratio_floor=8 on the run's ratio; against "
                                 "DDP on its host)",
                "x50s1r6pls1f8re": "the same bounded least-error held at 8x again, on DDP's "
                                   "rounding path (AVX-512)",
                "x50s1r6pls1re": "the same bounded least-error again, on DDP's rounding path "
                                 "(AVX-512)",
                "x50s1r6pls1f8p": "the same bounded least-error held at 8x by the planned "
                                  "steering (ratio_steer='plan'; against DDP on its host)",
                "x50s1r6pf8": "the defaults in full: the same with kernel_ratio='auto' and "
                              "ratio_floor=8 (as of 36620eb; against DDP on its host)",
                "x50s1r6pls1lr05": "the same least-error at lr 0.05, no parameter's headroom "
                                   "more than 1 binade above balanced's (scale_spread=1; "
                                   "against DDP at lr 0.05)",
                "x50s1r6b128wpls1": "the same primed least-error, no parameter's headroom more "
                                    "than 1 binade above balanced's (scale_spread=1)"}
# the DDP run a way is compared with, where not "ddp" (the same schedule);
# a tuple names them in order of preference, the first with a finished run
# of the seed taken (DDP again on the host of the hook's run, then DDP's
# first run)
# alexnet's AdamW ways: DDP's first runs, or its seed-1 run again (ddpb128aw4re)
AW4 = ("ddpb128aw4", "ddpb128aw4re")
BASELINE = {"x50s1r6lr05": "ddplr05", "x50s1r6lr01": "ddplr01", "x50s1r6b128": "ddpb128",
            "x50s1r6b128p4k": "ddpb128", "x50s1r6b128w": "ddpb128w", "ef50b128w": "ddpb128w",
            "x50s1r6b128wp": "ddpb128w", "x10s1r6b128wp": "ddpb128w",
            "x50s1r6b128wpt2": ("ddpb128wz", "ddpb128w"), "x50s1r6pt2": "ddpre",
            "x50s1r6b128wpe12": ("ddpb128wz", "ddpb128w"),
            "x50s1r6b128wpz": ("ddpb128wz", "ddpb128w"),
            "x50s1r6b128wpr": ("ddpb128wre", "ddpb128w"), "x50s1r6b128wprz": "ddpb128w",
            "x50s1r6b128wplr01": "ddpb128wlr01",
            "x50s1r6p": "ddpre", "x50s1r6np": "ddpre", "x50s1r6pr": "ddpre", "x200p": "ddpre",
            "fp16re": "ddpre", "fp16b128w": ("ddpb128wz", "ddpb128w"),
            "x50s1r4f8b128wp": ("ddpb128wz", "ddpb128w"), "x50s1r6paw": "ddpaw",
            "x50s1r6b128wpl": ("ddpb128wz", "ddpb128w"), "x50s1r6pl": "ddpre",
            "x50s1r6plf8": "ddpre",
            "x50s1r6pls1": "ddpre", "x50s1r65pls1": "ddpre", "x50s1r55p": "ddpre",
            "x50s1r62pls1": "ddpre", "x50s1r6pls1f8": "ddpre", "x50s1r6pf8": "ddpre",
            "x50s1r6pls1f8re": "ddpre", "x50s1r6pls1f8p": "ddpre", "x50s1r6pls1re": "ddpre",
            "x50s1r6b128wpls1": ("ddpb128wz", "ddpb128w"),
            "x50s1r6plr05": ("ddplr05re", "ddplr05"),
            "x50s1r6pls1lr05": ("ddplr05re", "ddplr05"),
            "x10s1r6plr05": "ddplr05", "x10s1r6p": "ddpre", "x50s1r4p": "ddpre",
            "x50s1r6pp4k": "ddpre",
            "x50s1r6b128paw4": AW4, "x50s1r6b128paw4e2": "ddpb128aw4e2",
            "x50s1r3b128paw4": AW4, "x50s1r6b128paw4q": AW4,
            "x50s1r6pawq": "ddpaw", "x50s1r6pawn": "ddpaw", "x50s1r6b128paw4r200": AW4,
            "x50s1r6b128paw4n": AW4, "x50s1r6b128paw4d9": AW4,
            "x50s1r6b128paw4re": AW4, "x50s1r6pq": "ddpre",
            "x50s1r6b128paw4xk": AW4, "x50s1r6b128paw4k1": AW4,
            "x50s1r6b128paw4xk10": AW4, "x50s1r6b128paw4k1q": AW4,
            "x50s1r6b128paw4e2ka": "ddpb128aw4e2",
            "x50s1r6b128paw4kals1f8": AW4, "x50s1r6b128paw4e2kals1f8": "ddpb128aw4e2",
            "x50s1r6b128paw4e2kaq": "ddpb128aw4e2"}


def ratio_span(ratios):
    """Ratios as "lo-hix", one figure where they round alike, "-" for none."""
    if not ratios:
        return "-"
    lo, hi = "%.1f" % min(ratios), "%.1f" % max(ratios)
    return "%sx" % lo if lo == hi else "%s-%sx" % (lo, hi)


def baseline_of(arch, comm, seed):
    """The way of the DDP run arch's way comm is judged against for seed
    (BASELINE): of the ways it names with a finished run of the seed, the
    first whose warm-up the hook run repeats bit for bit (shared_warmup:
    the two left one trajectory), else the first; None while none repeats
    it and a way it names has a run of the seed in ORDER that has not
    finished (the pair waits for the run that may replace its DDP)."""
    bases = BASELINE.get(comm, "ddp")
    bases = (bases,) if isinstance(bases, str) else bases
    done = [b for b in bases if finished(run_name(arch, b, seed))]
    hook = run_name(arch, comm, seed)
    if done and finished(hook):
        recs = load_kept(hook)
        for b in done:
            if shared_warmup(load_kept(run_name(arch, b, seed)), recs):
                return b
    queued = set(order())
    if any((arch, b, seed) in queued for b in bases if b not in done):
        return None
    return done[0] if done else bases[-1]


def shared_warmup(ddp, hook):
    """Whether a hook run's uncompressed warm-up repeats DDP's run of its
    seed bit for bit (records lists): every loss and test accuracy both
    logged up to its uncompressed iterations (warm_iters) equal. None
    where there is nothing to compare (fewer than 20 of them, as fp16's
    none, or a warm-up through the codec). A pair that differs there went on
    two rounding paths (another host's BLAS kernels, or a change of the
    script between the runs) and compares like two seeds."""
    cfg = next(r for r in hook if r["type"] == "config")
    w = warm_iters(hook)
    if w < 20 or (cfg.get("settings") or {}).get("warmup_error_bound") is not None:
        return None

    def early(recs):
        return {(r["type"], r["iter"]): r.get("loss" if r["type"] == "iter" else "accuracy")
                for r in recs if r["type"] in ("iter", "eval") and r["iter"] <= w}
    a, b = early(ddp), early(hook)
    both = set(a) & set(b)
    return all(a[k] == b[k] for k in both) if both else None


def _times(r):
    """A ratio as "9.1x", or "-" where there is none (another hook's run:
    no codec classes)."""
    return "-" if r is None or math.isnan(r) else "%.1fx" % r


def other_table():
    """The OTHER_ARCHS' section of docs/results.md (lines), or None when no
    pair of finished runs (DDP and a hook way, the same seed) is kept."""
    rows, means = [], []
    for arch in OTHER_ARCHS:
        for comm in OTHER_LABELS:
            pairs, seeds = [], []
            for seed in SEEDS:
                base = baseline_of(arch, comm, seed)
                if base is None:
                    continue
                got = {}
                for c in (base, comm):
                    name = run_name(arch, c, seed)
                    if finished(name):
                        got[c] = load_kept(name)
                if len(got) < 2:
                    continue
                cfg = next(r for r in got[base] if r["type"] == "config")
                d, w = summ(got[base]), summ(got[comm])
                st = w.get("stats") or {}
                # a row of another hook (fp16) has no codec classes: "-"
                same = shared_warmup(got[base], got[comm])
                rows.append("| %s | %.1f M | %s | %d | %.2f %% | %.2f %% | %+.2f | %s | %.1fx "
                            "| %s | %s | %s |"
                            % (arch, cfg["params"] / 1e6, OTHER_LABELS[comm], seed, d["accuracy"],
                               w["accuracy"], w["accuracy"] - d["accuracy"],
                               _times(st.get("ratio")), whole_ratio(got[comm]),
                               _times(whole_ratio(got[comm], st["wire_ratio"])
                                      if st.get("wire_ratio") else None),
                               "identical" if w.get("replicas_identical") else "DIFFER",
                               "-" if same is None else "same" if same else "differs"))
                pairs.append((d["accuracy"], w["accuracy"], st.get("ratio")))
                seeds.append(str(seed))
            if len(pairs) > 1:
                ddp = [a for a, _, _ in pairs]
                hook = [h for _, h, _ in pairs]
                ratios = [r for _, _, r in pairs if r]
                means.append("| %s | %s | %s | %.2f %% | %.2f %% | %+.2f | %.2f (sd %.2f) "
                             "| %.2f (sd %.2f) | %s |"
                             % (arch, OTHER_LABELS[comm], ",".join(seeds),
                                sum(ddp) / len(ddp), sum(hook) / len(hook),
                                sum(h - a for a, h, _ in pairs) / len(pairs), max(ddp) - min(ddp),
                                stdev(ddp), max(hook) - min(hook), stdev(hook),
                                ratio_span(ratios)))
    if not rows:
        return None
    if means:
        means = ["", "Over the seeds (paired with DDP's run of the same seed):", "",
                 "| network | hook | seeds | DDP mean | hook mean | mean gap "
                 "| DDP's spread (largest - smallest, sd) | the hook's spread | ratio |",
                 "|---|---|---|---|---|---|---|---|---|"] + means
    return [OTHER_SECTION, "",
            "The defaults were decided on HDC, LeNet and resnet18 (the exemption of biases and "
            "norms, on mobilenet_v2 and resnet18; the damping of the scaling, on shufflenet_v2, "
            "mobilenet_v2 and resnet18; the hook's target 6, on resnet18 over 3 seeds); "
            "here they are run on networks they were not all "
            "decided on: the schedule of the resnet18 section above "
            "(5 epochs, lr 0.1 divided by 10 at epochs 3 and 4, momentum 0.9, weight decay "
            "5e-4, 4 workers x batch 32, 32 x 32 inputs; alexnet and vgg16, which have no batch "
            "norm, at 128 a worker (117 iterations an epoch) and lr 0.01 rising over the first "
            "epoch, alexnet at 64 x 64; resnet50 at 128 a worker and lr 0.05, the rows that say "
            "so rising over the first epoch), DDP's own all-reduce against "
            "`register(ddp, compression=\"software\")` with nothing else (the rows of earlier "
            "defaults name what differed: `exempt=False`, `scale_step=0`, target 8, unprimed), the same "
            "seed. The "
            "ratio is the hook's `stats()['ratio']` (the codec's classes, after the warm-up), "
            "then the same with the warm-up's iterations (and any exempt values) at 32 bits, "
            "then the bytes ratio (`wire_ratio`, the same counted at 32 bits). The warm-up "
            "column says whether the hook run's uncompressed first iterations repeat DDP's run "
            "bit for bit (every loss and test accuracy logged in them): \"differs\" marks a "
            "pair on two rounding paths (two hosts' BLAS kernels, or the script changed between "
            "the runs), which compares like two seeds. Made by `make accuracy-torch` (logs in "
            "docs/results/torch/).", "",
            "| network | parameters | hook | seed | DDP | hook | gap | ratio | with the warm-up "
            "| bytes ratio | replicas | warm-up |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|"] + rows + means + [""]


# the paper's Table III: 2 / 10 / 18 / 34-bit shares (%) per network and
# error bound (INCEPTIONN, MICRO 2018); resnet18 is not in it
PAPER_T3 = {
    ("alexnet", 10): (74.9, 3.9, 21.1, 0.1), ("alexnet", 8): (82.5, 14.8, 2.6, 0.1),
    ("alexnet", 6): (93.0, 7.0, 0.0, 0.1),
    ("resnet50", 10): (81.6, 17.9, 0.5, 0.0), ("resnet50", 8): (92.3, 7.7, 0.1, 0.0),
    ("resnet50", 6): (97.6, 2.4, 0.0, 0.0),
    ("vgg16", 10): (94.2, 0.9, 4.9, 0.0), ("vgg16", 8): (96.2, 3.8, 0.0, 0.0),
    ("vgg16", 6): (97.3, 2.7, 0.0, 0.0),
}
T3_SECTION = "## Table III and Fig. 14 per network, through the hook"


def shares_ratio(shares):
    """32 bits over the mean bits of the 2 / 10 / 18 / 34-bit shares."""
    bits = sum(s * int(b) for s, b in zip(shares, CLASSES)) / sum(shares)
    return 32.0 / bits


def t3_table():
    """Section of docs/results.md and its PNG from the kept t3 runs; None
    when none has finished."""
    rows, later = [], []        # from random weights; from DDP's at T3W_AT (t3w)
    for kind, archs, keep in (("t3", T3_ARCHS, rows), ("t3w", T3W_ARCHS, later)):
        for arch in archs:
            for eb in T3_BOUNDS:
                name = "%s-%s-eb%d" % (kind, arch, eb)
                if finished(name):
                    recs = load_kept(name)
                    keep.append((arch, eb, next(r for r in recs if r["type"] == "config"),
                                 summ(recs), [r for r in recs if r["type"] == "iter"][-1]["loss"]))
    if not rows:
        return None
    cfg = rows[0][2]
    wu = (cfg.get("settings") or {}).get("warmup_iters") or 0
    lines = [T3_SECTION, "",
             "The paper's plain codec (`--plain`: no error feedback, no scaling) at three error "
             "bounds, through the hook (`compression=\"software\"`), %d workers x batch %d, "
             "iterations %d to %d from seed 1's initial weights after %d uncompressed ones (the "
             "hook's warm-up; SGD lr %g, momentum %g), "
             "Fashion-MNIST repeated to 3 channels (alexnet at 64 x 64, the others at 32 x 32). "
             "Shares are of every value each rank's codec encoded (the hook's "
             "`stats()['classes']`), the ratio is 32 bits over their mean bits, the bytes ratio "
             "the hook's `wire_ratio` (framing and the all-gather's denser sums included). The "
             "paper's row is its Table III for the same network (ImageNet, 224 x 224, over its "
             "whole training); its ratio is computed from those shares the same way.%s Made by "
             "`make accuracy-torch` (t3-*%s runs)." % (
                 cfg["workers"], cfg["batch"], wu + 1, cfg["iterations"], wu, cfg["lr"],
                 cfg["momentum"],
                 " The rows \"from DDP's weights of iteration %d\" are the same runs started "
                 "from the weights DDP's run of that network on its schedule at 128 a worker and "
                 "lr 0.01 reached there (the end of the second of its 5 epochs; "
                 "`train_torchvision.py --save-weights` / `--init-weights`)." % T3W_AT
                 if later else "", " and t3w-*" if later else ""), "",
             "| network | parameters | bound | training loss at the end | 2-bit | 10-bit | 18-bit "
             "| 34-bit | ratio | bytes ratio | paper: 2 / 10 / 18 / 34-bit | paper's ratio |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    dat = os.path.join(WORK, "plot")
    os.makedirs(dat, exist_ok=True)
    with open(os.path.join(dat, "t3.dat"), "w") as f:
        for arch, eb, c, sm, loss, at in [r + (None,) for r in rows] + [r + (T3W_AT,) for r in later]:
            cl = sm["stats"]["classes"]
            ours = [100.0 * cl[k] for k in CLASSES]
            paper = PAPER_T3.get((arch, eb))
            lines.append("| %s | %.1f M | 2^-%d | %.3f | %s | %.2fx | %.2fx | %s | %s |" % (
                arch if at is None else "%s, from DDP's weights of iteration %d" % (arch, at),
                c["params"] / 1e6, eb, loss, " | ".join("%.1f %%" % v for v in ours),
                sm["stats"]["ratio"], sm["stats"]["wire_ratio"],
                " / ".join("%.1f" % v for v in paper) if paper else "(not in the paper)",
                "%.2fx" % shares_ratio(paper) if paper else ""))
            f.write('"%s%s 2^-%d" %.3f %s\n' % (arch, "" if at is None else "@%d" % at, eb,
                                                sm["stats"]["ratio"],
                                                "%.3f" % shares_ratio(paper) if paper else "NaN"))
    # why they differ, from the rows themselves
    idle = sorted({arch for arch, eb, c, sm, loss in rows
                   if abs(loss - math.log(10)) < 0.02 and sm["stats"]["classes"]["2"] > 0.99})
    lines += ["", "Why they differ from the paper's: the data (10 classes of 28 x 28 grey images "
              "resized, against ImageNet's 1,000 classes at 224 x 224), the phase (iterations %d to "
              "%d from random weights, against the paper's whole training) and the batch (16 a "
              "worker) all set how large the gradient values are, and the classes are those values "
              "against a fixed absolute bound." % (wu + 1, cfg["iterations"])]
    if idle:
        lines[-1] += (" %s ha%s not begun to learn in these iterations (the loss is still ln 10 = "
                      "2.303, as at random weights): almost every value is below even 2^-10, so "
                      "nearly all are 2-bit whatever the bound. That is the case the library's "
                      "adaptive scaling is for: it multiplies each parameter's values by a power of "
                      "two chosen from the previous sum, so the bound is relative to the values "
                      "(docs/userlib.md, \"Adaptive scaling\")."
                      % (" and ".join(idle), "s" if len(idle) == 1 else "ve"))
    # the networks that learn: their 2-bit shares against the paper's
    diffs = {}
    for arch, eb, c, sm, loss in rows:
        if arch not in idle and (arch, eb) in PAPER_T3:
            diffs.setdefault(arch, []).append(
                (eb, 100 * sm["stats"]["classes"]["2"] - PAPER_T3[(arch, eb)][0]))
    for arch, d in diffs.items():
        lines[-1] += (" %s's 2-bit share is %s points from the paper's at %s."
                      % (arch, " / ".join("%+.1f" % v for _, v in d),
                         " / ".join("2^-%d" % eb for eb, _ in d)))
    # the same networks where they learn (t3w)
    for arch in T3W_ARCHS:
        d = [(eb, sm, loss) for a_, eb, c, sm, loss in later if a_ == arch]
        if d:
            lines[-1] += (" From DDP's weights of iteration %d (training loss %s at the end of "
                          "these runs) %s's 2-bit share is %s %% at %s (the paper's %s), %s "
                          "by the classes."
                          % (T3W_AT, " / ".join("%.3f" % loss for _, _, loss in d), arch,
                             " / ".join("%.1f" % (100 * sm["stats"]["classes"]["2"])
                                        for _, sm, _ in d),
                             " / ".join("2^-%d" % eb for eb, _, _ in d),
                             " / ".join("%.1f" % PAPER_T3[(arch, eb)][0] for eb, _, _ in d),
                             " / ".join("%.2fx" % sm["stats"]["ratio"] for _, sm, _ in d)))
            if min(sm["stats"]["classes"]["2"] for _, sm, _ in d) > 0.999:
                cfg_w = next(c for a_, _, c, _, _ in later if a_ == arch)
                lines[-1] += (" So learning alone does not bring %s's values to the bound: "
                              "at 2^-10 and 2^-8 the least value the codec's 10-bit class "
                              "carries is 2^-7, at 2^-6 it is 2^-6 (smaller ones truncate to 0 "
                              "and travel as 2-bit, "
                              "docs/codec.md), and the gradients of these batches stay under "
                              "it in nearly all of its %.1f M values, where the paper's Table "
                              "III has %.1f %% of %s's outside the 2-bit class at 2^-10. With "
                              "the hook's defaults the scaling moves them there."
                              % (arch, cfg_w["params"] / 1e6, 100 - PAPER_T3[(arch, 10)][0],
                                 arch))
    lines += ["", "![compression ratio per network and bound](results/torch-table3.png)", ""]
    png = os.path.join(ROOT, "docs", "results", "torch-table3.png")
    gp = ("set terminal pngcairo size 1000,520 font ',10'; set output '%s'; "
          "set title 'Fig. 14 per network: the plain codec''s ratio through the hook vs the paper''s "
          "Table III shares'; set style data histogram; set style histogram cluster gap 1; "
          "set style fill solid 0.8 border -1; set boxwidth 0.9; set ylabel 'compression ratio (x)'; "
          "set termoption noenhanced; set yrange [0:19.5]; set xtics rotate by -30; set rmargin 8; "
          "set key top center horizontal; set grid ytics; "
          "plot '%s' using 2:xtic(1) title 'measured (iterations %d-%d, Fashion-MNIST)', "
          "'' using 3 title 'paper (from Table III)'"
          % (png, os.path.join(dat, "t3.dat"), wu + 1, cfg["iterations"]))
    subprocess.run(["gnuplot", "-e", gp], check=True)
    return lines


# cluster: each way of carrying resnet18's gradients timed on the emulated
# cluster (cluster/train-cluster.sh: 4 namespaces, the user-space NIC
# switch pacing every link at CLUSTER_RATE Mbit/s of wire bytes), in its
# steady state: the inceptionn hook's compressed iterations (no warm-up),
# PowerSGD's compressed ones (start_powerSGD_iter 2, the least it takes).
# The training runs' time axis and time to accuracy use these figures:
# loopback on 2 cores times the cores, not a network.
CLUSTER_RATE = 250
CLUSTER_ITERS = 30
CLUSTER_FROM = 10        # ms per iteration from this iteration on (past DDP's rebuild)
CLUSTER_COMMS = {
    "ddp": COMMS["ddp"],
    "inc": COMMS["inc"],
    "x50": COMMS["x50"] + ["--warmup-iters", "0"],
    "x50s1": COMMS["x50s1"] + ["--warmup-iters", "0"],
    "x50s1r6": COMMS["x50s1r6"] + ["--warmup-iters", "0"],
    "plain": COMMS["plain"],
    "r12e8": R12E8 + ["--warmup-iters", "0"],
    "fp16": COMMS["fp16"],
    "psgd1": COMMS["psgd1"] + ["--powersgd-warmup", "2"],
    "psgd4": COMMS["psgd4"] + ["--powersgd-warmup", "2"],
}

# ways that differ from a CLUSTER_COMMS way in their warm-up alone: their
# compressed iterations are timed as that way's
CLUSTER_SAME = {"warm50": "inc", "warm50e16": "inc",
                "x200": "x50s1r6", "x468": "x50s1r6", "x1404": "x50s1r6",
                "x50s1r6p": "x50s1r6", "x50s1r6np": "x50s1r6", "x200p": "x50s1r6",
                "x10s1r6p": "x50s1r6"}


def cluster_name(comm, rate=CLUSTER_RATE):
    return "cluster-r%d-%s" % (rate, comm)


def steady_ms(recs):
    """ms per iteration between the CLUSTER_FROM-th and the last iteration
    record (training time only)."""
    its = [r for r in recs if r["type"] == "iter" and r["iter"] >= CLUSTER_FROM]
    if len(its) < 2:
        return None
    return 1e3 * (its[-1]["time"] - its[0]["time"]) / (its[-1]["iter"] - its[0]["iter"])


def cluster(rate, iters):
    """Time every CLUSTER_COMMS way on the emulated cluster; a finished
    measurement is kept in docs/results/torch/ and not redone. The training
    runs of `run` are paused meanwhile (QUIET)."""
    if os.geteuid() != 0:
        print("accuracy-torch: cluster needs root (network namespaces)", file=sys.stderr)
        return 2
    subprocess.check_call(["make", "-C", ROOT, "--no-print-directory", "build/lib/libinceptionn.so",
                           "build/userlib-test/nic-switch"])
    mine = not os.path.exists(QUIET)
    if mine:
        open(QUIET, "w").close()
    failed = []
    try:
        for comm, args in CLUSTER_COMMS.items():
            name = cluster_name(comm, rate)
            if finished(name):
                continue
            d = os.path.join(WORK, name)
            shutil.rmtree(d, ignore_errors=True)
            os.makedirs(d)
            snap = snapshot(d)
            log = os.path.join(d, "log.jsonl")
            cmd = [os.path.join(ROOT, "cluster", "train-cluster.sh"), "-q", "-w", str(WORKERS),
                   "-r", str(rate), "-t", "600000", "-e", "/usr/bin/python3", "--",
                   os.path.join(snap, "train_torchvision.py"), "--arch", "resnet18",
                   "--iterations", str(iters), "--batch", "32", "--no-eval", "--seed", "1",
                   "--log-every", "5", "--log", log] + args
            print("accuracy-torch: %s: resnet18, %d iterations on the emulated cluster at %d Mbit/s"
                  % (name, iters, rate), flush=True)
            env = dict(os.environ, PYTHONPATH=snap, INC_LIBRARY=os.path.join(snap, "libinceptionn.so"),
                       OMP_NUM_THREADS="1")
            with open(os.path.join(d, "out.txt"), "w") as out:
                rc = subprocess.call(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
            if rc == 0 and summary_of(log):
                shutil.copy(log, kept_log(name))
                ms = steady_ms(load_log(log))
                print("accuracy-torch: %s: %.0f ms per iteration" % (name, ms), flush=True)
            else:
                print("accuracy-torch: %s exited %d; see %s" % (name, rc, os.path.join(d, "out.txt")),
                      file=sys.stderr, flush=True)
                failed.append(name)
    finally:
        if mine and os.path.exists(QUIET):
            os.unlink(QUIET)
    return 1 if failed else 0


def cluster_ms(rate=CLUSTER_RATE):
    """{comm: steady ms per iteration} of the kept cluster measurements."""
    out = {}
    for comm in CLUSTER_COMMS:
        if finished(cluster_name(comm, rate)):
            ms = steady_ms(load_kept(cluster_name(comm, rate)))
            if ms:
                out[comm] = ms
    return out


# probe: what the hook's scaling target gives on resnet18 (error bound,
# target ratio), 60 iterations from seed 1, no evaluation
PROBES = [(10, 8), (10, 5), (12, 8), (12, 4), (9, 8), (8, 8), (8, 12)]
PROBE_ITERS = 60


def probe(only=None):
    """Ratio, bytes ratio and class shares per (error bound, target); only:
    a regular expression on the probes' names (probe-ebE-rT)."""
    print("| error bound | target | stats()['ratio'] | wire_ratio | 2 / 10 / 18 / 34-bit shares |")
    print("|---|---|---|---|---|")
    for eb, target in PROBES:
        name = "probe-eb%d-r%d" % (eb, target)
        if only and not re.search(only, name):
            continue
        d = os.path.join(WORK, name)
        shutil.rmtree(d, ignore_errors=True)
        args = ["--arch", "resnet18", "--iterations", str(PROBE_ITERS), "--batch", "32",
                "--comm", "inceptionn", "--compression", "software", "--error-bound", str(eb),
                "--scale-ratio", str(target), "--no-eval", "--seed", "1"] + UNDAMPED
        if run_one(name, args) != 0:
            print("accuracy-torch: %s failed; see %s" % (name, os.path.join(d, "out.txt")),
                  file=sys.stderr)
            return 1
        st = summary_of(os.path.join(d, "log.jsonl"))["stats"]
        print("| 2^-%d | %d | %.2fx | %.2fx | %s |" % (
            eb, target, st["ratio"], st["wire_ratio"],
            " / ".join("%.1f %%" % (100 * st["classes"][k]) for k in CLASSES)),
            flush=True)
    return 0


def main():
    ap = argparse.ArgumentParser(prog="accuracy-torch", description=__doc__.split("\n\n")[0])
    ap.add_argument("cmd", choices=("run", "status", "table", "probe", "cluster", "screen",
                                    "ratios", "losses", "targets"))
    ap.add_argument("--at", default="100,200,585",
                    help="ratios: iterations, comma-separated")
    ap.add_argument("--window", type=int, default=60,
                    help="losses: iterations a window")
    ap.add_argument("--png", default=os.path.join(ROOT, "docs", "results", "torch-targets.png"),
                    help="targets: the PNG to write")
    ap.add_argument("--rate", type=int, default=CLUSTER_RATE, help="cluster: link Mbit/s")
    ap.add_argument("--iters", type=int, default=CLUSTER_ITERS, help="cluster: iterations per way")
    ap.add_argument("--only", help="regular expression on run names")
    ap.add_argument("--list", action="store_true", help="print the runs and exit")
    a = ap.parse_args()
    if a.only:
        try:
            re.compile(a.only)
        except re.error as e:
            ap.error("--only: not a regular expression (%s)" % e)
    if a.cmd == "table":
        return table()
    if a.cmd == "probe":
        return probe(a.only)
    if a.cmd == "cluster":
        return cluster(a.rate, a.iters)
    if a.cmd == "ratios":
        try:
            at = [int(i) for i in a.at.split(",")]
        except ValueError:
            ap.error("--at: iterations, comma-separated (e.g. 200,585)")
        if not a.only:
            ap.error("ratios: --only REGEX names the kept runs")
        return ratios(a.only, at)
    if a.cmd == "losses":
        if not a.only:
            ap.error("losses: --only REGEX names the kept runs")
        if a.window < 1:
            ap.error("--window: at least 1 iteration")
        return losses(a.only, a.window)
    if a.cmd == "targets":
        if not a.only:
            ap.error("targets: --only REGEX names the kept runs")
        return targets(a.only, a.png)
    todo = [(n, args) for n, args in (screen_runs() if a.cmd == "screen" else runs())
            if not a.only or re.search(a.only, n)]
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
                shutil.copy(log, kept_log(n))
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
