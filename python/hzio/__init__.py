"""hzio: IDX multiresolution datasets (byte-compatible with OpenVisus) as numpy arrays.

    import hzio
    ds = hzio.open("sim.idx")                      # or "http://host:8080/mod_visus?dataset=sim"
    coarse = ds.read("temperature", time=0, level=ds.maxh - 6)   # 1/64 of the samples
    part = ds["temperature"][0, 100:200, :, 50]    # numpy-style, full resolution
    view = ds.level(ds.maxh - 3)                   # another level's grid, sliced the same way

Reads return numpy arrays shaped as OpenVisus's ``db.read`` returns them, ``(nz, ny, nx)`` (a
trailing component axis for vector fields), and accept OpenVisus's keywords too. Writing:
:func:`create`, :meth:`Dataset.write`, :meth:`Dataset.writer`, :func:`convert`. xarray:
``xarray.open_dataset("sim.idx", engine="hzio", level=...)``. Errors: :class:`Error` and one
subclass per library error code.
"""
from ._errors import (ChangedError, CorruptError, Error, InternalError, InvalidArgumentError, IoError,
                      LockedError, NotFoundError, OutOfRangeError, TooLargeError, UnavailableError,
                      UnsupportedError)
from ._grid import Grid
from ._memory import empty
from ._dataset import Dataset, Field, open
from ._views import FieldView
from ._write import Writer, convert, create

__version__ = "0.1.0"

__all__ = [
    "open", "create", "convert", "empty", "Dataset", "Field", "FieldView", "Grid",
    "Writer", "Error", "InvalidArgumentError", "NotFoundError", "OutOfRangeError", "CorruptError",
    "UnsupportedError", "IoError", "TooLargeError", "UnavailableError", "ChangedError", "LockedError",
    "InternalError",
]
