// The JavaScript planner against the golden vectors written by the C++ planner
// (tests/reader/hz/view_planner_golden_test.cpp -> tests/data/planner_vectors.json).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Bitmask } from '../src/bitmask.js';
import { planView, levelForPixelsPerSample, multiply, invert, lookAt, perspective } from '../src/planner.js';

const vectorsUrl = new URL('../../tests/data/planner_vectors.json', import.meta.url);
const vectors = JSON.parse(readFileSync(vectorsUrl, 'utf8'));
const toBox = ([p1, p2]) => ({ p1, p2 });

test('golden vectors are present and varied', () => {
  assert.ok(vectors.cases.length >= 100, `only ${vectors.cases.length} cases`);
  assert.ok(vectors.cases.some((c) => !c.expected.visible));
  assert.ok(vectors.cases.some((c) => c.logic_box[0].length === 1));
  assert.ok(vectors.cases.some((c) => c.logic_box[0].length === 2));
  assert.ok(vectors.cases.some((c) => c.logic_box[0].length === 3));
});

for (const c of vectors.cases) {
  test(`planner matches C++: ${c.name}`, () => {
    const dataset = { logicBox: toBox(c.logic_box), physicBox: c.physic_box, bitmask: new Bitmask(c.bitmask) };
    const view = { mvp: c.mvp, width: c.viewport[0], height: c.viewport[1], qualityBias: c.quality_bias };
    const plan = planView(dataset, view);
    const e = c.expected;
    assert.equal(plan.visible, e.visible);
    assert.deepEqual(plan.box, toBox(e.box));
    assert.equal(plan.level, e.level);
    assert.deepEqual(plan.alignedBox, toBox(e.aligned_box));
    // Same operations in the same order: the doubles agree to the last bit.
    assert.deepEqual(plan.pixelsPerSample, e.pixels_per_sample);
  });
}

test('bitmask strides follow idx-format.md §3.5', () => {
  const b = new Bitmask('V0101');
  assert.deepEqual([0, 1, 2, 3, 4].map((h) => b.cumulativeStride(h)), [[4, 4], [2, 4], [2, 2], [1, 2], [1, 1]]);
  assert.throws(() => new Bitmask('X01'), /bitmask 'X01'/);
});

test('level for pixels per sample ignores axes that are not visible', () => {
  const b = new Bitmask('V012012');
  assert.equal(levelForPixelsPerSample(b, [0, 0, 0], 1), 0);
  assert.equal(levelForPixelsPerSample(b, [1, 0, 0], 1), 4);  // last x split at position 4
  assert.equal(levelForPixelsPerSample(b, [1, 1, 1], 1), 6);
});

test('invert gives the inverse', () => {
  const m = multiply(perspective(50, 1.5, 0.3, 300), lookAt([3, -4, 5], [1, 2, 0], [0, 0, 1]));
  const id = multiply(m, invert(m));
  id.forEach((v, i) => assert.ok(Math.abs(v - (i % 5 === 0 ? 1 : 0)) < 1e-12));
  assert.equal(invert(new Array(16).fill(0)), null);
});

test('bad input is named', () => {
  const dataset = { logicBox: { p1: [0, 0], p2: [4, 4] }, physicBox: [], bitmask: new Bitmask('V0101') };
  assert.throws(() => planView(dataset, { mvp: new Array(16).fill(0), width: 0, height: 4 }), /viewport/);
  assert.throws(() => planView({ ...dataset, physicBox: [0, 1] }, { mvp: new Array(16).fill(1), width: 4, height: 4 }),
    /physic box/);
});
