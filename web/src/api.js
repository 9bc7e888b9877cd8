// The server's JSON API (design.md §5) as seen from the page: dataset list, metadata and box
// queries returned as .npy with the aligned grid in X-Hzio-* headers.
import { parseNpy } from './npy.js';

/** An error the server (or the network) reported; `code` is the JSON error code when known. */
export class ApiError extends Error {
  constructor(message, { status = 0, code = 'network' } = {}) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
  }
}

async function check(response, what) {
  if (response.ok) return response;
  let code = `http_${response.status}`, message = response.statusText;
  try {
    const body = await response.json();
    if (body?.error) ({ code, message } = body.error);
  } catch {
    // Not JSON: keep the status text.
  }
  throw new ApiError(`${what}: ${response.status} ${code}: ${message}`, { status: response.status, code });
}

async function getJson(base, path, signal) {
  let response;
  try {
    response = await fetch(base + path, { signal });
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    throw new ApiError(`${path}: cannot reach the server (${e.message})`);
  }
  await check(response, path);
  return response.json();
}

export function listDatasets(base = '', signal) {
  return getJson(base, '/api/v1/datasets', signal);
}

export function datasetInfo(name, base = '', signal) {
  return getJson(base, `/api/v1/datasets/${encodeURIComponent(name)}`, signal);
}

/** "x0:x1,y0:y1,z0:z1" (exclusive upper bounds), the form of design.md §3. */
export function boxToRanges(box) {
  return box.p1.map((a, d) => `${a}:${box.p2[d]}`).join(',');
}

const numbers = (text) => (text ? text.split(',').map(Number) : null);

export function dataUrl({ dataset, box, level, field, time }) {
  const q = new URLSearchParams({ box: boxToRanges(box), level: String(level), format: 'npy' });
  if (field) q.set('field', field);
  if (time !== undefined && time !== null) q.set('time', String(time));
  return `/api/v1/datasets/${encodeURIComponent(dataset)}/data?${q}`;
}

/**
 * Fetches a box at a level. Resolves to {grid: {origin, stride, count} (x first), level,
 * components, descr, data (TypedArray, row-major, x fastest, components innermost), bytes}.
 */
export async function fetchBox(params, { base = '', signal } = {}) {
  const url = dataUrl(params);
  let response;
  try {
    response = await fetch(base + url, { signal });
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    throw new ApiError(`${url}: cannot reach the server (${e.message})`);
  }
  await check(response, `data of ${params.dataset}`);
  const buffer = await response.arrayBuffer();
  const npy = parseNpy(buffer);
  const count = numbers(response.headers.get('X-Hzio-Count'));
  const dims = params.box.p1.length;
  const grid = {
    origin: numbers(response.headers.get('X-Hzio-Origin')),
    stride: numbers(response.headers.get('X-Hzio-Stride')),
    count: count || npy.shape.slice(0, dims).reverse(),
  };
  if (!grid.origin || !grid.stride) throw new ApiError(`${url}: reply lacks the X-Hzio-Origin/Stride headers`);
  const samples = grid.count.reduce((a, b) => a * b, 1);
  return {
    grid,
    level: Number(response.headers.get('X-Hzio-Level') ?? params.level),
    components: samples ? npy.data.length / samples : 1,
    descr: npy.descr,
    data: npy.data,
    bytes: buffer.byteLength,
  };
}
