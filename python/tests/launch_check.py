#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""launch_check.py - suite python-launch: inceptionn._launch.check_env
refuses an INC_* environment that contradicts the process group (rank,
size, a master port in use or equal to torchrun's own), naming both values,
and accepts one that agrees. No torch, no network beyond a listener on
127.0.0.1 that the test opens itself. Last line "N passed, N failed".
"""
import os
import socket
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from inceptionn import InceptionnError               # noqa: E402
from inceptionn._launch import check_env, launch_problem, LaunchError  # noqa: E402

passed = failed = 0


def report(cond, what):
    global passed, failed
    if cond:
        passed += 1
        print("ok   " + what)
    else:
        failed += 1
        print("FAIL " + what)


def refused(what, rank, size, env, *needles):
    try:
        check_env(rank, size, env)
    except LaunchError as e:
        text = str(e)
        report(isinstance(e, InceptionnError) and e.code == -33 and
               all(n in text for n in needles), "%s: %s" % (what, text))
        return
    report(False, "%s: accepted" % what)


def accepted(what, rank, size, env):
    try:
        check_env(rank, size, env)
        report(launch_problem(rank, size, env) is None, what)
    except LaunchError as e:
        report(False, "%s: %s" % (what, e))


refused("INC_WORLD_SIZE=3 in a 2-process group", 0, 2, {"INC_WORLD_SIZE": "3"},
        "INC_WORLD_SIZE=3", "size 2")
refused("INC_RANK=0 on rank 1", 1, 2, {"INC_RANK": "0"}, "INC_RANK=0", "rank 1")
refused("INC_RANK=x", 0, 2, {"INC_RANK": "x"}, "INC_RANK='x'", "rank 0")
refused("INC_WORLD_SIZE=-2", 0, 2, {"INC_WORLD_SIZE": "-2"}, "INC_WORLD_SIZE='-2'")
refused("INC_MASTER_PORT equal to MASTER_PORT", 1, 2,
        {"INC_MASTER_PORT": "29500", "MASTER_PORT": "29500"},
        "INC_MASTER_PORT=29500", "MASTER_PORT=29500")
refused("INC_MASTER_PORT=70000", 0, 2, {"INC_MASTER_PORT": "70000"}, "INC_MASTER_PORT='70000'")

lst = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
lst.bind(("127.0.0.1", 0))
lst.listen(1)
busy = lst.getsockname()[1]
env = {"INC_MASTER_ADDR": "127.0.0.1", "INC_MASTER_PORT": str(busy)}
refused("INC_MASTER_PORT in use, on rank 0", 0, 2, env, "INC_MASTER_PORT=%d" % busy,
        "port %d is in use" % busy)
accepted("the same on rank 1 (it does not listen there)", 1, 2, env)
lst.close()
accepted("the port once free", 0, 2, env)

accepted("nothing set", 1, 3, {})
accepted("INC_RANK and INC_WORLD_SIZE that agree", 2, 3, {"INC_RANK": "2", "INC_WORLD_SIZE": "3"})
accepted("0x spellings that agree", 2, 3, {"INC_RANK": "0x2", "INC_WORLD_SIZE": "0x3"})
accepted("empty variables count as unset", 1, 2, {"INC_RANK": "", "INC_WORLD_SIZE": ""})
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
