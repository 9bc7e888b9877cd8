// The view-dependent planner (design.md §6): a line-by-line port of
// reader/src/hzio/hz/view_planner.cpp, tested against the vectors that file generates
// (tests/data/planner_vectors.json). Keep the floating-point operations and their order in step
// with the C++ so both give identical results. Conventions (see view_planner.h):
//   * matrices: 16 numbers, row-major (element (r, c) at m[4*r + c]), clip = M * (x, y, z, 1);
//   * boxes: {p1: [..], p2: [..]}, logic coordinates, exclusive upper corner;
//   * sample i covers continuous logic [i, i+1), physic = P1 + (u - L1) * Psize / Lsize.

const kSnap = 1e-9;
const kLevelSlack = 1e-9;

function dot(plane, p) {
  return plane[0] * p[0] + plane[1] * p[1] + plane[2] * p[2] + plane[3];
}

function clipPolygon(poly, plane) {
  const out = [];
  const n = poly.length;
  for (let i = 0; i < n; ++i) {
    const a = poly[i];
    const b = poly[(i + 1) % n];
    const da = dot(plane, a);
    const db = dot(plane, b);
    if (da >= 0) out.push(a);
    if ((da >= 0) !== (db >= 0)) {
      const t = da / (da - db);
      out.push([a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]), a[2] + t * (b[2] - a[2])]);
    }
  }
  return out;
}

function frustumPlanes(m) {
  const planes = [];
  for (let axis = 0; axis < 3; ++axis) {
    const plus = [], minus = [];
    for (let c = 0; c < 4; ++c) {
      plus.push(m[12 + c] + m[4 * axis + c]);
      minus.push(m[12 + c] - m[4 * axis + c]);
    }
    planes.push(plus, minus);
  }
  return planes;
}

function boxPolygons(axes, dims) {
  const lo = [0, 0, 0], hi = [0, 0, 0];
  for (let d = 0; d < 3; ++d) {
    lo[d] = axes[d].physicFirst;
    hi[d] = axes[d].physicFirst + axes[d].physicSize;
  }
  if (dims === 1) return [[lo, hi]];
  if (dims === 2) return [[[lo[0], lo[1], 0], [hi[0], lo[1], 0], [hi[0], hi[1], 0], [lo[0], hi[1], 0]]];
  const faces = [];
  for (let d = 0; d < 3; ++d) {
    const u = (d + 1) % 3, v = (d + 2) % 3;
    for (const side of [lo[d], hi[d]]) {
      const us = [lo[u], hi[u], hi[u], lo[u]];
      const vs = [lo[v], lo[v], hi[v], hi[v]];
      const face = [];
      for (let k = 0; k < 4; ++k) {
        const p = [0, 0, 0];
        p[d] = side;
        p[u] = us[k];
        p[v] = vs[k];
        face.push(p);
      }
      faces.push(face);
    }
  }
  return faces;
}

function addFrustumCornersInsideBox(mvp, axes, points) {
  const inv = invert(mvp);
  if (!inv) return;
  for (let corner = 0; corner < 8; ++corner) {
    const ndc = [corner & 1 ? 1.0 : -1.0, corner & 2 ? 1.0 : -1.0, corner & 4 ? 1.0 : -1.0, 1.0];
    const h = [0, 0, 0, 0];
    for (let r = 0; r < 4; ++r) {
      h[r] = inv[4 * r] * ndc[0] + inv[4 * r + 1] * ndc[1] + inv[4 * r + 2] * ndc[2] + inv[4 * r + 3] * ndc[3];
    }
    if (!(h[3] > 1e-300)) continue;
    const p = [h[0] / h[3], h[1] / h[3], h[2] / h[3]];
    let inside = true;
    for (let d = 0; d < 3; ++d) {
      const lo = axes[d].physicFirst, hi = axes[d].physicFirst + axes[d].physicSize;
      const slack = kSnap * Math.max(1.0, Math.abs(hi - lo));
      if (!(p[d] >= lo - slack && p[d] <= hi + slack)) inside = false;
    }
    if (inside) points.push(p);
  }
}

