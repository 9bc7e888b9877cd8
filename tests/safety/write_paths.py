"""The write paths the crash-consistency harness drives: how to make a dataset's old state, and
the command that changes it. Adding a path (e.g. `hzio copy`) is one more WritePath here.

Every case directory holds `in/` (inputs) and `data/` (the dataset `data/ds.idx` and its files).
"""
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, List

from safety_util import HZIO, HZIO_MPI, SAFETY_WRITER, mpi_argv, run, save_npy

IDX = "data/ds.idx"
STORAGE = ["--bitsperblock", "10", "--blocksperfile", "4"]
MPI_DIMS = ["--dims", "32,24,16", "--bitsperblock", "10", "--blocksperfile", "4"]


@dataclass
class WritePath:
    name: str
    setup: Callable[[Path], None]     # makes the old state (and the inputs) in a case directory
    command: List[str]                # the write, run in the case directory
    ranks: int = 0                    # > 0: an MPI job of that many ranks
    repairs: bool = False             # the write is `verify --repair`: the final state is always the new one
    header_only: bool = False         # the write changes the .idx only: it has fewer steps to stop at
    notes: List[str] = field(default_factory=list)


def _inputs(d: Path):
    (d / "in").mkdir(parents=True, exist_ok=True)
    (d / "data").mkdir(parents=True, exist_ok=True)
    for name, seed in (("a0", 1), ("a1", 2), ("b0", 3), ("a0new", 4), ("c1", 5), ("a5", 6), ("a2", 7)):
        save_npy(d / "in" / f"{name}.npy", seed)


def _convert(d: Path, name: str, field: str, time: int):
    run([HZIO, "convert", f"in/{name}.npy", IDX, "--field", field, "--time", time] + STORAGE, cwd=d)


def _copy_source(d: Path):
    """A classic source dataset outside data/ (the copy's destination is data/ds.idx)."""
    _inputs(d)
    run([HZIO, "convert", "in/a0.npy", "in/src.idx", "--field", "a", "--time", "0"] + STORAGE, cwd=d)


def _fields_and_times(d: Path):
    """a@0, a@1 and b@0 (written in three commits: new, a timestep, a field)."""
    _inputs(d)
    _convert(d, "a0", "a", 0)
    _convert(d, "a1", "a", 1)
    _convert(d, "b0", "b", 0)


def _created(d: Path):
    _inputs(d)
    run([HZIO, "create", IDX, "--dims", "64,48,20", "--field", "a:float32", "--field", "b:float32", "--time", "0:3"]
        + STORAGE, cwd=d)
    _convert(d, "a0", "a", 0)


def _library(d: Path):
    _inputs(d)
    run([SAFETY_WRITER, "write", IDX, "a", 0, 1, "--create", "40,30,12", "--fields", "a:uint16,b:uint8",
         "--times", "0:1"], cwd=d)
    run([SAFETY_WRITER, "write", IDX, "b", 1, 2], cwd=d)


def _damaged(d: Path):
    """Leftovers of killed writers and an in-place rewrite (bytes no table entry references)."""
    _fields_and_times(d)
    (d / "data/ds.idx.tmp.4242").write_bytes(b"x" * 100)
    (d / "data/ds.g9").mkdir()
    (d / "data/ds.g9/0000.bin").write_bytes(b"y" * 1000)
    block = sorted((d / "data").glob("ds.g*/time_0000/0000.bin"))[0]
    with open(block, "ab") as f:
        f.write(b"z" * 5000)


def _mpi_old(ranks: int):
    def setup(d: Path):
        (d / "data").mkdir(parents=True, exist_ok=True)
        run(mpi_argv(ranks, [HZIO_MPI, "write", IDX, "--fields", "p:float32"] + MPI_DIMS), cwd=d)
    return setup


def _mpi_empty(d: Path):
    (d / "data").mkdir(parents=True, exist_ok=True)


MPI_WRITE = [HZIO_MPI, "write", IDX, "--fields", "p:float32,q:uint8", "--timesteps", "2", "--compression", "zip"] + MPI_DIMS

SERIAL_PATHS = [
    WritePath("create", _inputs, [HZIO, "create", IDX, "--dims", "64,48,20", "--field", "a:float32", "--time", "0:3"],
              header_only=True),
    WritePath("convert_new", _inputs, [HZIO, "convert", "in/a0.npy", IDX, "--field", "a", "--time", "0"] + STORAGE),
    # ARCO (one file per block, the .idx last): new datasets only.
    WritePath("convert_arco_new", _inputs, [HZIO, "convert", "in/a0.npy", IDX, "--field", "a", "--time", "0",
                                            "--arco", "16kb"]),
    WritePath("copy_to_arco", _copy_source, [HZIO, "copy", "in/src.idx", IDX, "--arco", "16kb"]),
    WritePath("copy_to_classic", _copy_source, [HZIO, "copy", "in/src.idx", IDX, "--compression", "lz4",
                                                "--bitsperblock", "9", "--blocksperfile", "2"]),
    WritePath("convert_overwrite", _fields_and_times,
              [HZIO, "convert", "in/a0new.npy", IDX, "--field", "a", "--time", "0", "--sync"]),
    WritePath("convert_add_field", _fields_and_times, [HZIO, "convert", "in/c1.npy", IDX, "--field", "c", "--time", "1"]),
    WritePath("convert_add_timestep", _fields_and_times,
              [HZIO, "convert", "in/a5.npy", IDX, "--field", "a", "--time", "5"]),
    WritePath("convert_declared_part", _created, [HZIO, "convert", "in/a2.npy", IDX, "--field", "a", "--time", "2"]),
    WritePath("library_new", _inputs, [SAFETY_WRITER, "write", IDX, "a", 0, 1, "--create", "40,30,12", "--fields",
                                       "a:uint16,b:uint8", "--times", "0:1"]),
    WritePath("library_overwrite", _library, [SAFETY_WRITER, "write", IDX, "a", 0, 9]),
    WritePath("library_add_field", _library, [SAFETY_WRITER, "add-field", IDX, "c:float32"]),
    WritePath("library_add_timestep", _library, [SAFETY_WRITER, "add-time", IDX, 4], header_only=True),
    WritePath("verify_repair", _damaged, [HZIO, "gc", IDX], repairs=True),
]

MPI_PATHS = [
    WritePath(f"mpi{n}_{kind}", setup, mpi_argv(n, MPI_WRITE + (["--sync"] if n == 4 else [])), ranks=n)
    for n in (2, 4)
    for kind, setup in (("new", _mpi_empty), ("over_existing", _mpi_old(n)))
]
