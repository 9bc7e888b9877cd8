"""Bad input raises the right exception class with the library's message, never a crash: one
class per hzio::ErrorCode (TEAM.md contract 4), missing/garbage/corrupt/truncated files, bad
fields, timesteps, boxes and levels."""
from __future__ import annotations

import glob
import shutil
import struct
from pathlib import Path

import pytest

import hzio
from hzio import _hzio


def test_every_library_code_has_its_own_class():
    names = _hzio.error_code_names()
    assert {"changed", "locked", "not_found", "corrupt", "internal"} <= set(names)
    classes = set()
    for name in names:
        with pytest.raises(hzio.Error) as caught:
            _hzio._raise_error(name, f"message of {name}")
        cls = type(caught.value)
        assert cls is not hzio.Error and cls.code == name, name
        assert str(caught.value) == f"message of {name}"
        assert getattr(hzio, cls.__name__) is cls, f"hzio.{cls.__name__} is not exported"
        classes.add(cls)
    assert len(classes) == len(names)
    assert issubclass(hzio.ChangedError, hzio.Error) and issubclass(hzio.LockedError, hzio.Error)
    # Built-in bases for code written against OpenVisus (IndexError/ValueError) or files.
    assert issubclass(hzio.OutOfRangeError, IndexError)
    assert issubclass(hzio.InvalidArgumentError, ValueError)
    assert issubclass(hzio.NotFoundError, LookupError)
    assert issubclass(hzio.IoError, OSError)


@pytest.fixture(scope="module")
def ds(small3d):
    return hzio.open(small3d[0])


def test_missing_and_garbage_headers(tmp_path):
    with pytest.raises(hzio.NotFoundError, match="nope.idx: no such dataset file"):
        hzio.open(tmp_path / "nope.idx")
    bad = tmp_path / "bad.idx"
    bad.write_text("(version)\n6\n(box)\n0 10 0 10\n(bits)\nV0101xyz\n(fields)\na float32\n")
    with pytest.raises(hzio.InvalidArgumentError, match="bitmask"):
        hzio.open(bad)
    empty = tmp_path / "empty.idx"
    empty.write_bytes(b"\x00\xff" * 100)
    with pytest.raises(hzio.Error, match=str(empty)):
        hzio.open(empty)


def test_bad_queries(ds, small3d):
    src = str(small3d[0])
    cases = [
        (dict(field="nope"), hzio.NotFoundError, "unknown field 'nope' (fields: a, rgb)"),
        (dict(field=5), hzio.NotFoundError, "no field index 5"),
        (dict(time=7), hzio.NotFoundError, "timestep 7 is not in the dataset (timesteps: 0,1,2)"),
        (dict(level=20), hzio.OutOfRangeError, "level 20 is outside 0..19"),
        (dict(level=-1), hzio.OutOfRangeError, "level -1 is outside 0..19"),
        (dict(box=((100, 0, 0), (120, 5, 5))), hzio.OutOfRangeError, "is outside the dataset box"),
        (dict(box=((5, 5, 5), (5, 9, 9))), hzio.InvalidArgumentError, "box 5:5,5:9,5:9 is empty"),
        (dict(box=((0, 0), (5, 5))), hzio.InvalidArgumentError, "has 2 axes, the dataset has 3"),
        (dict(box="0:5,0:x,0:3"), hzio.InvalidArgumentError, "'0:x' is not a range of integers"),
        (dict(box=42), hzio.InvalidArgumentError, "expected ((x0, y0[, z0]), (x1, y1[, z1]))"),
        (dict(x=[0, 100]), IndexError, "x=[0, 100] is outside the dataset's bounds [0, 70]"),
        (dict(y=[9, 3]), hzio.OutOfRangeError, "the first index must be lower than the second"),
        (dict(u=[0, 1]), hzio.InvalidArgumentError, "the dataset is 3-D: it has no axis u"),
        (dict(box="0:5,0:5,0:5", x=[0, 5]), hzio.InvalidArgumentError, "not box and x/y/z"),
        (dict(field=3.5), hzio.InvalidArgumentError, "field must be a name, an index or a Field"),
    ]
    for kwargs, cls, message in cases:
        with pytest.raises(cls) as caught:
            ds.read(**kwargs)
        assert message in str(caught.value), (kwargs, str(caught.value))
        if isinstance(caught.value, hzio.Error) and cls not in (IndexError,):
            assert type(caught.value).__module__.startswith("hzio")
    # Messages from the library name the dataset.
    with pytest.raises(hzio.NotFoundError, match=src):
        ds.read(time=7)


def _payloads(bin_path: Path, entries: int) -> list[tuple[int, int]]:
    """(offset, size) of the present blocks of a version-6 block file, by position (idx-format.md
    §4.5: a 10-word big-endian header, then 10 words per entry)."""
    raw = bin_path.read_bytes()
    found = []
    for e in range(entries):
        words = struct.unpack(">10I", raw[40 + 40 * e: 80 + 40 * e])
        offset, size = words[2] | (words[3] << 32), words[4]
        if offset and size:
            found.append((offset, size))
    assert found, f"no present block in {bin_path}"
    return found


def test_corrupt_and_truncated_block_files(small3d, tmp_path):
    root = tmp_path / "copy"
    shutil.copytree(small3d[0].parent, root)
    idx = root / "visus.idx"
    bins = sorted(Path(p) for p in glob.glob(str(root / "**" / "time_01" / "*.bin"), recursive=True))
    assert len(bins) >= 2
    entries = 8 * 2  # blocksperfile x fields
    with open(bins[0], "r+b") as f:
        for offset, size in _payloads(bins[0], entries):
            f.seek(offset)
            f.write(b"\xde\xad\xbe\xef" * (size // 4))
    ds = hzio.open(idx)
    with pytest.raises(hzio.CorruptError) as caught:
        ds.read("a", 1)
    assert str(bins[0]) in str(caught.value) and "block" in str(caught.value), str(caught.value)
    assert ds.read("a", 0).shape == (33, 45, 70), "other timesteps still read"

    # A fresh copy whose second block file lost every payload.
    root = tmp_path / "truncated"
    shutil.copytree(small3d[0].parent, root)
    victim = root / bins[1].relative_to(tmp_path / "copy")
    with open(victim, "r+b") as f:
        f.truncate(min(offset for offset, _ in _payloads(victim, entries)) + 3)
    ds = hzio.open(root / "visus.idx")
    for field in ("a", "rgb"):
        with pytest.raises(hzio.CorruptError) as caught:
            ds.read(field, 1)
        assert str(victim) in str(caught.value) and "lies outside the file" in str(caught.value), \
            str(caught.value)
    assert ds.read("rgb", 2).shape == (33, 45, 70, 3), "other timesteps still read"


def test_sub_byte_dtype_is_refused_with_the_reason(tmp_path):
    idx = tmp_path / "bits.idx"
    idx.write_text("(version)\n6\n(box)\n0 15 0 15\n(bits)\nV01010101\n(fields)\nmask int1\n"
                   "(bitsperblock)\n8\n(blocksperfile)\n1\n(filename_template)\n./bits/%04x.bin\n")
    ds = hzio.open(idx)
    assert ds.fields[0].numpy_dtype is None
    with pytest.raises(hzio.UnsupportedError, match="only whole-byte sample types can be read"):
        ds.read()
