// The page: wires the dataset chooser and controls to the views, plans each view with the
// view planner, loads coarse-then-fine through the scheduler (the fine level once the camera has
// rested), keeps the URL in step with the view, and reports progress and errors.
import { listDatasets, datasetInfo, fetchBox, boxToRanges } from './api.js';
import { RequestScheduler, requestKey } from './scheduler.js';
import { planRequests } from './progressive.js';
import { Geometry } from './geometry.js';
import { SliceView } from './slice_view.js';
import { VolumeView } from './volume_view.js';
import { colormapNames, colormapTable } from './colormaps.js';
import { decodeState, encodeState } from './url_state.js';
import { displayKind, scalarValues, valueRange } from './display_data.js';

const kRestMs = 250;                  // the camera "rests" after this long without change
const kCoarseSteps = { slice: 4, volume: 6 };  // levels below the final one for the first image
const kBudget = { slice: 1 << 22, volume: 1 << 21 };  // most samples one view loads at once

const $ = (id) => document.getElementById(id);
const { state, problems } = decodeState(location.search);
let geometry = null;
let info = null;
let autoRange = null;
const autoRangeViews = new Set();
const metrics = {};
const restTimers = new Map();
const scheduler = new RequestScheduler({
  fetchFn: (params, { signal }) => fetchBox(params, { signal }),
  maxConcurrent: 4,
  onChange: () => updateStatus(),
});

const slices = {};
for (const name of ['xy', 'xz', 'yz']) slices[name] = new SliceView($(`view-${name}`), name, onViewChange);
const volume = new VolumeView($('view-volume'), onViewChange);
const allViews = () => [...Object.values(slices), volume];
const activeViews = () => (geometry && geometry.dims < 3 ? [slices.xy] : allViews());

function showError(message) {
  const el = $('error');
  el.textContent = message;
  el.hidden = !message;
}

// ---- planning and loading -------------------------------------------------------------------

function kindOf(view) {
  return view === volume ? 'volume' : 'slice';
}

function requestsFor(view, rested) {
  // One sample per device pixel: the planner measures spacing in the pixels the screen has.
  const dpr = window.devicePixelRatio || 1;
  const [width, height] = view.viewport().map((n) => Math.max(1, Math.round(n * dpr)));
  const kind = kindOf(view);
  const { plan, final, coarse } = planRequests(geometry, { mvp: view.plannerMvp(), width, height }, {
    level: state.level, quality: state.quality, budget: kBudget[kind], coarseSteps: kCoarseSteps[kind],
    params: { dataset: info.name, field: state.field, time: state.time },
  });
  if (!final) return { plan, final, requests: [] };
  const requests = [coarse];
  // The fine level waits for the camera to rest, unless it is already cached.
  if (final.level !== coarse.level && (rested || scheduler.cache.get(final))) requests.push(final);
  return { plan, final, requests };
}

function refresh(view, { rested = false, moved = true } = {}) {
  if (!geometry) return;
  const { plan, final, requests } = requestsFor(view, rested);
  const m = metrics[view.name];
  if (moved || !m) {
    metrics[view.name] = { start: performance.now(), first: null, final: null, bytes: 0, plan, target: final, level: null };
  } else {
    Object.assign(m, { plan, target: final });
  }
  const gen = metrics[view.name];
  if (moved && view === volume && volume.layer) volume.layer.stale = true;
  scheduler.want(view.name, requests, {
    onResult: (params, result, { cached }) => {
      if (metrics[view.name] !== gen) return;
      showResult(view, params, result);
      const now = performance.now() - gen.start;
      if (!cached) gen.bytes += result.bytes;
      if (gen.first === null) gen.first = now;
      gen.level = Math.max(gen.level ?? -1, params.level);
      if (final && params.level === final.level && boxToRanges(params.box) === boxToRanges(final.box)) gen.final = now;
      updateStatus();
    },
    onError: (params, error) => {
      showError(`loading ${view.name} at level ${params.level} failed: ${error.message}`);
      gen.error = error.message;
      updateStatus();
    },
  });
  view.draw();
  updateStatus();
}

