#!/usr/bin/env python3
"""Checks that VisIt's output of an IDX dataset equals `hzio read`.

visitconvert writes legacy *binary* .vtk files of rectilinear grids (one per domain; VisIt's
"Legacy Binary" VTK writer option: the ASCII form prints floats with 6 digits); this assembles the
cell values of VAR from all pieces (placing each piece by its node coordinates) and compares them,
exactly, with a .npy written by `hzio read` for the same field, timestep, box and level.

  compare_vtk.py REF.npy VAR PIECE.vtk [PIECE.vtk ...]

Prints one line with the verdict; exits 1 on any difference.
"""
import sys

import numpy as np

VTK_TYPES = {
    "unsigned_char": "u1", "char": "i1", "signed_char": "i1", "unsigned_short": "u2", "short": "i2",
    "unsigned_int": "u4", "int": "i4", "unsigned_long": "u8", "long": "i8", "vtktypeuint64": "u8",
    "vtktypeint64": "i8", "unsigned_long_long": "u8", "long_long": "i8", "float": "f4", "double": "f8",
}


class LegacyBinary:
    """Cursor over a legacy binary VTK file: text header lines, big-endian binary blocks."""

    def __init__(self, path):
        try:
            f = open(path, "rb")
        except OSError as e:
            raise SystemExit(f"FAIL: cannot read VisIt's output {path}: {e.strerror}")
        with f:
            self.data = f.read()
        self.pos = 0
        self.path = path
        lines = [self.line() for _ in range(3)]  # version, title, format
        if lines[2] != ["BINARY"]:
            raise SystemExit(f"{path}: expected a legacy BINARY file (VTK writer FileFormat 1), got {lines[2]}")

    def line(self):
        while self.pos < len(self.data):
            end = self.data.find(b"\n", self.pos)
            end = len(self.data) if end < 0 else end
            text = self.data[self.pos:end].decode("latin-1").strip()
            self.pos = end + 1
            if text:
                return text.split()
        return None

    def _end_block(self):
        if self.pos < len(self.data) and self.data[self.pos:self.pos + 1] == b"\n":
            self.pos += 1

    def values(self, count, vtk_type):
        dtype = np.dtype(">" + VTK_TYPES[vtk_type.lower()])
        n = count * dtype.itemsize
        out = np.frombuffer(self.data[self.pos:self.pos + n], dtype=dtype).astype(dtype.newbyteorder("="))
        if out.size != count:
            raise SystemExit(f"{self.path}: truncated data array")
        self.pos += n
        self._end_block()
        return out

    def skip_strings(self, count):
        # Each string: a length whose top two bits say how many bytes hold it (11: 1, 10: 2,
        # 01: 4, 00: 8), then the bytes.
        for _ in range(count):
            head = self.data[self.pos]
            width = {3: 1, 2: 2, 1: 4, 0: 8}[head >> 6]
            length = int.from_bytes(self.data[self.pos:self.pos + width], "big") & ((1 << (8 * width - 2)) - 1)
            self.pos += width + length
        self._end_block()

    def skip_metadata(self):
        end = self.data.find(b"\n\n", self.pos)
        self.pos = len(self.data) if end < 0 else end + 2


