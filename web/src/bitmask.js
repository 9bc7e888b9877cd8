// The IDX bitmask (idx-format.md §2.1, §3): "V0120..." names the axis split at each level,
// position 1 being the coarsest. Only what the viewer needs: axes, maxh and the stride of the
// cumulative grid of levels 0..h (§3.3 D_h), the grid a box query at level h returns (§3.4).

export class Bitmask {
  constructor(text) {
    if (typeof text !== 'string' || !/^[VF][0-4]+$/.test(text)) {
      throw new Error(`bitmask '${text}' must be V or F followed by axis digits`);
    }
    this.text = text;
    this.maxh = text.length - 1;
    let maxAxis = 0;
    for (let i = 1; i <= this.maxh; ++i) maxAxis = Math.max(maxAxis, this.axis(i));
    this.dims = maxAxis + 1;
    this.pow2 = new Array(this.dims).fill(1);
    for (let i = 1; i <= this.maxh; ++i) this.pow2[this.axis(i)] *= 2;
  }

  /** Axis split at pattern position i (1..maxh). */
  axis(i) {
    return this.text.charCodeAt(i) - 48;
  }

  /** Number of positions k in [i, j] (clamped to 1..maxh) splitting axis d. */
  count(d, i, j) {
    let c = 0;
    for (let k = Math.max(i, 1); k <= Math.min(j, this.maxh); ++k) if (this.axis(k) === d) ++c;
    return c;
  }

  /** Stride per axis of the grid of levels 0..h (§3.3 D_h). */
  cumulativeStride(h) {
    const s = [];
    for (let d = 0; d < this.dims; ++d) s.push(2 ** this.count(d, h + 1, this.maxh));
    return s;
  }
}
