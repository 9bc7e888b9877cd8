"""Holds off a virtual machine's free page reporting while a benchmark runs.

A guest whose balloon device reports free pages (virtio-balloon VIRTIO_BALLOON_F_REPORTING, the
kernel's page_reporting) hands freed memory back to the host, and the next allocation of those
pages pays a fault in the host (this machine: ~1.4 GB/s). Page-cache pages are freed whenever a
benchmark removes its files or drops the caches, so every method that goes through the page cache
(file-per-process, MPI-IO, HDF5, PnetCDF, OpenVisus, the disk's buffered sequential read) pays
those faults in some repetitions and not in others, while hzio's direct I/O into memory it keeps
does not: file-per-process's 512 MiB `write` took 0.15-0.18 s or 0.30-0.87 s depending on it
(bench/mpi/RESULTS.md, "free page reporting"). Bare metal has no such cost, so the benchmarks hold
reporting off for their run where this machine's page_reporting module allows it
(`min_free_ms`: only pages free that long are reported) and put it back afterwards.
"""
import contextlib
import os

PARAMETERS = "/sys/module/page_reporting/parameters"
MIN_FREE_MS = os.path.join(PARAMETERS, "min_free_ms")
HOLD_MS = 300000  # the largest value this machine's module accepts (600000 is refused)


def _write(path, value):
    with open(path, "w") as f:
        f.write(f"{value}\n")


@contextlib.contextmanager
def held(hold=True):
    """Within the block, pages freed less than HOLD_MS ago are not reported. Yields a sentence for
    the results saying what was done (or why nothing was)."""
    if not hold:
        yield "free page reporting left as the machine has it"
        return
    if not os.path.exists(MIN_FREE_MS):
        yield "no free page reporting to hold off (no page_reporting min_free_ms)"
        return
    with open(MIN_FREE_MS) as f:
        before = f.read().strip()
    refused = None
    try:
        _write(MIN_FREE_MS, HOLD_MS)
    except OSError as e:
        refused = e.strerror
    if refused:
        yield f"free page reporting NOT held off ({MIN_FREE_MS}: {refused}; run as root)"
        return
    try:
        yield (f"the guest's free page reporting held off for the run ({MIN_FREE_MS} = {HOLD_MS}, "
               f"{before} before and after), as bare metal has none")
    finally:
        _write(MIN_FREE_MS, before)
