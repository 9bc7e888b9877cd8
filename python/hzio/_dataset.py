"""hzio.open and the Dataset it returns: metadata, reads at any resolution, progressive reads,
numpy-style slicing (hzio._views) and writes (hzio._write)."""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Iterator, Sequence

import numpy as np

from . import _hzio
from ._errors import InvalidArgumentError, NotFoundError
from ._grid import Grid, PhysicTransform, grid_from_query, numpy_shape
from ._memory import empty
from ._query import BoxLike, normalize_box, normalize_level

__all__ = ["Dataset", "Field", "open"]


@dataclass(frozen=True)
class Field:
    """One field of a dataset (idx-format.md §1.3).

    ``dtype`` is the IDX type (``"float32"``, ``"uint8[3]"``), ``numpy_dtype`` the numpy type of
    one component (None for sub-byte types, which cannot be read), ``components`` the length of
    the trailing axis reads add for vector types."""

    name: str
    dtype: str
    numpy_dtype: np.dtype | None
    components: int
    compression: str
    layout: str
    default_value: int
    description: str = ""

    @classmethod
    def _from_info(cls, info: dict) -> "Field":
        np_dtype = np.dtype(info["numpy_dtype"]) if info["numpy_dtype"] else None
        return cls(info["name"], info["dtype"], np_dtype, info["components"], info["compression"],
                   info["layout"], info["default_value"], info["description"])

    def __str__(self) -> str:
        return f"{self.name} {self.dtype}"


def open(path_or_url: str | os.PathLike, *, threads: int = 0,  # noqa: A001 - hzio.open, like io.open
         max_query_bytes: int | None = None, cache_dir: str | os.PathLike | None = None) -> "Dataset":
    """Opens a dataset for reading (and writing, when it is a local ``.idx``).

    ``path_or_url``: a ``.idx`` file, ``http(s)://HOST:PORT/mod_visus?dataset=NAME`` (an hzio
    or OpenVisus server), ``http(s)://HOST/PATH/visus.idx`` (a web server), ``s3://BUCKET/KEY/
    visus.idx`` (credentials and endpoint as the AWS tools find them) or OpenVisus's
    ``https://HOST/BUCKET/KEY/visus.idx?endpoint_url=...&access_key=...&secret_key=...``.
    ``threads``: decode threads (0: all cores). ``max_query_bytes``: reads whose result would be
    larger raise :class:`hzio.TooLargeError` (default 16 GiB). ``cache_dir``: the disk cache of
    remote blocks, shared by processes (default ``HZIO_CACHE_DIR``, else ``~/.cache/hzio``;
    ``""``: none), like OpenVisus's ``load_dataset(url, cache_dir=...)``.

    Raises :class:`hzio.NotFoundError` for a missing file, :class:`hzio.InvalidArgumentError` or
    :class:`hzio.CorruptError` for a bad header, :class:`hzio.UnavailableError` for a server that
    cannot be reached."""
    return Dataset(os.fspath(path_or_url), threads=threads, max_query_bytes=max_query_bytes,
                   cache_dir=None if cache_dir is None else os.fspath(cache_dir))


