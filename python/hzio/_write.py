"""Writing: ``hzio.create`` (a new, empty dataset, as ``hzio create``), write transactions
(``Dataset.write``/``Dataset.writer``), and ``hzio.convert`` (an array of any size, including
``np.memmap``/``.npy`` files and other lazily sliced arrays, written in slabs so memory stays
bounded; as ``hzio convert``)."""
from __future__ import annotations

import os
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from . import _hzio
from ._dataset import Dataset, open as open_dataset
from ._errors import InvalidArgumentError, UnsupportedError
from ._query import BoxLike, normalize_box

__all__ = ["Writer", "create", "convert"]

_DEFAULT_SLAB_BYTES = 128 << 20


def _is_remote(source: str) -> bool:
    return source.startswith(("http://", "https://"))


class Writer:
    """A write transaction on a local dataset (:meth:`Dataset.writer`). Each :meth:`write`
    encodes and stores the blocks it completes, so memory stays bounded by the blocks still
    partly written; :meth:`commit` (or leaving the ``with`` block normally) flushes the rest and
    rewrites the ``.idx`` last. Leaving the block with an exception abandons the transaction."""

    def __init__(self, dataset: Dataset, *, threads: int = 0, sync: bool = False):
        if _is_remote(dataset.source):
            raise UnsupportedError(f"{dataset.source}: remote datasets are read-only; write a local .idx")
        self._ds = dataset
        self._w = _hzio.Writer(dataset.source, threads, sync)
        self._open = True

    def write(self, data, field=None, time: int | None = None, box: BoxLike | None = None, *,
              x: int = 0, y: int = 0, z: int = 0, logic_box: BoxLike | None = None) -> None:
        """Writes ``data`` into a box; see :meth:`Dataset.write`."""
        if not self._open:
            raise InvalidArgumentError(f"{self._ds.source}: the write transaction is already closed")
        f = self._ds.field(field)
        array = _as_field_array(data, f, f"{self._ds.source}: field '{f.name}'")
        spatial = array.shape[:-1] if f.components > 1 else array.shape
        nd = self._ds.ndim
        if len(spatial) > nd or (f.components > 1 and (array.ndim == 0 or array.shape[-1] != f.components)):
            raise InvalidArgumentError(
                f"{self._ds.source}: data of shape {array.shape} does not fit field '{f.name}' "
                f"({f.dtype}) of a {nd}-D dataset: expected (nz, ny, nx"
                f"{', %d' % f.components if f.components > 1 else ''}) or fewer leading axes")
        spatial = (1,) * (nd - len(spatial)) + tuple(spatial)   # a slice: OpenVisus pads with 1s
        counts = tuple(reversed(spatial))
        b = normalize_box(self._ds.logic_box, box, logic_box)
        if b is None:
            p1 = [x, y, z][:nd]
            b = (p1, [a + c for a, c in zip(p1, counts)])
        elif tuple(q - p for p, q in zip(*b)) != counts:
            raise InvalidArgumentError(f"{self._ds.source}: box {b} holds {tuple(q - p for p, q in zip(*b))} "
                                       f"samples (x first) but the data has {counts} (shape {array.shape})")
        t = self._ds.time if time is None else int(time)
        self._w.write(f.name, t, b, array)

    def commit(self) -> None:
        """Flushes the remaining blocks and the block tables, then rewrites the ``.idx``."""
        self._w.commit()
        self._open = False
        self._ds._reopen()

    def close(self) -> None:
        """Abandons the transaction if it was not committed (the dataset stays as it was)."""
        if self._open:
            self._open = False
            self._w.close()

    def __enter__(self) -> "Writer":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None and self._open:
            self.commit()
        else:
            self.close()


def _as_field_array(data, field, what: str) -> np.ndarray:
    """``data`` as a C-contiguous array of the field's component type; only lossless casts."""
    array = np.asarray(data)
    if array.dtype != field.numpy_dtype:
        if not np.can_cast(array.dtype, field.numpy_dtype, casting="safe"):
            raise InvalidArgumentError(f"{what} is {field.dtype} but the data is {array.dtype}: convert it "
                                       f"first (data.astype(numpy.{field.numpy_dtype.name}))")
        array = array.astype(field.numpy_dtype)
    return np.ascontiguousarray(array)


# --- new datasets ------------------------------------------------------------------------------

def _dtype_text(dtype: Any) -> str:
    """An IDX dtype from a string (``"float32"``, ``"uint8[3]"``), a numpy dtype or type, or a
    (numpy dtype, components) pair."""
    if isinstance(dtype, tuple) and len(dtype) == 2:
        base, n = dtype
        return f"{_dtype_text(base)}[{int(n)}]"
    if isinstance(dtype, str):
        try:
            return _hzio.parse_dtype(dtype)["dtype"]
        except InvalidArgumentError:
            pass  # maybe a numpy spelling, e.g. "<f4" or "f8"
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise InvalidArgumentError(f"not a dtype: {dtype!r} (e.g. 'float32', 'uint8[3]', numpy.int16)") from None
    kinds = {"f": "float", "i": "int", "u": "uint"}
    if dt.kind not in kinds or (dt.kind == "f" and dt.itemsize not in (4, 8)):
        raise InvalidArgumentError(f"dtype {dt} cannot be stored (int8..int64, uint8..uint64, float32, float64)")
    return f"{kinds[dt.kind]}{dt.itemsize * 8}"


