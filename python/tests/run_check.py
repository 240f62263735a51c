#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""run_check.py MODE - one rank of the launcher's test, started by
`python3 -m inceptionn.run -n N python/tests/run_check.py MODE`
(python/tests/python-tests.sh, section "python3 -m inceptionn.run").

  ddp   torch's environment is set (RANK, LOCAL_RANK, WORLD_SIZE,
        MASTER_ADDR 127.0.0.1, MASTER_PORT, INC_JOB_ID), init_process_group
        works as under torchrun, and DDP with the inceptionn hook (software
        mode) trains 3 steps to the same weights on every rank;
  fail  rank 1 exits with status 3 at once while the others wait in a
        barrier that only the launcher can end;
  exit  3 DDP steps through the hook with its defaults (a bucket split
        between the library and the process group), then
        destroy_process_group() and the end, without close(): the process
        must exit 0, not abort (the launcher's status says). After the
        first step a forked child exits as a script does (sys.exit, atexit
        handlers run): it must leave the parent's state alone.
Prints "ok ..." / "FAIL ..." lines.
"""
import os
import sys

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

import inceptionn.torch as inct


def report(cond, what):
    # the ranks share one output: each line leaves in one write(), so that
    # lines of different ranks never run into each other (print() wrote the
    # text and its newline apart, and two ranks' lines once became one)
    sys.stdout.flush()
    os.write(sys.stdout.fileno(), ("%s rank %s: %s\n" % ("ok  " if cond else "FAIL",
                                                        os.environ.get("RANK", "?"), what)).encode())


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "ddp"
    env = os.environ
    if mode == "fail":
        if env["RANK"] == "1":
            sys.exit(3)
        dist.init_process_group("gloo")
        dist.barrier()          # rank 1 never arrives
        report(False, "the barrier returned without rank 1")
        return
    if mode == "exit":
        dist.init_process_group("gloo")
        torch.manual_seed(1)
        model = nn.Sequential(nn.Linear(5000, 400), nn.ReLU(), nn.Linear(400, 10))
        ddp = DDP(model)
        inct.register(ddp, compression="software", warmup_iters=0)
        for i in range(3):
            nn.functional.cross_entropy(ddp(torch.randn(8, 5000)), torch.randint(0, 10, (8,))).backward()
            if i == 0:
                pid = os.fork()
                if pid == 0:
                    sys.exit(0)
                os.waitpid(pid, 0)
        dist.destroy_process_group()
        return
    n = int(env.get("WORLD_SIZE", "0"))
    r = int(env.get("RANK", "-1"))
    report(0 <= r < n and env.get("LOCAL_RANK") == str(r) and env.get("LOCAL_WORLD_SIZE") == str(n)
           and env.get("MASTER_ADDR") == "127.0.0.1" and env.get("MASTER_PORT", "").isdigit()
           and env.get("INC_JOB_ID", "").startswith("run-"),
           "environment: RANK %s of WORLD_SIZE %s, MASTER %s:%s, INC_JOB_ID %s" %
           (env.get("RANK"), env.get("WORLD_SIZE"), env.get("MASTER_ADDR"), env.get("MASTER_PORT"),
            env.get("INC_JOB_ID")))
    dist.init_process_group("gloo")
    report(dist.get_rank() == r and dist.get_world_size() == n, "init_process_group(\"gloo\")")
    torch.manual_seed(1)
    model = nn.Sequential(nn.Linear(64, 300), nn.ReLU(), nn.Linear(300, 10))
    ddp = DDP(model)
    inct.register(ddp, compression="software")
    opt = torch.optim.SGD(ddp.parameters(), lr=0.1)
    g = torch.Generator().manual_seed(100 + r)
    for _ in range(3):
        x = torch.randn(16, 64, generator=g)
        y = torch.randint(0, 10, (16,), generator=g)
        opt.zero_grad()
        nn.functional.cross_entropy(ddp(x), y).backward()
        opt.step()
    flat = torch.cat([p.detach().reshape(-1) for p in model.parameters()])
    all_ = [torch.empty_like(flat) for _ in range(n)]
    dist.all_gather(all_, flat)
    report(all(torch.equal(all_[0], t) for t in all_), "3 DDP steps through the hook (software): the same weights on every rank")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
