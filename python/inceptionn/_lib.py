# SPDX-License-Identifier: MIT
"""The C library, declared once.

This is the only module of the package that uses ctypes. It loads
libinceptionn.so, declares argtypes/restype for every function the package
calls, checks every return code and raises InceptionnError with
inc_strerror's text. Everything above it (inceptionn.torch) works with
plain Python values, integer addresses of buffers and the small classes
below.

Where the library comes from, first match wins:
  1. INC_LIBRARY=/path/libinceptionn.so
  2. the path `make install` recorded in inceptionn/_config.py
  3. the build tree this package sits in (python/../build/lib)
  4. the dynamic linker's search path (libinceptionn.so.0)
"""
import ctypes
import os

from . import _config


class InceptionnError(RuntimeError):
    """A libinceptionn call failed; .code is the library's negative code."""

    def __init__(self, code, what=""):
        self.code = code
        text = strerror(code) if _lib is not None else "error %d" % code
        super().__init__("%s%s (%d)" % (what + ": " if what else "", text, code))


# ---------------------------------------------------------------- loading
def _candidates():
    env = os.environ.get("INC_LIBRARY")
    if env:
        return [env], True
    out = []
    if _config.LIBRARY:
        out.append(_config.LIBRARY)
    here = os.path.dirname(os.path.abspath(__file__))
    out.append(os.path.join(here, "..", "..", "build", "lib", "libinceptionn.so"))
    out.append("libinceptionn.so.0")
    return out, False


def _load():
    paths, from_env = _candidates()
    errors = []
    for p in paths:
        if os.sep in p and not os.path.exists(p):
            errors.append("%s: no such file" % os.path.normpath(p))
            continue
        try:
            return ctypes.CDLL(p)
        except OSError as e:
            errors.append(str(e))
    raise ImportError(
        "inceptionn: cannot load libinceptionn (%s); %s" %
        ("; ".join(errors),
         "set INC_LIBRARY=/path/libinceptionn.so to the library" if from_env else
         "build it with `make` or install it with `make install`, or point at it with "
         "INC_LIBRARY=/path/libinceptionn.so"))


_lib = None
_lib = _load()

# ---------------------------------------------------------------- types
c_int, c_uint, c_size_t, c_void_p = ctypes.c_int, ctypes.c_uint, ctypes.c_size_t, ctypes.c_void_p
c_char_p, c_uint8, c_uint64, c_double = ctypes.c_char_p, ctypes.c_uint8, ctypes.c_uint64, ctypes.c_double

EF_AUTO, EF_OFF, EF_ON = 0, 1, 2          # enum inc_error_feedback
ALGO_RING, ALGO_WA = 0, 1                 # enum inc_algo


class CompressionInfo(ctypes.Structure):
    """struct inc_compression_info"""
    _fields_ = [("mode", c_int), ("name", c_char_p), ("label", c_char_p), ("summary", c_char_p),
                ("lossy", c_uint8), ("summable", c_uint8), ("tagged", c_uint8),
                ("whole_call", c_uint8), ("error_bound", c_uint8), ("error_feedback", c_uint8)]


class AllreduceOpts(ctypes.Structure):
    """struct inc_allreduce_opts (residual as an address)"""
    _fields_ = [("compression", c_int), ("algo", c_int), ("error_bound", c_uint),
                ("timeout_ms", c_int), ("segment_bytes", c_size_t), ("tos", c_uint8),
                ("seed", c_uint64), ("sketch_index", c_uint), ("sketch_gamma", c_double),
                ("error_feedback", c_int), ("residual", c_void_p), ("scale_exp", c_int),
                ("scale", c_void_p)]


class CommStats(ctypes.Structure):
    """struct inc_comm_stats"""
    _fields_ = [("bytes_sent", c_uint64), ("bytes_received", c_uint64), ("calls", c_uint64),
                ("send_mss", c_uint), ("sum_ns", c_uint64), ("codec_ns", c_uint64),
                ("sketch_values", c_uint64), ("sketch_candidates", c_uint64),
                ("sketch_peeled", c_uint64), ("sketch_estimated", c_uint64),
                ("sketch_retries", c_uint64), ("values_sent", c_uint64),
                ("class_values", c_uint64 * 4)]


def _declare(name, restype, argtypes):
    f = getattr(_lib, name)
    f.restype = restype
    f.argtypes = argtypes
    return f


_strerror = _declare("inc_strerror", c_char_p, [c_int])
_free_port = _declare("inc_free_port", c_int, [])
_comm_init_env = _declare("inc_comm_init_env", c_int, [ctypes.POINTER(c_void_p)])
_comm_destroy = _declare("inc_comm_destroy", None, [c_void_p])
_comm_rank = _declare("inc_comm_rank", c_int, [c_void_p])
_comm_size = _declare("inc_comm_size", c_int, [c_void_p])
_comm_stats = _declare("inc_comm_stats", c_int, [c_void_p, ctypes.POINTER(CommStats)])
_compression_info = _declare("inc_compression_info", ctypes.POINTER(CompressionInfo), [c_int])
_compression_parse = _declare("inc_compression_parse", c_int, [c_char_p, ctypes.POINTER(c_int)])
_opts_init = _declare("inc_allreduce_opts_init", c_int, [ctypes.POINTER(AllreduceOpts)])
_ef_active = _declare("inc_error_feedback_active", c_int, [ctypes.POINTER(AllreduceOpts)])
_allreduce = _declare("inc_allreduce_f32", c_int,
                      [c_void_p, c_void_p, c_size_t, ctypes.POINTER(AllreduceOpts)])