def _field_list(fields: Any) -> list[tuple[str, str]]:
    if fields is None:
        raise InvalidArgumentError("fields= is required, e.g. {'temperature': 'float32'}")
    items: Iterable
    if isinstance(fields, Mapping):
        items = fields.items()
    elif isinstance(fields, str):
        items = [fields]
    else:
        items = fields
    out = []
    for item in items:
        if isinstance(item, str):
            name, sep, dtype = item.partition(":")
            if not sep:
                raise InvalidArgumentError(f"field '{item}': expected NAME:DTYPE, e.g. 'temperature:float32'")
        elif hasattr(item, "name") and hasattr(item, "dtype"):
            name, dtype = item.name, item.dtype
        else:
            try:
                name, dtype = item
            except (TypeError, ValueError):
                raise InvalidArgumentError(f"field {item!r}: expected (name, dtype) or 'name:dtype'") from None
        out.append((str(name), _dtype_text(dtype)))
    return out


def _time_range(timesteps: Any) -> tuple[int, int] | None:
    if timesteps is None:
        return None
    if isinstance(timesteps, (int, np.integer)):
        return int(timesteps), int(timesteps)
    values = [int(t) for t in timesteps]
    if not values or values != list(range(values[0], values[0] + len(values))):
        raise InvalidArgumentError(f"timesteps must be consecutive integers (e.g. range(10)), got {timesteps!r}")
    return values[0], values[-1]


def create(path: str | os.PathLike, dims: Sequence[int] | None = None, fields: Any = None,
           timesteps: Any = None, compression: str = "zip", layout: str = "rowmajor",
           arco: int | str | None = None, *, shape: Sequence[int] | None = None,
           bitsperblock: int | None = None, blocksperfile: int | None = None,
           physic_box: tuple[Sequence[float], Sequence[float]] | None = None) -> Dataset:
    """Creates an empty dataset (header only), as ``hzio create`` does, and opens it.

    ``dims``: samples per axis, x first (``(nx, ny, nz)``, as OpenVisus's ``CreateIdx``), or
    ``shape`` in numpy order. ``fields``: ``{"temperature": "float32", "velocity": "float32[3]"}``
    (or a list of ``(name, dtype)`` / ``"name:dtype"``; numpy dtypes work too). ``timesteps``:
    ``range(n)``, consecutive integers, or one integer (default: one timestep, 0, and no time in
    file names). ``compression``: ``"zip"`` (default, as CreateIdx), ``"lz4"`` or ``"raw"``;
    ``layout``: ``"rowmajor"`` (default) or ``"hzorder"``. ``arco``: OpenVisus's one file per
    block, which this version cannot write (:class:`hzio.UnsupportedError`). ``physic_box``:
    ``((x0, y0, z0), (x1, y1, z1))``, the physical extent of the logic box (default: the logic
    box), where :meth:`Grid.physic_coords` and xarray's coordinates place the samples.

    Unwritten samples read as the field's default value (0) until written."""
    path = os.fspath(path)
    if arco not in (None, 0, False, "", "0"):
        raise UnsupportedError(f"{path}: ARCO datasets (one file per block) cannot be written by this hzio "
                               "yet; create a classic dataset (arco=None)")
    if (dims is None) == (shape is None):
        raise InvalidArgumentError("give dims= (x first) or shape= (numpy order), exactly one of them")
    counts = [int(v) for v in (dims if dims is not None else tuple(reversed(tuple(shape))))]
    physic: list[float] = []
    if physic_box is not None:
        try:
            lo, hi = physic_box
            physic = [float(v) for pair in zip(lo, hi) for v in pair]
        except (TypeError, ValueError):
            raise InvalidArgumentError(f"physic_box must be ((x0, y0[, z0]), (x1, y1[, z1])), got {physic_box!r}") from None
    _hzio.create_dataset(path, counts, _field_list(fields), compression or "raw", layout,
                         int(bitsperblock or 0), None if blocksperfile is None else int(blocksperfile),
                         _time_range(timesteps), physic)
    return open_dataset(path)


def add_field(dataset: Dataset, name: str, dtype: Any, compression: str = "zip",
              layout: str = "rowmajor") -> None:
    """Adds a field to every timestep of a local dataset (rewrites its block files)."""
    _hzio.add_field(dataset.source, name, _dtype_text(dtype), compression or "raw", layout)
    dataset._reopen()


def add_timestep(dataset: Dataset, time: int) -> None:
    """Declares one more timestep of a local dataset (it needs a time template)."""
    _hzio.add_timestep(dataset.source, int(time))
    dataset._reopen()


# --- convert -----------------------------------------------------------------------------------

