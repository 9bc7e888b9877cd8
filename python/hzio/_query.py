"""The keywords of a read, hzio's and OpenVisus's, turned into one box and one level.

hzio: ``box=((x0, y0, z0), (x1, y1, z1))`` (or ``"x0:x1,y0:y1,z0:z1"``, as the CLI writes boxes)
and ``level=H``. OpenVisus's ``db.read``: ``logic_box=``, ``x=[x0, x1]``, ``y=``, ``z=`` (floats
in [0, 1] are fractions of the dataset's extent), ``max_resolution=H`` and ``quality=q`` (q <= 0:
q levels below ``max_resolution``; q > 0: ``max_resolution + q - maxh``, as OpenVisus computes it).
Upper bounds are excluded everywhere.
"""
from __future__ import annotations

from typing import Sequence, Union

from ._errors import InvalidArgumentError, OutOfRangeError

__all__ = ["BoxLike", "normalize_box", "normalize_level"]

Point = Sequence[int]
BoxLike = Union[str, tuple[Point, Point], Sequence[Point]]

_AXES = "xyzuv"


def _parse_box_text(text: str, ndim: int) -> tuple[list[int], list[int]]:
    parts = [p.strip() for p in text.split(",")]
    p1, p2 = [], []
    for part in parts:
        bounds = part.split(":")
        if len(bounds) != 2:
            raise InvalidArgumentError(f"box '{text}': expected x0:x1,y0:y1[,z0:z1]")
        try:
            p1.append(int(bounds[0]))
            p2.append(int(bounds[1]))
        except ValueError:
            raise InvalidArgumentError(f"box '{text}': '{part}' is not a range of integers") from None
    return p1, p2


def _as_box(box: BoxLike, ndim: int, what: str) -> tuple[list[int], list[int]]:
    if isinstance(box, str):
        return _parse_box_text(box, ndim)
    try:
        p1, p2 = box
        return [int(v) for v in p1], [int(v) for v in p2]
    except (TypeError, ValueError):
        raise InvalidArgumentError(
            f"{what}: expected ((x0, y0[, z0]), (x1, y1[, z1])) or 'x0:x1,y0:y1[,z0:z1]', got {box!r}") from None


def normalize_box(logic_box: tuple[Sequence[int], Sequence[int]], box: BoxLike | None = None,
                  openvisus_box: BoxLike | None = None, ranges: Sequence | None = None
                  ) -> tuple[list[int], list[int]] | None:
    """One box (p1, p2), x first, exclusive, or None for the whole dataset.

    ``logic_box`` is the dataset's; ``box`` hzio's keyword, ``openvisus_box`` OpenVisus's
    ``logic_box=``, ``ranges`` OpenVisus's (x, y, z, u, v) keywords (None where not given)."""
    ndim = len(logic_box[0])
    given = [name for name, v in (("box", box), ("logic_box", openvisus_box)) if v is not None]
    if ranges is not None and any(r is not None for r in ranges):
        given.append("x/y/z")
    if len(given) > 1:
        raise InvalidArgumentError(f"give the box one way only, not {' and '.join(given)}")
    if box is not None:
        return _as_box(box, ndim, "box")
    if openvisus_box is not None:
        return _as_box(openvisus_box, ndim, "logic_box")
    if ranges is None or all(r is None for r in ranges):
        return None
    extra = [_AXES[d] for d, r in enumerate(ranges) if r is not None and d >= ndim]
    if extra:
        raise InvalidArgumentError(f"the dataset is {ndim}-D: it has no axis {', '.join(extra)}")
    lo, hi = logic_box
    p1, p2 = list(lo), list(hi)
    for d in range(ndim):
        r = ranges[d] if d < len(ranges) else None
        if r is None:
            continue
        try:
            a, b = r
        except (TypeError, ValueError):
            raise InvalidArgumentError(f"{_AXES[d]}={r!r}: expected [{_AXES[d]}0, {_AXES[d]}1]") from None
        extent = hi[d] - lo[d]
        # OpenVisus: a float is a fraction of the extent, an integer a logic coordinate.
        p1[d] = int(lo[d] + a * extent) if isinstance(a, float) else int(a)
        p2[d] = int(lo[d] + b * extent) if isinstance(b, float) else int(b)
        if not isinstance(a, float):
            if not p1[d] < p2[d]:
                raise OutOfRangeError(f"{_AXES[d]}=[{a}, {b}]: the first index must be lower than the second")
            if not (lo[d] <= p1[d] < hi[d] and lo[d] < p2[d] <= hi[d]):
                raise OutOfRangeError(f"{_AXES[d]}=[{a}, {b}] is outside the dataset's bounds "
                                      f"[{lo[d]}, {hi[d]}]")
    return p1, p2


def normalize_level(maxh: int, level: int | None = None, max_resolution: int | None = None,
                    quality: int = 0) -> int | None:
    """The end level H of a read (levels 0..H), or None for full resolution."""
    if level is not None and max_resolution is not None:
        raise InvalidArgumentError("give level= or max_resolution= (the same thing), not both")
    base = level if level is not None else max_resolution
    if not quality:
        return None if base is None else int(base)
    base = maxh if base is None else int(base)
    q = int(quality)
    return base + q if q <= 0 else base + q - maxh
