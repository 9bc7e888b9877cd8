#!/usr/bin/env python3
"""Writes the demo field as a float32 .npy of shape (n, n, n): structure at every scale.

Sum of nine octaves of oriented sine-cosine waves (each octave twice the frequency and 0.55 the
amplitude of the one before) plus two thin spherical shells, so every resolution level of the
dataset shows new detail. Computed in slabs of z so memory stays near 100 MB for 512^3.
Used by scripts/make-demo.sh; deterministic (fixed seed).
"""
import argparse
import sys

import numpy as np


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=512, help="samples per axis")
    parser.add_argument("--out", required=True, help="output .npy path")
    args = parser.parse_args()
    n = args.size
    if n < 4:
        sys.exit("make_demo_field.py: --size must be at least 4")
    rng = np.random.default_rng(20261121)
    octaves = []
    for k in range(9):
        a, b = rng.normal(size=3), rng.normal(size=3)
        octaves.append((2.0 ** k * 1.7, 0.55 ** k, a / np.linalg.norm(a), b / np.linalg.norm(b), rng.uniform(0, 2 * np.pi, 2)))
    out = np.lib.format.open_memmap(args.out, mode="w+", dtype=np.float32, shape=(n, n, n))
    axis = (np.arange(n, dtype=np.float32) + 0.5) / n
    y, x = np.meshgrid(axis, axis, indexing="ij")
    slab = max(1, (1 << 22) // (n * n))
    for z0 in range(0, n, slab):
        z = axis[z0:z0 + slab, None, None]
        v = np.zeros((z.shape[0], n, n), dtype=np.float32)
        for freq, amp, a, b, phase in octaves:
            pa = a[0] * x + a[1] * y + a[2] * z
            pb = b[0] * x + b[1] * y + b[2] * z
            v += np.float32(amp) * np.sin(np.float32(2 * np.pi * freq) * pa + np.float32(phase[0])) * np.cos(
                np.float32(2 * np.pi * freq) * pb + np.float32(phase[1]))
        r = np.sqrt((x - 0.5) ** 2 + (y - 0.5) ** 2 + (z - 0.5) ** 2)
        v += 1.5 * np.exp(-(((r - 0.32) / 0.012) ** 2)) + 0.8 * np.exp(-(((r - 0.18) / 0.004) ** 2))
        out[z0:z0 + slab] = v
    out.flush()


if __name__ == "__main__":
    main()
