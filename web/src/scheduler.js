// Request scheduling for progressive, view-dependent loading: every view says which boxes it
// wants (coarse first); requests nobody wants any more are aborted (AbortController), identical
// requests are shared, at most `maxConcurrent` run at once (coarsest level first), and finished
// results are kept in a byte-bounded LRU cache that also answers requests for any box inside a
// cached one at the same level. No DOM or WebGL: unit-tested in node (test/scheduler.test.js).
import { boxToRanges } from './api.js';

function baseKey(p) {
  return `${p.dataset}|${p.field ?? ''}|${p.time ?? ''}|${p.level}`;
}

export function requestKey(p) {
  return `${baseKey(p)}|${boxToRanges(p.box)}`;
}

function contains(outer, inner) {
  return inner.p1.every((v, d) => v >= outer.p1[d] && inner.p2[d] <= outer.p2[d]);
}

/** LRU cache of fetched boxes, bounded in bytes. */
export class BoxCache {
  constructor(maxBytes = 256 << 20) {
    this.maxBytes = maxBytes;
    this.bytes = 0;
    this.entries = new Map();  // requestKey -> {params, result}; Map order = LRU order
  }

  /** A cached result whose box contains params.box at the same dataset/field/time/level. */
  get(params) {
    const exact = this.entries.get(requestKey(params));
    let hit = exact;
    if (!hit) {
      const base = baseKey(params);
      for (const e of this.entries.values()) {
        if (baseKey(e.params) === base && contains(e.params.box, params.box)) {
          hit = e;
          break;
        }
      }
    }
    if (!hit) return null;
    this.entries.delete(requestKey(hit.params));
    this.entries.set(requestKey(hit.params), hit);
    return hit.result;
  }

  put(params, result) {
    const key = requestKey(params);
    if (this.entries.has(key)) return;
    const size = result.bytes ?? 0;
    if (size > this.maxBytes) return;
    this.entries.set(key, { params, result });
    this.bytes += size;
    for (const [k, e] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(k);
      this.bytes -= e.result.bytes ?? 0;
    }
  }
}

export class RequestScheduler {
  /**
   * fetchFn(params, {signal}) -> Promise<result with .bytes>; params = {dataset, field, time,
   * level, box}.
   */
  constructor({ fetchFn, maxConcurrent = 4, cacheBytes = 256 << 20, onChange = () => {} }) {
    this.fetchFn = fetchFn;
    this.maxConcurrent = maxConcurrent;
    this.cache = new BoxCache(cacheBytes);
    this.onChange = onChange;
    this.jobs = new Map();   // requestKey -> job
    this.slots = new Map();  // slot -> Set of requestKeys it waits for
    this.seq = 0;
    this.stats = { bytesLoaded: 0, issued: 0, completed: 0, aborted: 0, cacheHits: 0, failed: 0 };
  }

  /** Requests in flight or queued, for the status line and tests. */
  get pending() {
    let running = 0, queued = 0;
    for (const j of this.jobs.values()) j.controller ? ++running : ++queued;
    return { running, queued };
  }

  /**
   * Slot `slot` now wants exactly `requests` (coarse first). Cached ones are answered at once
   * through handlers.onResult(params, result, {cached: true}); the others when they arrive.
   * Whatever the slot wanted before and no longer does is dropped, and aborted when nobody else
   * waits for it.
   */
  want(slot, requests, handlers) {
    const keys = new Set();
    for (const params of requests) {
      const key = requestKey(params);
      if (keys.has(key)) continue;
      const cached = this.cache.get(params);
      if (cached) {
        this.stats.cacheHits++;
        handlers.onResult(params, cached, { cached: true });
        continue;
      }
      keys.add(key);
      let job = this.jobs.get(key);
      if (!job) {
        job = { key, params, subscribers: new Map(), controller: null, order: this.seq++ };
        this.jobs.set(key, job);
      }
      job.subscribers.set(slot, handlers);
    }
    for (const key of this.slots.get(slot) ?? []) {
      if (keys.has(key)) continue;
      const job = this.jobs.get(key);
      if (!job) continue;
      job.subscribers.delete(slot);
      if (job.subscribers.size === 0) this.#drop(job);
    }
    this.slots.set(slot, keys);
    this.#pump();
    this.onChange();
  }

  cancel(slot) {
    this.want(slot, [], { onResult() {} });
  }

  #drop(job) {
    this.jobs.delete(job.key);
    if (job.controller) {
      job.controller.abort();
      this.stats.aborted++;
    }
  }

  #pump() {
    let running = 0;
    for (const j of this.jobs.values()) if (j.controller) ++running;
    if (running >= this.maxConcurrent) return;
    const queued = [...this.jobs.values()].filter((j) => !j.controller);
    queued.sort((a, b) => a.params.level - b.params.level || a.order - b.order);
    for (const job of queued.slice(0, this.maxConcurrent - running)) this.#start(job);
  }

  #start(job) {
    job.controller = new AbortController();
    this.stats.issued++;
    const finish = () => {
      if (this.jobs.get(job.key) === job) this.jobs.delete(job.key);
      for (const keys of this.slots.values()) keys.delete(job.key);
      this.#pump();
      this.onChange();
    };
    this.fetchFn(job.params, { signal: job.controller.signal }).then(
      (result) => {
        if (job.controller.signal.aborted) return;
        this.stats.completed++;
        this.stats.bytesLoaded += result.bytes ?? 0;
        this.cache.put(job.params, result);
        const subscribers = [...job.subscribers.values()];
        finish();
        for (const h of subscribers) h.onResult(job.params, result, { cached: false });
      },
      (error) => {
        if (job.controller.signal.aborted || error?.name === 'AbortError') return;
        this.stats.failed++;
        const subscribers = [...job.subscribers.values()];
        finish();
        for (const h of subscribers) h.onError?.(job.params, error);
      },
    );
  }
}
