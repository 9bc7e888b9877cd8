#!/usr/bin/env python3
"""Desktop viewer benchmark (design.md §7 "Viewer"): for canned views of the 512^3 demo dataset,
bytes loaded by hzio-viewer's planned, frustum-clipped, coarse-to-fine loading versus the whole
dataset at full resolution, the PSNR of its screenshot against a full-resolution render from the
same camera, and the times to the first and final image (medians of --repeats runs), all in one
run under Xvfb (Mesa software OpenGL, so render times are the CPU's).

  xvfb-run -a -s "-screen 0 1600x1200x24" .venv/bin/python bench/viewer/run.py \\
      --viewer build/viewer/hzio-viewer --hzio build/reader/tools/hzio [--repeats 3] [--write]
"""
import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "viewer"))
import viewer_harness as h  # noqa: E402

SIZE = "800x600"
C = np.array([256.0, 256.0, 256.0])
OBLIQUE = np.array([1.0, -1.3, 0.8]) / np.linalg.norm([1.0, -1.3, 0.8])
NOTE = ("Views 1 and 3 meet design.md §7 (at most 1/16 of the bytes, PSNR at least 35 dB). Views 2 and 4 need full resolution by the planner's one-sample-per-pixel rule (512 samples across fewer than 800 pixels still puts samples under a pixel apart only at level 27); the 2^24-sample budget shows them at level 24/25 instead, 1/7 of the bytes at 53-57 dB, so the level rule is conservative for volume rendering. The bytes include the 64^3 overview and the coarse steps (about 1/7 on top of the final level).")
VIEWS = [
    ("whole dataset, small on screen (~1/5 of the window)", h.camera_arg(C + 6000 * OBLIQUE, C), []),
    ("whole dataset filling the window", h.camera_arg(C + 1750 * OBLIQUE, C), []),
    ("close-up from inside, towards a corner", h.camera_arg((350, 162, 350), (512, 0, 512)), []),
    ("slices, close-up on the centre", h.camera_arg((420, 120, 380), (256, 256, 256)), ["--render", "slices"]),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--viewer", required=True)
    parser.add_argument("--hzio", required=True)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--write", action="store_true", help="write bench/viewer/RESULTS.md")
    args = parser.parse_args()
    h.VIEWER, h.CLI = args.viewer, args.hzio
    h.ARTIFACTS = REPO / "test-artifacts" / "viewer-bench"
    demo = subprocess.run([str(REPO / "scripts" / "make-demo.sh"), "--hzio", args.hzio], check=True,
                          capture_output=True, text=True).stdout.strip()
    info = h.dataset_info(demo)
    maxh, full = info["maxh"], int(np.prod(info["dims"])) * 4
    rows = []
    for i, (name, camera, extra) in enumerate(VIEWS):
        runs = [h.run_viewer(demo, f"bench_{i}", "--size", SIZE, "--camera", camera, *extra)
                for _ in range(args.repeats)]
        stats, image, _ = runs[-1]
        ref, reference, _ = h.run_viewer(demo, f"bench_{i}_fullres", "--size", SIZE, "--camera", camera,
                                         "--level", maxh, "--no-clip", *extra)
        rows.append({
            "view": name, "level": stats["level"], "planned": stats["planned_level"], "box": stats["box"],
            "fraction": stats["bytes_loaded"] / full, "psnr": h.psnr(image, reference),
            "first": statistics.median(r[0]["seconds_to_first_image"] for r in runs),
            "final": statistics.median(r[0]["seconds_to_final_image"] for r in runs),
            "full_final": ref["seconds_to_final_image"], "mapper": stats["volume_mapper"],
        })
        h.log(rows[-1])
    lines = [
        "## Desktop viewer (hzio-viewer)", "",
        f"512^3 float32 demo dataset (`scripts/make-demo.sh`, lz4), window {SIZE}, maxh {maxh}, "
        f"default sample budget 2^24. Full-resolution reference: `--level {maxh} --no-clip` from the same "
        f"camera. Times: median of {args.repeats} runs, process start to image, Xvfb + Mesa llvmpipe on a "
        "shared 2-core machine.", "",
        "| view | level (planned) | box | bytes vs full res | PSNR vs full res | first image | final image | full res final |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        box = ",".join(f"{r['box'][2 * d]}:{r['box'][2 * d + 1]}" for d in range(3))
        lines.append(f"| {r['view']} | {r['level']} ({r['planned']}) | {box} | {r['fraction']:.4f} (1/{1 / r['fraction']:.0f}) "
                     f"| {r['psnr']:.1f} dB | {r['first']:.2f} s | {r['final']:.2f} s | {r['full_final']:.2f} s |")
    lines += ["", NOTE]
    lines += ["", "Command: `xvfb-run -a -s \"-screen 0 1600x1200x24\" .venv/bin/python bench/viewer/run.py "
              "--viewer BUILD/viewer/hzio-viewer --hzio BUILD/reader/tools/hzio --repeats 3 --write`", ""]
    text = "\n".join(lines)
    print(text)
    if args.write:
        (REPO / "bench" / "viewer" / "RESULTS.md").write_text(text)


if __name__ == "__main__":
    main()