function showResult(view, params, result) {
  const kind = displayKind(result.descr, result.components);
  // Automatic range: the union of the first image of every view (together they span the data).
  if (!state.range && kind === 'scalar' && !autoRangeViews.has(view.name)) {
    autoRangeViews.add(view.name);
    const r = valueRange(scalarValues(result.data, result.components));
    if (r) {
      autoRange = autoRange ? [Math.min(autoRange[0], r[0]), Math.max(autoRange[1], r[1])] : r;
      applyRange();
    }
  }
  const key = requestKey(params);
  if (view === volume) {
    if (volume.layer?.key === key) volume.layer.stale = false;
    else if (!volume.layer || volume.layer.level <= params.level || volume.layer.stale) volume.setLayer(result, key);
  } else {
    view.addLayer(result, kind, key);
  }
  view.draw();
}

function onViewChange(view) {
  refresh(view, { rested: false, moved: true });
  clearTimeout(restTimers.get(view.name));
  restTimers.set(view.name, setTimeout(() => {
    restTimers.delete(view.name);
    refresh(view, { rested: true, moved: false });
  }, kRestMs));
  scheduleUrlUpdate();
}

function refreshAll() {
  for (const v of activeViews()) {
    clearTimeout(restTimers.get(v.name));
    restTimers.delete(v.name);
    refresh(v, { rested: true, moved: true });
  }
  scheduleUrlUpdate();
}

// ---- status, URL ------------------------------------------------------------------------------

const fmtBytes = (b) => (b >= 1 << 20 ? `${(b / (1 << 20)).toFixed(2)} MB` : `${(b / 1024).toFixed(1)} kB`);
const fmtMs = (t) => (t === null || t === undefined ? '…' : `${Math.round(t)} ms`);

function updateStatus() {
  const { running, queued } = scheduler.pending;
  const s = scheduler.stats;
  const parts = [];
  for (const v of activeViews()) {
    const m = metrics[v.name];
    const el = document.querySelector(`.panel[data-view=${v.name}] .view-status`);
    if (!m) continue;
    const text = !m.plan.visible ? 'out of view'
      : `L${m.level ?? '-'}/${m.target?.level ?? '-'} of ${geometry.maxh} · box ${boxToRanges(m.target.box)} · ` +
        `first ${fmtMs(m.first)} · final ${fmtMs(m.final)}`;
    if (el) el.textContent = text;
    parts.push(`${v.name}: ${m.plan.visible ? `level ${m.level ?? '-'} box ${boxToRanges(m.target.box)}` : 'out of view'}`);
  }
  const finals = activeViews().map((v) => metrics[v.name]).filter((m) => m?.plan.visible);
  const slowest = finals.some((m) => m.final === null) ? null : Math.max(0, ...finals.map((m) => m.final));
  $('status').textContent = `${parts.join(' | ')} | final image ${fmtMs(slowest)}` +
    ` | loaded ${fmtBytes(s.bytesLoaded)} in ${s.completed} requests` +
    ` (${s.cacheHits} cached, ${s.aborted} cancelled) | ${running + queued} in flight`;
  $('status').dataset.bytes = String(s.bytesLoaded);
}

let urlTimer = null;
function scheduleUrlUpdate() {
  clearTimeout(urlTimer);
  urlTimer = setTimeout(() => {
    urlTimer = null;
    history.replaceState(null, '', `?${encodeState(snapshot())}`);
  }, 100);
}

function snapshot() {
  const s = structuredClone(state);
  for (const [name, v] of Object.entries(slices)) s.views[name] = { center: v.center.map(round6), scale: round6(v.scale) };
  s.slice = geometry && geometry.dims === 3 ? [0, 1, 2].slice(0, geometry.dims).map((d) => slices[['yz', 'xz', 'xy'][d]].slice) : null;
  s.cam = { yaw: round6(volume.camera.yaw), pitch: round6(volume.camera.pitch), distance: round6(volume.camera.distance) };
  return s;
}

function round6(v) {
  return Number(v.toPrecision(9));
}

