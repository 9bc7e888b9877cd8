"""Result grids: which logic (sample) coordinates the samples of a read sit at, and where they are
in physical space (idx-format.md §3.4: a read at level H returns the samples of the lattice of
levels 0..H inside the box, every axis a regular sequence origin + i * stride)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from ._errors import InvalidArgumentError, UnsupportedError

__all__ = ["Grid", "PhysicTransform"]


@dataclass(frozen=True)
class PhysicTransform:
    """Logic -> physic coordinates of a dataset: the ``(physic_box)`` stretched over the logic
    box (OpenVisus's ``logicToPhysic``), or the header's ``(logic_to_physic)`` matrix."""

    logic_box: tuple[tuple[int, ...], tuple[int, ...]]
    physic_box: tuple[tuple[float, ...], tuple[float, ...]]
    matrix: tuple[float, ...] = ()  # row-major (dims+1)^2, when the header has one

    @property
    def ndim(self) -> int:
        return len(self.logic_box[0])

    def _affine(self) -> np.ndarray:
        """The (dims+1)x(dims+1) affine matrix, x first."""
        n = self.ndim
        if self.matrix:
            return np.asarray(self.matrix, dtype=np.float64).reshape(n + 1, n + 1)
        m = np.eye(n + 1)
        for d in range(n):
            l0, l1 = self.logic_box[0][d], self.logic_box[1][d]
            p0, p1 = self.physic_box[0][d], self.physic_box[1][d]
            m[d, d] = (p1 - p0) / (l1 - l0)
            m[d, n] = p0 - l0 * m[d, d]
        return m

    @property
    def axis_aligned(self) -> bool:
        """Whether each physic axis depends on one logic axis only (no rotation or shear)."""
        m = self._affine()[:-1, :-1]
        return bool(np.all(m == np.diag(np.diag(m))))

    def to_physic(self, points) -> np.ndarray:
        """Physic coordinates of logic ``points`` (..., ndim), x first."""
        p = np.asarray(points, dtype=np.float64)
        if p.shape[-1] != self.ndim:
            raise InvalidArgumentError(f"points need {self.ndim} coordinates (x first), got shape {p.shape}")
        m = self._affine()
        return p @ m[:-1, :-1].T + m[:-1, -1]

    def axis(self, d: int, logic: np.ndarray) -> np.ndarray:
        """Physic coordinates along axis ``d`` (x = 0) of logic coordinates along that axis."""
        if not self.axis_aligned:
            raise UnsupportedError("the dataset's (logic_to_physic) rotates or shears the axes: physic "
                                   "coordinates are not separable per axis; use Grid.physic_points()")
        m = self._affine()
        return logic.astype(np.float64) * m[d, d] + m[d, -1]


@dataclass(frozen=True)
class Grid:
    """The lattice of samples a read returns: along axis ``d`` (x first) the samples sit at logic
    coordinates ``origin[d] + i * stride[d]`` for ``0 <= i < count[d]``.

    ``shape`` gives the same counts in numpy order (slowest axis first), the order of the array
    a read returns. ``level`` is the resolution level H it was read at (levels 0..H)."""

    origin: tuple[int, ...]
    stride: tuple[int, ...]
    count: tuple[int, ...]
    level: int
    transform: PhysicTransform | None = field(default=None, repr=False, compare=False)

    @property
    def ndim(self) -> int:
        return len(self.origin)

    @property
    def shape(self) -> tuple[int, ...]:
        """Samples per axis, numpy order: (nz, ny, nx) in 3-D, (ny, nx) in 2-D."""
        return tuple(reversed(self.count))

    @property
    def logic_box(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """(p1, p2), x first: the box the samples span, upper corner excluded (OpenVisus's
        ``logic_box`` of a query result: ``origin + count * stride``)."""
        return self.origin, tuple(o + c * s for o, c, s in zip(self.origin, self.count, self.stride))

    def logic_coords(self) -> tuple[np.ndarray, ...]:
        """Logic coordinates of the samples along each axis, numpy order ((z, y, x) in 3-D)."""
        return tuple(np.arange(self.count[d], dtype=np.int64) * self.stride[d] + self.origin[d]
                     for d in reversed(range(self.ndim)))

    def physic_coords(self) -> tuple[np.ndarray, ...]:
        """Physic coordinates of the samples along each axis, numpy order ((z, y, x) in 3-D), from
        the dataset's physic box: what a plot's axes or xarray's coordinates need."""
        t = self._transform()
        return tuple(t.axis(d, logic) for d, logic in zip(reversed(range(self.ndim)), self.logic_coords()))

    def physic_points(self) -> np.ndarray:
        """Physic coordinates of every sample: an array of shape ``shape + (ndim,)``, x first in
        the last axis (works for rotated or sheared transforms too)."""
        t = self._transform()
        mesh = np.meshgrid(*self.logic_coords(), indexing="ij")
        return t.to_physic(np.stack(list(reversed(mesh)), axis=-1))

    def _transform(self) -> PhysicTransform:
        if self.transform is None:
            raise InvalidArgumentError("this grid has no physic transform (make it with Dataset.grid())")
        return self.transform


def grid_from_query(query, level: int, transform: PhysicTransform | None) -> Grid:
    """The Grid of a resolved ``_hzio.Query``."""
    return Grid(tuple(query.origin), tuple(query.stride), tuple(query.count), level, transform)


def numpy_shape(count: Sequence[int], components: int) -> tuple[int, ...]:
    """The numpy shape OpenVisus's db.read returns for ``count`` samples (x first): slowest axis
    first, then a component axis for vector dtypes."""
    shape = tuple(reversed(tuple(count)))
    return shape + (components,) if components > 1 else shape
