// Turns a fetched box into what the shaders draw: one float per sample (scalars; the magnitude
// of vector fields), or RGBA bytes for 3/4-component uint8 fields (images).

export function displayKind(descr, components) {
  return components >= 3 && components <= 4 && (descr === '|u1' || descr === '<u1') ? 'rgb' : 'scalar';
}

/** Float32Array with one value per sample. */
export function scalarValues(data, components) {
  const n = data.length / components;
  const out = new Float32Array(n);
  const big = typeof data[0] === 'bigint';
  if (components === 1) {
    if (data instanceof Float32Array) return data;
    for (let i = 0; i < n; ++i) out[i] = big ? Number(data[i]) : data[i];
    return out;
  }
  for (let i = 0; i < n; ++i) {
    let s = 0;
    for (let c = 0; c < components; ++c) {
      const v = big ? Number(data[i * components + c]) : data[i * components + c];
      s += v * v;
    }
    out[i] = Math.sqrt(s);
  }
  return out;
}

/** RGBA bytes for an image field with 3 or 4 uint8 components. */
export function rgbaValues(data, components) {
  const n = data.length / components;
  const out = new Uint8Array(4 * n);
  for (let i = 0; i < n; ++i) {
    out[4 * i] = data[i * components];
    out[4 * i + 1] = data[i * components + 1];
    out[4 * i + 2] = data[i * components + 2];
    out[4 * i + 3] = components === 4 ? data[i * components + 3] : 255;
  }
  return out;
}

/** Finite min and max of values (NaN and infinities skipped); null when none. */
export function valueRange(values) {
  let lo = Infinity, hi = -Infinity;
  for (let i = 0; i < values.length; ++i) {
    const v = values[i];
    if (!Number.isFinite(v)) continue;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return Number.isFinite(lo) && Number.isFinite(hi) ? [lo, hi] : null;
}
