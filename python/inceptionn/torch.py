# SPDX-License-Identifier: MIT
"""PyTorch DDP communication hook over libinceptionn.

    import inceptionn.torch as inct
    ddp = torch.nn.parallel.DistributedDataParallel(model)
    state = inct.register(ddp, compression="software")
    ...                     # train as before
    print(state.stats())    # ratio, classes, calls, bytes_sent, seconds, ...

or, as PyTorch's own hooks are registered:

    state = inct.InceptionnState.create(None, compression="software")
    ddp.register_comm_hook(state, inct.inceptionn_hook)

The defaults are the configuration measured closest to DDP's accuracy at
8x or more on the networks tried (the gap per network, over seeds, in
docs/pytorch.md; how they were decided in docs/results.md, "Equal
accuracy by default"): in the modes with an
error bound, 50 uncompressed iterations, then error feedback (one residual
per bucket) and adaptive scaling (one libinceptionn scaling state per
bucket, one exponent per parameter of the bucket, chosen from the previous
sum at the target ratio 6, every parameter the same precision relative to
its own size, and moving at most one binade a call), biases
and norms uncompressed; where convolutions' kernels are under a quarter
of the values (alexnet, vgg16), the buckets of kernels at target 1.
error_feedback=False, scaling=False give the paper's plain codec.
state.state_dict() / load_state_dict() carry both across a checkpoint.

DDP hands the hook its gradient buckets in bucket order. Dense float32 CPU
buckets go through libinceptionn's non-blocking all-reduce
(inc_iallreduce_f32) on a communicator of their own; one completion thread
waits for the requests in issue order and completes each bucket's Future
with the sum divided by the world size (set_result) or with the library's
error (set_exception, so a dead peer raises in the training loop). Other
buckets (float64, float16, bfloat16, sparse, non-CPU) go through the
process group's own all-reduce, losslessly.

The communicator is brought up through DDP's process group: rank 0 picks a
master port (inc_free_port) and a job id and shares them with an
all-gather, together with every rank's settings, so ranks that were given
different settings all fail in register() with the same message. INC_RANK,
INC_WORLD_SIZE, INC_MASTER_ADDR, INC_MASTER_PORT and INC_JOB_ID, when the
user set them, override what the process group would give; the other
INC_* variables (INC_TIMEOUT_MS, INC_SEGMENT_BYTES, INC_TOS, ...) are the
library's and apply to everything register() is not given explicitly.
"""
import atexit
import contextlib
import math
import os
import queue
import random
import socket
import threading
import time
import weakref

import torch
import torch.distributed as dist

from . import _launch, _lib
from ._lib import InceptionnError

__all__ = ["register", "InceptionnState", "inceptionn_hook", "compressions", "launcher_env",
           "kernel_share", "kernel_auto_target", "InceptionnError"]

_BOOT_VARS = ("INC_RANK", "INC_WORLD_SIZE", "INC_MASTER_ADDR", "INC_MASTER_PORT",
              "INC_JOB_ID", "INC_COMPRESSION")
_ALGOS = {"ring": _lib.ALGO_RING, "wa": _lib.ALGO_WA}
_SKETCH_INDEX = {"bitmap": 0, "bloom": 1}
_EF = {None: None, "auto": _lib.EF_AUTO, False: _lib.EF_OFF, "off": _lib.EF_OFF,
       True: _lib.EF_ON, "on": _lib.EF_ON}


def compressions():
    """Names of the library's compression modes (its table, in order)."""
    return [c["name"] for c in _lib.compressions()]


