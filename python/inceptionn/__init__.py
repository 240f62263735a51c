# SPDX-License-Identifier: MIT
"""inceptionn: Python binding of libinceptionn.

inceptionn.torch has the PyTorch DDP communication hook (register). This
module loads the library (InceptionnError and ImportError as described in
inceptionn._lib) and lists its compression modes.
"""
from ._lib import InceptionnError, codec_name, free_port

__version__ = "0.1.0"
__all__ = ["InceptionnError", "compressions", "codec_name", "free_port"]


def compressions():
    """The library's compression table: one dict per mode (name, label,
    summary, lossy, tagged, error_bound, error_feedback, ...)."""
    from . import _lib
    return _lib.compressions()
