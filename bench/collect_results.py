#!/usr/bin/env python3
"""Assembles bench/RESULTS.md from the sections each benchmark runner writes
(bench/<area>/RESULTS.md), in a fixed order. Run after any runner:

    python3 bench/collect_results.py
"""
import os

AREAS = [
    ("core", "Serial read/write vs OpenVisus and memcpy (issue 2)"),
    ("server", "HTTP server vs the OpenVisus server (issue 3)"),
    ("mpi", "Parallel write and read vs file-per-process, MPI-IO, HDF5, PnetCDF (issues 4, 5)"),
    ("web", "Browser viewer: bytes and time per view (issue 6)"),
    ("viewer", "Desktop viewer: bytes and PSNR per view (issue 7)"),
    ("remote", "Remote reads from S3 vs OpenVisus's S3 reader, disk cache (issue 16)"),
    ("python", "Python binding and CLI reads vs OpenVisus's Python read and the C++ read (issue 17)"),
]

HEADER = """# hzio benchmark results

Every figure below was measured on the project's 2-core, 24 GiB Debian 12 VM, which is shared and
noisy: each section gives the command that produced it, quotes medians of several runs, and
compares hzio with its baseline side by side in one run (ratios, not absolute times, are the
result). Targets are those of design.md §7; each section says which are met and which are not.
This file is assembled from `bench/<area>/RESULTS.md` by `python3 bench/collect_results.py`.
"""


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parts = [HEADER]
    for area, title in AREAS:
        path = os.path.join(here, area, "RESULTS.md")
        if not os.path.exists(path):
            parts.append(f"\n# {title}\n\nNot measured yet (no bench/{area}/RESULTS.md).\n")
            continue
        text = open(path).read().strip()
        parts.append(f"\n# {title}\n\n<!-- from bench/{area}/RESULTS.md -->\n\n{text}\n")
    with open(os.path.join(here, "RESULTS.md"), "w") as f:
        f.write("".join(parts))


if __name__ == "__main__":
    main()