# ---------------------------------------------------------------- state
class InceptionnState:
    """What lives across iterations: the communicator, the call options, one
    error-feedback residual and one adaptive-scaling state per bucket index,
    the pending requests and the statistics. Made by create() (or
    register(), which also registers the hook)."""

    @classmethod
    def create(cls, process_group=None, compression=None, error_bound=None, error_feedback=None,
               scaling=None, scale_ratio=None, **options):
        """A state for ddp.register_comm_hook(state, inceptionn_hook), over
        process_group (None: the default group). Collective over the group;
        the keywords are register()'s."""
        return _create(process_group, compression, error_bound, error_feedback, scaling,
                       scale_ratio, options)

    def __init__(self, comm, opts, group, settings):
        self.comm = comm
        self.opts = opts
        self.group = group
        self.world_size = comm.size
        self.settings = settings
        probe = _lib.opts_copy(opts)
        probe.residual = 1      # never dereferenced: asks whether a residual would be used
        self.use_residual = _lib.error_feedback_active(probe)
        self.use_scaling = bool(settings["scaling"])
        self.residuals = {}     # bucket index -> float32 tensor of the bucket's size
        self.scales = {}        # bucket index -> _lib.Scale (parts = the bucket's parameters)
        self._layout = {}       # bucket index -> its parameters' keys
        self._ends = {}         # bucket index -> where its parameters end
        self._keys = {}         # id(parameter) -> key (order of first sight)
        self._key_refs = []
        self._pool = {}         # parameter key -> (residual slice, exponent, run) between layouts
        self._primer = {}      # scale_prime: the warm-up's last sum per parameter key
        self.paces = {}         # pace: bucket index -> _Pace of its compressed values
        self._pace_pool = {}    # pace: parameter key -> (pending, left, since) between layouts
        self.residual_resets = 0
        self._no_comm = False
        self.iteration = 0      # backward passes done (DDP's last bucket of each)
        self.bucket_sizes = {}
        self._counts = {"calls": 0, "values": 0, "fallback_calls": 0, "fallback_values": 0,
                        "warmup_calls": 0, "warmup_values": 0, "exempt_values": 0}
        self._splits = {}       # bucket index -> (keys, the exempt parameters' spans)
        self._kernel_buckets = set()    # kernel_ratio: the buckets it targets
        self._kernel_auto = None        # kernel_ratio="auto": its decision (0: none)
        self._model_params = None       # register(): the model's parameters
        # ratio_floor: the scaling's target, steered so that the ranks'
        # measured ratio stays at or above the floor
        self.target = settings["scale_ratio"]
        # ratio_steer="plan": the ranks' class counts at the last check
        self._steer_last = [0.0] * len(CLASS_BITS)
        self._seconds = 0.0
        self._last_done = 0.0
        self._base = comm.stats()
        self._carried = {}      # the counters of a loaded state_dict(), added to stats()
        self._pending = queue.Queue()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._complete, name="inceptionn-completion",
                                        daemon=True)
        self._thread.start()
        self._group_pending = queue.Queue()     # the process group's works, in issue order
        self._group_thread = threading.Thread(target=self._complete_group,
                                              name="inceptionn-group", daemon=True)
        self._group_thread.start()
        self._pid = os.getpid()
        _OPEN.add(self)

    # -- the two ways a bucket travels
    def _param_keys(self, params):
        """Stable keys of a bucket's parameters: the order in which this
        process first saw them (DDP's first layout, the same in every
        process of a job and after a restart)."""
        keys = []
        for p in params:
            k = self._keys.get(id(p))
            if k is None:
                k = self._keys[id(p)] = len(self._keys)
                self._key_refs.append(p)        # keeps id(p) from being reused
            keys.append(k)
        return tuple(keys)

    def _dissolve(self):
        """Every bucket's residual and exponents into the per-parameter pool
        (DDP changed its layout, or a checkpoint is taken). A bucket's
        residual and pace state are let go as soon as its parts are in the
        pool, so that the copies take one bucket more, not twice the whole."""
        for i, keys in self._layout.items():
            r, sc = self.residuals.pop(i, None), self.scales.get(i)
            ends = self._ends[i]
            e = sc.exponents() if sc is not None else [0] * len(ends)
            u = sc.runs() if sc is not None else [0] * len(e)
            at = 0
            for k, (a, b) in zip(keys, _spans(ends)):
                m = len(_chunks(a, b, self.settings.get("scale_part")))
                self._pool[k] = (r[a:b].clone() if r is not None else None,
                                 e[at] if m == 1 else tuple(e[at:at + m]),
                                 u[at] if m == 1 else tuple(u[at:at + m]))
                at += m
            r = None
        self._layout, self.residuals, self.scales, self._ends = {}, {}, {}, {}
        while self.paces:
            self._pace_pool.update(self.paces.popitem()[1].parts())

    def _pace_state(self, index, n, ends, keys):
        """pace: the _Pace of bucket index (n values, parameters ending at
        ends, keyed by keys; keys None: one part of its own), carrying each
        parameter's pending values over when DDP changes the layout."""
        if not self.settings.get("pace"):
            return None
        got = self.paces.get(index)
        if got is not None and got.keys == keys and got.n == n:
            return got
        if got is not None:
            self._pace_pool.update(got.parts())
        pace = _Pace(n, ends, keys, self._pace_pool)
        self.paces[index] = pace
        return pace

    def _bucket_state(self, index, n, ends, keys, params=()):
        """The residual and scaling state of bucket index (n values, parts
        ending at ends, parameters keys, params: the parameters themselves,
        read when a state is made: kernel_ratio targets those mostly of
        kernels). When DDP rebuilt its buckets the state moves with the
        parameters, so nothing is lost."""
        if keys is not None and index in self._layout and self._layout[index] != keys:
            self.residual_resets += 1      # DDP rebuilt its buckets
            self._dissolve()
        if index in self._layout and self._ends[index] == ends:
            return self.residuals.get(index), self.scales.get(index)
        residual = scale = None
        if self.use_residual:
            residual = torch.zeros(n, dtype=torch.float32)
        part = self.settings.get("scale_part")
        pends, e, u = [], [], []
        pooled = bool(keys) and any(k in self._pool for k in keys)
        for j, (a, b) in enumerate(_spans(ends)):
            c = _chunks(a, b, part)
            pends += c
            r_k, e_k, u_k = self._pool.pop(keys[j], (None, 0, 0)) if keys else (None, 0, 0)
            if residual is not None and r_k is not None and r_k.numel() == b - a:
                residual[a:b] = r_k
            for got, want in ((e_k, e), (u_k, u)):
                if isinstance(got, (tuple, list)) and len(got) == len(c):
                    want += list(got)
                else:   # one for the parameter (or its parts laid out otherwise)
                    want += [got if isinstance(got, int) else 0] * len(c)
        if self.use_scaling:
            if self._kernel_target() and _kernels(params):
                self._kernel_buckets.add(index)
            else:
                self._kernel_buckets.discard(index)
            scale = _lib.Scale(pends, self._target_of(index), self.settings["scaling"],
                               self.settings.get("scale_step") or 0,
                               self.settings.get("scale_patience") or 0,
                               self.settings.get("scale_spread"))
            if any(u):
                scale.set_runs(u)
            if any(e):
                scale.set_exponents(e)
            elif not pooled and keys and all(k in self._primer for k in keys):
                # a new state after the warm-up: its exponents from the
                # warm-up's last sum instead of 0 (scale_prime)
                primer = torch.cat([self._primer.pop(k) for k in keys])
                if primer.numel() == n:
                    primer.mul_(self.world_size)        # the ranks' sum, as a call delivers it
                    scale.prime(primer.data_ptr(), n, self.settings["error_bound"],
                                self.world_size)
        if residual is not None:
            self.residuals[index] = residual
        if scale is not None:
            self.scales[index] = scale
        self._layout[index] = keys if keys is not None else (-1 - index,)
        self._ends[index] = ends
        return residual, scale

    def allreduce(self, index, buf, params=None):
        """Issue buf (dense contiguous float32 on the CPU) on the communicator;
        a Future completed by the completion thread. params: the bucket's
        parameters, laid out in buf in that order (the scaling's parts; the
        residual and exponents follow them when DDP rebuilds its buckets)."""
        self._check_open()
        n = buf.numel()
        ends = _param_ends(params or ())
        keys = self._param_keys(params) if ends and ends[-1] == n else None
        if keys is None:
            ends = [n]      # not laid out as its parameters: one part
        elif self.settings.get("exempt"):
            split = self._split(index, keys, ends, params)
            if split is not None:
                return self._allreduce_split(index, buf, split)
        self.bucket_sizes[index] = n
        return self._issue(buf, self._bucket_state(index, n, ends, keys,
                                                   params if keys is not None else ()),
                           pace=self._pace_state(index, n, ends, keys))

    def _issue(self, buf, state, raw=False, pace=None, result=True):
        """buf through the library with state, (residual, scale) of its
        bucket (or its kept parameters): a Future of buf, averaged (raw:
        the one this state's thread completes, for further chaining), then
        through pace (a _Pace, or None) where the pace option is on.
        result=False: a Future of None once buf holds the average, for a
        buf the caller copies out and lets go (DDP keeps a bucket's Future
        until the bucket's next call, and with it the Future's value)."""
        residual, scale = state
        fut = torch.futures.Future()
        opts = _lib.opts_copy(self.opts)
        if residual is not None:
            decay = self.settings.get("residual_decay")
            if decay is not None:
                residual.mul_(decay)    # what is held back fades: older values count less
            opts.residual = residual.data_ptr()
        if scale is not None:
            opts.scale = scale.address
        try:
            req = self.comm.iallreduce(buf.data_ptr(), buf.numel(), opts)
        except InceptionnError as e:
            fut.set_exception(e)
        else:
            self._pending.put((req, fut, buf, pace, time.monotonic(), result))
        if raw:
            return fut
        # DDP's C++ side reads the value without the Python unwrap that makes
        # wait() raise set_exception's error: re-raise it in a callback, which
        # marks the returned future as failed, so DDP raises the library's text
        return fut.then(_value)

    def _split(self, index, keys, ends, params):
        """Bucket index's exempt parameters (exempt="vectors": those of at
        most one dimension, biases and norms; "vectors+kernels": those and
        the convolutions' kernels): None when it has none, else (the kept
        values' spans, the exempt values' spans, the kept parameters' ends,
        keys and themselves), kept for the bucket's layout. Adjacent
        parameters of one kind make one span."""
        got = self._splits.get(index)
        if got is not None and got[0] == keys:
            return got[1]
        kind = self.settings["exempt"]
        spans = {True: [], False: []}
        kends, kkeys, kept, at = [], [], [], 0
        for p, k, b in zip(params, keys, ends):
            a, ex = b - p.numel(), _exempt(kind, p)
            run = spans[ex]
            if run and run[-1][1] == a:
                run[-1] = (run[-1][0], b)
            else:
                run.append((a, b))
            if not ex:
                at += b - a
                kends.append(at)
                kkeys.append(k)
                kept.append(p)
        split = (spans[False], spans[True], kends, tuple(kkeys), kept) if spans[True] else None
        self._splits[index] = (keys, split)
        return split

    def _allreduce_split(self, index, buf, split):
        """A bucket with exempt parameters: their values through the process
        group (uncompressed, as fallback), the others through the library
        with the kept parameters' residual and scaling; both written back
        into buf."""
        keep, ex, kends, kkeys, kept = split
        gather = lambda spans: torch.cat([buf[a:b] for a, b in spans])

        def scatter(spans, vals):
            at = 0
            for a, b in spans:
                buf[a:b].copy_(vals[at:at + b - a])
                at += b - a

        exv = gather(ex)
        with self._lock:
            self._counts["exempt_values"] += exv.numel()
        exv.div_(self.world_size)
        fe = self._group_allreduce(exv, raw=True)
        if not kends:
            return fe.then(lambda f: (scatter(ex, f.wait()), buf)[1])
        # kept values in one span are all-reduced where they are; else a
        # copy (4 bytes a value), let go once written back: DDP keeps the
        # returned Future, and what it reaches, until the bucket's next
        # call, which would hold two copies at once
        whole = len(keep) == 1
        part = buf[keep[0][0]:keep[0][1]] if whole else gather(keep)
        self.bucket_sizes[index] = buf.numel()
        fc = self._issue(part, self._bucket_state(index, part.numel(), kends, kkeys, kept),
                         raw=True, result=False,
                         pace=self._pace_state(index, part.numel(), kends, kkeys))
        held = [part]
        del part

        def join(f):
            for g in (fc, fe):
                if g.done():
                    g.wait()    # raises a failed half's own error
            f.wait()
            part = held.pop()
            if not whole:
                scatter(keep, part)
            scatter(ex, fe.wait())
            return buf
        # collect_all sees the error of a then(_value) future at once (not
        # that of set_exception(), a value to C++), a stalled half aside
        return torch.futures.collect_all([fc.then(_value), fe.then(_value)]).then(join)

    def steer(self):
        """ratio_floor: every RATIO_CHECK_ITERS iterations (at the first
        bucket of an iteration, when every call of the last one is done)
        the ranks sum the codec classes they have sent since the state
        began (stats()' class counts, a loaded state_dict()'s included; one
        all-reduce of four counts through the process group), so each one
        computes the same ratio of the run so far and the same new target:
        while that ratio is under RATIO_LOW times the floor the target rises
        by RATIO_STEP, up to the library's largest; over RATIO_HIGH times
        the floor it falls back by RATIO_STEP, not below scale_ratio;
        between the two it holds. The run's ratio, not the last ten
        iterations', is what the floor promises, and steering on it keeps
        the run just above the floor: a window's ratio swings by more than
        a step, and a band wide enough for that lets a run settle well
        above the floor (8.8x for a floor of 8). The new target is every
        bucket's from its next call on."""
        got = torch.tensor([float(c) for c in self._counters()["class_values"]],
                           dtype=torch.float64)
        dist.all_reduce(got, group=self.group)
        if not got.sum():
            return
        floor, t = self.settings["ratio_floor"], self.target
        if self.settings.get("ratio_steer") == "plan":
            self._set_target(self._plan(got.tolist(), floor, t))
            return
        measured = _class_ratio(got.tolist())
        if measured < floor * RATIO_LOW:
            t = min(_lib.SCALE_RATIO_MAX, t * RATIO_STEP)
        elif measured > floor * RATIO_HIGH:
            t = max(self.settings["scale_ratio"], t / RATIO_STEP)
        self._set_target(t)

    def _plan(self, run, floor, t):
        """ratio_steer="plan": the target that brings the run's ratio to
        RATIO_LOW times the floor over the next PLAN_ITERS iterations, if
        the codec's ratio moves in proportion to the target: from the
        classes of the run so far (run, the ranks' together) and of the
        window since the last check, the bits a value may take from now on,
        and the target scaled by the window's bits over those (by at most
        RATIO_STEP a check, within scale_ratio and the library's largest;
        held where that moves it by under PLAN_DEADBAND). A window over the
        floor brings the target back towards scale_ratio. Each check plans
        anew from what the last window measured, so the run's ratio settles
        on the aim without the swings of a fixed step steered by the run's
        ratio, which moves ever more slowly as the run grows."""
        window = [a - b for a, b in zip(run, self._steer_last)]
        self._steer_last = list(run)
        n = sum(window)
        if n <= 0:
            return t
        bits = _class_bits(run)
        ahead = PLAN_ITERS * n / RATIO_CHECK_ITERS      # values of the next PLAN_ITERS
        need = (32.0 * (sum(run) + ahead) / (floor * RATIO_LOW) - bits) / ahead
        have = _class_bits(window) / n
        f = min(RATIO_STEP, have / need) if need > 0 else RATIO_STEP
        f = max(1.0 / RATIO_STEP, f)
        if abs(math.log(f)) < math.log(PLAN_DEADBAND):
            return t
        return min(_lib.SCALE_RATIO_MAX, max(self.settings["scale_ratio"], t * f))

    def ramp(self):
        """scale_ramp: the target of this iteration (at its first bucket),
        RAMP_FROM + (scale_ratio - RAMP_FROM) k / N after k of the ramp's N
        compressed iterations, then scale_ratio: the same on every rank
        (the iteration count is), from the iteration count alone (so also
        after a resume). Every bucket's from its next call on."""
        n, top = self.settings["scale_ramp"], self.settings["scale_ratio"]
        low = min(RAMP_FROM, top)
        k = self.iteration - self.settings["warmup_iters"]
        self._set_target(top if k >= n else low + (top - low) * max(0, k) / n)

    def _set_target(self, t):
        """The scaling's target t for every bucket's state from its next call
        on (ratio_floor's steering, scale_ramp), and for the states made
        later."""
        if t != self.target:
            self.target = t
            for i, sc in self.scales.items():
                sc.set_ratio(self._target_of(i))

    def _target_of(self, index):
        """Bucket index's target: kernel_ratio where that is set and most of
        its compressed values are kernels', else the run's (self.target)."""
        if index in self._kernel_buckets:
            return self._kernel_target()
        return self.target

    def _kernel_target(self):
        """kernel_ratio's target, None where it leaves the kernels at the
        run's. "auto": KERNEL_AUTO_RATIO where the kernels hold less than
        KERNEL_AUTO_SHARE of the values of the parameters of two or more
        dimensions (the model's when register() was given it, else those
        this state has seen: with a warm-up, every parameter), decided once
        and carried in state_dict()."""
        kr = self.settings.get("kernel_ratio")
        if kr != "auto":
            return None if kr in (None, "off") else kr
        if self._kernel_auto is None:
            self._kernel_auto = kernel_auto_target(self._model_params or self._key_refs) or 0.0
        return self._kernel_auto or None

    def warm_allreduce(self, buf):
        """A warm-up bucket through the codec (warmup_error_bound): no error
        feedback, no adaptive scaling, the values times 2^(warmup_error_bound
        - error_bound), so that the run's error bound (the NIC's, in nic
        mode) bounds them to 2^-warmup_error_bound. Counted as a call and in
        the classes, and in warmup_calls."""
        self._check_open()
        with self._lock:
            self._counts["warmup_calls"] += 1
        fut = torch.futures.Future()
        opts = _lib.opts_copy(self.opts)
        opts.error_feedback = _lib.EF_OFF
        opts.residual = None
        opts.scale = None
        opts.scale_exp = self.settings["warmup_error_bound"] - self.settings["error_bound"]
        try:
            req = self.comm.iallreduce(buf.data_ptr(), buf.numel(), opts)
        except InceptionnError as e:
            fut.set_exception(e)
        else:
            self._pending.put((req, fut, buf, None, time.monotonic(), True))
        return fut.then(_value)

    def prime_from(self, fut, params, n):
        """scale_prime: fut, the last warm-up iteration's sum of a bucket
        (n values laid out as params), kept per parameter until the
        parameter's scaling state is made. A Future of the sum."""
        ends = _param_ends(params)
        if not ends or ends[-1] != n:
            return fut      # not laid out as its parameters: the state starts from 0
        keys = self._param_keys(params)

        def keep(f):
            v = f.wait()
            for k, b, p in zip(keys, ends, params):
                self._primer[k] = v[b - p.numel():b].clone()
            return v
        return fut.then(keep)

    def fallback(self, buf, why="fallback"):
        """The process group's lossless all-reduce (what DDP does itself);
        why: the counters it goes to ("fallback" or "warmup")."""
        self._check_open()
        with self._lock:
            self._counts[why + "_calls"] += 1
            self._counts[why + "_values"] += buf.numel() if not buf.is_sparse else buf._nnz()
        buf.div_(self.world_size)
        return self._group_allreduce(buf)

    def _group_allreduce(self, buf, raw=False):
        """buf's sum through the process group: a Future of the sum that this
        state's thread completes. Python code never runs in the process
        group's threads (a callback chained to its future would): a gloo
        thread still wanting the GIL at exit is the likely end of 2 of 84
        runs of python/tests/run_check.py with exempt parameters in
        "terminate called without an active exception" before this thread
        (the rest of that abort was the completion threads' exit race,
        which the atexit close ends), and of the hangs in ~ProcessGroupGloo
        seen before. A thread of its own, so that a work that never ends (a
        stalled peer) does not hold back the library's errors."""
        work = dist.all_reduce(buf, group=self.group, async_op=True)
        fut = torch.futures.Future()
        self._group_pending.put((work, fut))
        return fut if raw else fut.then(_value)

    def _complete_group(self):
        while True:
            item = self._group_pending.get()
            if item is None:
                return
            work, fut = item
            try:
                work.wait()
                fut.set_result(work.result()[0])
            except Exception as e:      # the process group's error: raise it in DDP
                fut.set_exception(e)

    def _complete(self):
        while True:
            item = self._pending.get()
            if item is None:
                return
            req, fut, buf, pace, issued, result = item
            item = None     # nothing of this call held while the next is awaited
            try:
                req.wait()
            except Exception as e:      # the library's error (or anything else): raise it in DDP
                fut.set_exception(e)
                req = fut = buf = pace = None
                continue
            done = time.monotonic()
            with self._lock:
                # busy time of the communicator: from when this call could
                # start (issued, or the previous one finished) to its end
                self._seconds += done - max(issued, self._last_done)
                self._last_done = done
                self._counts["calls"] += 1
                self._counts["values"] += buf.numel()
            buf.div_(self.world_size)
            if pace is not None:
                pace.apply(buf)
            fut.set_result(buf if result else None)
            req = fut = buf = pace = None

    # -- what users call
    def _check_open(self):
        if self.comm is None:
            raise InceptionnError(-32, "inceptionn.torch: this InceptionnState was closed "
                                  "(close() ends it): create another one")

    def stats(self):
        """Counters since the state was made (or since the run whose
        state_dict() it loaded began): calls (buckets all-reduced by
        the library), values (their float32 values), values_sent and
        bytes_sent (what this rank handed to its data sockets: after the
        host codec, in nic mode before the NIC's), bytes_received, seconds
        (the communicator's busy time), codec_seconds, sum_seconds,
        fallback_calls and fallback_values (buckets through the process
        group), warmup_calls and warmup_values (the same, in the warm-up
        iterations; with warmup_error_bound the warm-up's buckets go through
        the codec instead: counted in warmup_calls, calls, values and the
        classes, not in warmup_values), exempt_values (values of exempt
        parameters, through the process group), residual_resets; in the
        modes with an error bound, classes
        (this rank's contributions by codec class: the shares of 2, 10, 18
        and 34-bit values, the paper's Table III) and ratio (32 bits over
        the mean bits of those classes: the codec's compression ratio, in
        nic mode the NIC's too), whole_ratio (the same with the warm-up's
        and the exempt values counted at 32 bits: the run's ratio); in
        software mode also wire_ratio (values sent x 4 over bytes sent,
        framing included; the warm-up and the exempt values not counted);
        ratio_floor (None: none);
        scale_exponents (the least, median and largest of the buckets'
        current scaling exponents, None before the first compressed call;
        read it between iterations); kernel_buckets (the buckets at
        kernel_ratio's target); and the settings in use."""
        self._check_open()
        out = self._counters()
        cls = out.pop("class_values")
        out["residual_resets"] = self.residual_resets
        if sum(cls):
            total = float(sum(cls))
            out["classes"] = {bits: c / total for bits, c in zip(CLASS_BITS, cls)}
            out["ratio"] = _class_ratio(cls)
            # the same over the buckets' values, the warm-up's at 32 bits
            v, warm = out["values"], out["warmup_values"] + out["exempt_values"]
            out["whole_ratio"] = (v + warm) / (v / out["ratio"] + warm) if v else out["ratio"]
        if out["bytes_sent"] and self.settings["compression"] == "software":
            out["wire_ratio"] = 4.0 * out["values_sent"] / out["bytes_sent"]
        out["error_feedback"] = self.use_residual
        out["scaling"] = self.settings["scaling"]
        out["scale_ratio"] = self.settings["scale_ratio"]
        out["scale_target"] = self.target       # scale_ratio, or where ratio_floor steered it
        out["scale_step"] = self.settings["scale_step"]
        out["scale_patience"] = self.settings["scale_patience"]
        out["scale_spread"] = self.settings["scale_spread"]
        out["scale_prime"] = self.settings["scale_prime"]
        out["scale_ramp"] = self.settings["scale_ramp"]
        out["ratio_floor"] = self.settings.get("ratio_floor")
        out["ratio_steer"] = self.settings.get("ratio_steer")
        # the buckets' current scaling exponents: least, median, largest
        ex = sorted(e for sc in self.scales.values() if sc is not None for e in sc.exponents())
        out["scale_exponents"] = (ex[0], ex[len(ex) // 2], ex[-1]) if ex else None
        out["scale_part"] = self.settings.get("scale_part")
        out["kernel_ratio"] = self.settings.get("kernel_ratio")
        out["kernel_target"] = self._kernel_target() if self._kernel_buckets else None
        out["kernel_buckets"] = sorted(self._kernel_buckets)
        out["compression"] = self.settings["compression"]
        out["error_bound"] = self.settings["error_bound"]
        out["world_size"] = self.world_size
        return out

    def _counters(self):
        """The additive counters of stats(), a loaded state_dict()'s added."""
        now = self.comm.stats()
        with self._lock:
            out = dict(self._counts)
            out["seconds"] = self._seconds
        b = self._base
        out["values_sent"] = now["values_sent"] - b["values_sent"]
        out["bytes_sent"] = now["bytes_sent"] - b["bytes_sent"]
        out["bytes_received"] = now["bytes_received"] - b["bytes_received"]
        out["codec_seconds"] = (now["codec_ns"] - b["codec_ns"]) * 1e-9
        out["sum_seconds"] = (now["sum_ns"] - b["sum_ns"]) * 1e-9
        out["class_values"] = [a - c for a, c in zip(now["class_values"], b["class_values"])]
        for k, v in self._carried.items():
            if k == "class_values":
                out[k] = [a + c for a, c in zip(out[k], v)]
            elif k in out:
                out[k] += v
        return out

    @contextlib.contextmanager
    def no_comm(self):
        """While active the hook leaves every bucket as it is (no
        communication, no state touched): a backward that only lets DDP
        settle its bucket layout. DDP all-reduces the first iteration of
        every process in one bucket and rebuilds its buckets after it; a
        run resumed from a checkpoint runs one forward and backward in
        no_comm() (then discards its gradients and batch-norm statistics),
        so that its first real iteration uses the layout of the
        uninterrupted run and continues it bit for bit."""
        self._no_comm = True
        try:
            yield self
        finally:
            self._no_comm = False

    def state_dict(self):
        """What a checkpoint needs to continue: per parameter (keyed by the
        order in which the hook first saw it, the same in every process)
        this rank's error-feedback residual and the scaling exponent (the
        same on every rank), the settings they were made with, the
        iteration count (the warm-up's clock) and stats()' counters (a
        resumed state's stats() go on from them). Take it between
        iterations (a DDP backward returns with its buckets done)."""
        self._check_open()
        self._dissolve()
        params = {k: {"residual": r, "exponent": e, "run": u}
                  for k, (r, e, u) in self._pool.items()}
        for k, (pending, left, since) in self._pace_pool.items():
            params.setdefault(k, {"residual": None, "exponent": 0, "run": 0})["pace"] = \
                {"pending": pending, "left": left, "since": since}
        return {"version": 1, "settings": dict(self.settings), "params": params,
                "residual_resets": self.residual_resets, "iteration": self.iteration,
                "stats": self._counters(), "target": self.target,
                "steer_last": list(self._steer_last),
                "kernel_auto": self._kernel_auto,
                "primer": {k: v.clone() for k, v in self._primer.items()}}

    def load_state_dict(self, sd):
        """Take a state_dict() of a state with the same settings: each
        parameter's residual and exponent are used from its bucket's next
        call on, whatever DDP's bucket layout is then."""
        self._check_open()
        if not isinstance(sd, dict) or sd.get("version") != 1 or "params" not in sd:
            raise ValueError("inceptionn.torch: not an InceptionnState.state_dict() (version 1)")
        mine = {k: v for k, v in self.settings.items() if k != "library"}
        theirs = {k: v for k, v in sd["settings"].items() if k != "library"}
        theirs.setdefault("warmup_iters", 0)     # states saved before the options
        theirs.setdefault("warmup_error_bound", None)
        theirs.setdefault("exempt", None)
        theirs.setdefault("ratio_floor", None)
        theirs.setdefault("ratio_steer", "step" if theirs["ratio_floor"] else None)
        theirs.setdefault("scale_part", None)
        theirs.setdefault("scale_spread", None)
        theirs.setdefault("pace", False)
        theirs.setdefault("residual_decay", None)
        theirs.setdefault("kernel_ratio", "off")     # states saved before the option
        if "scale_prime" not in theirs:  # states saved before the option: not primed
            theirs["scale_prime"] = False if theirs.get("scaling") else None
        if "scale_ramp" not in theirs:  # states saved before the option: no ramp
            theirs["scale_ramp"] = 0 if theirs.get("scaling") else None
        if "scale_patience" not in theirs:  # states saved before the option: not held
            theirs["scale_patience"] = 1 if theirs.get("scaling") else None
        if "scale_step" not in theirs:  # states saved before the option: undamped
            theirs["scale_step"] = 0 if theirs.get("scaling") else None
        if mine != theirs:
            keys = sorted(k for k in set(mine) | set(theirs) if mine.get(k) != theirs.get(k))
            raise ValueError("inceptionn.torch: the state_dict was made with other settings: %s"
                             % ", ".join("%s %r (here %r)" % (k, theirs.get(k), mine.get(k))
                                         for k in keys))
        self._layout, self.residuals, self.scales, self._ends = {}, {}, {}, {}
        self.iteration = int(sd.get("iteration", 0))
        self._pool = {int(k): (v["residual"].clone() if v["residual"] is not None else None,
                               _exponent(v["exponent"]), _exponent(v.get("run", 0)))
                      for k, v in sd["params"].items()}
        self.paces = {}
        self._pace_pool = {int(k): tuple(v["pace"][f].clone() for f in ("pending", "left", "since"))
                           for k, v in sd["params"].items() if v.get("pace") is not None}
        self.residual_resets = sd.get("residual_resets", 0)
        self._primer = {int(k): v.clone() for k, v in (sd.get("primer") or {}).items()}
        self.target = sd.get("target", self.settings["scale_ratio"])
        self._steer_last = [float(c) for c in sd.get("steer_last", [0.0] * len(CLASS_BITS))]
        self._kernel_auto = sd.get("kernel_auto")
        self._kernel_buckets = set()
        self._carried = dict(sd.get("stats") or {})     # stats() go on from the checkpoint's

    def close(self):
        """Finish the pending requests, stop the threads, free the
        communicator. A state still open when the interpreter exits is
        closed then (atexit)."""
        if self.comm is None:
            return
        _OPEN.discard(self)
        self._pending.put(None)
        self._thread.join()
        # the process group's works: the thread ends after them. DDP waits
        # for every bucket before backward() returns, so the thread is at
        # most finishing the last one's Future; only a failed step leaves
        # a work, which may wait for a stalled peer until the group's own
        # timeout (30 minutes by default): close() waits GROUP_JOIN_S
        self._group_pending.put(None)
        self._group_thread.join(GROUP_JOIN_S)
        self.comm.destroy()
        self.comm = None
        for sc in self.scales.values():
            if sc is not None:
                sc.destroy()
        self.scales = {}


# The open states, closed at exit. A thread that completes a Future does
# it with the GIL released (torch's set_result) and takes the GIL back
# when the Future's callbacks have run; those callbacks release DDP's
# backward(), so a script that ends right after its last step can begin
# to finalize the interpreter first. A thread that asks for the GIL then
# is ended by pthread_exit, whose unwinding through torch's frames
# aborts the process ("terminate called without an active exception",
# SIGABRT: 5 of 16 jobs of experiments/hook-memory.py's 2-rank worker
# and 4 of 12 of python/tests/run_check.py exit, which end after their
# third step; none since). atexit's handlers run before that, and close()
# joins the threads. Only in the process that made the state: a forked
# child that exits normally runs them too, and closing its copy of the
# parent's communicator hung the parent's job.
_OPEN = weakref.WeakSet()
GROUP_JOIN_S = 5.0      # close(): the most it waits for the process group's thread


@atexit.register
def _close_open_states():
    for state in list(_OPEN):
        if state._pid != os.getpid():   # a forked child's copy: the parent's sockets and threads
            continue
        try:
            state.close()
        except Exception:       # at exit: a peer gone first must not stop the others' close()
            pass


# pace=True works through a bucket this many values at a time
PACE_SLICE = 1 << 20


class _Pace:
    """pace=True: a bucket's averaged sums, each value spread over as many
    iterations as it went without a non-zero sum. Error feedback holds a
    value back until its residual reaches the codec's bound, then delivers
    it as one burst of about k times its gradient every k iterations: the
    same sum, at 1/k of the rate. SGD's step is linear in it; Adam divides
    each value's step by the root of its mean square, which such bursts
    inflate k-fold, so the value moves about 1/sqrt(k) as far
    (experiments/adam-bursts.py). Here a non-zero sum after k iterations
    without one is added to the value's pending amount, which then leaves
    in k equal steps (a new burst restarts the count with what is still
    pending). A value non-zero in every call passes unchanged, bit for bit
    (x / 1, then x - x = 0 pending). It depends only on the sums, the same
    on every rank, so the replicas stay identical. Measured on alexnet with
    AdamW it does not close the defaults' gap to DDP (docs/pytorch.md):
    an option, off by default."""

    def __init__(self, n, ends, keys, pool):
        self.n, self.keys = n, keys
        self.ends = list(ends) if keys is not None else [n]
        self.pending = torch.zeros(n, dtype=torch.float32)
        self.left = torch.zeros(n, dtype=torch.int32)      # iterations it still spreads over
        self.since = torch.zeros(n, dtype=torch.int32)     # iterations since a non-zero sum
        for k, (a, b) in zip(keys or (), _spans(self.ends)):
            got = pool.pop(k, None)
            if got is not None and got[0].numel() == b - a:
                for mine, old in zip((self.pending, self.left, self.since), got):
                    mine[a:b] = old

    def apply(self, buf):
        """buf (the averaged sums, in place) paced, a slice at a time: every
        step is per value, and the temporaries stay a slice's (the state is
        12 bytes a value, 1.6 GB a rank on vgg16's 134 M values)."""
        for a in range(0, self.n, PACE_SLICE):
            b = min(self.n, a + PACE_SLICE)
            self._apply(buf[a:b], self.pending[a:b], self.left[a:b], self.since[a:b])

    @staticmethod
    def _apply(buf, pending, left, since):
        since.add_(1)
        nz = buf != 0
        pending.add_(buf)
        torch.where(nz, since, left, out=left)
        since.masked_fill_(nz, 0)
        torch.div(pending, left.clamp(min=1), out=buf)
        pending.sub_(buf)
        left.sub_(1).clamp_(min=0)

    def parts(self):
        """Per parameter key: (pending, left, since) slices (copies)."""
        out = {}
        for k, (a, b) in zip(self.keys or (), _spans(self.ends)):
            out[k] = (self.pending[a:b].clone(), self.left[a:b].clone(),
                      self.since[a:b].clone())
        return out


# ---------------------------------------------------------------- the hook
def _value(fut):
    return fut.wait()


def inceptionn_hook(state, bucket):
    """DDP communication hook: float32 buckets through libinceptionn, the rest
    through the process group."""
    if not isinstance(state, InceptionnState):
        raise TypeError("inceptionn_hook: its state must be an InceptionnState "
                        "(InceptionnState.create(process_group, ...)), got %s"
                        % type(state).__name__)
    buf = bucket.buffer()
    warm = state.iteration < state.settings["warmup_iters"]
    last_warm = warm and state.iteration == state.settings["warmup_iters"] - 1
    if not warm and not state._no_comm and bucket.index() == 0:
        # the first bucket of a compressed iteration, whatever its type
        if state.settings.get("ratio_floor") and state.iteration % RATIO_CHECK_ITERS == 0:
            state.steer()
        if state.settings.get("scale_ramp"):
            state.ramp()
    if buf.dtype != torch.float32 or buf.is_sparse or buf.device.type != "cpu" \
            or not buf.is_contiguous():
        if bucket.is_last() and not state._no_comm:
            state.iteration += 1        # a backward pass whose last bucket is not float32
            if not warm:
                state._primer.clear()   # every bucket's state is made
        return state.fallback(buf)
    if state._no_comm:
        state._param_keys(bucket.parameters())    # as a real first iteration would
        fut = torch.futures.Future()
        fut.set_result(buf)
        return fut
    if bucket.is_last():
        state.iteration += 1
    if warm:
        state._param_keys(bucket.parameters())
        if state.settings.get("warmup_error_bound"):
            return state.warm_allreduce(buf)
        if last_warm and state.settings.get("scale_prime"):
            return state.prime_from(state.fallback(buf, "warmup"), bucket.parameters(),
                                    buf.numel())
        return state.fallback(buf, "warmup")
    fut = state.allreduce(bucket.index(), buf, bucket.parameters())
    if bucket.is_last() and state._primer:
        state._primer.clear()   # every bucket's state is made: the rest were exempt
    return fut


# ---------------------------------------------------------------- launchers
def _ifname_of(addr):
    """Name of the local interface that carries addr, or None."""
    import fcntl
    import struct
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        for _, name in socket.if_nameindex():
            try:
                req = struct.pack("256s", name.encode()[:15])
                got = socket.inet_ntoa(fcntl.ioctl(s.fileno(), 0x8915, req)[20:24])  # SIOCGIFADDR
            except OSError:
                continue
            if got == addr:
                return name
    finally:
        s.close()
    return None


def launcher_env():
    """Let a script started by inc-run or cluster/train-cluster.sh (which set
    INC_RANK, INC_WORLD_SIZE, INC_MASTER_ADDR, INC_MASTER_PORT) call
    torch.distributed.init_process_group("gloo") as under torchrun: when RANK
    is not set, the four INC_* variables are moved to RANK, WORLD_SIZE,
    MASTER_ADDR, MASTER_PORT (so the hook's own communicator picks its own
    port), and GLOO_SOCKET_IFNAME, unless set, names the interface that
    reaches MASTER_ADDR. Returns True when it moved them."""
    env = os.environ
    if env.get("RANK") is not None or env.get("INC_RANK") is None:
        return False
    for inc, tv in (("INC_RANK", "RANK"), ("INC_WORLD_SIZE", "WORLD_SIZE"),
                    ("INC_MASTER_ADDR", "MASTER_ADDR"), ("INC_MASTER_PORT", "MASTER_PORT")):
        if inc in env:
            env[tv] = env.pop(inc)
    env.setdefault("LOCAL_RANK", env["RANK"])
    if not env.get("GLOO_SOCKET_IFNAME") and env.get("MASTER_ADDR"):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            s.connect((env["MASTER_ADDR"], int(env.get("MASTER_PORT", "1"))))
            name = _ifname_of(s.getsockname()[0])
        except OSError:
            name = None
        finally:
            s.close()
        if name:
            env["GLOO_SOCKET_IFNAME"] = name
    return True


# ---------------------------------------------------------------- register
# The warm-up of the defaults: with the adaptive scaling on, the first
# DEFAULT_WARMUP_ITERS iterations travel uncompressed (docs/pytorch.md,
# "Defaults"; measured in docs/results.md, "Equal accuracy by default").
DEFAULT_WARMUP_ITERS = 50
CLASS_BITS = (2, 10, 18, 34)     # the codec's classes: bits a value


def _param_ends(params):
    """Where each of params ends in a bucket laid out as them, in order."""
    ends, at = [], 0
    for p in params:
        at += p.numel()
        ends.append(at)
    return ends


def _spans(ends):
    """(start, end) of each part of a bucket whose parts end at ends."""
    return zip([0] + list(ends[:-1]), ends)


def _class_bits(counts):
    """The bits of values counted per class (CLASS_BITS)."""
    return sum(c * b for c, b in zip(counts, CLASS_BITS))


def _class_ratio(counts):
    """32 bits over the mean bits of values counted per class (CLASS_BITS),
    for a non-empty count: the codec's compression ratio."""
    return 32.0 * sum(counts) / _class_bits(counts)


# ratio_floor's steering (InceptionnState.steer): how often the ranks
# compare the run's measured ratio with the floor, by how much the target
# moves, under what share of the floor it rises (a rank's own ratio differs
# a little from the ranks' together) and over what share it falls back
RATIO_CHECK_ITERS = 10
RATIO_STEP = 1.125
RATIO_LOW = 1.02
RATIO_HIGH = 1.05
# ratio_steer="plan" (InceptionnState._plan): the iterations over which each
# check plans to bring the run's ratio to RATIO_LOW times the floor, and the
# least relative move of the target it makes
PLAN_ITERS = 100
PLAN_DEADBAND = 1.01
RATIO_STEERS = ("step", "plan")


# exempt=: the hook's name for what travels uncompressed (None: the default)
_EXEMPT = {None: None, "vectors": "vectors", "vectors+kernels": "vectors+kernels",
           "none": "none", False: "none"}
# where the adaptive scaling is on, biases and norms travel uncompressed:
# mobilenet_v2 loses 2 points of DDP's accuracy without it (docs/results.md)
DEFAULT_EXEMPT = "vectors"
# scale_step: the most a bucket's exponents move from one call to the next
# (inc_scale_set_step) where the adaptive scaling is on; 0: any distance.
# Undamped, the exponents of shufflenet_v2 and mobilenet_v2 swing call after
# call between holding nearly every value back and sending them at 16 bits
# (docs/results.md, "the scaling damped"); damped they stay level
DEFAULT_SCALE_STEP = 1
# scale_patience: a bucket's exponent moves only when this many calls in a
# row asked it to move the same way (inc_scale_set_patience); 1: whenever
# one asks. Damped by scale_step alone the exponents still alternate a
# binade every call where a network's gradients are large (resnet50 and
# densenet121 after the warm-up, resnet18 throughout): the sum of a finer
# call carries what the coarser call before it held back and asks for a
# coarser exponent, and so on (docs/results.md, "the damped scaling hunts")
DEFAULT_SCALE_PATIENCE = 1
# scale_prime: a bucket's scaling state starts from the warm-up's last sum
# (inc_scale_prime) instead of exponent 0, which a damped state leaves one
# binade a call, meanwhile holding back the values of the parts that need a
# higher exponent and sending raw the large ones of those that need a lower.
# On one host against the same runs unprimed: resnet50 +0.67 points,
# shufflenet_v2 +0.13, mobilenet_v3_small -0.03, resnet18 +0.09
# (docs/results.md, "what decided the defaults")
DEFAULT_SCALE_PRIME = True
# scale_ramp: over the first N compressed iterations the scaling's target
# rises linearly from RAMP_FROM (or scale_ratio where that is lower) to
# scale_ratio, so that the first compressed iterations after the warm-up,
# where the compressed runs fall behind (resnet50: training loss 0.89
# against DDP's 0.59 at iterations 80-120), travel with more values
# through the codec; 0: none. On resnet50 (seed 1, N = 150) it closed that
# window's gap but ended 0.67 below DDP against 0.41 without it; against
# the primed runs without it: shufflenet_v2 +1.17, -2.15, 0.00 (seeds
# 2, 1, 3), resnet50 -0.26, +4.99 (seed 3, where the primed run blows up),
# resnet18 -0.10, +0.22, +0.24, mobilenet_v3_small -0.34. Not the default
# for the ratio: the ramp's iterations travel at a lower target, and after
# 200 iterations stats()['ratio'] is under 8x on shufflenet_v2,
# mobilenet_v3_small and resnet50 (docs/results.md)
DEFAULT_SCALE_RAMP = 0
RAMP_FROM = 3.0
# ratio_floor: where the adaptive scaling is on and its target not ramped,
# the run's ratio by the codec's classes is held at this or more
# (InceptionnState.steer). Every run of the defaults measured stayed over
# 8.39x at every logged iteration (docs/results.md), where the floor holds
# the target as it is: it changes nothing there, and keeps 8x on a
# network where the target alone would travel under it
DEFAULT_RATIO_FLOOR = 8.0
# scaling: the policy where the adaptive scaling is on (scaling None,
# "auto", True or "on"). "balanced" gives every parameter of a bucket the
# same precision relative to its own size; "least-error" gives each its own
# headroom, the bucket's squared error least at the target, the bits going
# to the parameters whose values are largest. Each run against DDP's of
# the same seed, least-error's beside balanced's: resnet50 over seeds 1-3
# -0.28 against -0.61, shufflenet_v2 at lr 0.1 seed 1 -0.07 against -0.94,
# resnet18 seed 1 -0.01 against -0.08, but mobilenet_v2 seed 1 -1.71 at
# 7.9x by the codec's classes against +0.49 at 8.9x (its training loss
# 14-20 % above DDP's in the last three epochs, balanced's within 3 %):
# the parameters of small gradients, held back, are what that network
# needs (docs/results.md, "what decided the defaults")
DEFAULT_SCALE_POLICY = "balanced"
# scale_ratio: the scaling's target where the adaptive scaling is on. Damped,
# the buckets travel above their target (8.8-11.5x by the codec's classes at
# 6 on the networks measured); at 6 resnet18 ends 0.10 behind DDP over 3
# seeds, at the library's 8 (INC_SCALE_RATIO_DEFAULT, which inc-train keeps)
# 0.29 (docs/results.md, "what decided the defaults")
DEFAULT_SCALE_RATIO = 6.0
# kernel_ratio: the target of the buckets whose compressed values are mostly
# kernels' (parameters of three or more dimensions: convolutions); "off":
# the run's. "auto": KERNEL_AUTO_RATIO where the kernels hold less than
# KERNEL_AUTO_SHARE of the values of parameters of two or more dimensions
# (alexnet 4.3 %, vgg16 11 %; resnets, MobileNets, shufflenet_v2 over
# 60 %: unchanged). On alexnet under AdamW the compressed kernels disturb
# the run from the warm-up's end: at target 1 it ends 0.42 below DDP at
# 8.9x, with them at the run's target 3.38 below (docs/results.md)
DEFAULT_KERNEL_RATIO = "auto"
KERNEL_AUTO_RATIO = 1.0
KERNEL_AUTO_SHARE = 0.25


def _exempt(kind, p):
    """Whether parameter p travels uncompressed under exempt=kind: vectors
    are the parameters of at most one dimension (biases, norms), kernels
    those of three or more (convolutions)."""
    return p.dim() <= 1 or (kind == "vectors+kernels" and _is_kernel(p))


def kernel_share(params):
    """The kernels' share (parameters of three or more dimensions:
    convolutions') of the values of the parameters of two or more
    dimensions, for a module or an iterable of parameters; None where none
    has two. kernel_ratio="auto" compares it with KERNEL_AUTO_SHARE."""
    if isinstance(params, torch.nn.Module):
        params = params.parameters()
    ps = list(params)
    m = sum(p.numel() for p in ps if p.dim() >= 2)
    return sum(p.numel() for p in ps if _is_kernel(p)) / m if m else None


def kernel_auto_target(params):
    """The target kernel_ratio="auto" gives the buckets mostly of kernels
    for a module or an iterable of parameters: KERNEL_AUTO_RATIO where
    kernel_share() is under KERNEL_AUTO_SHARE, else None (the run's)."""
    share = kernel_share(params)
    return KERNEL_AUTO_RATIO if share is not None and share < KERNEL_AUTO_SHARE else None


def _is_kernel(p):
    """Whether parameter p is a kernel: three or more dimensions (a
    convolution's)."""
    return p.dim() >= 3


def _kernels(params):
    """Whether most of params' values are kernels'."""
    k = sum(p.numel() for p in params if _is_kernel(p))
    return 2 * k > sum(p.numel() for p in params)


def _exponent(e):
    """A parameter's exponent in a state_dict(): one, or one per part
    (scale_part)."""
    return tuple(int(x) for x in e) if isinstance(e, (tuple, list)) else int(e)


def _chunks(a, b, part):
    """The ends of the scaling's parts of a parameter spanning [a, b): one
    part, or (part: the most values a part holds) parts of part values,
    the last the rest."""
    if not part:
        return [b]
    return list(range(a + part, b, part)) + [b]


def _default_warmup(use_scaling, lossy):
    """warmup_iters when not given: INC_WARMUP_ITERS in the lossy modes,
    else DEFAULT_WARMUP_ITERS where the scaling is on, else 0."""
    env = os.environ.get("INC_WARMUP_ITERS")
    if env:
        try:
            n = int(env)
        except ValueError:
            n = -1
        if n < 0:
            raise ValueError("INC_WARMUP_ITERS: a count of iterations >= 0, got %r" % env)
        return n if lossy else 0
    return DEFAULT_WARMUP_ITERS if use_scaling else 0


def _options(compression, error_bound, error_feedback, scaling, scale_ratio, options):
    """Call options: the library's defaults, then INC_* variables, then the
    arguments given here. Returns (opts, settings dict)."""
    o = _lib.opts_from_env()
    warmup = warmup_bound = exempt = floor = step = part = prime = ramp = patience = None
    steer = None
    spread = None
    pace = False
    decay = kernel_ratio = None     # kernel_ratio: None (not given), "off", "auto" or a target
    if compression is not None:
        o.compression = _lib.compression_mode(compression)
    if error_bound is not None:
        if isinstance(error_bound, bool) or not isinstance(error_bound, int) \
                or not 1 <= error_bound <= 126:
            raise ValueError("error_bound: an exponent 1..126 (bound 2^-error_bound), got %r"
                             % (error_bound,))
        o.error_bound = error_bound
    key = error_feedback.lower() if isinstance(error_feedback, str) else error_feedback
    if key not in _EF:
        raise ValueError("error_feedback: None (the library's default), True, False, "
                         "'auto', 'on' or 'off', got %r" % (error_feedback,))
    if _EF[key] is not None:
        o.error_feedback = _EF[key]
    for k, v in options.items():
        if k == "algo":
            if v not in _ALGOS:
                raise ValueError("algo: 'ring' or 'wa', got %r" % (v,))
            o.algo = _ALGOS[v]
        elif k == "sketch_index":
            if v not in _SKETCH_INDEX:
                raise ValueError("sketch_index: 'bitmap' or 'bloom', got %r" % (v,))
            o.sketch_index = _SKETCH_INDEX[v]
        elif k in ("timeout_ms", "segment_bytes", "tos", "seed", "scale_exp"):
            setattr(o, k, int(v))
        elif k == "warmup_iters":
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise ValueError("warmup_iters: the count of first iterations whose buckets "
                                 "travel uncompressed (>= 0), got %r" % (v,))
            warmup = v
        elif k == "warmup_error_bound":
            if v is not None and (isinstance(v, bool) or not isinstance(v, int)
                                  or not 1 <= v <= 126):
                raise ValueError("warmup_error_bound: None (the warm-up travels uncompressed) or "
                                 "the exponent 1..126 of the warm-up's error bound, got %r" % (v,))
            warmup_bound = v
        elif k == "ratio_floor":
            if v is False or (v == 0 and not isinstance(v, bool)):
                v = False       # off
            elif v is not None and (isinstance(v, bool) or not isinstance(v, (int, float))
                                    or not 1 <= v <= _lib.SCALE_RATIO_MAX):
                raise ValueError("ratio_floor: None (DEFAULT_RATIO_FLOOR), 0 or False (none) "
                                 "or the least ratio the ranks' measured classes may travel "
                                 "at, 1..%g, got %r" % (_lib.SCALE_RATIO_MAX, v))
            floor = v
        elif k == "ratio_steer":
            if v is not None and v not in RATIO_STEERS:
                raise ValueError("ratio_steer: None ('step'), 'step' (ratio_floor's target moves "
                                 "by RATIO_STEP while the run's ratio is outside RATIO_LOW.."
                                 "RATIO_HIGH times the floor) or 'plan' (it is planned each "
                                 "check from the last window's ratio), got %r" % (v,))
            steer = v
        elif k == "scale_step":
            if v is not None and (isinstance(v, bool) or not isinstance(v, int)
                                  or not 0 <= v <= 128):
                raise ValueError("scale_step: None (DEFAULT_SCALE_STEP) or the most binades a "
                                 "bucket's scaling exponents move per call, 0..128 (0: any), "
                                 "got %r" % (v,))
            step = v
        elif k == "scale_patience":
            if v is not None and (isinstance(v, bool) or not isinstance(v, int)
                                  or not 0 <= v <= _lib.SCALE_PATIENCE_MAX):
                raise ValueError("scale_patience: None (DEFAULT_SCALE_PATIENCE) or the calls in "
                                 "a row that must ask a bucket's scaling exponent to move the "
                                 "same way before it moves, 0..%d (0, 1: one), got %r"
                                 % (_lib.SCALE_PATIENCE_MAX, v))
            patience = v
        elif k == "scale_spread":
            if v is not None and (isinstance(v, bool) or not isinstance(v, int)
                                  or not 0 <= v <= _lib.SCALE_EMAX):
                raise ValueError("scale_spread: None (no bound) or the most binades a "
                                 "parameter's headroom may exceed the balanced policy's under "
                                 "scaling='least-error', 0..%d, got %r" % (_lib.SCALE_EMAX, v))
            spread = v
        elif k == "exempt":
            if not (v is None or v is False or isinstance(v, str) and v in _EXEMPT):
                raise ValueError("exempt: None (the default: 'vectors' where the adaptive "
                                 "scaling is on, else nothing), 'vectors' (parameters of at "
                                 "most one dimension travel uncompressed), 'vectors+kernels' "
                                 "(and those of three or more: convolutions' kernels), False "
                                 "or 'none' (every parameter through the codec), got %r" % (v,))
            exempt = _EXEMPT[v]
        elif k == "scale_part":
            if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 1):
                raise ValueError("scale_part: None (one scaling part per parameter) or the most "
                                 "values a part of a parameter holds (>= 1), got %r" % (v,))
            part = v
        elif k == "scale_prime":
            if v is not None and not isinstance(v, bool):
                raise ValueError("scale_prime: None (DEFAULT_SCALE_PRIME), True (the scaling "
                                 "starts from the warm-up's last sums) or False (from 0), "
                                 "got %r" % (v,))
            prime = v
        elif k == "scale_ramp":
            if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 0):
                raise ValueError("scale_ramp: None (DEFAULT_SCALE_RAMP) or the compressed "
                                 "iterations over which the scaling's target rises from "
                                 "RAMP_FROM to scale_ratio, >= 0 (0: none), got %r" % (v,))
            ramp = v
        elif k == "pace":
            if not isinstance(v, bool):
                raise ValueError("pace: True (each value error feedback held back reaches DDP "
                                 "spread over as many iterations as it was held back) or False "
                                 "(as delivered), got %r" % (v,))
            pace = v
        elif k == "residual_decay":
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float))
                                  or not 0 <= v <= 1):
                raise ValueError("residual_decay: None (the residual is kept whole) or the "
                                 "factor 0..1 error feedback's residual is multiplied by before "
                                 "each call, got %r" % (v,))
            decay = None if v is None or v == 1 else float(v)
        elif k == "kernel_ratio":
            if v is False:
                v = "off"
            if not (v is None or v in ("off", "auto") or not isinstance(v, (bool, str))
                    and isinstance(v, (int, float)) and 1 <= v <= _lib.SCALE_RATIO_MAX):
                raise ValueError("kernel_ratio: None (DEFAULT_KERNEL_RATIO), False or 'off' "
                                 "(the buckets of kernels at the run's target), 'auto' (at "
                                 "KERNEL_AUTO_RATIO where kernels are under KERNEL_AUTO_SHARE "
                                 "of the values) or the scaling's target 1..%g for the buckets "
                                 "whose compressed values are mostly kernels' (convolutions), "
                                 "got %r" % (_lib.SCALE_RATIO_MAX, v))
            kernel_ratio = float(v) if isinstance(v, (int, float)) else v
        elif k == "sketch_gamma":
            o.sketch_gamma = float(v)
        else:
            raise TypeError("register() got an unexpected option %r (algo, timeout_ms, "
                            "segment_bytes, tos, seed, sketch_index, sketch_gamma, scale_exp, "
                            "warmup_iters, warmup_error_bound, exempt, ratio_floor, ratio_steer, "
                            "scale_step, "
                            "scale_patience, scale_spread, scale_part, scale_prime, scale_ramp, "
                            "pace, "
                            "residual_decay, kernel_ratio)"
                            % k)
    info = {c["mode"]: c for c in _lib.compressions()}
    names = {m: c["name"] for m, c in info.items()}
    applies = info.get(o.compression, {}).get("error_bound", False)
    if scaling not in (None, True, False, "auto", "on", "off") + _lib.SCALE_POLICIES:
        raise ValueError("scaling: None or 'auto' (on in the modes with an error bound), "
                         "True/'on', False/'off', or the policy, %s (the default %r), got %r"
                         % (", ".join(map(repr, _lib.SCALE_POLICIES)), DEFAULT_SCALE_POLICY,
                            scaling))
    if scaling not in (None, False, "auto", "off") and not applies:
        raise ValueError("scaling: the %s mode has no error bound to scale for"
                         % names.get(o.compression))
    policy = scaling if scaling in _lib.SCALE_POLICIES else DEFAULT_SCALE_POLICY
    use_scaling = policy if applies and scaling not in (False, "off") and not o.scale_exp \
        else False
    if scale_ratio is not None:
        if isinstance(scale_ratio, bool) or not isinstance(scale_ratio, (int, float)) \
                or not 1 <= scale_ratio <= _lib.SCALE_RATIO_MAX:
            raise ValueError("scale_ratio: the adaptive scaling's target ratio, 1..%g, got %r"
                             % (_lib.SCALE_RATIO_MAX, scale_ratio))
        if not use_scaling:
            raise ValueError("scale_ratio: the scaling is off (scaling=False, scale_exp, or a "
                             "mode without an error bound)")
    if step and not use_scaling:
        raise ValueError("scale_step: damps the adaptive scaling, which is off (scaling=False, "
                         "scale_exp, or a mode without an error bound)")
    if patience and patience > 1 and not use_scaling:
        raise ValueError("scale_patience: holds the adaptive scaling's exponents, which is off "
                         "(scaling=False, scale_exp, or a mode without an error bound)")
    if spread is not None and use_scaling != "least-error":
        raise ValueError("scale_spread: bounds the least-error policy's choice; the scaling is "
                         "%s" % (use_scaling or "off"))
    if part is not None and not use_scaling:
        raise ValueError("scale_part: parts of the adaptive scaling, which is off "
                         "(scaling=False, scale_exp, or a mode without an error bound)")
    if prime and not use_scaling:
        raise ValueError("scale_prime: primes the adaptive scaling, which is off "
                         "(scaling=False, scale_exp, or a mode without an error bound)")
    if ramp and not use_scaling:
        raise ValueError("scale_ramp: ramps the adaptive scaling's target, which is off "
                         "(scaling=False, scale_exp, or a mode without an error bound)")
    if ramp and floor:
        raise ValueError("scale_ramp and ratio_floor both move the scaling's target: one or "
                         "the other")
    if kernel_ratio not in (None, "off") and not use_scaling:
        raise ValueError("kernel_ratio: a target of the adaptive scaling, which is off "
                         "(scaling=False, scale_exp, or a mode without an error bound)")
    if floor and not use_scaling:
        raise ValueError("ratio_floor: steers the adaptive scaling's target, which is off "
                         "(scaling=False, scale_exp, or a mode without an error bound)")
    if floor is None:   # the default: where the scaling is on and its target not ramped
        ramped = ramp if ramp is not None else DEFAULT_SCALE_RAMP
        floor = DEFAULT_RATIO_FLOOR if use_scaling and not ramped else False
    if steer is not None and not floor:
        raise ValueError("ratio_steer: how ratio_floor steers the target, and there is no floor "
                         "(ratio_floor=0 or False, a ramp, or the scaling off)")
    if warmup is None:
        warmup = _default_warmup(use_scaling, info.get(o.compression, {}).get("lossy", False))
    if exempt is None:
        exempt = DEFAULT_EXEMPT if use_scaling else "none"
    if warmup_bound is not None and not applies:
        raise ValueError("warmup_error_bound: the %s mode has no error bound"
                         % names.get(o.compression))
    if warmup_bound is not None and warmup_bound < o.error_bound:
        raise ValueError("warmup_error_bound: %d is coarser than the run's error bound 2^-%d "
                         "(the warm-up's values are bounded by 2^-warmup_error_bound, the run's "
                         "or finer)" % (warmup_bound, o.error_bound))
    probe = _lib.opts_copy(o)
    probe.residual = 1
    feedback = _lib.error_feedback_active(probe)
    if decay is not None and not feedback:
        raise ValueError("residual_decay: fades error feedback's residual, which is off "
                         "(error_feedback=False, or a lossless mode)")
    if pace and not feedback:
        raise ValueError("pace: spreads out what error feedback held back, which is off "
                         "(error_feedback=False, or a lossless mode)")
    settings = {
        "compression": names.get(o.compression, str(o.compression)),
        "error_bound": o.error_bound,
        "error_feedback": {_lib.EF_AUTO: "auto", _lib.EF_OFF: "off",
                           _lib.EF_ON: "on"}.get(o.error_feedback, str(o.error_feedback)),
        "error_feedback_active": feedback,
        "algo": o.algo, "segment_bytes": o.segment_bytes, "tos": o.tos, "seed": o.seed,
        "sketch_index": o.sketch_index, "sketch_gamma": o.sketch_gamma, "scale_exp": o.scale_exp,
        "scaling": use_scaling,
        "scale_ratio": float(scale_ratio or DEFAULT_SCALE_RATIO) if use_scaling else None,
        "warmup_iters": warmup,
        "warmup_error_bound": warmup_bound,
        "exempt": None if exempt == "none" else exempt,
        "ratio_floor": float(floor) if floor else None,
        "ratio_steer": (steer or "step") if floor else None,
        "scale_step": (DEFAULT_SCALE_STEP if step is None else step) if use_scaling else None,
        "scale_patience": (max(1, DEFAULT_SCALE_PATIENCE if patience is None else patience)
                           if use_scaling else None),
        "scale_part": part if use_scaling else None,
        "scale_spread": spread,
        "scale_prime": (DEFAULT_SCALE_PRIME if prime is None else prime) if use_scaling else None,
        # ratio_floor steers the target itself: no default ramp beside it
        "scale_ramp": (ramp if ramp is not None else 0 if floor else
                       DEFAULT_SCALE_RAMP) if use_scaling else None,
        "pace": pace,
        "residual_decay": decay,
        "kernel_ratio": ((DEFAULT_KERNEL_RATIO if kernel_ratio is None else kernel_ratio)
                         if use_scaling else "off"),
        "library": " ".join(names.values()),
    }
    return o, settings


