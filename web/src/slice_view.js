// One orthogonal slice view (XY, XZ or YZ): a 2-D orthographic camera over the slice plane with
// pan (drag) and zoom (wheel, about the cursor), the planner camera for it (near/far planes hug
// the slice, so the planner returns a one-sample-thick box), and the loaded layers drawn coarse to
// fine with the colormap in a WebGL2 shader.
import { createContext, createProgram, unitQuad, lutTexture, setNearest, fitCanvas } from './gl_util.js';
import { lookAt, orthographic, multiply } from './planner.js';
import { scalarValues, rgbaValues } from './display_data.js';

const kVertex = `#version 300 es
in vec2 corner;
uniform vec4 rect;    // physic u0 v0 u1 v1 of the layer's grid cells
uniform vec4 camera;  // center u, v and half extents (physic) of the view
out vec2 tc;
out vec2 phys;
void main() {
  phys = mix(rect.xy, rect.zw, corner);
  tc = corner;
  gl_Position = vec4((phys - camera.xy) / camera.zw, 0.0, 1.0);
}`;

const kFragment = `#version 300 es
precision highp float;
precision highp int;
uniform highp sampler2D data;
uniform highp sampler2D lut;
uniform int rgb;
uniform vec2 range;
uniform vec4 clip;    // physic bounds of the dataset in the view's axes
in vec2 tc;
in vec2 phys;
out vec4 color;
void main() {
  if (phys.x < clip.x || phys.y < clip.y || phys.x > clip.z || phys.y > clip.w) discard;
  ivec2 size = textureSize(data, 0);
  ivec2 ij = min(ivec2(floor(tc * vec2(size))), size - 1);
  vec4 texel = texelFetch(data, ij, 0);
  if (rgb == 1) { color = vec4(texel.rgb, 1.0); return; }
  float v = texel.r;
  if (isnan(v)) { color = vec4(0.0, 0.0, 0.0, 1.0); return; }
  float t = range.y > range.x ? clamp((v - range.x) / (range.y - range.x), 0.0, 1.0) : 0.5;
  int index = clamp(int(floor(t * 255.0 + 0.5)), 0, 255);
  color = texelFetch(lut, ivec2(index, 0), 0);
}`;

export const kSliceAxes = { xy: [0, 1, 2], xz: [0, 2, 1], yz: [1, 2, 0] };

export class SliceView {
  constructor(canvas, name, onChange) {
    this.canvas = canvas;
    this.name = name;
    [this.a, this.b, this.n] = kSliceAxes[name];
    this.onChange = onChange;
    this.gl = createContext(canvas);
    this.prog = createProgram(this.gl, kVertex, kFragment);
    this.quad = unitQuad(this.gl);
    this.layers = [];
    this.center = [0, 0];
    this.scale = 1;  // physic units per CSS pixel
    this.geometry = null;
    this.slice = 0;  // logic index along the normal axis
    this.range = [0, 1];
    this.seq = 0;
    this.#listen();
  }

  setGeometry(geometry) {
    this.geometry = geometry;
    this.clearLayers();
  }

  setColormap(table) {
    const gl = this.gl;
    if (this.lut) gl.deleteTexture(this.lut);
    this.lut = lutTexture(gl, table);
  }

  /** Frames the whole dataset. */
  fit() {
    const g = this.geometry;
    const [a, b] = [this.a, this.b];
    this.center = [g.lo[a] + g.size[a] / 2, g.lo[b] + g.size[b] / 2];
    const w = this.canvas.clientWidth || 1, h = this.canvas.clientHeight || 1;
    this.scale = Math.max(g.size[a] / w, g.size[b] / h) * 1.02;
  }

  /** Viewport in CSS pixels (what the planner measures spacing in). */
  viewport() {
    return [Math.max(1, this.canvas.clientWidth), Math.max(1, this.canvas.clientHeight)];
  }

  /** Physic coordinate of the slice plane: the centre of sample cell `slice`. */
  slicePhysic() {
    return this.geometry.toPhysic(this.n, this.slice + 0.5);
  }

