// End-to-end: the real server (`hzio serve` / hzio-server) serving datasets written by the real
// `hzio convert`, the page in headless chromium. Screenshots go to test-artifacts/web/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { makeDataset, makeTimeSeries, startServer, launchBrowser, tempDir, screenshot } from './harness.js';
import { colormapIndex } from '../src/colormaps.js';

// slab: 512 x 512 x 16 float32, value = x + 512 y + 262144 z (exact in float32).
const SLAB = [512, 512, 16];
const slabValue = (x, y, z) => x + 512 * y + 262144 * z;
const SLAB_MAX = slabValue(511, 511, 15);

let dir, server, limited, browser;

before(async () => {
  dir = tempDir('hzio-web-e2e-');
  const slab = new Float32Array(SLAB[0] * SLAB[1] * SLAB[2]);
  for (let z = 0, i = 0; z < SLAB[2]; ++z)
    for (let y = 0; y < SLAB[1]; ++y) for (let x = 0; x < SLAB[0]; ++x) slab[i++] = slabValue(x, y, z);
  const rgb = new Uint8Array(100 * 60 * 3);
  for (let y = 0, i = 0; y < 60; ++y) for (let x = 0; x < 100; ++x, i += 3) rgb.set([2 * x, 4 * y, 128], i);
  const vec = new Float32Array(32 * 32 * 32 * 3);
  for (let z = 0, i = 0; z < 32; ++z)
    for (let y = 0; y < 32; ++y) for (let x = 0; x < 32; ++x, i += 3) vec.set([3 * x, 4 * y, 0], i);
  const datasets = [
    makeDataset(dir, 'slab', { dims: SLAB, values: slab }),
    makeDataset(dir, 'rgb', { dims: [100, 60], descr: '|u1', components: 3, dtype: 'uint8[3]', values: rgb }),
    makeDataset(dir, 'vec', { dims: [32, 32, 32], components: 3, dtype: 'float32[3]', values: vec }),
    makeTimeSeries(dir, 'series', { dims: [16, 16, 8], times: [0, 1, 2], valueOf: (x, y, z, t) => 1000 * t + x + 16 * y }),
  ];
  server = await startServer(datasets);
  limited = await startServer([datasets[0]], ['--max-query-mb', '1']);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
  await limited?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function openPage(url) {
  const page = await browser.context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const requests = [];
  page.on('request', (r) => {
    if (r.url().includes('/data?')) requests.push(new URL(r.url()).searchParams);
  });
  await page.goto(url);
  await page.waitForFunction(() => window.hzioViewer?.geometry, null, { timeout: 20000 });
  await page.evaluate(() => window.hzioViewer.whenIdle(60000));
  return { page, errors, requests };
}

const boxVolume = (b) => b.p1.reduce((v, a, d) => v * (b.p2[d] - a), 1);

test('the slice views show the dataset values at known pixels', async () => {
  // XY view centred on (256, 256) at 1 physic unit per pixel, slice z = 5, gray map over the range.
  const url = `${server.url}/?dataset=slab&cmap=gray&range=0,${SLAB_MAX}&slice=100,200,5&xy=256,256,1`;
  const { page, errors } = await openPage(url);
  await screenshot(page, 'slab-known-pixels');
  const info = await page.evaluate(() => {
    const v = window.hzioViewer;
    const c = document.getElementById('view-xy');
    return { width: c.clientWidth, height: c.clientHeight, level: v.metrics.xy.level, maxh: v.geometry.maxh,
      stride: v.geometry.bitmask.cumulativeStride(v.metrics.xy.level) };
  });
  assert.equal(info.level, info.maxh, 'one sample per pixel needs full resolution');
  let checked = 0;
  for (const [fx, fy] of [[0.5, 0.5], [0.2, 0.3], [0.8, 0.7], [0.35, 0.9], [0.9, 0.1]]) {
    const px = Math.floor(info.width * fx) + 0.5, py = Math.floor(info.height * fy) + 0.5;
    // Independent of the page: the URL fixed the camera, so the sample under the pixel is known.
    const x = Math.floor(256 + (px - info.width / 2)), y = Math.floor(256 - (py - info.height / 2));
    if (x < 0 || y < 0 || x >= 512 || y >= 512) continue;
    const expected = slabValue(x, y, 5);
    const got = await page.evaluate(([a, b]) => ({
      value: window.hzioViewer.slices.xy.valueAt(a, b), rgba: window.hzioViewer.slices.xy.readPixel(a, b),
    }), [px, py]);
    assert.equal(got.value.value, expected, `value at pixel (${px}, ${py}) = sample (${x}, ${y}, 5)`);
    const gray = colormapIndex(expected, 0, SLAB_MAX);
    for (const c of got.rgba.slice(0, 3)) assert.ok(Math.abs(c - gray) <= 1, `pixel (${px}, ${py}) is ${got.rgba}, want gray ${gray}`);
    ++checked;
  }
  assert.ok(checked >= 4);
  // The other views are drawn too (not blank): several distinct colours over each canvas.
  for (const name of ['xz', 'yz', 'volume']) {
    const colours = await page.evaluate((n) => {
      const c = document.getElementById(`view-${n}`);
      const gl = c.getContext('webgl2');
      const px = new Uint8Array(c.width * c.height * 4);
      gl.readPixels(0, 0, c.width, c.height, gl.RGBA, gl.UNSIGNED_BYTE, px);
      const seen = new Set();
      for (let i = 0; i < px.length; i += 4) seen.add((px[i] << 16) | (px[i + 1] << 8) | px[i + 2]);
      return seen.size;
    }, name);
    assert.ok(colours >= 8, `${name} view shows only ${colours} colours`);
  }
  const status = await page.textContent('#status');
  // The planner's box is what the camera sees: 1 sample per pixel around (256, 256), slice z = 5.
  const [x0, x1] = [Math.max(0, Math.floor(256 - info.width / 2)), Math.min(512, Math.ceil(256 + info.width / 2))];
  const [y0, y1] = [Math.max(0, Math.floor(256 - info.height / 2)), Math.min(512, Math.ceil(256 + info.height / 2))];
  assert.ok(status.includes(`xy: level ${info.maxh} box ${x0}:${x1},${y0}:${y1},5:6`), status);
  assert.deepEqual(errors, []);
  await page.close();
});

test('zooming in asks for a finer level over a smaller box, coarse first', async () => {
  // Zoomed out to 4 samples per pixel: the planner picks a coarse level for the XY view.
  const { page, requests } = await openPage(`${server.url}/?dataset=slab&cmap=viridis&xy=256,256,4`);
  const before = await page.evaluate(() => window.hzioViewer.metrics.xy.target);
  const box = await page.locator('#view-xy').boundingBox();
  await page.mouse.move(box.x + box.width * 0.4, box.y + box.height * 0.6);
  requests.length = 0;
  for (let i = 0; i < 6; ++i) await page.mouse.wheel(0, -300);
  await page.evaluate(() => window.hzioViewer.whenIdle(60000));
  await screenshot(page, 'slab-zoomed');
  const afterZoom = await page.evaluate(() => window.hzioViewer.metrics.xy.target);
  assert.ok(afterZoom.level > before.level, `level ${before.level} -> ${afterZoom.level}`);
  assert.ok(boxVolume(afterZoom.box) < boxVolume(before.box) / 4, 'the box shrinks with the view');
  const xy = requests.filter((q) => q.get('box').endsWith(`,${afterZoom.box.p1[2]}:${afterZoom.box.p2[2]}`));
  const finalUrl = xy.find((q) => Number(q.get('level')) === afterZoom.level &&
    q.get('box') === afterZoom.box.p1.map((a, d) => `${a}:${afterZoom.box.p2[d]}`).join(','));
  assert.ok(finalUrl, 'the final XY request went to the server');
  const levels = xy.map((q) => Number(q.get('level')));
  assert.ok(Math.min(...levels) < afterZoom.level, `a coarser request came first: ${levels}`);
  const timing = await page.evaluate(() => window.hzioViewer.metrics.xy);
  assert.ok(timing.first !== null && timing.final !== null && timing.first <= timing.final, JSON.stringify(timing));
  const stats = await page.evaluate(() => window.hzioViewer.scheduler.stats);
  assert.ok(stats.bytesLoaded > 0);
  await page.close();
});

test('the URL reopens the same view', async () => {
  const { page } = await openPage(`${server.url}/?dataset=slab`);
  const box = await page.locator('#view-xz').boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.wheel(0, -400);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2 + 40, box.y + box.height / 2 + 25, { steps: 4 });
  await page.mouse.up();
  await page.selectOption('#cmap', 'magma');
  await page.fill('#range-min', '1000');
  await page.fill('#range-max', '3000000');
  await page.dispatchEvent('#range-max', 'change');
  await page.locator('.panel[data-view=xy] .slice').fill('9');
  await page.evaluate(() => window.hzioViewer.whenIdle(60000));
  const first = await page.evaluate(() => ({ state: window.hzioViewer.snapshot(), xz: window.hzioViewer.metrics.xz.target }));
  const link = page.url();
  assert.match(link, /cmap=magma/);
  assert.match(link, /range=1000%2C3000000/);
  await screenshot(page, 'url-before');
  const second = await openPage(link);
  const reopened = await second.page.evaluate(() => ({ state: window.hzioViewer.snapshot(), xz: window.hzioViewer.metrics.xz.target }));
  await screenshot(second.page, 'url-reopened');
  assert.deepEqual(reopened.state, first.state);
  assert.deepEqual(reopened.xz, first.xz);
  assert.equal(second.page.url(), link);
  await page.close();
  await second.page.close();
});

test('a server error is shown to the user', async () => {
  // This server refuses queries over 1 MiB: the 3-D view's request fails with 413.
  const { page } = await openPage(`${limited.url}/?dataset=slab`);
  const banner = page.locator('#error');
  await banner.waitFor({ state: 'visible', timeout: 20000 });
  const text = await banner.textContent();
  assert.match(text, /413 too_large/);
  assert.match(text, /limit/);
  await screenshot(page, 'server-error');
  // An unknown dataset in a link is reported, and the page falls back to one that exists.
  const other = await openPage(`${server.url}/?dataset=missing`);
  assert.match(await other.page.textContent('#error'), /no dataset named 'missing'/);
  await page.close();
  await other.page.close();
});

test('2-D RGB images and vector fields are drawn', async () => {
  const { page, errors } = await openPage(`${server.url}/?dataset=rgb&xy=50,30,0.25`);
  await screenshot(page, 'rgb-2d');
  const layout = await page.evaluate(() => document.getElementById('views').className);
  assert.match(layout, /two-d/);
  const size = await page.evaluate(() => [document.getElementById('view-xy').clientWidth, document.getElementById('view-xy').clientHeight]);
  const px = size[0] / 2 + 0.5 + 40, py = size[1] / 2 + 0.5 - 20;  // physic (60.x, 35.x)
  const x = Math.floor(50 + (px - size[0] / 2) * 0.25), y = Math.floor(30 - (py - size[1] / 2) * 0.25);
  const rgba = await page.evaluate(([a, b]) => window.hzioViewer.slices.xy.readPixel(a, b), [px, py]);
  assert.deepEqual(rgba, [2 * x, 4 * y, 128, 255]);

  const vec = await openPage(`${server.url}/?dataset=vec&xy=16,16,0.125&slice=0,0,3`);
  await screenshot(vec.page, 'vector-field');
  const vsize = await vec.page.evaluate(() => [document.getElementById('view-xy').clientWidth, document.getElementById('view-xy').clientHeight]);
  const vx = vsize[0] / 2 + 0.5 + 30, vy = vsize[1] / 2 + 0.5 + 10;
  const sx = Math.floor(16 + (vx - vsize[0] / 2) * 0.125), sy = Math.floor(16 - (vy - vsize[1] / 2) * 0.125);
  const value = await vec.page.evaluate(([a, b]) => window.hzioViewer.slices.xy.valueAt(a, b), [vx, vy]);
  assert.ok(Math.abs(value.value - Math.hypot(3 * sx, 4 * sy)) < 1e-3, `magnitude at (${sx}, ${sy}) = ${value.value}`);
  assert.deepEqual(errors, []);
  assert.deepEqual(vec.errors, []);
  await page.close();
  await vec.page.close();
});

test('choosing a timestep loads that timestep', async () => {
  const { page, errors } = await openPage(`${server.url}/?dataset=series&xy=8,8,0.0625`);
  const times = await page.$$eval('#time option', (o) => o.map((e) => e.value));
  assert.deepEqual(times, ['0', '1', '2']);
  const size = await page.evaluate(() => [document.getElementById('view-xy').clientWidth, document.getElementById('view-xy').clientHeight]);
  const px = size[0] / 2 + 0.5 + 100, py = size[1] / 2 + 0.5 + 50;
  const x = Math.floor(8 + (px - size[0] / 2) * 0.0625), y = Math.floor(8 - (py - size[1] / 2) * 0.0625);
  const at = () => page.evaluate(([a, b]) => window.hzioViewer.slices.xy.valueAt(a, b).value, [px, py]);
  assert.equal(await at(), x + 16 * y);
  await page.selectOption('#time', '2');
  await page.evaluate(() => window.hzioViewer.whenIdle(60000));
  assert.equal(await at(), 2000 + x + 16 * y);
  assert.match(page.url(), /time=2/);
  await screenshot(page, 'timestep-2');
  assert.deepEqual(errors, []);
  await page.close();
});