// ---- controls ---------------------------------------------------------------------------------

function fillSelect(select, values, selected, label = (v) => v) {
  select.replaceChildren(...values.map((v) => {
    const o = document.createElement('option');
    o.value = String(v);
    o.textContent = label(v);
    return o;
  }));
  if (selected !== null && selected !== undefined) select.value = String(selected);
}

function applyRange() {
  const range = state.range ?? autoRange ?? fieldRange() ?? [0, 1];
  $('range-min').value = String(Number(range[0].toPrecision(7)));
  $('range-max').value = String(Number(range[1].toPrecision(7)));
  for (const v of Object.values(slices)) {
    v.range = range;
    v.draw();
  }
  volume.setRange(range);
  volume.draw();
}

function fieldRange() {
  const f = info?.fields.find((x) => x.name === state.field);
  if (f && Array.isArray(f.min) && Array.isArray(f.max) && f.components === 1 && f.max[0] > f.min[0]) return [f.min[0], f.max[0]];
  return null;
}

function applyColormap() {
  const table = colormapTable(state.cmap);
  for (const v of allViews()) {
    v.setColormap(table);
    v.draw();
  }
}

function clearData() {
  for (const v of allViews()) v.clearLayers();
  autoRange = null;
  autoRangeViews.clear();
}

async function openDataset(name, { fromUrl = false, notice = '' } = {}) {
  showError(notice);
  for (const v of allViews()) scheduler.cancel(v.name);
  try {
    info = await datasetInfo(name);
  } catch (e) {
    geometry = null;
    showError(`cannot open dataset '${name}': ${e.message}`);
    return;
  }
  geometry = new Geometry(info);
  state.dataset = info.name;
  if (!fromUrl || !info.fields.some((f) => f.name === state.field)) state.field = info.fields[0]?.name ?? null;
  const times = info.timesteps?.length ? info.timesteps : [info.default_time ?? 0];
  if (!fromUrl || !times.includes(state.time)) state.time = info.default_time ?? times[0];
  if (!fromUrl) {
    state.range = null;
    state.level = 'auto';
  }
  fillSelect($('field'), info.fields.map((f) => f.name), state.field, (n) => {
    const f = info.fields.find((x) => x.name === n);
    return `${n} (${f.dtype})`;
  });
  fillSelect($('time'), times, state.time);
  fillSelect($('level'), ['auto', ...Array.from({ length: geometry.maxh + 1 }, (_, i) => i)], state.level);
  $('views').classList.toggle('two-d', geometry.dims < 3);
  clearData();
  for (const v of allViews()) v.setGeometry(geometry);
  for (const [name, v] of Object.entries(slices)) {
    const panel = document.querySelector(`.panel[data-view=${name}]`);
    const slider = panel.querySelector('.slice');
    const n = v.n;
    const samples = geometry.samples(n);
    const wanted = fromUrl && state.slice && state.slice[n] !== undefined ? state.slice[n] : Math.floor(samples / 2);
    v.slice = Math.min(Math.max(0, wanted - (geometry.logicBox.p1[n] ?? 0)), samples - 1) + (geometry.logicBox.p1[n] ?? 0);
    slider.min = String(geometry.logicBox.p1[n] ?? 0);
    slider.max = String((geometry.logicBox.p1[n] ?? 0) + samples - 1);
    slider.value = String(v.slice);
    panel.querySelector('.slice-label').textContent = geometry.dims > n ? `${'xyz'[n]} = ${v.slice}` : '';
    slider.hidden = geometry.dims <= n;
    const saved = fromUrl ? state.views[name] : null;
    if (saved) {
      v.center = saved.center.slice();
      v.scale = saved.scale;
    } else {
      v.fit();
    }
  }
  if (fromUrl) Object.assign(volume.camera, state.cam);
  else volume.camera = { yaw: 30, pitch: 25, distance: 2.6 };
  $('dataset').value = info.name;
  applyRange();
  applyColormap();
  refreshAll();
}

