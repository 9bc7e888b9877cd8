// Browser viewer benchmark (design.md §7 "Viewer"): for canned views of a 512^3 float32 dataset,
// bytes loaded and time to the first and to the final image in headless chromium against the
// real server, versus loading the whole dataset at full resolution; plus the PSNR of each view's
// slice images against the same views forced to full resolution.
//
//   node bench/web/run.mjs --server build/server/hzio-server --dataset demo-data/demo.idx [--repeats 3]
//
// Prints a Markdown section (also written to bench/web/RESULTS.md with --write).
import { writeFileSync } from 'node:fs';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..', '..');
const { startServer, launchBrowser } = await import(join(repo, 'web', 'e2e', 'harness.js'));

const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, all) => {
  if (a.startsWith('--')) acc.push([a.slice(2), all[i + 1]?.startsWith('--') || all[i + 1] === undefined ? '1' : all[i + 1]]);
  return acc;
}, []));
if (!args.server || !args.dataset) {
  console.error('usage: node bench/web/run.mjs --server PATH/hzio-server --dataset PATH.idx [--repeats 3] [--write]');
  process.exit(2);
}
process.env.HZIO_SERVER_BIN = resolve(args.server);
const repeats = Number(args.repeats ?? 3);
const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
const mb = (b) => (b / (1 << 20)).toFixed(2);

// Canned views (URL parameters; the page is 1000x760 CSS px, each panel about 496x350).
const views = [
  { name: 'overview (all four views, whole dataset)', query: '' },
  { name: 'XY zoomed 4x on a corner', query: '&xy=128,384,0.25&xz=256,256,4&yz=256,256,4&cam=30,25,2.6' },
  { name: 'XY zoomed 16x', query: '&xy=300,200,0.0625&cam=30,25,2.6' },
  { name: 'XY zoomed out (4 samples per pixel)', query: '&xy=256,256,4&cam=30,25,2.6' },
  { name: '3-D close-up (camera inside the volume)', query: '&cam=60,10,0.6' },
];

const server = await startServer([resolve(args.dataset)]);
const browser = await launchBrowser();
const name = (await (await fetch(`${server.url}/api/v1/datasets`)).json())[0].name;
const info = await (await fetch(`${server.url}/api/v1/datasets/${name}`)).json();
const fullBytes = info.levels[info.maxh].samples * 4;

async function measure(query) {
  const page = await browser.context.newPage();
  const t0 = performance.now();
  await page.goto(`${server.url}/?dataset=${name}&cmap=gray&range=-2,3${query}`);
  await page.waitForFunction(() => window.hzioViewer?.geometry, null, { timeout: 60000 });
  await page.evaluate(() => window.hzioViewer.whenIdle(300000));
  const r = await page.evaluate(() => {
    const v = window.hzioViewer;
    const ms = Object.values(v.metrics);
    return {
      bytes: v.scheduler.stats.bytesLoaded,
      first: Math.max(...ms.map((m) => m.first ?? 0)),
      final: Math.max(...ms.map((m) => m.final ?? 0)),
      levels: Object.fromEntries(Object.entries(v.metrics).map(([k, m]) => [k, m.level])),
    };
  });
  const wall = performance.now() - t0;
  const pixels = await page.evaluate(() => {
    const c = document.getElementById('view-xy');
    const gl = c.getContext('webgl2');
    const out = new Uint8Array(c.width * c.height * 4);
    gl.readPixels(0, 0, c.width, c.height, gl.RGBA, gl.UNSIGNED_BYTE, out);
    return Array.from(out);
  });
  await page.close();
  return { ...r, wall, pixels };
}

function psnr(a, b) {
  let se = 0, n = 0;
  for (let i = 0; i < a.length; i += 4) {
    for (let c = 0; c < 3; ++c) {
      const d = a[i + c] - b[i + c];
      se += d * d;
      ++n;
    }
  }
  return se === 0 ? Infinity : 10 * Math.log10((255 * 255) / (se / n));
}

// Whole dataset at full resolution, over the same server (what a non-view-dependent client does).
const wholeTimes = [];
for (let i = 0; i < repeats; ++i) {
  const t = performance.now();
  const r = await fetch(`${server.url}/api/v1/datasets/${name}/data?level=${info.maxh}&format=raw`);
  const body = await r.arrayBuffer();
  if (body.byteLength !== fullBytes) throw new Error(`whole dataset: got ${body.byteLength} bytes, want ${fullBytes}`);
  wholeTimes.push(performance.now() - t);
}

const rows = [];
for (const v of views) {
  const runs = [];
  for (let i = 0; i < repeats; ++i) runs.push(await measure(v.query));
  const full = await measure(`${v.query}&level=${info.maxh}`);
  rows.push({
    name: v.name,
    bytes: median(runs.map((r) => r.bytes)),
    first: median(runs.map((r) => r.first)),
    final: median(runs.map((r) => r.final)),
    levels: runs[0].levels,
    psnr: psnr(runs[0].pixels, full.pixels),
    fullLevels: full.levels,
  });
}
await browser.close();
await server.stop();

const lines = [
  '## Browser viewer: view-dependent loading (bench/web/run.mjs)',
  '',
  `Command: \`node bench/web/run.mjs --server ${args.server} --dataset ${args.dataset} --repeats ${repeats}${args.write ? ' --write' : ''}\``,
  `Dataset: ${info.dims.join('x')} float32 (\`${name}\`, maxh ${info.maxh}), served by hzio-server on loopback; headless`,
  'chromium (SwiftShader WebGL2), page 1000x760 CSS px, fresh page per run (no browser cache), server cache warm',
  `after the first run. Medians of ${repeats} runs. Times from navigation start; "first" and "final" are the`,
  'slowest of the views for their first image and for the level the planner chose. PSNR: the XY canvas at the',
  'chosen level against the same view forced to full resolution (level override; the 3-D view stays within its',
  '2M-sample budget). "identical" where the skipped levels only split z, which an XY slice does not show.',
  '',
  '| view | bytes loaded | vs whole | first image | final image | levels (xy/xz/yz/3-D) | XY PSNR vs full res |',
  '|---|---|---|---|---|---|---|',
  ...rows.map((r) => `| ${r.name} | ${mb(r.bytes)} MiB | 1/${Math.round(fullBytes / r.bytes)} | ${Math.round(r.first)} ms | ` +
    `${Math.round(r.final)} ms | ${['xy', 'xz', 'yz', 'volume'].map((k) => r.levels[k] ?? '-').join('/')} | ` +
    `${Number.isFinite(r.psnr) ? r.psnr.toFixed(1) + ' dB' : 'identical'} (full-res run levels ${['xy', 'xz', 'yz', 'volume'].map((k) => r.fullLevels[k] ?? '-').join('/')}) |`),
  `| whole dataset, full resolution (one request) | ${mb(fullBytes)} MiB | 1 | – | ${Math.round(median(wholeTimes))} ms | ${info.maxh} | – |`,
  '',
];
const text = lines.join('\n');
console.log(text);
if (args.write) writeFileSync(join(here, 'RESULTS.md'), text);