_iallreduce = _declare("inc_iallreduce_f32", c_int,
                       [c_void_p, c_void_p, c_size_t, ctypes.POINTER(AllreduceOpts),
                        ctypes.POINTER(c_void_p)])
_wait = _declare("inc_wait", c_int, [c_void_p])
_codec_name = _declare("inc_codec_name", c_char_p, [])
_scale_create = _declare("inc_scale_create", c_int,
                         [ctypes.POINTER(c_void_p), c_size_t, ctypes.POINTER(c_size_t), c_double])
_scale_create_each = _declare("inc_scale_create_each", c_int,
                              [ctypes.POINTER(c_void_p), c_size_t, ctypes.POINTER(c_size_t),
                               c_double])
_scale_create_least_error = _declare("inc_scale_create_least_error", c_int,
                                     [ctypes.POINTER(c_void_p), c_size_t,
                                      ctypes.POINTER(c_size_t), c_double])
# the scaling policies by name, balanced (the default) first
_SCALE_CREATE = {"balanced": _scale_create, "least-error": _scale_create_least_error,
                 "each": _scale_create_each}
SCALE_POLICIES = tuple(_SCALE_CREATE)
_scale_destroy = _declare("inc_scale_destroy", None, [c_void_p])
_scale_parts = _declare("inc_scale_parts", c_size_t, [c_void_p])
_scale_get = _declare("inc_scale_get", c_int, [c_void_p, ctypes.POINTER(c_int), c_size_t])
_scale_set = _declare("inc_scale_set", c_int, [c_void_p, ctypes.POINTER(c_int), c_size_t])
_scale_set_ratio = _declare("inc_scale_set_ratio", c_int, [c_void_p, c_double])
_scale_set_step = _declare("inc_scale_set_step", c_int, [c_void_p, c_int])
_scale_set_patience = _declare("inc_scale_set_patience", c_int, [c_void_p, c_int])
_scale_set_spread = _declare("inc_scale_set_spread", c_int, [c_void_p, c_int])
_scale_get_runs = _declare("inc_scale_get_runs", c_int,
                           [c_void_p, ctypes.POINTER(c_int), c_size_t])
_scale_set_runs = _declare("inc_scale_set_runs", c_int,
                           [c_void_p, ctypes.POINTER(c_int), c_size_t])
_scale_prime = _declare("inc_scale_prime", c_int, [c_void_p, c_void_p, c_size_t, c_uint, c_int])
SCALE_RATIO_MAX = 12.0                   # INC_SCALE_RATIO_MAX
SCALE_PATIENCE_MAX = 64                  # INC_SCALE_PATIENCE_MAX
SCALE_EMAX = 40                          # INC_SCALE_EMAX


def strerror(code):
    """inc_strerror's text for a code."""
    return _strerror(code).decode()


def check(rc, what=""):
    """rc if it is not negative, else InceptionnError."""
    if rc < 0:
        raise InceptionnError(rc, what)
    return rc


# ---------------------------------------------------------------- table
def compressions():
    """The library's compression table, in enum order: a list of dicts."""
    out = []
    i = 0
    while True:
        p = _compression_info(i)
        if not p:
            return out
        e = p.contents
        out.append({"mode": e.mode, "name": e.name.decode(), "label": e.label.decode(),
                    "summary": e.summary.decode(), "lossy": bool(e.lossy),
                    "summable": bool(e.summable), "tagged": bool(e.tagged),
                    "whole_call": bool(e.whole_call), "error_bound": bool(e.error_bound),
                    "error_feedback": bool(e.error_feedback)})
        i += 1


def compression_mode(name):
    """The enum value of a compression name; ValueError naming the choices."""
    mode = c_int()
    if _compression_parse(name.encode(), ctypes.byref(mode)) < 0:
        raise ValueError("unknown compression %r (the library has: %s)" %
                         (name, ", ".join(c["name"] for c in compressions())))
    return mode.value


def free_port():
    """inc_free_port(): a port for a master outside the ephemeral range."""
    return check(_free_port(), "inc_free_port")


def codec_name():
    return _codec_name().decode()


# ---------------------------------------------------------------- options
def opts_from_env():
    """inc_allreduce_opts_init(): defaults overridden by INC_* variables."""
    o = AllreduceOpts()
    check(_opts_init(ctypes.byref(o)), "inc_allreduce_opts_init (an INC_* variable)")
    return o


def opts_copy(o):
    c = AllreduceOpts()
    ctypes.pointer(c)[0] = o
    return c


