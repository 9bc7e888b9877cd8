// The request scheduler: priorities, cancellation, sharing, caching and errors. The fetch
// function is the scheduler's injected transport; here it hands back promises the test settles.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RequestScheduler, BoxCache, requestKey } from '../src/scheduler.js';

const box = (x0, x1, y0, y1) => ({ p1: [x0, y0], p2: [x1, y1] });
const req = (level, b = box(0, 64, 0, 64), extra = {}) => ({ dataset: 'd', field: 'f', time: 0, level, box: b, ...extra });

function transport() {
  const calls = [];
  const fetchFn = (params, { signal }) =>
    new Promise((resolve, reject) => {
      const call = { params, signal, resolve: (bytes = 100) => resolve({ bytes, level: params.level }), reject };
      signal.addEventListener('abort', () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' })));
      calls.push(call);
    });
  return { calls, fetchFn };
}

const flush = () => new Promise((r) => setImmediate(r));

function collector() {
  const got = [];
  return {
    got,
    handlers: {
      onResult: (p, result, info) => got.push({ level: p.level, cached: info.cached, result }),
      onError: (p, error) => got.push({ level: p.level, error }),
    },
  };
}

test('coarsest queued level runs first and concurrency is bounded', async () => {
  const t = transport();
  const s = new RequestScheduler({ fetchFn: t.fetchFn, maxConcurrent: 1 });
  const a = collector(), b = collector();
  s.want('a', [req(8)], a.handlers);
  s.want('b', [req(9), req(2)], b.handlers);
  assert.equal(t.calls.length, 1);
  assert.deepEqual(s.pending, { running: 1, queued: 2 });
  t.calls[0].resolve();
  await flush();
  assert.equal(t.calls.length, 2);
  assert.equal(t.calls[1].params.level, 2);
  t.calls[1].resolve();
  await flush();
  assert.equal(t.calls[2].params.level, 9);
  t.calls[2].resolve();
  await flush();
  assert.deepEqual(a.got.map((g) => g.level), [8]);
  assert.deepEqual(b.got.map((g) => g.level), [2, 9]);
  assert.equal(s.stats.bytesLoaded, 300);
});

test('requests a view no longer wants are aborted', async () => {
  const t = transport();
  const s = new RequestScheduler({ fetchFn: t.fetchFn, maxConcurrent: 4 });
  const a = collector();
  s.want('a', [req(3), req(7)], a.handlers);
  assert.equal(t.calls.length, 2);
  s.want('a', [req(3), req(8, box(0, 32, 0, 32))], a.handlers);
  assert.equal(t.calls[0].signal.aborted, false, 'still wanted: kept');
  assert.equal(t.calls[1].signal.aborted, true, 'level 7 dropped: aborted');
  assert.equal(s.stats.aborted, 1);
  s.cancel('a');
  assert.ok(t.calls.every((c) => c.signal.aborted));
  await flush();
  assert.deepEqual(a.got, [], 'aborted requests deliver nothing');
  assert.deepEqual(s.pending, { running: 0, queued: 0 });
});

test('identical requests from two views are fetched once and survive one view leaving', async () => {
  const t = transport();
  const s = new RequestScheduler({ fetchFn: t.fetchFn });
  const a = collector(), b = collector();
  s.want('a', [req(5)], a.handlers);
  s.want('b', [req(5)], b.handlers);
  assert.equal(t.calls.length, 1);
  s.cancel('a');
  assert.equal(t.calls[0].signal.aborted, false);
  t.calls[0].resolve(42);
  await flush();
  assert.equal(a.got.length, 0);
  assert.equal(b.got.length, 1);
  assert.equal(b.got[0].result.bytes, 42);
});

test('finished boxes are answered from the cache, also for boxes inside them', async () => {
  const t = transport();
  const s = new RequestScheduler({ fetchFn: t.fetchFn });
  const a = collector();
  s.want('a', [req(5)], a.handlers);
  t.calls[0].resolve();
  await flush();
  const b = collector();
  s.want('b', [req(5), req(5, box(8, 16, 8, 16)), req(6, box(8, 16, 8, 16))], b.handlers);
  assert.deepEqual(b.got.map((g) => [g.level, g.cached]), [[5, true], [5, true]]);
  assert.equal(t.calls.length, 2, 'only the finer level goes to the network');
  assert.equal(t.calls[1].params.level, 6);
  assert.equal(s.stats.cacheHits, 2);
});

test('errors reach the views that asked', async () => {
  const t = transport();
  const s = new RequestScheduler({ fetchFn: t.fetchFn });
  const a = collector();
  s.want('a', [req(4)], a.handlers);
  t.calls[0].reject(new Error('500 internal'));
  await flush();
  assert.equal(a.got.length, 1);
  assert.match(a.got[0].error.message, /500/);
  assert.equal(s.stats.failed, 1);
  // A failed request is not cached: asking again goes to the network.
  s.want('a', [req(4)], a.handlers);
  assert.equal(t.calls.length, 2);
});

test('the cache evicts least recently used boxes beyond its byte budget', () => {
  const c = new BoxCache(250);
  c.put(req(1), { bytes: 100 });
  c.put(req(2), { bytes: 100 });
  assert.ok(c.get(req(1)));  // touch level 1: level 2 becomes the oldest
  c.put(req(3), { bytes: 100 });
  assert.equal(c.bytes, 200);
  assert.ok(c.get(req(1)));
  assert.equal(c.get(req(2)), null);
  assert.ok(c.get(req(3)));
  c.put(req(4), { bytes: 1000 });  // larger than the whole cache: not kept
  assert.equal(c.get(req(4)), null);
  assert.notEqual(requestKey(req(1, box(0, 1, 0, 1), { field: 'g' })), requestKey(req(1, box(0, 1, 0, 1))));
});
