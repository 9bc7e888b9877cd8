// The viewer state that a link carries: ?dataset=..&field=..&time=..&cmap=..&range=lo,hi
// &level=auto|H&q=BIAS&slice=x,y,z&xy=cx,cy,scale&xz=..&yz=..&cam=yaw,pitch,distance.
// decode(encode(s)) == s for every state the page produces; unknown or malformed parameters are
// ignored (reported in `problems`) so an old or hand-edited link still opens.

const kViews = ['xy', 'xz', 'yz'];

function numbers(text, n) {
  if (text === null) return null;
  const v = text.split(',').map(Number);
  return v.length === n && v.every(Number.isFinite) ? v : undefined;
}

export function defaultState() {
  return {
    dataset: null, field: null, time: null, cmap: 'viridis', range: null, level: 'auto', quality: 0,
    slice: null, views: { xy: null, xz: null, yz: null }, cam: { yaw: 30, pitch: 25, distance: 2.6 },
  };
}

export function encodeState(s) {
  const q = new URLSearchParams();
  if (s.dataset !== null) q.set('dataset', s.dataset);
  if (s.field !== null) q.set('field', s.field);
  if (s.time !== null) q.set('time', String(s.time));
  q.set('cmap', s.cmap);
  if (s.range) q.set('range', s.range.join(','));
  q.set('level', String(s.level));
  if (s.quality !== 0) q.set('q', String(s.quality));
  if (s.slice) q.set('slice', s.slice.join(','));
  for (const v of kViews) if (s.views[v]) q.set(v, [...s.views[v].center, s.views[v].scale].join(','));
  q.set('cam', [s.cam.yaw, s.cam.pitch, s.cam.distance].join(','));
  return q.toString();
}

/** Parses a query string; returns {state, problems}. */
export function decodeState(search) {
  const q = new URLSearchParams(search);
  const s = defaultState();
  const problems = [];
  const bad = (key) => problems.push(`ignored malformed '${key}=${q.get(key)}'`);
  if (q.has('dataset')) s.dataset = q.get('dataset');
  if (q.has('field')) s.field = q.get('field');
  if (q.has('time')) {
    const t = Number(q.get('time'));
    Number.isInteger(t) ? (s.time = t) : bad('time');
  }
  if (q.has('cmap')) s.cmap = q.get('cmap');
  const range = numbers(q.get('range'), 2);
  if (range) s.range = range;
  else if (range === undefined) bad('range');
  if (q.has('level')) {
    const l = q.get('level');
    if (l === 'auto') s.level = 'auto';
    else if (/^\d+$/.test(l)) s.level = Number(l);
    else bad('level');
  }
  if (q.has('q')) {
    const v = Number(q.get('q'));
    Number.isFinite(v) ? (s.quality = v) : bad('q');
  }
  const slice = q.has('slice') ? q.get('slice').split(',').map(Number) : null;
  if (slice) slice.every(Number.isInteger) && slice.length <= 3 ? (s.slice = slice) : bad('slice');
  for (const v of kViews) {
    const n = numbers(q.get(v), 3);
    if (n && n[2] > 0) s.views[v] = { center: [n[0], n[1]], scale: n[2] };
    else if (n !== null) bad(v);
  }
  const cam = numbers(q.get('cam'), 3);
  if (cam && cam[2] > 0) s.cam = { yaw: cam[0], pitch: cam[1], distance: cam[2] };
  else if (cam !== null) bad('cam');
  return { state: s, problems };
}
