// Colormaps as 256-entry RGBA lookup tables, built by linear interpolation between a few anchor
// colours (approximations of the usual perceptual maps; `gray` is exact: entry i = (i, i, i)).

const kAnchors = {
  gray: [[0, 0, 0], [255, 255, 255]],
  viridis: [[68, 1, 84], [72, 40, 120], [62, 74, 137], [49, 104, 142], [38, 130, 142], [31, 158, 137],
    [53, 183, 121], [110, 206, 88], [181, 222, 43], [253, 231, 37]],
  magma: [[0, 0, 4], [28, 16, 68], [79, 18, 123], [129, 37, 129], [181, 54, 122], [229, 80, 100],
    [251, 135, 97], [254, 194, 135], [252, 253, 191]],
  coolwarm: [[59, 76, 192], [98, 130, 234], [141, 176, 254], [184, 208, 249], [221, 221, 221],
    [245, 196, 173], [244, 154, 123], [222, 96, 77], [180, 4, 38]],
  rainbow: [[48, 18, 59], [70, 107, 227], [40, 187, 236], [50, 241, 152], [164, 252, 60], [237, 208, 58],
    [251, 128, 34], [209, 48, 5], [122, 4, 3]],
};

export const colormapNames = Object.keys(kAnchors);

/** 256 x RGBA lookup table of the named colormap. */
export function colormapTable(name) {
  const anchors = kAnchors[name];
  if (!anchors) throw new Error(`unknown colormap '${name}' (one of ${colormapNames.join(', ')})`);
  const lut = new Uint8Array(256 * 4);
  const n = anchors.length - 1;
  for (let i = 0; i < 256; ++i) {
    const t = (i / 255) * n;
    const k = Math.min(Math.floor(t), n - 1);
    const f = t - k;
    for (let c = 0; c < 3; ++c) lut[4 * i + c] = Math.round(anchors[k][c] * (1 - f) + anchors[k + 1][c] * f);
    lut[4 * i + 3] = 255;
  }
  return lut;
}

/** The lookup-table index a value maps to (what the shaders compute). */
export function colormapIndex(value, min, max) {
  const t = max > min ? (value - min) / (max - min) : 0.5;
  return Math.min(255, Math.max(0, Math.floor(Math.min(1, Math.max(0, t)) * 255 + 0.5)));
}