function pixelsPerPhysicUnit(m, p, width, height) {
  const c = [0, 0, 0, 0];
  for (let r = 0; r < 4; ++r) c[r] = m[4 * r] * p[0] + m[4 * r + 1] * p[1] + m[4 * r + 2] * p[2] + m[4 * r + 3];
  const w = c[3];
  if (!(w > 0)) return null;
  const halfW = width / 2.0, halfH = height / 2.0;
  const out = [0, 0, 0];
  for (let d = 0; d < 3; ++d) {
    const sx = ((m[d] * w - c[0] * m[12 + d]) / (w * w)) * halfW;
    const sy = ((m[4 + d] * w - c[1] * m[12 + d]) / (w * w)) * halfH;
    out[d] = Math.sqrt(sx * sx + sy * sy);
  }
  return out;
}

function floorDiv(a, b) {
  return Math.floor(a / b);  // exact for the integers (< 2^53) of logic boxes
}

function validate(dataset, view) {
  const dims = dataset.logicBox.p1.length;
  const fail = (msg) => {
    throw new Error(`view planner: ${msg}`);
  };
  if (dims < 1 || dims > 3) fail(`datasets with 1 to 3 axes are supported, got ${dims}`);
  if (dataset.bitmask.dims !== dims) {
    fail(`bitmask ${dataset.bitmask.text} has ${dataset.bitmask.dims} axes but the logic box has ${dims}`);
  }
  for (let d = 0; d < dims; ++d) if (!(dataset.logicBox.p2[d] > dataset.logicBox.p1[d])) fail('empty logic box');
  const pb = dataset.physicBox || [];
  if (pb.length !== 0 && pb.length !== 2 * dims) fail(`physic box needs ${2 * dims} numbers, got ${pb.length}`);
  for (let i = 0; i + 1 < pb.length; i += 2) {
    if (!(Number.isFinite(pb[i]) && Number.isFinite(pb[i + 1]) && pb[i + 1] > pb[i])) {
      fail(`physic box axis ${i / 2} is empty or not finite`);
    }
  }
  if (!(view.width > 0 && view.height > 0)) fail(`viewport must be positive, got ${view.width}x${view.height}`);
  if (!view.mvp || view.mvp.length !== 16 || !Array.from(view.mvp).every(Number.isFinite)) {
    fail('the MVP matrix is not finite');
  }
  if (!Number.isFinite(view.qualityBias ?? 0)) fail('quality bias is not finite');
}

/** Smallest level whose stride times pixels-per-sample is at most maxPixels on every axis. */
export function levelForPixelsPerSample(bitmask, pixelsPerSample, maxPixels) {
  const limit = maxPixels * (1 + kLevelSlack);
  const dims = Math.min(bitmask.dims, 3);
  for (let h = 0; h <= bitmask.maxh; ++h) {
    const stride = bitmask.cumulativeStride(h);
    let fineEnough = true;
    for (let d = 0; d < dims; ++d) {
      if (pixelsPerSample[d] > 0 && stride[d] * pixelsPerSample[d] > limit) fineEnough = false;
    }
    if (fineEnough) return h;
  }
  return bitmask.maxh;
}

/**
 * The plan for one view.
 * dataset: {logicBox: {p1, p2}, physicBox: [x1, x2, ...] or [], bitmask: Bitmask}
 * view: {mvp: 16 numbers, width, height, qualityBias}
 * returns {visible, box, level, alignedBox, pixelsPerSample: [x, y, z]}
 */