function wireControls() {
  fillSelect($('cmap'), colormapNames, state.cmap);
  $('dataset').addEventListener('change', (e) => openDataset(e.target.value));
  $('field').addEventListener('change', (e) => {
    state.field = e.target.value;
    state.range = null;
    clearData();
    applyRange();
    refreshAll();
  });
  $('time').addEventListener('change', (e) => {
    state.time = Number(e.target.value);
    clearData();
    refreshAll();
  });
  $('cmap').addEventListener('change', (e) => {
    state.cmap = e.target.value;
    applyColormap();
    scheduleUrlUpdate();
  });
  const onRange = () => {
    const lo = Number($('range-min').value), hi = Number($('range-max').value);
    if (Number.isFinite(lo) && Number.isFinite(hi) && hi > lo) {
      state.range = [lo, hi];
      applyRange();
      scheduleUrlUpdate();
    }
  };
  $('range-min').addEventListener('change', onRange);
  $('range-max').addEventListener('change', onRange);
  $('range-auto').addEventListener('click', () => {
    state.range = null;
    autoRange = null;
    autoRangeViews.clear();
    const layer = slices.xy.visibleLayers().at(-1);
    if (layer?.values) autoRange = valueRange(layer.values);
    applyRange();
    scheduleUrlUpdate();
  });
  $('level').addEventListener('change', (e) => {
    state.level = e.target.value === 'auto' ? 'auto' : Number(e.target.value);
    refreshAll();
  });
  $('quality').addEventListener('change', (e) => {
    const q = Number(e.target.value);
    state.quality = Number.isFinite(q) ? q : 0;
    refreshAll();
  });
  for (const [name, v] of Object.entries(slices)) {
    const panel = document.querySelector(`.panel[data-view=${name}]`);
    panel.querySelector('.slice').addEventListener('input', (e) => {
      v.slice = Number(e.target.value);
      panel.querySelector('.slice-label').textContent = `${'xyz'[v.n]} = ${v.slice}`;
      onViewChange(v);
    });
  }
  // Re-plan a view only when its size really changed (not for every layout pass).
  const sizes = new Map();
  new ResizeObserver(() => {
    for (const v of activeViews()) {
      const size = v.viewport().join('x');
      if (sizes.get(v.name) === size) continue;
      sizes.set(v.name, size);
      v.draw();
      if (geometry && metrics[v.name]) onViewChange(v);
    }
  }).observe($('views'));
}

async function main() {
  wireControls();
  $('quality').value = String(state.quality);
  if (problems.length) console.warn(`hzio viewer: ${problems.join('; ')}`);
  let list;
  try {
    list = await listDatasets();
  } catch (e) {
    showError(`cannot list datasets: ${e.message}`);
    $('status').textContent = 'no datasets';
    return;
  }
  fillSelect($('dataset'), list.map((d) => d.name), null);
  if (list.length === 0) {
    showError('the server serves no datasets');
    return;
  }
  const wanted = state.dataset && list.some((d) => d.name === state.dataset) ? state.dataset : list[0].name;
  const notice = state.dataset && wanted !== state.dataset ? `no dataset named '${state.dataset}'; showing '${wanted}'` : '';
  await openDataset(wanted, { fromUrl: wanted === state.dataset, notice });
}

// Hooks for scripted use and the browser tests (tests/web/, web/e2e/).
window.hzioViewer = {
  state, slices, volume, scheduler, metrics,
  get geometry() { return geometry; },
  snapshot,
  refreshAll,
  /** Resolves once nothing is loading or waiting for the camera to rest. */
  whenIdle(timeoutMs = 30000) {
    const started = performance.now();
    return new Promise((resolve, reject) => {
      const poll = () => {
        const { running, queued } = scheduler.pending;
        const settled = activeViews().every((v) => metrics[v.name] && (!metrics[v.name].plan.visible ||
          metrics[v.name].final !== null || metrics[v.name].error));
        if (geometry && running + queued === 0 && restTimers.size === 0 && urlTimer === null && settled) resolve();
        else if (performance.now() - started > timeoutMs) reject(new Error('viewer did not become idle'));
        else setTimeout(poll, 30);
      };
      poll();
    });
  },
};

main();
