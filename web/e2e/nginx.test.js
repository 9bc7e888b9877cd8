// End-to-end: two hzio instances behind nginx (server/deploy/nginx-hzio.conf, Debian's nginx on
// loopback), the viewer in headless chromium. The page shows the same values through nginx as
// from one instance directly; with one instance killed, new loads are retried on the other and
// the values stay right.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync, mkdirSync, existsSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { makeDataset, startServer, launchBrowser, tempDir, screenshot, repo } from './harness.js';

const DIMS = [256, 256, 8];
const value = (x, y, z) => x + 256 * y + 65536 * z;

let dir, servers = [], nginx, nginxUrl, browser;

function freePort() {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function startNginx(prefix, upstreamUrls) {
  const bin = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((p) => existsSync(p));
  if (!bin) throw new Error('nginx is not installed (scripts/setup-deps.sh installs it)');
  mkdirSync(prefix, { recursive: true });
  const port = await freePort();
  const upstreams = upstreamUrls.map((u) => `    server ${new URL(u).host} max_fails=1 fail_timeout=10s;`).join('\n');
  const conf = readFileSync(join(repo, 'server', 'deploy', 'nginx-hzio.conf'), 'utf8')
    .replaceAll('@@PREFIX@@', prefix).replaceAll('@@LISTEN@@', `127.0.0.1:${port}`).replace('@@UPSTREAMS@@', upstreams);
  writeFileSync(join(prefix, 'nginx.conf'), conf);
  const child = spawn(bin, ['-p', prefix, '-c', join(prefix, 'nginx.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; ++i) {
    try {
      if ((await fetch(`${url}/health/live`)).ok) return { child, url };
    } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error('nginx did not answer in 20 s');
}

before(async () => {
  dir = tempDir('hzio-web-nginx-');
  const values = new Float32Array(DIMS[0] * DIMS[1] * DIMS[2]);
  for (let z = 0, i = 0; z < DIMS[2]; ++z)
    for (let y = 0; y < DIMS[1]; ++y) for (let x = 0; x < DIMS[0]; ++x) values[i++] = value(x, y, z);
  const idx = makeDataset(dir, 'slab', { dims: DIMS, values });
  servers = [await startServer([idx]), await startServer([idx])];
  ({ child: nginx, url: nginxUrl } = await startNginx(join(dir, 'nginx'), servers.map((s) => s.url)));
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  nginx?.kill('SIGTERM');
  for (const s of servers) await s.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function valuesShown(base, name) {
  const page = await browser.context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${base}/?dataset=slab&cmap=gray&range=0,600000&slice=10,20,3&xy=128,128,1`);
  await page.waitForFunction(() => window.hzioViewer?.geometry, null, { timeout: 20000 });
  await page.evaluate(() => window.hzioViewer.whenIdle(60000));
  await screenshot(page, name);
  const shown = await page.evaluate(() => {
    const c = document.getElementById('view-xy');
    const out = [];
    for (const [fx, fy] of [[0.5, 0.5], [0.3, 0.4], [0.7, 0.6], [0.45, 0.8]])
      out.push(window.hzioViewer.slices.xy.valueAt(Math.floor(c.clientWidth * fx) + 0.5, Math.floor(c.clientHeight * fy) + 0.5));
    return out.map((v) => v?.value ?? null);
  });
  return { page, errors, shown };
}

test('the viewer shows the same through nginx as from one instance, and survives losing one', async () => {
  const direct = await valuesShown(servers[0].url, 'nginx-direct');
  const proxied = await valuesShown(nginxUrl, 'nginx-proxied');
  assert.deepEqual(proxied.errors, []);
  assert.ok(direct.shown.filter((v) => v !== null).length >= 3, `values shown: ${direct.shown}`);
  assert.deepEqual(proxied.shown, direct.shown);
  await direct.page.close();
  await proxied.page.close();
  // One instance dies; the next page and its loads go to the other through nginx's retries.
  servers[0].child.kill('SIGKILL');
  const again = await valuesShown(nginxUrl, 'nginx-after-kill');
  assert.deepEqual(again.errors, []);
  assert.deepEqual(again.shown, direct.shown);
  await again.page.close();
});
