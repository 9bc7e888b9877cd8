// Which requests a view makes for a camera: planner level or override, budget cap, coarse first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Geometry } from '../src/geometry.js';
import { planRequests } from '../src/progressive.js';
import { orthographic, lookAt, multiply } from '../src/planner.js';

// 512 x 512 2-D dataset, x and y alternating (maxh 18).
const geometry = new Geometry({ bitmask: 'V010101010101010101', logic_box: { p1: [0, 0], p2: [512, 512] }, physic_box: [0, 512, 0, 512] });
const topDown = (x0, x1, y0, y1) => multiply(orthographic(x0, x1, y0, y1, 1, 3), lookAt([0, 0, 2], [0, 0, 0], [0, 1, 0]));
const options = (extra = {}) => ({ budget: 1 << 22, coarseSteps: 4, params: { dataset: 'd', field: 'f', time: 0 }, ...extra });

test('the whole dataset on 128 pixels: stride 4, coarse request 4 levels down', () => {
  const r = planRequests(geometry, { mvp: topDown(0, 512, 0, 512), width: 128, height: 128 }, options());
  assert.equal(r.final.level, 14);
  assert.deepEqual(r.final.box, { p1: [0, 0], p2: [512, 512] });
  assert.equal(r.coarse.level, 10);
  assert.equal(geometry.samplesAt(r.final.box, r.final.level), 128 * 128);
  assert.equal(geometry.samplesAt(r.coarse.box, r.coarse.level), 32 * 32);
  assert.deepEqual(r.final.dataset, 'd');
});

test('zooming in refines the level and shrinks the box', () => {
  const wide = planRequests(geometry, { mvp: topDown(0, 512, 0, 512), width: 128, height: 128 }, options());
  const zoomed = planRequests(geometry, { mvp: topDown(101, 165, 201, 265), width: 128, height: 128 }, options());
  assert.equal(zoomed.final.level, 18);
  assert.deepEqual(zoomed.final.box, { p1: [101, 201], p2: [165, 265] });
  assert.ok(zoomed.final.level > wide.final.level);
  // The coarse box (level 14, stride 4) is the same region widened to its own grid.
  assert.equal(zoomed.coarse.level, 14);
  assert.deepEqual(zoomed.coarse.box, { p1: [100, 200], p2: [168, 268] });
});

test('a manual level overrides the planner and is clamped to the dataset', () => {
  const camera = { mvp: topDown(0, 512, 0, 512), width: 128, height: 128 };
  assert.equal(planRequests(geometry, camera, options({ level: 5 })).final.level, 5);
  assert.equal(planRequests(geometry, camera, options({ level: 40 })).final.level, 18);
  assert.equal(planRequests(geometry, camera, options({ level: 2 })).coarse.level, 0);
});

test('the sample budget caps the level', () => {
  const camera = { mvp: topDown(0, 512, 0, 512), width: 512, height: 512 };
  const r = planRequests(geometry, camera, options({ budget: 10000 }));
  assert.ok(geometry.samplesAt(r.final.box, r.final.level) <= 10000);
  assert.ok(geometry.samplesAt(geometry.alignToLevel(r.plan.box, r.final.level + 1), r.final.level + 1) > 10000);
  assert.equal(r.plan.level, 18, 'the planner alone would load full resolution');
});

test('quality bias and invisible views', () => {
  const camera = { mvp: topDown(0, 512, 0, 512), width: 128, height: 128 };
  assert.equal(planRequests(geometry, camera, options({ quality: 1 })).final.level, 16);
  const away = planRequests(geometry, { mvp: topDown(600, 700, 0, 100), width: 64, height: 64 }, options());
  assert.equal(away.final, null);
  assert.equal(away.plan.visible, false);
});
