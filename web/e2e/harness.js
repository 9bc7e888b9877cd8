// What the browser tests share: datasets made with the real `hzio convert`, the real server
// started on --port 0, and Debian's chromium driven by playwright-core (WebGL2 on SwiftShader).
//
// Environment: HZIO_BIN (the hzio CLI, for convert), HZIO_SERVER_BIN (hzio-server; else
// `$HZIO_BIN serve`), CHROMIUM (default /usr/bin/chromium), HZIO_TEST_ARTIFACTS (screenshots,
// default <repo>/test-artifacts/web).
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodeNpy } from '../src/npy.js';

const here = dirname(fileURLToPath(import.meta.url));
export const repo = join(here, '..', '..');
export const artifacts = process.env.HZIO_TEST_ARTIFACTS || join(repo, 'test-artifacts', 'web');

function need(name) {
  const v = process.env[name];
  if (!v || !existsSync(v)) throw new Error(`${name} must name an existing binary (got '${v ?? ''}')`);
  return v;
}

/** Writes `values` (x fastest) as .npy and converts it into DIR/NAME.idx with `hzio convert`. */
export function makeDataset(dir, name, { dims, descr = '<f4', components = 1, dtype = null, values }) {
  const shape = [...dims].reverse();
  if (components > 1) shape.push(components);
  const npy = join(dir, `${name}.npy`);
  writeFileSync(npy, encodeNpy(descr, shape, values));
  const idx = join(dir, `${name}.idx`);
  const args = ['convert', npy, idx, '--field', name === 'rgb' ? 'rgb' : 'value', '--compression', 'lz4'];
  if (dtype) args.push('--dtype', dtype);
  execFileSync(need('HZIO_BIN'), args, { stdio: ['ignore', 'ignore', 'inherit'], timeout: 120000 });
  rmSync(npy);
  return idx;
}

/** A 3-D float32 dataset with several timesteps: `hzio create` then one `hzio convert` per step. */
export function makeTimeSeries(dir, name, { dims, times, valueOf }) {
  const idx = join(dir, `${name}.idx`);
  const bin = need('HZIO_BIN');
  execFileSync(bin, ['create', idx, '--dims', dims.join(','), '--field', 'value:float32', '--time',
    `${times[0]}:${times.at(-1)}`, '--compression', 'lz4'], { stdio: ['ignore', 'ignore', 'inherit'], timeout: 60000 });
  for (const t of times) {
    const values = new Float32Array(dims[0] * dims[1] * dims[2]);
    for (let z = 0, i = 0; z < dims[2]; ++z)
      for (let y = 0; y < dims[1]; ++y) for (let x = 0; x < dims[0]; ++x) values[i++] = valueOf(x, y, z, t);
    const npy = join(dir, `${name}-${t}.npy`);
    writeFileSync(npy, encodeNpy('<f4', [...dims].reverse(), values));
    execFileSync(bin, ['convert', npy, idx, '--time', String(t)], { stdio: ['ignore', 'ignore', 'inherit'], timeout: 60000 });
    rmSync(npy);
  }
  return idx;
}

/** Starts the server on a free port; resolves to {url, stop()}. */
export function startServer(datasets, extraArgs = []) {
  const server = process.env.HZIO_SERVER_BIN;
  const [bin, args] = server && existsSync(server)
    ? [server, [...datasets, '--port', '0', ...extraArgs]]
    : [need('HZIO_BIN'), ['serve', ...datasets, '--port', '0', ...extraArgs]];
  const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not report its port within 20 s; stderr: ${stderr}`));
    }, 20000);
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /hzio serve: listening on (http:\/\/127\.0\.0\.1:\d+)\//.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({
          url: m[1],
          child,
          stop: () => new Promise((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done();
            child.once('exit', done);
            child.kill('SIGTERM');
            setTimeout(() => child.kill('SIGKILL'), 3000).unref();
          }),
        });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening; stderr: ${stderr}`));
    });
  });
}

/** Headless chromium with WebGL2 through SwiftShader, in a fresh profile. */
export async function launchBrowser() {
  let chromium;
  try {
    ({ chromium } = await import('playwright-core'));
  } catch (e) {
    throw new Error(`playwright-core is not installed in web/node_modules (run scripts/setup-deps.sh, or npm ci in web/): ${e.message}`);
  }
  const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';
  if (!existsSync(executablePath)) throw new Error(`no chromium at ${executablePath} (apt-get install chromium)`);
  const profile = mkdtempSync(join(tmpdir(), 'hzio-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    viewport: { width: 1000, height: 760 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--enable-unsafe-swiftshader', '--use-gl=angle',
      '--use-angle=swiftshader', '--disable-background-networking', '--disable-component-update', '--disable-sync',
      '--no-first-run', '--disable-dev-shm-usage'],
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export function tempDir(prefix) {
  return mkdtempSync(join(tmpdir(), prefix));
}

export async function screenshot(page, name) {
  mkdirSync(artifacts, { recursive: true });
  await page.screenshot({ path: join(artifacts, `${name}.png`) });
}
