"""Numpy-style slicing of a field: ``ds["temperature"][t, z0:z1, y0:y1, x0:x1]`` at full
resolution, ``ds.level(H)[...]`` on the grid of levels 0..H. A view reads nothing until indexed;
indexing reads the smallest box holding the selection, straight into the result's memory."""
from __future__ import annotations

from dataclasses import dataclass
import numpy as np

from ._errors import InvalidArgumentError, OutOfRangeError
from ._grid import Grid, grid_from_query
from ._memory import empty

__all__ = ["FieldView"]


@dataclass
class _Selection:
    """What an index key asks for: timesteps, the box to read, how to index what was read."""

    times: list[int]
    box: tuple[list[int], list[int]] | None   # None: some axis selects nothing
    read_shape: tuple[int, ...]               # (nt, spatial numpy order..., [c])
    post: tuple                               # applied to the array read
    grid: Grid


class FieldView:
    """One field at one resolution level, as a lazy array of shape ``(nt, nz, ny, nx[, c])``
    (``(nt, ny, nx[, c])`` in 2-D): the first axis indexes ``Dataset.timesteps``, the spatial
    axes the samples of the level's grid (``.grid``), the last the components of vector fields.

    Indexing takes integers, slices (any step) and ``...`` as numpy does, and returns a numpy
    array; integer indices drop their axis. ``.grid_of(key)`` tells where the selected samples
    are (logic origin and stride, physic coordinates)."""

    def __init__(self, dataset, field_index: int, level: int):
        self._ds = dataset
        self._field = dataset.fields[field_index]
        self._level = level
        q = dataset._core.resolve(self._field.name, None, None, level)  # validates the level
        self._grid = grid_from_query(q, level, dataset._transform)

    @property
    def dataset(self):
        return self._ds

    @property
    def field(self):
        return self._field

    @property
    def level(self) -> int:
        return self._level

    @property
    def grid(self) -> Grid:
        """The grid of the whole view (every spatial sample at this level)."""
        return self._grid

    @property
    def dtype(self) -> np.dtype:
        return self._field.numpy_dtype

    @property
    def shape(self) -> tuple[int, ...]:
        c = self._field.components
        return (len(self._ds.timesteps),) + self._grid.shape + ((c,) if c > 1 else ())

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    def __len__(self) -> int:
        return self.shape[0]

    def __repr__(self) -> str:
        return (f"<hzio field view '{self._field.name}' {self._field.dtype} level {self._level} of "
                f"'{self._ds.source}': shape {self.shape} (time, {'z, ' if self._grid.ndim == 3 else ''}"
                f"y, x{', component' if self._field.components > 1 else ''}), stride "
                f"{self._grid.stride} (x first)>")

    def with_level(self, level: int) -> "FieldView":
        """The same field at another level."""
        return FieldView(self._ds, self._ds.fields.index(self._field), level)

    def __getitem__(self, key) -> "np.ndarray | FieldView":
        if isinstance(key, str):
            return FieldView(self._ds, self._ds._field_index(key), self._level)
        sel = self._select(key)
        out = empty(sel.read_shape, dtype=self.dtype)
        if sel.box is not None and out.size:
            for i, t in enumerate(sel.times):
                self._ds._core.read_into(self._field.name, t, sel.box, self._level, False, out[i])
        return out[sel.post]

    def grid_of(self, key) -> Grid:
        """The grid of the samples ``view[key]`` returns (axes that an integer index drops have
        count 1). A negative step gives a negative stride (origin is then the last sample)."""
        return self._select(key).grid

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        array = self[...]
        return array if dtype is None else array.astype(dtype, copy=False)

    # --- index keys -------------------------------------------------------------------------

    def _normalize_key(self, key) -> tuple:
        key = key if isinstance(key, tuple) else (key,)
        n = self.ndim
        if sum(k is Ellipsis for k in key) > 1:
            raise InvalidArgumentError("an index can only have a single ellipsis ('...')")
        if any(k is Ellipsis for k in key):
            i = next(j for j, k in enumerate(key) if k is Ellipsis)
            key = key[:i] + (slice(None),) * (n - len(key) + 1) + key[i + 1:]
        if len(key) > n:
            raise OutOfRangeError(f"too many indices: the view has {n} axes {self.shape}, got {len(key)}")
        key = key + (slice(None),) * (n - len(key))
        for axis, k in enumerate(key):
            if not (isinstance(k, slice) or (isinstance(k, (int, np.integer)) and not isinstance(k, bool))):
                raise InvalidArgumentError(f"axis {axis}: only integers, slices and '...' index a field "
                                           f"view, got {k!r} (read a box, then index the array)")
        return key

    @staticmethod
    def _axis(k, size: int, axis: int):
        """(first index, count, step, drop) of one axis' key; count 0 selects nothing."""
        if isinstance(k, slice):
            start, stop, step = k.indices(size)
            return start, len(range(start, stop, step)), step, False
        i = int(k)
        if not -size <= i < size:
            raise OutOfRangeError(f"index {i} is out of bounds for axis {axis} with size {size}")
        return i % size, 1, 1, True

    def _select(self, key) -> _Selection:
        key = self._normalize_key(key)
        shape = self.shape
        g = self._grid
        nd = g.ndim
        times_all = list(self._ds.timesteps)
        t0, tn, tstep, tdrop = self._axis(key[0], shape[0], 0)
        times = [times_all[t0 + i * tstep] for i in range(tn)]
        p1, p2 = [0] * nd, [0] * nd
        origin, stride, count = list(g.origin), list(g.stride), list(g.count)
        read_spatial, post = [], [0 if tdrop else slice(None)]
        empty = tn == 0
        for k in range(nd):                       # numpy order: axis 1 + k is x-first axis d
            d = nd - 1 - k
            first, n, step, drop = self._axis(key[1 + k], shape[1 + k], 1 + k)
            lo = first if step > 0 else first + (n - 1) * step  # lowest index read
            empty = empty or n == 0
            span = 0 if n == 0 else (n - 1) * abs(step) + 1
            p1[d] = g.origin[d] + lo * g.stride[d]
            p2[d] = g.origin[d] + (lo + max(span, 1) - 1) * g.stride[d] + 1
            read_spatial.append(span)
            post.append(0 if drop else slice(None, None, step))
            origin[d] = g.origin[d] + first * g.stride[d]
            stride[d] = g.stride[d] * step
            count[d] = n
        if self._field.components > 1:
            self._axis(key[-1], shape[-1], len(shape) - 1)  # bounds check; all components are read
            post.append(key[-1])
            read_spatial.append(shape[-1])
        grid = Grid(tuple(origin), tuple(stride), tuple(count), self._level, g.transform)
        return _Selection(times, None if empty else (p1, p2), (len(times),) + tuple(read_spatial),
                          tuple(post), grid)