def convert(source: Any, path: str | os.PathLike, *, field: str | None = None, time: int | None = None,
            dtype: str | None = None, compression: str | None = None, layout: str | None = None,
            bitsperblock: int | None = None, blocksperfile: int | None = None,
            slab_bytes: int = _DEFAULT_SLAB_BYTES, threads: int = 0, sync: bool = False) -> Dataset:
    """Writes an array into a new or existing dataset, as ``hzio convert`` does, slab by slab.

    ``source``: a numpy array, anything sliced like one that returns numpy arrays (``np.memmap``,
    h5py and zarr arrays, xarray DataArrays), or the path of a ``.npy`` file (memory-mapped).
    Only ``slab_bytes`` of it (default 128 MiB) are in memory at a time, so arrays larger than
    memory convert. Numpy order: ``(nz, ny, nx)`` or ``(ny, nx)``; ``dtype="uint8[3]"`` declares
    that the last axis holds the components of a vector field. Leading axes of extent 1 are
    dropped (a ``(1, ny, nx)`` array makes a 2-D dataset: OpenVisus cannot read a last axis of
    extent 1).

    A new dataset gets one field (``field``, default ``"data"``), timestep ``time`` (default:
    none), and the storage options (default zip, rowmajor). Into an existing dataset the array
    becomes ``field`` (default: the first) at ``time`` (default: the first); a field or timestep
    it does not have yet is added. Returns the dataset, opened."""
    path = os.fspath(path)
    if isinstance(source, (str, os.PathLike)):
        source = np.load(os.fspath(source), mmap_mode="r")
    if not hasattr(source, "shape") or not hasattr(source, "dtype"):
        source = np.asarray(source)
    shape = tuple(int(n) for n in source.shape)
    existing = open_dataset(path) if os.path.exists(path) else None
    inferred = None
    if dtype is None and existing is not None:
        target = field if field is not None else existing.fields[0].name
        if target in existing.field_names and existing.field(target).components > 1:
            dtype = existing.field(target).dtype   # the array's last axis holds its components
            inferred = target
    idx_dtype = _dtype_text(np.dtype(source.dtype))
    components = 1
    if dtype is not None:
        declared = _hzio.parse_dtype(_dtype_text(dtype))
        components = declared["components"]
        if _hzio.parse_dtype(idx_dtype)["numpy_dtype"] != declared["numpy_dtype"]:
            what = f"dtype={dtype!r}" if inferred is None else f"field '{inferred}' of {path} ({dtype})"
            raise InvalidArgumentError(f"{what} does not match the array's {np.dtype(source.dtype)}")
        idx_dtype = declared["dtype"]
        if components > 1 and (not shape or shape[-1] != components):
            raise InvalidArgumentError(f"dtype {idx_dtype}: the array's last axis must have {components} "
                                       f"components, its shape is {shape}")
    spatial = shape[:-1] if components > 1 else shape
    drop = 0
    while len(spatial) - drop > 1 and spatial[drop] == 1:
        drop += 1
    spatial = spatial[drop:]
    if not 1 <= len(spatial) <= 3 or any(n < 1 for n in spatial):
        raise InvalidArgumentError(f"cannot store an array of shape {shape} (1-D to 3-D, every axis >= 1)")
    dims = tuple(reversed(spatial))

    if existing is not None:
        ds = existing
        if ds.dims != dims:
            raise InvalidArgumentError(f"the array has dims {dims} (x first) but {path} has {ds.dims}")
        name = field if field is not None else ds.fields[0].name
        if name not in ds.field_names:
            add_field(ds, name, idx_dtype, compression or "zip", layout or "rowmajor")
        else:
            f = ds.field(name)
            if f.dtype != idx_dtype:
                raise InvalidArgumentError(f"the array is {idx_dtype} but field '{name}' of {path} is {f.dtype}")
            for option, wanted, has in (("compression", compression, f.compression), ("layout", layout, f.layout)):
                if wanted is not None and (wanted if wanted != "none" else "raw") != has:
                    raise InvalidArgumentError(f"{option}={wanted!r} differs from field '{name}' of {path} ({has})")
        t = ds.time if time is None else int(time)
        if t not in ds.timesteps:
            add_timestep(ds, t)
    else:
        name = field if field is not None else "data"
        ds = create(path, dims, [(name, idx_dtype)], timesteps=time, compression=compression or "zip",
                    layout=layout or "rowmajor", bitsperblock=bitsperblock, blocksperfile=blocksperfile)
        t = ds.time

    f = ds.field(name)
    row_bytes = max(1, int(np.prod(spatial[1:], dtype=np.int64)) * components * f.numpy_dtype.itemsize)
    rows = max(1, int(slab_bytes) // row_bytes)
    lead = (0,) * drop
    with ds.writer(threads=threads, sync=sync) as w:
        for first in range(0, spatial[0], rows):
            last = min(first + rows, spatial[0])
            piece = np.asarray(source[lead + (slice(first, last),)])
            p1 = [0] * len(dims)
            p1[-1] = first
            w.write(piece, name, t, box=(p1, list(dims[:-1]) + [last]))
    return ds
