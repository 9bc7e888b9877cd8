"""Datasets `hzio convert` writes with png, jpg and zfp blocks, read by OpenVisus 2.2.149.

Lossless specs (png, reversible zfp): OpenVisus reads the source sampled on the §3.4 grid at
every level, whole box and sub-boxes (full resolution = the source exactly). Lossy specs (jpg,
zfp accuracy/precision): OpenVisus decodes the very bytes hzio decodes, so both must return the
same values for every query (no tolerance), within the codec's error of the source.

`--compression zfp` (or `zfp-reversible`, `zfp-0.25` ...) is written as
`default_compression(zfp-<mode>-<mode>)`: OpenVisus decodes with the second mode, reads a bare `zfp`
with precision 64, which garbles reversible blocks (see test_openvisus_codecs.py), and refuses a
spec of one mode, so the mode is spelled out twice.
"""
from __future__ import annotations

import re
import struct

import numpy as np
import pytest

from interop_util import Mismatches, check_hzio, make_array, read_idx_geometry, run_hzio, sub_boxes
from test_hzio_written import check_block_files, check_hzio_reads_back, check_in_openvisus
from test_openvisus_codecs import smooth_image
from test_openvisus_written import compare_query


def convert(tmp_path, source, dtype, layout, compression, dims):
    npy, idx = tmp_path / "in.npy", tmp_path / "ds" / "visus.idx"
    np.save(npy, source)
    maxh = sum(int(np.ceil(np.log2(n))) for n in dims)
    args = ["convert", npy, idx, "--field", "data", "--compression", compression, "--layout", layout,
            "--bitsperblock", max(6, maxh - 6), "--blocksperfile", 8]
    if "[" in dtype:
        args += ["--dtype", dtype]
    check_hzio(args)
    return idx


LOSSLESS = [
    ("png", "uint8", (70, 45), "rowmajor"), ("png", "uint8[3]", (64, 32), "hzorder"),
    ("png", "uint8[4]", (70, 45), "hzorder"), ("png", "uint8[3]", (70, 45), "rowmajor"),
    ("zfp", "float32", (70, 45, 33), "rowmajor"), ("zfp", "float64", (64, 32), "hzorder"),
    ("zfp-reversible-reversible", "int32", (40, 24, 8), "rowmajor"),
    ("zfp-reversible", "int64", (70, 45), "rowmajor"), ("zfp", "float64", (32, 16, 8), "rowmajor"),
]
LOSSY = [
    ("jpg", "uint8", (70, 45), "rowmajor"), ("jpg-JPEG_QUALITYSUPERB", "uint8[3]", (64, 32), "hzorder"),
    ("zfp-accuracy=0.001-accuracy=0.001", "float32", (70, 45, 33), "rowmajor"),
    ("zfp-precision=24-precision=24", "float64", (64, 32), "hzorder"),
    ("zfp-0.25", "float64", (32, 16, 8), "rowmajor"),
]


def ids(cases):
    return [f"{c}-{t}-{layout}-{'x'.join(map(str, d))}" for c, t, d, layout in cases]


@pytest.mark.parametrize("compression,dtype,dims,layout", LOSSLESS, ids=ids(LOSSLESS))
def test_lossless(ov, tmp_path, compression, dtype, dims, layout):
    source = make_array(dtype, dims, seed=29)
    idx = convert(tmp_path, source, dtype, layout, compression, dims)
    check_block_files(idx, layout, compression, min_files=2)
    if compression.startswith("zfp"):
        assert "default_compression(zfp-reversible-reversible)" in idx.read_text()
    sources = {("data", 0): source}
    mismatches = Mismatches()
    check_in_openvisus(ov, idx, sources, dims, mismatches)
    check_hzio_reads_back(idx, sources, tmp_path, mismatches)
    mismatches.assert_none(idx)


@pytest.mark.parametrize("compression,dtype,dims,layout", LOSSY, ids=ids(LOSSY))
def test_lossy(ov, tmp_path, compression, dtype, dims, layout):
    image = compression.startswith("jpg")
    source = smooth_image(dtype, dims, seed=5) if image else make_array(dtype, dims, seed=31)
    idx = convert(tmp_path, source, dtype, layout, compression, dims)
    check_block_files(idx, layout, compression, min_files=2)
    if compression.startswith("zfp"):
        spec = re.search(r"default_compression\((zfp-[^)]*)\)", idx.read_text()).group(1)
        _, encode, decode = spec.split("-")
        assert encode == decode and "=" in encode, f"written as {spec}"
    db = ov.LoadDataset(str(idx))
    decoded = db.read()
    error = np.abs(decoded.astype(np.float64) - source.astype(np.float64))
    if image:
        assert error.max() <= 128 and error.mean() <= 8, f"jpg round trip off by {error.max()}"
    elif "precision" in compression:
        assert error.max() <= 1e-3 * np.abs(source).max(), f"precision round trip off by {error.max()}"
    else:
        tolerance = float(compression.split("-")[1].replace("accuracy=", ""))
        assert error.max() <= tolerance, f"accuracy round trip off by {error.max()} > {tolerance}"
    geom = read_idx_geometry(idx)
    mismatches = Mismatches()
    for h in range(geom.maxh + 1):
        for box in sub_boxes(dims):
            compare_query(db, idx, tmp_path, mismatches, field="data", time=0, box=box, level=h)
    mismatches.assert_none(idx)


@pytest.mark.parametrize("compression,dtype,dims", [("png", "uint8[3]", (64, 32)), ("jpg", "uint8", (64, 32)),
                                                   ("zfp-accuracy=0.01", "float64", (32, 16, 8)),
                                                   ("zfp", "float32", (64, 32))])
def test_corrupt_payloads_name_the_file(tmp_path, compression, dtype, dims):
    """A damaged png/jpg/zfp payload (truncated, or its end overwritten): `hzio read` fails
    with the block file and block in its message, `hzio verify` counts the block corrupt. zfp
    streams carry no checksum: bytes changed inside one may decode to other values unnoticed
    (as in zfp itself), so only its truncation is asserted."""
    source = smooth_image(dtype, dims, seed=1) if dtype.startswith("uint8") else make_array(dtype, dims, seed=2)
    idx = convert(tmp_path, source, dtype, "rowmajor", compression, dims)
    path = sorted(idx.parent.rglob("*.bin"))[0]
    raw = bytearray(path.read_bytes())
    words = struct.unpack(">10I", raw[40:80])                  # block 0 of the file's first field
    offset, size = words[2] | (words[3] << 32), words[4]
    for damage in ("truncate",) if compression.startswith("zfp") else ("overwrite", "truncate"):
        broken = bytearray(raw)
        if damage == "overwrite":
            broken[offset + size // 3: offset + size] = bytes([0xA5]) * (size - size // 3)
        else:                                                   # the entry still claims `size` bytes
            struct.pack_into(">I", broken, 40 + 16, size // 2)
        path.write_bytes(bytes(broken))
        done = run_hzio(["read", idx, "-o", tmp_path / "out.npy"])
        assert done.returncode != 0, f"{damage}: hzio read accepted a damaged {compression} block"
        assert str(path) in done.stderr and "block 0" in done.stderr, done.stderr
        verify = run_hzio(["verify", idx])
        assert verify.returncode != 0 and "1 corrupt" in verify.stdout + verify.stderr, verify.stdout + verify.stderr
    path.write_bytes(bytes(raw))
    check_hzio(["verify", idx])
