#!/usr/bin/env python3
"""Puts several runs of `run_bench.py --sizes` side by side: for every table row (regime, size,
ranks), each target's ratio in every run, its median over the runs, and whether that median meets
the target of issue 18; with `--control` runs, the same for "fpp again / fpp", file-per-process
against itself, which shows how far one run's ratio strays on this machine; for durable writes,
how close hzio and file-per-process come to the disk floor (medians over the runs).

  python3 bench/mpi/across_runs.py run1.md run2.md run3.md

Each file is what `run_bench.py --sizes ... --out FILE` wrote (or a RESULTS.md holding one such
section: only the tables between its "sizes" markers are read)."""
import statistics
import sys

# table title (its start) -> [(ratio column, target, whether the ratio must be above it or reach it)]
TARGETS = {
    "page-cache write": [("hzio / hz floor", 0.8, False)],
    "page-cache read": [("hzio / hz floor", 0.8, False)],
    "durable write": [("hzio / fpp", 1.0, False), ("hzio / best peer", 1.0, True)],
    "cold read": [("hzio / fpp", 0.9, False)],
}
# Beside the targets, no target of their own: how close hzio and file-per-process each come to
# the disk's own bound in the same run (durable writes).
BOUNDS = {"durable write": ["hzio / disk floor", "fpp / disk floor"]}
PIDX = ("hzio / pidx", 1.0, True)  # every regime, where the run has PIDX
CONTROL = "fpp again / fpp"


def tables(path):
    """{title: [row dicts]} of the sizes section of one run_bench output."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        sys.exit(f"across_runs.py: cannot read {path}: {e.strerror}")
    begin, end = text.find("<!-- sizes:begin"), text.find("<!-- sizes:end -->")
    if begin >= 0 and end > begin:
        text = text[begin:end]
    out, title, header = {}, None, None
    for line in text.splitlines():
        if line.startswith("### "):
            title, header = line[4:].strip(), None
        elif line.startswith("| size per rank") and title:
            header = [c.strip() for c in line.strip("|").split("|")]
        elif line.startswith("|") and header and not line.startswith("|---"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            if len(cells) == len(header) and "hzio / fpp" in header:
                out.setdefault(title, []).append(dict(zip(header, cells)))
        elif not line.startswith("|"):
            header = None if line.strip() else header
    if not out:
        sys.exit(f"across_runs.py: {path} holds no table of run_bench.py --sizes")
    return out


def meets(value, target, strictly):
    return value > target if strictly else value >= target


def main(paths):
    runs = [tables(p) for p in paths]
    lines = []
    for title_start, targets in TARGETS.items():
        titles = {t for run in runs for t in run if t.startswith(title_start)}
        for title in sorted(titles):
            keys = []  # rows in the order of the first run that has them
            for run in runs:
                for row in run.get(title, []):
                    key = (row["size per rank"], row["ranks"])
                    if key not in keys:
                        keys.append(key)
            cols = targets + ([PIDX] if any("hzio / pidx" in r for run in runs for r in run.get(title, [])) else [])
            have_control = any(CONTROL in r for run in runs for r in run.get(title, []))
            bounds = [b for b in BOUNDS.get(title_start, []) if any(b in r for run in runs for r in run.get(title, []))]
            header = ["size per rank", "ranks"]
            for name, target, strictly in cols:
                header += [f"{name}, each run", f"median ({'>' if strictly else '≥'} {target})"]
            if have_control:
                header += [f"{CONTROL}, each run", "median"]
            header += [f"{b}, median" for b in bounds]
            rows = []
            for size, ranks in keys:
                per = [next((r for r in run.get(title, []) if (r["size per rank"], r["ranks"]) == (size, ranks)), None)
                       for run in runs]
                cells = [size, ranks]
                for name, target, strictly in cols:
                    values = [float(r[name]) for r in per if r and r.get(name, "-") != "-"]
                    med = statistics.median(values) if values else None
                    cells += [", ".join(f"{v:.2f}" for v in values) or "-",
                              "-" if med is None else f"{med:.2f}" + ("" if meets(med, target, strictly) else " (NOT met)")]
                if have_control:
                    values = [float(r[CONTROL]) for r in per if r and r.get(CONTROL, "-") != "-"]
                    cells += [", ".join(f"{v:.2f}" for v in values) or "-",
                              f"{statistics.median(values):.2f}" if values else "-"]
                for b in bounds:
                    values = [float(r[b]) for r in per if r and r.get(b, "-") != "-"]
                    cells.append(f"{statistics.median(values):.2f}" if values else "-")
                rows.append(cells)
            lines += [f"#### {title}, {len(paths)} run" + ("s" if len(paths) > 1 else ""), "",
                      "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
            lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
            lines.append("")
    print("\n".join(lines))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