def error_feedback_active(o):
    return bool(_ef_active(ctypes.byref(o)))


# ---------------------------------------------------------------- adaptive scaling
class Scale:
    """An inc_scale state: one exponent per part of a call site (a bucket),
    parts ending at ends (the last one the call's count), target ratio
    (0: the library's default), policy "balanced" (inc_scale_create),
    "least-error" (inc_scale_create_least_error) or "each"
    (inc_scale_create_each), step: the most an exponent moves per
    call (inc_scale_set_step; 0: any), patience: the calls in a row that
    must ask an exponent to move (inc_scale_set_patience; 0, 1: one),
    spread: least-error's bound, the most binades a part's headroom
    exceeds balanced's (inc_scale_set_spread; None: none)."""

    def __init__(self, ends, ratio=0.0, policy="balanced", step=0, patience=0, spread=None):
        p = c_void_p()
        arr = (c_size_t * len(ends))(*ends)
        make = _SCALE_CREATE[policy]
        check(make(ctypes.byref(p), len(ends), arr, float(ratio)), "inc_scale_create")
        self._p = p
        if step:
            check(_scale_set_step(p, int(step)), "inc_scale_set_step")
        if patience:
            check(_scale_set_patience(p, int(patience)), "inc_scale_set_patience")
        if spread is not None:
            check(_scale_set_spread(p, int(spread)), "inc_scale_set_spread")
        self.ends = list(ends)
        self.ratio = ratio

    @property
    def address(self):
        return self._p.value

    def _get(self, fn, name):
        """A per-part array of the state (inc_scale_get and its kin)."""
        n = _scale_parts(self._p)
        arr = (c_int * n)()
        check(fn(self._p, arr, n), name)
        return list(arr)

    def _set(self, fn, name, v):
        arr = (c_int * len(v))(*v)
        check(fn(self._p, arr, len(v)), name)

    def exponents(self):
        return self._get(_scale_get, "inc_scale_get")

    def set_exponents(self, e):
        self._set(_scale_set, "inc_scale_set", e)

    def runs(self):
        """Per part, the calls in a row that asked it to move (+ finer,
        - coarser): with the exponents, a patient state's checkpoint."""
        return self._get(_scale_get_runs, "inc_scale_get_runs")

    def set_runs(self, run):
        self._set(_scale_set_runs, "inc_scale_set_runs", run)

    def prime(self, address, count, error_bound, ranks):
        """Exponents from a lossless sum of every rank's values (count
        float32 at address), undamped (inc_scale_prime)."""
        check(_scale_prime(self._p, address, count, int(error_bound), int(ranks)),
              "inc_scale_prime")

    def set_ratio(self, ratio):
        """A new target ratio, used from the end of the next call on."""
        check(_scale_set_ratio(self._p, float(ratio)), "inc_scale_set_ratio")
        self.ratio = ratio

    def destroy(self):
        if self._p:
            _scale_destroy(self._p)
            self._p = None

    def __del__(self):
        self.destroy()


# ---------------------------------------------------------------- communicator
class Comm:
    """A libinceptionn communicator (inc_comm_init_env: reads the INC_*/torchrun
    variables of the process environment at the moment it is created)."""

    def __init__(self):
        p = c_void_p()
        check(_comm_init_env(ctypes.byref(p)), "inc_comm_init_env")
        self._p = p
        self.rank = _comm_rank(p)
        self.size = _comm_size(p)

    def stats(self):
        st = CommStats()
        check(_comm_stats(self._p, ctypes.byref(st)), "inc_comm_stats")
        out = {name: getattr(st, name) for name, _ in CommStats._fields_}
        out["class_values"] = list(out["class_values"])
        return out

    def allreduce(self, addr, count, opts):
        """Blocking inc_allreduce_f32 on count float32 values at address addr."""
        check(_allreduce(self._p, addr, count, ctypes.byref(opts)), "inc_allreduce_f32")

    def iallreduce(self, addr, count, opts):
        """inc_iallreduce_f32: a Request; the buffer and opts must stay alive
        until Request.wait() returns."""
        req = c_void_p()
        check(_iallreduce(self._p, addr, count, ctypes.byref(opts), ctypes.byref(req)),
              "inc_iallreduce_f32")
        return Request(req, opts)

    def destroy(self):
        if self._p:
            _comm_destroy(self._p)
            self._p = None


class Request:
    """An issued non-blocking call; wait() exactly once."""

    def __init__(self, p, opts):
        self._p = p
        self._opts = opts       # the library may read them until the call ran

    def wait(self):
        """inc_wait (releases the GIL): None, or InceptionnError."""
        p, self._p = self._p, None
        check(_wait(p), "inc_wait")


def layout():
    """Sizes and field offsets of the declared structures, for the check
    against the C header (python/tests/lib_check.py)."""
    return {cls.__doc__.split()[1]: (ctypes.sizeof(cls),
                                     {n: getattr(cls, n).offset for n, _ in cls._fields_})
            for cls in (CompressionInfo, AllreduceOpts, CommStats)}
