"""Memory for results: arrays that the library fills as fast as its C++ callers' buffers."""
from __future__ import annotations

import math

import numpy as np

from . import _hzio

# From here on glibc maps every allocation afresh (its largest mmap threshold), so numpy's own
# arrays are new pages too and aligned ones cost nothing more; below it, numpy's repeated arrays
# come back warm from the heap, which a fresh mapping cannot match, and results under 64 MiB
# are placed with ordinary stores anyway (the alignment matters to streaming stores).
ALIGNED_MIN_BYTES = 32 << 20


def empty(shape, dtype=np.float32) -> np.ndarray:
    """A new uninitialised C-contiguous array, like :func:`numpy.empty`; from 32 MiB on its memory
    starts on a 2 MiB boundary and is advised as transparent huge pages, as the C++ library's
    large buffers are (smaller ones are numpy's own).

    :meth:`Dataset.read` returns such arrays; pass one as ``out=`` to read into the same memory
    again. numpy's own large arrays start 16 bytes past a page boundary, so every row of a
    result shares its first and last cache lines with its neighbours and the library must write
    those lines with ordinary stores instead of streaming ones: a full-resolution read into them
    takes up to 1.3x as long. Any C-contiguous array works as ``out=``; this one is faster."""
    dt = np.dtype(dtype)
    shape = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError(f"negative dimensions are not allowed: {shape}")
    nbytes = math.prod(shape) * dt.itemsize
    if nbytes < ALIGNED_MIN_BYTES:
        return np.empty(shape, dtype=dt)
    return _hzio.aligned_bytes(nbytes).view(dt).reshape(shape)