def read_piece(path, var):
    f = LegacyBinary(path)
    coords, arrays, dims, centering = {}, {}, None, None
    while (words := f.line()) is not None:
        key = words[0]
        if key == "DATASET" and words[1] != "RECTILINEAR_GRID":
            raise SystemExit(f"{path}: expected a RECTILINEAR_GRID, got {words[1]}")
        if key == "DIMENSIONS":
            dims = [int(w) for w in words[1:4]]
        elif key in ("X_COORDINATES", "Y_COORDINATES", "Z_COORDINATES"):
            coords[key[0]] = f.values(int(words[1]), words[2]).astype(np.float64)
        elif key in ("CELL_DATA", "POINT_DATA"):
            centering = key
        elif key in ("SCALARS", "VECTORS"):
            ncomp = 3 if key == "VECTORS" else (int(words[3]) if len(words) > 3 else 1)
            if key == "SCALARS":
                f.line()  # LOOKUP_TABLE default
            n = int(np.prod([max(d - 1, 1) for d in dims]))
            arrays[words[1]] = (centering, f.values(n * ncomp, words[2]).reshape(n, ncomp))
        elif key == "FIELD":
            # VTK 9 writes cell arrays as FIELD data after CELL_DATA (and dataset metadata such as
            # MeshName before the geometry): "NAME NCOMP NTUPLES TYPE", then the values.
            for _ in range(int(words[2])):
                name, ncomp, ntup, typ = f.line()
                count = int(ncomp) * int(ntup)
                if typ.lower() == "string":
                    f.skip_strings(count)
                    continue
                values = f.values(count, typ)
                if centering is not None:
                    arrays[name] = (centering, values.reshape(int(ntup), int(ncomp)))
        elif key == "METADATA":
            f.skip_metadata()
    if dims is None or 0 in dims:
        return None  # a rank without cells (the reader hands VisIt an empty grid)
    if var not in arrays:
        raise SystemExit(f"{path}: no array {var!r} (arrays: {sorted(arrays)})")
    centering, values = arrays[var]
    if centering != "CELL_DATA":
        raise SystemExit(f"{path}: {var} is {centering}, expected zone-centred CELL_DATA")
    return coords, values


def cell_starts(c):
    return c[:-1] if len(c) > 1 else c


def main():
    if len(sys.argv) < 4:
        raise SystemExit(__doc__)
    ref = np.load(sys.argv[1])
    var = sys.argv[2]
    pieces = [read_piece(p, var) for p in sys.argv[3:]]
    pieces = [p for p in pieces if p is not None and p[1].shape[0] > 0]  # ranks without cells
    if not pieces:
        raise SystemExit(f"FAIL {var}: every piece is empty")
    # Cell starts of every piece, merged per axis, give each cell its index in the whole.
    starts = {a: np.unique(np.concatenate([cell_starts(c[a]) for c, _ in pieces])) for a in "XYZ"}
    shape = [len(starts["Z"]), len(starts["Y"]), len(starts["X"])]
    ncomp = pieces[0][1].shape[1]
    whole = np.zeros(shape + [ncomp], dtype=pieces[0][1].dtype)
    filled = np.zeros(shape, dtype=np.int32)
    for coords, values in pieces:
        idx = {a: np.searchsorted(starts[a], cell_starts(coords[a])) for a in "XYZ"}
        block = values.reshape(len(idx["Z"]), len(idx["Y"]), len(idx["X"]), ncomp)
        whole[np.ix_(idx["Z"], idx["Y"], idx["X"])] = block
        filled[np.ix_(idx["Z"], idx["Y"], idx["X"])] += 1
    if not (filled == 1).all():
        raise SystemExit(f"FAIL {var}: pieces overlap or leave holes ({int((filled != 1).sum())} cells)")
    # `hzio read`'s numpy shape: (nz, ny, nx) or (ny, nx), then a component axis for vectors.
    if shape[0] == 1 and ref.shape[:2] == tuple(shape[1:]) and ref.ndim in (2, 3):
        got, spatial = whole[0], 2
    elif ref.shape[:3] == tuple(shape) and ref.ndim in (3, 4):
        got, spatial = whole, 3
    else:
        raise SystemExit(f"FAIL {var}: VisIt's grid {shape[::-1]} (x first) does not match hzio read's {ref.shape}")
    expected = ref if ref.ndim == spatial + 1 else ref[..., np.newaxis]
    if expected.shape[-1] < got.shape[-1]:  # 2-component fields come back padded to 3
        if not (got[..., expected.shape[-1]:] == 0).all():
            raise SystemExit(f"FAIL {var}: padding components are not zero")
        got = got[..., :expected.shape[-1]]
    if got.shape != expected.shape:
        raise SystemExit(f"FAIL {var}: shape {got.shape} from VisIt, {expected.shape} from hzio read")
    if got.dtype != expected.dtype:
        raise SystemExit(f"FAIL {var}: dtype {got.dtype} from VisIt, {expected.dtype} from hzio read")
    diff = int((got != expected).sum())
    if diff:
        raise SystemExit(f"FAIL {var}: {diff} of {got.size} values differ")
    print(f"OK {var}: {len(sys.argv) - 3} piece(s) ({len(pieces)} with cells), {got.size} values of {got.dtype} equal hzio read, shape {got.shape}")


if __name__ == "__main__":
    main()