export function planView(dataset, view) {
  validate(dataset, view);
  const dims = dataset.logicBox.p1.length;
  const pb = dataset.physicBox || [];
  const axes = [];
  for (let d = 0; d < 3; ++d) {
    const a = { logicFirst: 0, logicSize: 0, physicFirst: 0, physicSize: 0 };
    if (d < dims) {
      a.logicFirst = dataset.logicBox.p1[d];
      a.logicSize = dataset.logicBox.p2[d] - dataset.logicBox.p1[d];
      a.physicFirst = pb.length === 0 ? a.logicFirst : pb[2 * d];
      a.physicSize = pb.length === 0 ? a.logicSize : pb[2 * d + 1] - pb[2 * d];
    }
    axes.push(a);
  }

  const points = [];
  const planes = frustumPlanes(view.mvp);
  for (let poly of boxPolygons(axes, dims)) {
    for (const plane of planes) {
      if (poly.length === 0) break;
      poly = clipPolygon(poly, plane);
    }
    points.push(...poly);
  }
  if (dims === 3) addFrustumCornersInsideBox(view.mvp, axes, points);

  const first = dataset.logicBox.p1.slice();
  const plan = {
    visible: false,
    box: { p1: first.slice(), p2: first.slice() },
    level: 0,
    alignedBox: { p1: first.slice(), p2: first.slice() },
    pixelsPerSample: [0, 0, 0],
  };
  if (points.length === 0) return plan;
  plan.visible = true;

  for (let d = 0; d < dims; ++d) {
    const a = axes[d];
    let lo = points[0][d], hi = points[0][d];
    for (const p of points) {
      lo = Math.min(lo, p[d]);
      hi = Math.max(hi, p[d]);
    }
    const scale = a.logicSize / a.physicSize;
    const u0 = a.logicFirst + (lo - a.physicFirst) * scale;
    const u1 = a.logicFirst + (hi - a.physicFirst) * scale;
    const snap = kSnap * a.logicSize;
    const start = dataset.logicBox.p1[d], end = dataset.logicBox.p2[d];
    let i0 = Math.floor(u0 + snap);
    let i1 = Math.ceil(u1 - snap);
    i0 = Math.min(Math.max(i0, start), end - 1);
    i1 = Math.min(Math.max(Math.max(i1, i0 + 1), start + 1), end);
    plan.box.p1[d] = i0;
    plan.box.p2[d] = i1;
  }

  for (const p of points) {
    const perUnit = pixelsPerPhysicUnit(view.mvp, p, view.width, view.height);
    if (!perUnit) continue;
    for (let d = 0; d < dims; ++d) {
      const perSample = perUnit[d] * (axes[d].physicSize / axes[d].logicSize);
      plan.pixelsPerSample[d] = Math.max(plan.pixelsPerSample[d], perSample);
    }
  }
  for (let d = 0; d < dims; ++d) {
    if (plan.box.p2[d] - plan.box.p1[d] < 2) plan.pixelsPerSample[d] = 0;
  }

  plan.level = levelForPixelsPerSample(dataset.bitmask, plan.pixelsPerSample, Math.pow(2.0, -(view.qualityBias ?? 0)));

  const stride = dataset.bitmask.cumulativeStride(plan.level);
  for (let d = 0; d < dims; ++d) {
    const s = stride[d];
    const a1 = floorDiv(plan.box.p1[d], s) * s;
    const a2 = floorDiv(plan.box.p2[d] + s - 1, s) * s;
    plan.alignedBox.p1[d] = Math.max(a1, dataset.logicBox.p1[d]);
    plan.alignedBox.p2[d] = Math.min(a2, dataset.logicBox.p2[d]);
  }
  return plan;
}

/** Row-major product a * b. */
export function multiply(a, b) {
  const r = new Array(16).fill(0);
  for (let i = 0; i < 4; ++i) {
    for (let j = 0; j < 4; ++j) {
      r[4 * i + j] = a[4 * i] * b[j] + a[4 * i + 1] * b[4 + j] + a[4 * i + 2] * b[8 + j] + a[4 * i + 3] * b[12 + j];
    }
  }
  return r;
}

