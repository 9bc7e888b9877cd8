import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeState, encodeState, defaultState } from '../src/url_state.js';
import { colormapTable, colormapIndex, colormapNames } from '../src/colormaps.js';
import { parseNpy, encodeNpy } from '../src/npy.js';

test('a full state survives encode then decode', () => {
  const s = defaultState();
  Object.assign(s, { dataset: 'demo set', field: 'velocity', time: 3, cmap: 'magma', range: [-1.5, 2e9],
    level: 17, quality: -1, slice: [1, 2, 300] });
  s.views.xy = { center: [0.25, -3], scale: 0.125 };
  s.views.yz = { center: [10, 20], scale: 2 };
  s.cam = { yaw: -45.5, pitch: 80, distance: 1.75 };
  const { state, problems } = decodeState(encodeState(s));
  assert.deepEqual(problems, []);
  assert.deepEqual(state, s);
  assert.deepEqual(decodeState(encodeState(defaultState())).state, defaultState());
});

test('malformed parameters are reported and ignored', () => {
  const { state, problems } = decodeState('?dataset=a&time=x&range=1&level=fine&xy=1,2,-3&cam=1,2');
  assert.equal(state.dataset, 'a');
  assert.equal(state.time, null);
  assert.equal(state.range, null);
  assert.equal(state.level, 'auto');
  assert.equal(state.views.xy, null);
  assert.equal(problems.length, 5);
});

test('colormaps: gray is exact and every table has 256 opaque entries', () => {
  const gray = colormapTable('gray');
  for (const i of [0, 1, 128, 255]) assert.deepEqual([...gray.subarray(4 * i, 4 * i + 4)], [i, i, i, 255]);
  for (const name of colormapNames) assert.equal(colormapTable(name).length, 1024);
  assert.equal(colormapIndex(5, 0, 10), 128);
  assert.equal(colormapIndex(-1, 0, 10), 0);
  assert.equal(colormapIndex(11, 0, 10), 255);
  assert.throws(() => colormapTable('nope'), /unknown colormap 'nope'/);
});

test('npy round trip, including a vector dtype', () => {
  const data = new Float32Array([1, 2, 3, 4, 5, 6]);
  const parsed = parseNpy(encodeNpy('<f4', [2, 3], data).buffer);
  assert.deepEqual(parsed.shape, [2, 3]);
  assert.deepEqual([...parsed.data], [1, 2, 3, 4, 5, 6]);
  const rgb = parseNpy(encodeNpy('|u1', [1, 2, 3], new Uint8Array([1, 2, 3, 4, 5, 6])).buffer);
  assert.deepEqual(rgb.shape, [1, 2, 3]);
  assert.throws(() => parseNpy(new Uint8Array(20).buffer), /bad magic/);
});
