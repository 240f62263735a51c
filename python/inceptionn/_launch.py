# SPDX-License-Identifier: MIT
"""What the launcher says against what the process group knows.

A script under torchrun already has a process group whose rank and size are
the truth. INC_RANK, INC_WORLD_SIZE or INC_MASTER_PORT left in the
environment (by hand, by a wrapper script, copied from another job) that
contradict it would otherwise make the library wait for ranks that never
come (INC_WORLD_SIZE=3 in a 2-process job: a connection timeout after the
whole timeout), start two masters (INC_RANK=0 everywhere: "socket system
call failed"), or listen on a port torchrun already holds. These checks run
before the hook's communicator is made and refuse at once, naming both
values.

  launch_problem(pg_rank, pg_size, environ=None) -> str or None
      the first contradiction as one line, or None; no exception, so a
      caller can share the answer over the process group and fail every
      rank alike;
  check_env(pg_rank, pg_size, environ=None)
      raises LaunchError (an InceptionnError, code INC_E_ENV) with that line.

Numbers are read by the library's rule for every INC_* variable: decimal
digits, or 0x and hex digits (docs/userlib.md).
"""
import errno
import os
import socket

from ._lib import InceptionnError

INC_E_ENV = -33


class LaunchError(InceptionnError):
    """The environment contradicts the launcher; .code is INC_E_ENV."""

    def __init__(self, message):
        self.code = INC_E_ENV
        RuntimeError.__init__(self, "%s (INC_E_ENV, %d)" % (message, INC_E_ENV))


def _number(text):
    """The library's rule: decimal, or 0x hex; no sign, no spaces. None if not."""
    t = text
    base = 10
    if t[:2] in ("0x", "0X"):
        t, base = t[2:], 16
    digits = "0123456789abcdefABCDEF" if base == 16 else "0123456789"
    if not t or any(c not in digits for c in t):
        return None
    return int(t, base)


def _get(env, name):
    v = env.get(name)
    return v if v else None          # empty counts as unset, as in the library


def _port_in_use(addr, port):
    """True when a listener already holds addr:port on this host (the bind the
    library's master would make fails with EADDRINUSE); False when the port
    is free or the address is not this host's."""
    try:
        infos = socket.getaddrinfo(addr, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return False
    for family, kind, proto, _, sa in infos:
        s = socket.socket(family, kind, proto)
        try:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind(sa)
        except OSError as e:
            if e.errno == errno.EADDRINUSE:
                return True
        finally:
            s.close()
    return False


def launch_problem(pg_rank, pg_size, environ=None):
    """The first way the INC_* environment contradicts a process group of
    size pg_size in which this process is rank pg_rank, as one line; None
    when there is none."""
    env = os.environ if environ is None else environ
    rank_s = _get(env, "INC_RANK")
    size_s = _get(env, "INC_WORLD_SIZE")
    port_s = _get(env, "INC_MASTER_PORT")
    if size_s is not None:
        size = _number(size_s)
        if size is None:
            return ("INC_WORLD_SIZE=%r is not a number (decimal, or 0x hex); the process "
                    "group has %d processes" % (size_s, pg_size))
        if size != pg_size:
            return ("INC_WORLD_SIZE=%s contradicts the process group's size %d (unset "
                    "INC_WORLD_SIZE: the hook takes the group's)" % (size_s, pg_size))
    if rank_s is not None:
        rank = _number(rank_s)
        if rank is None:
            return ("INC_RANK=%r is not a number (decimal, or 0x hex); this process is rank "
                    "%d of the process group" % (rank_s, pg_rank))
        if rank != pg_rank:
            return ("INC_RANK=%s contradicts this process's rank %d in the process group "
                    "(unset INC_RANK: the hook takes the group's)" % (rank_s, pg_rank))
    if port_s is not None:
        port = _number(port_s)
        if port is None or not 1 <= port <= 65535:
            return "INC_MASTER_PORT=%r is not a port 1..65535" % port_s
        tport = _get(env, "MASTER_PORT")
        if tport is not None and _number(tport) == port:
            return ("INC_MASTER_PORT=%s is the launcher's own MASTER_PORT=%s (torchrun's "
                    "rendezvous holds it); pick another port or unset INC_MASTER_PORT"
                    % (port_s, tport))
        addr = _get(env, "INC_MASTER_ADDR") or _get(env, "MASTER_ADDR") or "0.0.0.0"
        if pg_rank == 0 and _port_in_use(addr, port):
            return ("INC_MASTER_PORT=%s: port %d is in use on %s (rank 0's master cannot "
                    "listen there); pick another port or unset INC_MASTER_PORT"
                    % (port_s, port, addr))
    return None


def check_env(pg_rank, pg_size, environ=None):
    """Raise LaunchError when the INC_* environment contradicts the process
    group (launch_problem's line); return None otherwise."""
    msg = launch_problem(pg_rank, pg_size, environ)
    if msg is not None:
        raise LaunchError(msg)