def _endpoint():
    """Rank 0's offer: where its communicator's master will listen, and the job id."""
    env = os.environ
    addr = env.get("INC_MASTER_ADDR") or env.get("MASTER_ADDR") or socket.gethostname()
    port = int(env["INC_MASTER_PORT"]) if env.get("INC_MASTER_PORT") else _lib.free_port()
    job = env.get("INC_JOB_ID") or "ddp-%016x" % random.SystemRandom().getrandbits(64)
    return {"addr": addr, "port": port, "job": job}


def _bootstrap(group, endpoint, compression):
    """inc_comm_init_env with the process group's rank and size and rank 0's
    endpoint, unless the user set the INC_* variable; the environment is
    restored afterwards."""
    ours = {"INC_RANK": str(dist.get_rank(group)), "INC_WORLD_SIZE": str(dist.get_world_size(group)),
            "INC_MASTER_ADDR": endpoint["addr"], "INC_MASTER_PORT": str(endpoint["port"]),
            "INC_JOB_ID": endpoint["job"],
            "INC_COMPRESSION": compression}    # the ToS the data sockets are created with
    saved = {k: os.environ.get(k) for k in _BOOT_VARS}
    try:
        for k, v in ours.items():
            if k == "INC_COMPRESSION" or not saved[k]:
                os.environ[k] = v
        return _lib.Comm()
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def register(ddp, compression=None, error_bound=None, error_feedback=None, scaling=None,
             scale_ratio=None, **options):
    """Register the inceptionn hook on a DistributedDataParallel model.

    compression: a name of the library's compression table (the names
      compressions() lists); None: INC_COMPRESSION, else "none".
    error_bound: exponent of the bound 2^-error_bound (1..126); None:
      INC_ERROR_BOUND, else 10.
    error_feedback: None follows the library (INC_ERROR_FEEDBACK, else auto:
      on for the lossy INCEPTIONN modes), True/"on", False/"off", "auto".
    scaling: None/"auto": adaptive scaling in the modes with an error bound
      (per bucket, one exponent per parameter, from the previous sum) with
      DEFAULT_SCALE_POLICY, "least-error": each parameter its own headroom,
      the bucket's squared error least at the ratio (the bits go to the
      parameters whose values are largest); "balanced": one headroom for
      the bucket, every parameter the same precision relative to its own
      size; "each": each parameter on its own at the ratio, never scaled
      down; False/"off": none; True/"on": required (an error for other
      modes), with DEFAULT_SCALE_POLICY.
    scale_ratio: the scaling's target compression ratio (1..12; None:
      DEFAULT_SCALE_RATIO, 6, below the library's INC_SCALE_RATIO_DEFAULT of
      8: the damped scaling travels above its target).
    options: algo ("ring"/"wa"), timeout_ms, segment_bytes, tos, seed,
      sketch_index ("bitmap"/"bloom"), sketch_gamma, scale_exp (values travel
      multiplied by 2^scale_exp, the same for every bucket; turns the
      adaptive scaling off), warmup_iters (the first warmup_iters iterations'
      buckets travel through the process group, uncompressed; by default
      INC_WARMUP_ITERS in the lossy modes, else DEFAULT_WARMUP_ITERS (50)
      where the adaptive scaling is on, else 0), warmup_error_bound (None:
      the warm-up is uncompressed; E >= error_bound: the warm-up's buckets go
      through the codec without feedback or adaptive scaling, their values
      bounded by 2^-E: multiplied by 2^(E - error_bound), so the NIC's bound
      is unchanged in nic mode), ratio_floor (R: every
      RATIO_CHECK_ITERS iterations the ranks sum the codec classes they
      have sent since the state began, and while that ratio is under
      RATIO_LOW times R the scaling's target rises, up to the library's
      largest; it falls back towards scale_ratio once the ratio is over
      RATIO_HIGH times R; 0 or False: none; None: DEFAULT_RATIO_FLOOR (8)
      where the adaptive scaling is on and scale_ramp is not, else none),
      ratio_steer (how ratio_floor moves the target: "step" or None, as
      above; "plan": at each check the target is scaled by the last
      window's bits a value over those that bring the run's ratio to
      RATIO_LOW times R over the next PLAN_ITERS iterations, by at most
      RATIO_STEP, not below scale_ratio),
      scale_step (the most binades a bucket's scaling exponents move from
      one call to the next,
      inc_scale_set_step; 0: any; None: DEFAULT_SCALE_STEP (1) where the
      adaptive scaling is on), scale_patience (the calls in a row that must
      ask a bucket's exponent to move the same way before it moves,
      inc_scale_set_patience; None: DEFAULT_SCALE_PATIENCE, 1: at once),
      scale_spread (with scaling="least-error": no parameter's headroom
      more than this many binades above the balanced policy's,
      inc_scale_set_spread; None: no bound), scale_part (None: one scaling
      exponent per
      parameter; P: a parameter's values in parts of at most P, each with
      its own exponent), scale_prime (True: each bucket's scaling state
      starts from the last warm-up iteration's sum, inc_scale_prime,
      instead of exponent 0; None: DEFAULT_SCALE_PRIME, True; False: from
      exponent 0), scale_ramp
      (N: over the first N compressed iterations the scaling's target
      rises linearly from RAMP_FROM (3) to scale_ratio; None:
      DEFAULT_SCALE_RAMP, 0: none), exempt
      ("vectors": parameters of at
      most one dimension, biases and norms, travel through the process group
      uncompressed; "vectors+kernels": those and the parameters of three or
      more dimensions, convolutions' kernels; False/"none": every parameter
      through the codec; None: DEFAULT_EXEMPT ("vectors") where the adaptive
      scaling is on, else "none"), kernel_ratio (R: the scaling's target
      for the buckets whose compressed values are mostly kernels'; "auto":
      KERNEL_AUTO_RATIO where kernels hold under KERNEL_AUTO_SHARE of the
      values of parameters of two or more dimensions, else as "off";
      False/"off": the run's target; None: DEFAULT_KERNEL_RATIO), pace
      (True: each value error feedback held back for k iterations reaches
      DDP spread over the next k instead of at once, see _Pace; measured no
      better on alexnet with AdamW, docs/pytorch.md; False, the default: as
      delivered), residual_decay (None: the residual
      kept whole; F in 0..1: multiplied by F before each call, so what is
      held back fades; 0 is error_feedback=False).

    Collective over DDP's process group. Returns the InceptionnState.
    DDP takes one hook: to register the state yourself, use
    InceptionnState.create() and ddp.register_comm_hook(state, inceptionn_hook).
    """
    group = getattr(ddp, "process_group", None)
    state = _create(group, compression, error_bound, error_feedback, scaling, scale_ratio, options)
    state._model_params = [p for p in ddp.parameters() if p.requires_grad]
    ddp.register_comm_hook(state, inceptionn_hook)
    return state


