# SPDX-License-Identifier: MIT
"""python3 -m inceptionn.run - start N local ranks of a PyTorch DDP script,
as `torchrun --nproc_per_node N` does, without torchrun.

    python3 -m inceptionn.run [-n N] [-p PORT] [-k] SCRIPT.py [ARGS...]
    python3 -m inceptionn.run [-n N] [-p PORT] [-k] -- PROGRAM [ARGS...]

Each rank gets torch's environment: RANK and LOCAL_RANK (0..N-1),
WORLD_SIZE and LOCAL_WORLD_SIZE (N), MASTER_ADDR 127.0.0.1 and MASTER_PORT
(PORT, or a free port outside the ephemeral range), so the script's
init_process_group() works unchanged; and INC_JOB_ID, a fresh "run-<16 hex
digits>" unless the caller set one, which the hook's communicator uses as
its job id (a stale rank of an earlier launch is refused). Other INC_*
variables pass through to every rank. A SCRIPT.py runs with this
interpreter (sys.executable); after `--` any program runs.

Debian 12's torchrun (torch 1.13 on Python 3.11) stops at start unless it
is given --redirects and --tee of 1 or 2 (docs/pytorch.md, "Launching");
this launcher needs neither and does not import torch.
torchrun_command() gives the torchrun command line that does start there,
for scripts that launch torchrun itself (experiments/).

Exit status: 0 when every rank exits 0; otherwise the status of the first
rank that failed (128 + signal if it was killed). When a rank fails, the
others get SIGTERM, then SIGKILL after 5 s, unless -k (keep going). Ctrl-C
(SIGINT) and SIGTERM are passed on to every rank.
"""
import argparse
import os
import random
import signal
import subprocess
import sys
import time

from ._lib import free_port    # inc_free_port: a port outside the ephemeral range

GRACE_S = 5.0


def rank_env(base, rank, n, addr, port, job):
    env = dict(base)
    env.update({"RANK": str(rank), "LOCAL_RANK": str(rank),
                "WORLD_SIZE": str(n), "LOCAL_WORLD_SIZE": str(n),
                "GROUP_RANK": "0", "MASTER_ADDR": addr, "MASTER_PORT": str(port),
                "INC_JOB_ID": job})
    return env


def torchrun_command(nproc, argv, log_dir=None, port=None):
    """/usr/bin/torchrun's command line for NPROC local ranks of ARGV (a
    script and its arguments): --redirects and --tee 2, without which
    Debian 12's torchrun stops at start; --log_dir LOG_DIR where given
    (None: a temporary directory of torchrun's); the master on 127.0.0.1
    at PORT (None: a free port outside the ephemeral range,
    inc_free_port)."""
    if not 1 <= nproc <= 1024:
        raise ValueError("nproc: 1..1024 ranks, not %r" % (nproc,))
    cmd = ["/usr/bin/torchrun", "--redirects", "2", "--tee", "2"]
    if log_dir is not None:
        cmd += ["--log_dir", str(log_dir)]
    cmd += ["--nproc_per_node", str(nproc), "--master_addr", "127.0.0.1",
            "--master_port", str(port or free_port())]
    return cmd + [str(x) for x in argv]


def _status(rc):
    return 128 - rc if rc < 0 else rc


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="python3 -m inceptionn.run",
        description="Start N local ranks of a PyTorch DDP script with torch's "
                    "environment (RANK, WORLD_SIZE, MASTER_ADDR 127.0.0.1, ...).")
    ap.add_argument("-n", "--nproc", type=int, default=2, metavar="N",
                    help="number of ranks (default 2)")
    ap.add_argument("-p", "--master-port", type=int, default=0, metavar="PORT",
                    help="MASTER_PORT (default: a free port)")
    ap.add_argument("-k", "--keep-going", action="store_true",
                    help="do not stop the other ranks when one fails")
    ap.add_argument("command", nargs=argparse.REMAINDER,
                    help="SCRIPT.py [ARGS...], or -- PROGRAM [ARGS...]")
    a = ap.parse_args(argv)
    cmd = a.command
    if cmd and cmd[0] == "--":
        cmd = cmd[1:]
    elif cmd:
        cmd = [sys.executable] + cmd
    if not cmd:
        ap.error("no script given")
    if not 1 <= a.nproc <= 1024:
        ap.error("-n: 1..1024 ranks")
    if not 0 <= a.master_port <= 65535:
        ap.error("-p: a port 1..65535")
    if cmd[0] == sys.executable and len(cmd) > 1 and not os.path.exists(cmd[1]):
        ap.error("%s: no such file" % cmd[1])

    addr = "127.0.0.1"
    port = a.master_port or free_port()
    job = os.environ.get("INC_JOB_ID") or "run-%016x" % random.SystemRandom().getrandbits(64)
    procs = []
    try:
        for r in range(a.nproc):
            procs.append(subprocess.Popen(cmd, env=rank_env(os.environ, r, a.nproc, addr, port, job)))
    except OSError as e:
        for p in procs:
            p.kill()
        print("inceptionn.run: cannot start %s: %s" % (cmd[0], e.strerror or e), file=sys.stderr)
        return 127

    def forward(sig, _frame):
        for p in procs:
            if p.poll() is None:
                p.send_signal(sig)
    old = {s: signal.signal(s, forward) for s in (signal.SIGINT, signal.SIGTERM)}

    first = None            # (rank, status) of the first rank that failed
    stop_at = None          # when the survivors get SIGKILL
    try:
        while any(p.returncode is None for p in procs):
            for r, p in enumerate(procs):
                if p.returncode is None and p.poll() is not None and p.returncode != 0 and first is None:
                    first = (r, _status(p.returncode))
                    if not a.keep_going:
                        for q in procs:
                            if q.poll() is None:
                                q.terminate()
                        stop_at = time.monotonic() + GRACE_S
            if stop_at is not None and time.monotonic() >= stop_at:
                for q in procs:
                    if q.poll() is None:
                        q.kill()
                stop_at = None
            time.sleep(0.05)
    finally:
        for s, h in old.items():
            signal.signal(s, h)
    if first is None:
        return 0
    print("inceptionn.run: rank %d failed (exit status %d)" % first, file=sys.stderr)
    return first[1]


if __name__ == "__main__":
    sys.exit(main())