class Dataset:
    """An IDX dataset: hierarchical-Z multiresolution samples of one or more fields over
    timesteps, on a 2-D or 3-D logic box. Open it with :func:`hzio.open`.

    Reads return numpy arrays shaped as OpenVisus's ``db.read`` returns them: ``(nz, ny, nx)``
    in 3-D, ``(ny, nx)`` in 2-D, and a trailing axis for the components of vector fields."""

    def __init__(self, source: str, *, threads: int = 0, max_query_bytes: int | None = None,
                 cache_dir: str | None = None):
        self._open_args = (source, threads, max_query_bytes, cache_dir)
        self._core = _hzio.open(source, threads, max_query_bytes, cache_dir)
        self._load_header()

    def _load_header(self) -> None:
        info = self._core.header()
        self._info = info
        self._fields = tuple(Field._from_info(f) for f in info["fields"])
        p1, p2 = (tuple(c) for c in info["box"])
        pb = info["physic_box"]
        self._transform = PhysicTransform((p1, p2), (tuple(pb[0::2]), tuple(pb[1::2])),
                                          tuple(info["logic_to_physic"]))

    def _reopen(self) -> None:
        """Sees what a write committed (new header, new block tables)."""
        self._core = _hzio.open(*self._open_args)
        self._load_header()

    # --- metadata ---------------------------------------------------------------------------

    @property
    def source(self) -> str:
        """The path or URL the dataset was opened from."""
        return self._core.source

    @property
    def dims(self) -> tuple[int, ...]:
        """Samples per axis, x first (``hzio create --dims``, OpenVisus's ``getLogicSize()``)."""
        p1, p2 = self.logic_box
        return tuple(b - a for a, b in zip(p1, p2))

    @property
    def shape(self) -> tuple[int, ...]:
        """Samples per axis in numpy order, (nz, ny, nx) or (ny, nx): the shape of a full read."""
        return tuple(reversed(self.dims))

    @property
    def ndim(self) -> int:
        """2 or 3 (the dataset's point dimension)."""
        return len(self.dims)

    @property
    def fields(self) -> tuple[Field, ...]:
        """The fields, in header order (the first is the default of every read)."""
        return self._fields

    @property
    def field_names(self) -> list[str]:
        return [f.name for f in self._fields]

    @property
    def timesteps(self) -> tuple[int, ...]:
        """The declared timesteps (a ``* *`` dataset, which has every integer, lists only its
        default)."""
        return tuple(self._info["timesteps"])

    @property
    def time(self) -> int:
        """The default timestep of reads (the first declared)."""
        return self._info["default_time"]

    @property
    def maxh(self) -> int:
        """The finest resolution level: ``level=maxh`` (the default) reads at full resolution."""
        return self._info["maxh"]

    @property
    def bitmask(self) -> str:
        """The HZ bitmask, e.g. ``V012012...`` (idx-format.md §2.1)."""
        return self._info["bitmask"]

    @property
    def bitsperblock(self) -> int:
        return self._info["bitsperblock"]

    @property
    def blocksperfile(self) -> int:
        return self._info["blocksperfile"]

    @property
    def logic_box(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """(p1, p2) in logic (sample) coordinates, x first, upper corner excluded."""
        p1, p2 = self._info["box"]
        return tuple(p1), tuple(p2)

    @property
    def physic_box(self) -> tuple[tuple[float, ...], tuple[float, ...]]:
        """(p1, p2) in physical coordinates, x first (the logic box when the header has none)."""
        return self._transform.physic_box

    @property
    def header(self) -> str:
        """The ``.idx`` header text."""
        return self._info["text"]

    def field(self, field: str | int | Field | None = None) -> Field:
        """A field by name, index or Field (None: the first); :class:`hzio.NotFoundError` if the
        dataset has no such field."""
        return self._fields[self._field_index(field)]

    def _field_index(self, field: Any) -> int:
        if field is None:
            return 0
        if isinstance(field, (int, np.integer)) and not isinstance(field, bool):
            if not -len(self._fields) <= field < len(self._fields):
                raise NotFoundError(f"{self.source}: no field index {field} (the dataset has "
                                    f"{len(self._fields)} fields)")
            return int(field) % len(self._fields)
        name = getattr(field, "name", field)  # hzio.Field, OpenVisus Field, or a name
        if not isinstance(name, str):
            raise InvalidArgumentError(f"field must be a name, an index or a Field, got {field!r}")
        if name not in self.field_names:
            raise NotFoundError(f"{self.source}: unknown field '{name}' (fields: "
                                f"{', '.join(self.field_names)})")
        return self.field_names.index(name)

    def __repr__(self) -> str:
        dims = " x ".join(map(str, self.dims))
        axes = "x, y, z"[:3 * self.ndim - 2]
        fields = "; ".join(f"{f.name} {f.dtype} ({f.compression}, {f.layout})" for f in self._fields)
        ts = self.timesteps
        times = (f"{ts[0]}" if len(ts) == 1 else
                 f"{ts[0]}..{ts[-1]} ({len(ts)})" if list(ts) == list(range(ts[0], ts[-1] + 1)) else
                 ", ".join(map(str, ts[:8])) + (", ..." if len(ts) > 8 else ""))
        return (f"<hzio.Dataset '{self.source}': {self.ndim}-D {dims} ({axes}), bitmask {self.bitmask}, "
                f"maxh {self.maxh}, fields: {fields}; timesteps: {times}; "
                f"physic box {self.physic_box[0]}..{self.physic_box[1]}>")

    # --- reads ------------------------------------------------------------------------------

    def _query_args(self, field, time, box, level, x, y, z, u, v, logic_box, quality, max_resolution):
        name = self.field(field).name
        b = normalize_box(self.logic_box, box, logic_box, (x, y, z, u, v))
        h = normalize_level(self.maxh, level, max_resolution, quality)
        return name, (None if time is None else int(time)), b, h

    def grid(self, field: str | int | Field | None = None, box: BoxLike | None = None,
             level: int | None = None, *, x=None, y=None, z=None, u=None, v=None, logic_box=None,
             quality: int = 0, max_resolution: int | None = None) -> Grid:
        """The grid a :meth:`read` with the same arguments returns (without reading): logic
        origin and stride of its samples, its shape, and their physic coordinates."""
        name, _, b, h = self._query_args(field, None, box, level, x, y, z, u, v, logic_box, quality,
                                         max_resolution)
        q = self._core.resolve(name, None, b, h)
        return grid_from_query(q, q.levels[1], self._transform)

    def read(self, field: str | int | Field | None = None, time: int | None = None,
             box: BoxLike | None = None, level: int | None = None, *, x=None, y=None, z=None,
             u=None, v=None, logic_box=None, quality: int = 0, max_resolution: int | None = None,
             num_refinements: int = 1, field_name: str | None = None,
             out: np.ndarray | None = None):
        """Reads a box of one field at one timestep and resolution into a numpy array.

        ``field``: name, index or Field (default: the first). ``time``: timestep (default: the
        first). ``box``: ``((x0, y0, z0), (x1, y1, z1))`` or ``"x0:x1,y0:y1,z0:z1"``, logic
        coordinates, upper bounds excluded (default: the whole dataset). ``level``: read levels
        0..H (default ``maxh``, full resolution); a coarser level returns the sub-grid of
        stride 2^k on each axis that :meth:`grid` describes.

        OpenVisus's keywords work too: ``logic_box=``, ``x=[x0, x1]``, ``y=``, ``z=`` (floats
        are fractions of the extent), ``max_resolution=`` (= level), ``quality=`` and
        ``num_refinements=`` (> 1 returns the generator of :meth:`read_progressive`), and
        ``field_name=`` (the field it names; OpenVisus 2.2.149 checks it, then reads its default
        field).

        ``out``: a C-contiguous array of the result's shape and dtype to fill in place (it is
        returned); by default a new array (:func:`hzio.empty`: aligned memory, the fastest to
        fill; a numpy array of another origin works too, slower by up to 1.3x). The GIL is released while the library reads, and the
        samples go straight into the array's memory.

        Shape: ``(nz, ny, nx)`` in 3-D, ``(ny, nx)`` in 2-D, plus ``(components,)`` for vector
        fields, exactly as OpenVisus returns. Errors: :class:`hzio.NotFoundError` (field,
        timestep), :class:`hzio.OutOfRangeError` (box outside the dataset, level above maxh),
        :class:`hzio.InvalidArgumentError`, :class:`hzio.CorruptError`, ..."""
        if field is None and field_name is not None:
            field = field_name
        if num_refinements > 1:
            if out is not None:
                raise InvalidArgumentError("out= needs a single read (num_refinements=1)")
            return self.read_progressive(field, time, box, x=x, y=y, z=z, u=u, v=v, logic_box=logic_box,
                                         quality=quality, max_resolution=max_resolution, level=level,
                                         num_refinements=num_refinements)
        name, t, b, h = self._query_args(field, time, box, level, x, y, z, u, v, logic_box, quality,
                                         max_resolution)
        return self._read(name, t, b, h, out)

    def _read(self, name: str, time: int | None, box, level: int | None,
              out: np.ndarray | None = None) -> np.ndarray:
        f = self._fields[self.field_names.index(name)]
        q = self._core.resolve(name, time, box, level)  # validates; refuses sub-byte dtypes
        shape = numpy_shape(q.count, f.components)
        if out is None:
            out = empty(shape, dtype=f.numpy_dtype)
        elif out.shape != shape or out.dtype != f.numpy_dtype:
            raise InvalidArgumentError(f"{self.source}: out= has shape {out.shape} and dtype {out.dtype}, "
                                       f"the read returns {shape} {f.numpy_dtype}")
        self._core.read_into(name, time, box, level, False, out)
        return out

    def read_progressive(self, field: str | int | Field | None = None, time: int | None = None,
                         box: BoxLike | None = None, *, levels: Sequence[int] | None = None,
                         num_refinements: int | None = None, level: int | None = None,
                         x=None, y=None, z=None, u=None, v=None, logic_box=None, quality: int = 0,
                         max_resolution: int | None = None, grids: bool = False
                         ) -> Iterator[np.ndarray] | Iterator[tuple[Grid, np.ndarray]]:
        """Yields the same box coarse to fine, for a view that refines while the user watches.

        ``levels``: the levels to read, in any order (they are read coarsest first). Otherwise
        OpenVisus's ``num_refinements=n`` (default 3): levels ``H - d*(n-1), ..., H - d, H``
        where ``H`` is ``level``/``max_resolution``/``quality`` (default maxh) and ``d`` the
        number of axes (one level per axis halves every axis), levels below 0 dropped, exactly
        the end resolutions of OpenVisus's ``db.read(num_refinements=n)``.

        ``grids=True`` yields ``(Grid, array)`` pairs instead of arrays."""
        name, t, b, h = self._query_args(field, time, box, level, x, y, z, u, v, logic_box, quality,
                                         max_resolution)
        end = self.maxh if h is None else h
        if levels is not None:
            if num_refinements is not None:
                raise InvalidArgumentError("give levels= or num_refinements=, not both")
            steps = sorted({int(v) for v in levels})
        else:
            n = 3 if num_refinements is None else int(num_refinements)
            if n < 1:
                raise InvalidArgumentError(f"num_refinements must be >= 1, got {n}")
            steps = [end - self.ndim * i for i in reversed(range(n)) if end - self.ndim * i >= 0]
            if not steps:
                raise InvalidArgumentError(f"{self.source}: no level of 0..{end} for {n} refinements")

        def generate():
            for hh in steps:
                array = self._read(name, t, b, hh)
                if grids:
                    q = self._core.resolve(name, t, b, hh)
                    yield grid_from_query(q, hh, self._transform), array
                else:
                    yield array
        return generate()

    # --- numpy-style access -------------------------------------------------------------------

    def __getitem__(self, key):
        """``ds["temperature"]``: the field as a lazy array of shape ``(nt, nz, ny, nx[, c])``
        at full resolution, read by slicing (``ds["temperature"][t, z0:z1, y0:y1, x0:x1]``).
        Any other key indexes the first field: ``ds[0, 10]`` is ``ds[ds.fields[0].name][0, 10]``."""
        from ._views import FieldView
        if isinstance(key, str):
            return FieldView(self, self._field_index(key), self.maxh)
        return FieldView(self, 0, self.maxh)[key]

    def level(self, level: int, field: str | int | Field | None = None):
        """The field (default: the first) at resolution level ``level`` as a lazy array indexed
        on that level's grid: ``ds.level(H)[t, k0:k1, j0:j1, i0:i1]`` reads samples
        ``i0..i1`` of the level-H grid along x, etc. ``.grid`` (and ``.grid_of(key)``) give the
        logic origin and stride of those samples; ``["other_field"]`` switches field."""
        from ._views import FieldView
        return FieldView(self, self._field_index(field), int(level))

    # --- writes (hzio._write) ---------------------------------------------------------------

    def write(self, data, field: str | int | Field | None = None, time: int | None = None,
              box: BoxLike | None = None, *, x: int = 0, y: int = 0, z: int = 0,
              logic_box: BoxLike | None = None, sync: bool = False) -> None:
        """Writes ``data`` (numpy order, the field's dtype, a trailing component axis for vector
        fields) into a box of one field at one timestep, as one transaction: the ``.idx`` is
        rewritten last, so readers never see half a write.

        The box is ``box``/``logic_box`` or, as OpenVisus's ``db.write``, the array's shape
        placed at ``x, y, z`` (default: the origin). Samples outside the box keep their values.
        For many pieces in one transaction (arrays larger than memory), use :meth:`writer`."""
        with self.writer(sync=sync) as w:
            w.write(data, field, time, box, x=x, y=y, z=z, logic_box=logic_box)

    def writer(self, *, threads: int = 0, sync: bool = False):
        """A write transaction: ``with ds.writer() as w: w.write(piece, ...)`` any number of
        times, committed when the block ends without an exception (abandoned otherwise).
        Memory stays bounded by the blocks not yet complete. ``sync=True`` flushes data to disk
        before the commit."""
        from ._write import Writer
        return Writer(self, threads=threads, sync=sync)

    def add_field(self, name: str, dtype, compression: str = "zip", layout: str = "rowmajor") -> None:
        """Adds a field (``dtype``: ``"float32"``, ``"uint8[3]"``, a numpy dtype) to every
        timestep of this local dataset; it reads as its default value (0) until written. This
        rewrites every block file: declaring all fields in :func:`hzio.create` avoids it."""
        from ._write import add_field
        add_field(self, name, dtype, compression, layout)

    def add_timestep(self, time: int) -> None:
        """Declares timestep ``time`` in this local dataset (it needs a time template: create it
        with ``timesteps=``)."""
        from ._write import add_timestep
        add_timestep(self, time)

    def close(self) -> None:
        """Releases the dataset's files (and their mappings) now rather than when the object is
        garbage collected; any later use raises :class:`hzio.InvalidArgumentError`."""
        self._core = _Closed(self._core.source)

    def __enter__(self) -> "Dataset":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class _Closed:
    """Stands in for the C++ dataset of a closed Dataset."""

    def __init__(self, source: str):
        self.source = source

    def __getattr__(self, name: str):
        raise InvalidArgumentError(f"{self.source}: the dataset is closed")
