// Dataset geometry (logic <-> physic, level-aligned boxes, §3.4 sample counts) and request URLs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Geometry } from '../src/geometry.js';
import { dataUrl, boxToRanges } from '../src/api.js';

const vectors = JSON.parse(readFileSync(new URL('../../tests/data/planner_vectors.json', import.meta.url), 'utf8'));

test('level-aligned boxes equal the C++ planner aligned_box for every golden vector', () => {
  let checked = 0;
  for (const c of vectors.cases) {
    if (!c.expected.visible) continue;
    const g = new Geometry({ bitmask: c.bitmask, logic_box: { p1: c.logic_box[0], p2: c.logic_box[1] }, physic_box: c.physic_box });
    const box = { p1: c.expected.box[0], p2: c.expected.box[1] };
    assert.deepEqual(g.alignToLevel(box, c.expected.level), { p1: c.expected.aligned_box[0], p2: c.expected.aligned_box[1] }, c.name);
    ++checked;
  }
  assert.ok(checked > 100);
});

test('sample counts follow idx-format.md §3.4 (4x4, V0101)', () => {
  const g = new Geometry({ bitmask: 'V0101', logic_box: { p1: [0, 0], p2: [4, 4] }, physic_box: [0, 4, 0, 4] });
  // Cumulative strides h=0..4: (4,4) (2,4) (2,2) (1,2) (1,1).
  assert.deepEqual([0, 1, 2, 3, 4].map((h) => g.samplesAt({ p1: [0, 0], p2: [4, 4] }, h)), [1, 2, 4, 8, 16]);
  assert.equal(g.samplesAt({ p1: [1, 1], p2: [2, 2] }, 2), 0);  // no level-2 sample in that cell
  assert.deepEqual(g.alignToLevel({ p1: [1, 1], p2: [2, 2] }, 2), { p1: [0, 0], p2: [2, 2] });
});

test('logic and physic coordinates map per idx-format.md §1.2', () => {
  const g = new Geometry({ bitmask: 'V010101', logic_box: { p1: [0, 0], p2: [8, 6] }, physic_box: [-1, 1, 10, 13] });
  assert.equal(g.toPhysic(0, 0), -1);
  assert.equal(g.toPhysic(0, 8), 1);
  assert.equal(g.toPhysic(1, 3), 11.5);
  assert.equal(g.toLogic(1, 11.5), 3);
  assert.equal(g.cell(0), 0.25);
  assert.equal(g.samples(2), 1);
  const plain = new Geometry({ bitmask: 'V0101', logic_box: { p1: [0, 0], p2: [4, 3] }, physic_box: null });
  assert.equal(plain.toPhysic(1, 2), 2);
});

test('data URLs use the design.md §3 box form', () => {
  const box = { p1: [0, 8, 3], p2: [64, 16, 4] };
  assert.equal(boxToRanges(box), '0:64,8:16,3:4');
  const url = dataUrl({ dataset: 'a b', box, level: 12, field: 'temp', time: 2 });
  assert.equal(url, '/api/v1/datasets/a%20b/data?box=0%3A64%2C8%3A16%2C3%3A4&level=12&format=npy&field=temp&time=2');
});