  /** Row-major MVP for the planner: orthographic, near/far a quarter sample around the slice. */
  plannerMvp() {
    const g = this.geometry;
    const [w, h] = this.viewport();
    const hw = (w / 2) * this.scale, hh = (h / 2) * this.scale;
    const eye = [0, 0, 0], target = [0, 0, 0];
    const up = this.name === 'xy' ? [0, 1, 0] : [0, 0, 1];
    target[this.a] = this.center[0];
    target[this.b] = this.center[1];
    target[this.n] = g.dims > this.n ? this.slicePhysic() : 0;
    const distance = Math.max(g.size[0], g.size[1], g.size[2]) * 2 + 1;
    eye[this.a] = target[this.a];
    eye[this.b] = target[this.b];
    // xy looks down -z; xz looks along +y (x right, z up); yz looks along -x (y right, z up).
    eye[this.n] = target[this.n] + (this.name === 'xz' ? -distance : distance);
    const slab = g.dims > this.n ? g.cell(this.n) / 4 : 1;
    return multiply(orthographic(-hw, hw, -hh, hh, distance - slab, distance + slab), lookAt(eye, target, up));
  }

  clearLayers() {
    for (const l of this.layers) this.gl.deleteTexture(l.texture);
    this.layers = [];
  }

  /** Adds a fetched box (api.fetchBox result) as a layer. */
  addLayer(result, kind, key = null) {
    const gl = this.gl;
    const existing = key && this.layers.find((l) => l.key === key);
    if (existing) {
      existing.seq = this.seq++;
      return existing;
    }
    const { grid } = result;
    const width = grid.count[this.a] ?? 1, height = grid.count[this.b] ?? 1;
    const texture = gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D, texture);
    gl.pixelStorei(gl.UNPACK_ALIGNMENT, 1);
    let values = null;
    if (kind === 'rgb') {
      gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA8, width, height, 0, gl.RGBA, gl.UNSIGNED_BYTE,
        rgbaValues(result.data, result.components));
    } else {
      values = scalarValues(result.data, result.components);
      gl.texImage2D(gl.TEXTURE_2D, 0, gl.R32F, width, height, 0, gl.RED, gl.FLOAT, values);
    }
    setNearest(gl, gl.TEXTURE_2D);
    const g = this.geometry;
    const start = (d) => grid.origin[d] ?? 0;
    const end = (d) => (grid.origin[d] ?? 0) + (grid.count[d] ?? 1) * (grid.stride[d] ?? 1);
    const layer = {
      key, texture, width, height, values, level: result.level, seq: this.seq++, grid,
      rect: [g.toPhysic(this.a, start(this.a)), g.toPhysic(this.b, start(this.b)),
        g.toPhysic(this.a, end(this.a)), g.toPhysic(this.b, end(this.b))],
      normal: [start(this.n), end(this.n)],
    };
    this.layers.push(layer);
    // Keep the newest few: older ones are covered or out of view.
    if (this.layers.length > 8) {
      this.layers.sort((x, y) => x.seq - y.seq);
      for (const old of this.layers.splice(0, this.layers.length - 8)) gl.deleteTexture(old.texture);
    }
    return layer;
  }

  /** Layers that hold the current slice, coarse first (finer ones draw on top). */
  visibleLayers() {
    const k = this.geometry.dims > this.n ? this.slice : 0;
    return this.layers
      .filter((l) => this.geometry.dims <= this.n || (l.normal[0] <= k && k < l.normal[1]))
      .sort((x, y) => x.level - y.level || x.seq - y.seq);
  }

  draw() {
    const gl = this.gl;
    fitCanvas(this.canvas);
    gl.viewport(0, 0, this.canvas.width, this.canvas.height);
    gl.clearColor(0.12, 0.12, 0.14, 1);
    gl.clear(gl.COLOR_BUFFER_BIT);
    if (!this.geometry || !this.lut) return;
    const g = this.geometry;
    const [w, h] = this.viewport();
    gl.useProgram(this.prog.program);
    const u = this.prog.uniforms;
    gl.uniform4f(u.camera, this.center[0], this.center[1], (w / 2) * this.scale, (h / 2) * this.scale);
    gl.uniform4f(u.clip, g.lo[this.a], g.lo[this.b], g.lo[this.a] + g.size[this.a], g.lo[this.b] + g.size[this.b]);
    gl.uniform2f(u.range, this.range[0], this.range[1]);
    gl.activeTexture(gl.TEXTURE1);
    gl.bindTexture(gl.TEXTURE_2D, this.lut);
    gl.uniform1i(u.lut, 1);
    gl.uniform1i(u.data, 0);
    gl.bindVertexArray(this.quad);
    for (const layer of this.visibleLayers()) {
      gl.activeTexture(gl.TEXTURE0);
      gl.bindTexture(gl.TEXTURE_2D, layer.texture);
      gl.uniform1i(u.rgb, layer.values ? 0 : 1);
      gl.uniform4f(u.rect, ...layer.rect);
      gl.drawArrays(gl.TRIANGLES, 0, 6);
    }
    gl.bindVertexArray(null);
  }

  /** Physic (u, v) under CSS pixel (px, py) from the canvas's top-left corner. */
  pixelToPhysic(px, py) {
    const [w, h] = this.viewport();
    return [this.center[0] + (px - w / 2) * this.scale, this.center[1] - (py - h / 2) * this.scale];
  }

  /** The value drawn at CSS pixel (px, py): from the finest visible layer covering it. */
  valueAt(px, py) {
    const [pu, pv] = this.pixelToPhysic(px, py);
    const layers = this.visibleLayers().reverse();
    for (const l of layers) {
      const tu = (pu - l.rect[0]) / (l.rect[2] - l.rect[0]), tv = (pv - l.rect[1]) / (l.rect[3] - l.rect[1]);
      if (tu < 0 || tv < 0 || tu >= 1 || tv >= 1 || !l.values) continue;
      const i = Math.min(l.width - 1, Math.floor(tu * l.width)), j = Math.min(l.height - 1, Math.floor(tv * l.height));
      return { value: l.values[i + l.width * j], level: l.level };
    }
    return null;
  }

  /** RGBA of the drawn pixel at CSS pixel (px, py). */
  readPixel(px, py) {
    const gl = this.gl;
    const dpr = this.canvas.width / Math.max(1, this.canvas.clientWidth);
    const out = new Uint8Array(4);
    gl.readPixels(Math.floor(px * dpr), this.canvas.height - 1 - Math.floor(py * dpr), 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, out);
    return [...out];
  }

  #listen() {
    const c = this.canvas;
    let drag = null;
    c.addEventListener('pointerdown', (e) => {
      drag = { x: e.clientX, y: e.clientY, center: this.center.slice() };
      c.setPointerCapture(e.pointerId);
    });
    c.addEventListener('pointermove', (e) => {
      if (!drag) return;
      this.center = [drag.center[0] - (e.clientX - drag.x) * this.scale, drag.center[1] + (e.clientY - drag.y) * this.scale];
      this.onChange(this, 'camera');
    });
    c.addEventListener('pointerup', () => (drag = null));
    c.addEventListener('wheel', (e) => {
      e.preventDefault();
      const rect = c.getBoundingClientRect();
      this.zoomAt(e.clientX - rect.left, e.clientY - rect.top, Math.exp(e.deltaY * 0.0015));
      this.onChange(this, 'camera');
    }, { passive: false });
    c.addEventListener('dblclick', () => {
      this.fit();
      this.onChange(this, 'camera');
    });
  }

  /** Multiplies the scale by `factor` (< 1 zooms in) keeping the point under (px, py) fixed. */
  zoomAt(px, py, factor) {
    const before = this.pixelToPhysic(px, py);
    this.scale *= factor;
    const after = this.pixelToPhysic(px, py);
    this.center = [this.center[0] + before[0] - after[0], this.center[1] + before[1] - after[1]];
  }
}
