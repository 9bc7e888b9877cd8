"""The xarray backend: ``xarray.open_dataset("sim.idx", engine="hzio", level=H)``.

Every field becomes a data variable of dims ``(time, z, y, x)`` (``(time, y, x)`` in 2-D, plus a
component dim for vector fields) on the grid of levels 0..H, read lazily: xarray asks for the
boxes it needs (a selection, a plot, a dask chunk) and only those are read. Coordinates ``x``,
``y``, ``z`` are the physic coordinates of the samples (from the ``.idx`` physic box), ``time``
the timesteps. ``encoding["preferred_chunks"]`` follows the dataset's blocks, so
``chunks={}`` gives dask chunks that never split a block.
"""
from __future__ import annotations

import os
from typing import Any, Iterable

import numpy as np

from ._dataset import Dataset, open as open_dataset
from ._errors import UnsupportedError
from ._views import FieldView

try:
    from xarray.backends import BackendArray, BackendEntrypoint
    from xarray.core import indexing
except ImportError as error:  # pragma: no cover - xarray is optional
    raise ImportError("hzio's xarray backend needs xarray: pip install xarray") from error

__all__ = ["HzioBackendEntrypoint", "HzioBackendArray"]

_TARGET_CHUNK_BYTES = 32 << 20


class HzioBackendArray(BackendArray):
    """One field at one level as xarray's lazily indexed array: integer and slice keys become
    box reads (FieldView), anything else is applied by xarray to what was read."""

    def __init__(self, view: FieldView):
        self._view = view
        self.shape = view.shape
        self.dtype = view.dtype

    def __getitem__(self, key: indexing.ExplicitIndexer) -> np.ndarray:
        return indexing.explicit_indexing_adapter(key, self.shape, indexing.IndexingSupport.BASIC,
                                                  self._view.__getitem__)


def _preferred_chunks(ds: Dataset, view: FieldView, dims: tuple[str, ...]) -> dict[str, int]:
    """Chunks of whole blocks of the view's finest level (blocks of coarser levels span more),
    grown along the slowest axes to about 32 MiB."""
    level, bpb = view.level, ds.bitsperblock
    grid = view.grid
    if level <= bpb:                    # block 0 holds every level up to bpb: one chunk
        spatial = list(grid.count)
    else:
        _, stride, count = ds._core.block_grid(1 << (level - bpb - 1))
        spatial = [max(1, min(n, c * s // g)) for n, c, s, g in zip(grid.count, count, stride, grid.stride)]
    itemsize = view.dtype.itemsize * view.field.components
    for d in reversed(range(len(spatial))):     # z, then y, then x
        while spatial[d] < grid.count[d] and np.prod(spatial) * itemsize * 2 <= _TARGET_CHUNK_BYTES:
            spatial[d] = min(grid.count[d], spatial[d] * 2)
    chunks = {"time": 1}
    for name, n in zip(dims[1:], reversed(spatial)):
        chunks[name] = int(n)
    if view.field.components > 1:
        chunks[dims[-1]] = view.field.components
    return chunks


class HzioBackendEntrypoint(BackendEntrypoint):
    """``engine="hzio"``: IDX datasets (``.idx`` files and mod_visus URLs) through hzio."""

    description = "IDX multiresolution datasets (OpenVisus/PIDX) through hzio, at any level"
    open_dataset_parameters = ("filename_or_obj", "drop_variables", "level", "fields", "threads")

    def guess_can_open(self, filename_or_obj: Any) -> bool:
        if not isinstance(filename_or_obj, (str, os.PathLike)):
            return False
        name = os.fspath(filename_or_obj)
        return name.endswith(".idx") or "mod_visus?" in name

    def open_dataset(self, filename_or_obj: Any, *, drop_variables: str | Iterable[str] | None = None,
                     level: int | None = None, fields: Iterable[str] | None = None, threads: int = 0):
        """``level``: resolution level H (levels 0..H; default maxh, full resolution).
        ``fields``: the fields to expose (default all); ``drop_variables`` removes some."""
        import xarray as xr

        ds = filename_or_obj if isinstance(filename_or_obj, Dataset) else open_dataset(
            os.fspath(filename_or_obj), threads=threads)
        h = ds.maxh if level is None else int(level)
        drop = {drop_variables} if isinstance(drop_variables, str) else set(drop_variables or ())
        names = [n for n in (ds.field_names if fields is None else list(fields)) if n not in drop]
        spatial = ("z", "y", "x")[3 - ds.ndim:]
        counts = {f.components for f in ds.fields if f.name in names and f.components > 1}

        variables = {}
        grid = None
        for name in names:
            view = ds.level(h, name)
            grid = view.grid
            c = view.field.components
            comp = () if c == 1 else ("component" if len(counts) == 1 else f"component_{c}",)
            dims = ("time",) + spatial + comp
            data = indexing.LazilyIndexedArray(HzioBackendArray(view))
            var = xr.Variable(dims, data, attrs={"idx_dtype": view.field.dtype,
                                                 "compression": view.field.compression,
                                                 "layout": view.field.layout})
            var.encoding["preferred_chunks"] = _preferred_chunks(ds, view, dims)
            variables[name] = var
        if grid is None:
            grid = ds.grid(level=h)

        coords = {"time": ("time", np.asarray(ds.timesteps, dtype=np.int64))}
        logic = grid.logic_coords()
        try:
            physic = grid.physic_coords()
        except UnsupportedError:  # a rotated or sheared transform: logic coordinates only
            physic = None
        for k, name in enumerate(spatial):
            coords[name] = (name, physic[k] if physic is not None else logic[k],
                            {"logic_origin": int(logic[k][0]), "logic_stride": int(grid.stride[ds.ndim - 1 - k])})
        attrs = {"source": ds.source, "bitmask": ds.bitmask, "maxh": ds.maxh, "level": h,
                 "logic_box": str(ds.logic_box), "physic_box": str(ds.physic_box)}
        return xr.Dataset(variables, coords=coords, attrs=attrs)