def _create(group, compression, error_bound, error_feedback, scaling, scale_ratio, options):
    group = group or dist.group.WORLD
    opts, settings = _options(compression, error_bound, error_feedback, scaling, scale_ratio,
                              options)
    rank, size = dist.get_rank(group), dist.get_world_size(group)
    # the INC_* environment against the process group, on every rank, so
    # that a contradiction fails every rank at once, naming both values
    problem = _launch.launch_problem(rank, size)
    mine = {"settings": settings, "problem": problem,
            "endpoint": _endpoint() if rank == 0 and problem is None else None}
    every = [None] * size
    dist.all_gather_object(every, mine, group=group)
    bad = [(r, e["problem"]) for r, e in enumerate(every) if e["problem"]]
    if bad:
        raise _launch.LaunchError("inceptionn.torch: %s" % "; ".join(
            "rank %d: %s" % (r, msg) for r, msg in bad))
    differ = [r for r in range(size) if every[r]["settings"] != every[0]["settings"]]
    if differ:
        keys = sorted(k for k in settings
                      if any(every[r]["settings"][k] != settings[k] for r in range(size)))
        raise ValueError("inceptionn.torch: the ranks were given different settings (%s): %s"
                         % (", ".join(keys),
                            "; ".join("rank %d %s" % (r, ", ".join("%s=%r" % (k, every[r]["settings"][k])
                                                                    for k in keys))
                                      for r in range(size))))
    comm = _bootstrap(group, every[0]["endpoint"], settings["compression"])
    if comm.size != size:
        n = comm.size
        comm.destroy()
        raise ValueError("inceptionn.torch: the communicator has %d ranks, the process "
                         "group %d (INC_WORLD_SIZE?)" % (n, size))
    return InceptionnState(comm, opts, group, settings)
