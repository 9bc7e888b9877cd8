// A dataset's geometry from /api/v1/datasets/NAME (design.md §5): logic box, physic box and the
// logic <-> physic map of idx-format.md §1.2 (sample i covers logic [i, i+1)), plus boxes aligned
// to a level's grid (§3.4: the grid of levels 0..H has stride D_H from the origin).
import { Bitmask } from './bitmask.js';

export class Geometry {
  constructor(info) {
    this.bitmask = new Bitmask(info.bitmask);
    this.dims = this.bitmask.dims;
    this.logicBox = { p1: info.logic_box.p1.slice(), p2: info.logic_box.p2.slice() };
    const pb = info.physic_box && info.physic_box.length === 2 * this.dims ? info.physic_box : null;
    this.physicBox = pb ? pb.slice() : [];
    this.lo = [0, 0, 0];
    this.size = [1, 1, 1];
    for (let d = 0; d < this.dims; ++d) {
      this.lo[d] = pb ? pb[2 * d] : this.logicBox.p1[d];
      this.size[d] = pb ? pb[2 * d + 1] - pb[2 * d] : this.logicBox.p2[d] - this.logicBox.p1[d];
    }
    this.maxh = this.bitmask.maxh;
  }

  /** Number of samples along axis d (1 beyond the dataset's axes). */
  samples(d) {
    return d < this.dims ? this.logicBox.p2[d] - this.logicBox.p1[d] : 1;
  }

  /** Physic size of one sample along axis d. */
  cell(d) {
    return this.size[d] / this.samples(d);
  }

  toPhysic(d, u) {
    return d < this.dims ? this.lo[d] + (u - this.logicBox.p1[d]) * this.cell(d) : 0;
  }

  toLogic(d, x) {
    return this.logicBox.p1[d] + (x - this.lo[d]) / this.cell(d);
  }

  plannerDataset() {
    return { logicBox: this.logicBox, physicBox: this.physicBox, bitmask: this.bitmask };
  }

  /** `box` widened to cells of the level's grid, clipped to the dataset. */
  alignToLevel(box, level) {
    const stride = this.bitmask.cumulativeStride(level);
    const p1 = [], p2 = [];
    for (let d = 0; d < this.dims; ++d) {
      const s = stride[d];
      p1.push(Math.max(Math.floor(box.p1[d] / s) * s, this.logicBox.p1[d]));
      p2.push(Math.min(Math.ceil(box.p2[d] / s) * s, this.logicBox.p2[d]));
    }
    return { p1, p2 };
  }

  /** Number of samples a query of `box` at `level` returns (§3.4 closed form). */
  samplesAt(box, level) {
    const stride = this.bitmask.cumulativeStride(level);
    let n = 1;
    for (let d = 0; d < this.dims; ++d) {
      const s = stride[d];
      const first = Math.ceil(box.p1[d] / s) * s, last = Math.floor((box.p2[d] - 1) / s) * s;
      n *= Math.max(0, (last - first) / s + 1);
    }
    return n;
  }
}
