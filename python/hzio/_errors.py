"""hzio's exceptions: one base class, :class:`Error`, and one subclass per error code of the C++
library (``hzio::ErrorCode``), each carrying the library's message, which names the file, URL or
parameter that was wrong.

Where a built-in exception means the same thing, the subclass derives from it too, so code
written for OpenVisus's ``db.read`` (``IndexError``/``ValueError``) or for files (``OSError``)
keeps working: ``except hzio.OutOfRangeError`` and ``except IndexError`` both catch a box outside
the dataset.
"""
from __future__ import annotations

__all__ = [
    "Error", "InvalidArgumentError", "NotFoundError", "OutOfRangeError", "CorruptError",
    "UnsupportedError", "IoError", "TooLargeError", "UnavailableError", "ChangedError",
    "LockedError", "InternalError", "error_class",
]


class Error(Exception):
    """Base class of every error hzio raises. ``code`` is the library's short code name."""

    code: str = "internal"


class InvalidArgumentError(Error, ValueError):
    """A malformed parameter, box, level, dtype, array or header value."""

    code = "invalid_argument"


class NotFoundError(Error, LookupError):
    """An unknown dataset, field or timestep, or a missing file that must exist."""

    code = "not_found"


class OutOfRangeError(Error, IndexError):
    """A box outside the dataset, or a level above ``maxh``."""

    code = "out_of_range"


class CorruptError(Error):
    """Bytes on disk or on the wire that do not decode as the format says."""

    code = "corrupt"


class UnsupportedError(Error, NotImplementedError):
    """A valid format feature this hzio does not implement."""

    code = "unsupported"


class IoError(Error, OSError):
    """The operating system refused a read or a write."""

    code = "io_error"


class TooLargeError(Error):
    """A query or allocation beyond a configured or sane limit."""

    code = "too_large"


class UnavailableError(Error, ConnectionError):
    """A remote server could not be reached or answered with a server error."""

    code = "unavailable"


class ChangedError(Error):
    """A writer committed a new version of the dataset while it was read: open it again."""

    code = "changed"


class LockedError(Error):
    """Another writer holds the dataset's lock; the message names its host and process id."""

    code = "locked"


class InternalError(Error):
    """A bug in hzio: please report it with the message."""

    code = "internal"


_BY_CODE: dict[str, type[Error]] = {
    cls.code: cls
    for cls in (InvalidArgumentError, NotFoundError, OutOfRangeError, CorruptError,
                UnsupportedError, IoError, TooLargeError, UnavailableError, ChangedError,
                LockedError, InternalError)
}


def error_class(code: str) -> type[Error]:
    """The exception class of a library error code name (``"not_found"`` -> NotFoundError);
    :class:`Error` itself for a code this version does not know."""
    return _BY_CODE.get(code, Error)