export function lookAt(eye, center, up) {
  const normalize = (v) => {
    const n = Math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (!(n > 0)) throw new Error('lookAt: degenerate eye/center/up');
    return [v[0] / n, v[1] / n, v[2] / n];
  };
  const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
  const f = normalize([center[0] - eye[0], center[1] - eye[1], center[2] - eye[2]]);
  const s = normalize(cross(f, up));
  const u = cross(s, f);
  return [
    s[0], s[1], s[2], -(s[0] * eye[0] + s[1] * eye[1] + s[2] * eye[2]),
    u[0], u[1], u[2], -(u[0] * eye[0] + u[1] * eye[1] + u[2] * eye[2]),
    -f[0], -f[1], -f[2], f[0] * eye[0] + f[1] * eye[1] + f[2] * eye[2],
    0, 0, 0, 1,
  ];
}

export function perspective(fovyDegrees, aspect, near, far) {
  const f = 1.0 / Math.tan((fovyDegrees * 3.141592653589793) / 360.0);
  const nf = 1.0 / (near - far);
  return [f / aspect, 0, 0, 0, 0, f, 0, 0, 0, 0, (far + near) * nf, 2 * far * near * nf, 0, 0, -1, 0];
}

export function orthographic(left, right, bottom, top, near, far) {
  return [
    2 / (right - left), 0, 0, -(right + left) / (right - left),
    0, 2 / (top - bottom), 0, -(top + bottom) / (top - bottom),
    0, 0, -2 / (far - near), -(far + near) / (far - near),
    0, 0, 0, 1,
  ];
}

/** Inverse of a row-major 4x4 matrix, or null when singular. */
export function invert(m) {
  const b00 = m[0] * m[5] - m[1] * m[4], b01 = m[0] * m[6] - m[2] * m[4];
  const b02 = m[0] * m[7] - m[3] * m[4], b03 = m[1] * m[6] - m[2] * m[5];
  const b04 = m[1] * m[7] - m[3] * m[5], b05 = m[2] * m[7] - m[3] * m[6];
  const b06 = m[8] * m[13] - m[9] * m[12], b07 = m[8] * m[14] - m[10] * m[12];
  const b08 = m[8] * m[15] - m[11] * m[12], b09 = m[9] * m[14] - m[10] * m[13];
  const b10 = m[9] * m[15] - m[11] * m[13], b11 = m[10] * m[15] - m[11] * m[14];
  const det = b00 * b11 - b01 * b10 + b02 * b09 + b03 * b08 - b04 * b07 + b05 * b06;
  if (det === 0 || !Number.isFinite(det)) return null;
  const id = 1.0 / det;
  return [
    (m[5] * b11 - m[6] * b10 + m[7] * b09) * id, (m[2] * b10 - m[1] * b11 - m[3] * b09) * id,
    (m[13] * b05 - m[14] * b04 + m[15] * b03) * id, (m[10] * b04 - m[9] * b05 - m[11] * b03) * id,
    (m[6] * b08 - m[4] * b11 - m[7] * b07) * id, (m[0] * b11 - m[2] * b08 + m[3] * b07) * id,
    (m[14] * b02 - m[12] * b05 - m[15] * b01) * id, (m[8] * b05 - m[10] * b02 + m[11] * b01) * id,
    (m[4] * b10 - m[5] * b08 + m[7] * b06) * id, (m[1] * b08 - m[0] * b10 - m[3] * b06) * id,
    (m[12] * b04 - m[13] * b02 + m[15] * b00) * id, (m[9] * b02 - m[8] * b04 - m[11] * b00) * id,
    (m[5] * b07 - m[4] * b09 - m[6] * b06) * id, (m[0] * b09 - m[1] * b07 + m[2] * b06) * id,
    (m[13] * b01 - m[12] * b03 - m[14] * b00) * id, (m[8] * b03 - m[9] * b01 + m[10] * b00) * id,
  ];
}
