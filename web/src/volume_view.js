// The 3-D view: an orbiting perspective camera (drag rotates, wheel zooms, shift-drag pans) and
// ray-cast volume rendering (emission-absorption through the colormap) of the loaded box, with
// the dataset's outline. The planner sees the same camera, so the box follows the frustum and
// the level follows the distance.
import { createContext, createProgram, unitQuad, lutTexture, fitCanvas } from './gl_util.js';
import { lookAt, perspective, multiply, invert } from './planner.js';
import { scalarValues } from './display_data.js';

const kVertex = `#version 300 es
in vec2 corner;
void main() { gl_Position = vec4(corner * 2.0 - 1.0, 0.0, 1.0); }`;

const kFragment = `#version 300 es
precision highp float;
precision highp sampler3D;
uniform mat4 inverseMvp;
uniform vec2 viewport;
uniform vec3 boxMin, boxMax;   // dataset (physic)
uniform vec3 texMin, texMax;   // the loaded grid's cells (physic)
uniform sampler3D volume;      // values already mapped to 0..1 through the range
uniform sampler2D lut;
uniform float density;
uniform int hasVolume;
out vec4 color;
void main() {
  vec2 ndc = gl_FragCoord.xy / viewport * 2.0 - 1.0;
  vec4 a = inverseMvp * vec4(ndc, -1.0, 1.0);
  vec4 b = inverseMvp * vec4(ndc, 1.0, 1.0);
  vec3 origin = a.xyz / a.w;
  vec3 dir = b.xyz / b.w - origin;
  vec3 inv = 1.0 / dir;
  vec3 t0 = (boxMin - origin) * inv, t1 = (boxMax - origin) * inv;
  vec3 tmin = min(t0, t1), tmax = max(t0, t1);
  float tnear = max(max(max(tmin.x, tmin.y), tmin.z), 0.0);
  float tfar = min(min(min(tmax.x, tmax.y), tmax.z), 1.0);
  vec3 background = vec3(0.12, 0.12, 0.14);
  if (tnear >= tfar) { color = vec4(background, 1.0); return; }
  // Outline: pixels whose entry point lies near two faces of the box.
  vec3 entry = origin + tnear * dir;
  vec3 edge = min(abs(entry - boxMin), abs(boxMax - entry)) / (boxMax - boxMin);
  float nearFaces = float(edge.x < 0.006) + float(edge.y < 0.006) + float(edge.z < 0.006);
  if (hasVolume == 0) { color = vec4(nearFaces >= 2.0 ? vec3(0.8) : background, 1.0); return; }
  const int kSteps = 256;
  float dt = (tfar - tnear) / float(kSteps);
  float stepLength = length(dir) * dt / length(boxMax - boxMin);
  vec3 accumulated = vec3(0.0);
  float alpha = 0.0;
  for (int i = 0; i < kSteps; ++i) {
    vec3 p = origin + (tnear + (float(i) + 0.5) * dt) * dir;
    vec3 tc = (p - texMin) / (texMax - texMin);
    if (all(greaterThanEqual(tc, vec3(0.0))) && all(lessThanEqual(tc, vec3(1.0)))) {
      float v = texture(volume, tc).r;
      vec4 c = texelFetch(lut, ivec2(int(clamp(v, 0.0, 1.0) * 255.0 + 0.5), 0), 0);
      float a = 1.0 - exp(-density * v * v * stepLength * 40.0);
      accumulated += (1.0 - alpha) * a * c.rgb;
      alpha += (1.0 - alpha) * a;
      if (alpha > 0.98) break;
    }
  }
  if (nearFaces >= 2.0) {
    accumulated = mix(accumulated, vec3(0.8), 0.5 * (1.0 - alpha));
    alpha = max(alpha, 0.5);
  }
  color = vec4(accumulated + (1.0 - alpha) * background, 1.0);
}`;

export class VolumeView {
  constructor(canvas, onChange) {
    this.canvas = canvas;
    this.name = 'volume';
    this.onChange = onChange;
    this.gl = createContext(canvas);
    this.prog = createProgram(this.gl, kVertex, kFragment);
    this.quad = unitQuad(this.gl);
    this.geometry = null;
    this.camera = { yaw: 30, pitch: 25, distance: 2.6 };
    this.pan = [0, 0, 0];
    this.range = [0, 1];
    this.layer = null;
    this.#listen();
  }

  setGeometry(geometry) {
    this.geometry = geometry;
    this.pan = [0, 0, 0];
    this.clearLayers();
  }

  setColormap(table) {
    if (this.lut) this.gl.deleteTexture(this.lut);
    this.lut = lutTexture(this.gl, table);
  }

  setRange(range) {
    this.range = range;
    if (this.layer) this.#upload(this.layer);
  }

  viewport() {
    return [Math.max(1, this.canvas.clientWidth), Math.max(1, this.canvas.clientHeight)];
  }

  #radius() {
    const s = this.geometry.size;
    return Math.max(1e-12, Math.sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]) / 2);
  }

  /** Row-major MVP of the orbit camera (physic -> clip). */
  plannerMvp() {
    const g = this.geometry;
    const r = this.#radius();
    const target = [0, 1, 2].map((d) => g.lo[d] + g.size[d] / 2 + this.pan[d]);
    const yaw = (this.camera.yaw * Math.PI) / 180, pitch = (this.camera.pitch * Math.PI) / 180;
    const dist = this.camera.distance * r;
    const eye = [target[0] + dist * Math.cos(pitch) * Math.sin(yaw), target[1] - dist * Math.cos(pitch) * Math.cos(yaw),
      target[2] + dist * Math.sin(pitch)];
    const up = Math.abs(Math.cos(pitch)) < 1e-6 ? [0, 1, 0] : [0, 0, 1];
    const [w, h] = this.viewport();
    const near = Math.max(dist - 2 * r, dist * 0.01), far = dist + 2 * r;
    return multiply(perspective(40, w / h, near, far), lookAt(eye, target, up));
  }

  clearLayers() {
    if (this.layer) this.gl.deleteTexture(this.layer.texture);
    this.layer = null;
  }

  /** Shows a fetched 3-D box (replaces the previous one). */
  setLayer(result, key = null) {
    const values = scalarValues(result.data, result.components);
    this.clearLayers();
    const { grid } = result;
    const g = this.geometry;
    const texMin = [0, 1, 2].map((d) => g.toPhysic(d, grid.origin[d] ?? 0));
    const texMax = [0, 1, 2].map((d) => g.toPhysic(d, (grid.origin[d] ?? 0) + (grid.count[d] ?? 1) * (grid.stride[d] ?? 1)));
    this.layer = { key, values, grid, level: result.level, texMin, texMax, texture: this.gl.createTexture() };
    this.#upload(this.layer);
  }

  #upload(layer) {
    const gl = this.gl;
    const [lo, hi] = this.range;
    const n = layer.values.length;
    const bytes = new Uint8Array(n);
    const k = hi > lo ? 255 / (hi - lo) : 0;
    for (let i = 0; i < n; ++i) {
      const v = (layer.values[i] - lo) * k;
      bytes[i] = v <= 0 || Number.isNaN(v) ? 0 : v >= 255 ? 255 : v + 0.5;
    }
    const [nx, ny, nz] = [0, 1, 2].map((d) => layer.grid.count[d] ?? 1);
    gl.bindTexture(gl.TEXTURE_3D, layer.texture);
    gl.pixelStorei(gl.UNPACK_ALIGNMENT, 1);
    gl.texImage3D(gl.TEXTURE_3D, 0, gl.R8, nx, ny, nz, 0, gl.RED, gl.UNSIGNED_BYTE, bytes);
    gl.texParameteri(gl.TEXTURE_3D, gl.TEXTURE_MIN_FILTER, gl.LINEAR);
    gl.texParameteri(gl.TEXTURE_3D, gl.TEXTURE_MAG_FILTER, gl.LINEAR);
    for (const p of [gl.TEXTURE_WRAP_S, gl.TEXTURE_WRAP_T, gl.TEXTURE_WRAP_R]) gl.texParameteri(gl.TEXTURE_3D, p, gl.CLAMP_TO_EDGE);
  }

  draw() {
    const gl = this.gl;
    fitCanvas(this.canvas);
    gl.viewport(0, 0, this.canvas.width, this.canvas.height);
    gl.clearColor(0.12, 0.12, 0.14, 1);
    gl.clear(gl.COLOR_BUFFER_BIT);
    if (!this.geometry || !this.lut) return;
    const inverse = invert(this.plannerMvp());
    if (!inverse) return;
    const g = this.geometry;
    const u = this.prog.uniforms;
    gl.useProgram(this.prog.program);
    gl.uniformMatrix4fv(u.inverseMvp, true, new Float32Array(inverse));
    gl.uniform2f(u.viewport, this.canvas.width, this.canvas.height);
    gl.uniform3f(u.boxMin, g.lo[0], g.lo[1], g.lo[2]);
    gl.uniform3f(u.boxMax, g.lo[0] + g.size[0], g.lo[1] + g.size[1], g.lo[2] + g.size[2]);
    gl.uniform1f(u.density, 1.0);
    gl.uniform1i(u.hasVolume, this.layer ? 1 : 0);
    if (this.layer) {
      gl.uniform3f(u.texMin, ...this.layer.texMin);
      gl.uniform3f(u.texMax, ...this.layer.texMax);
      gl.activeTexture(gl.TEXTURE0);
      gl.bindTexture(gl.TEXTURE_3D, this.layer.texture);
      gl.uniform1i(u.volume, 0);
    }
    gl.activeTexture(gl.TEXTURE1);
    gl.bindTexture(gl.TEXTURE_2D, this.lut);
    gl.uniform1i(u.lut, 1);
    gl.bindVertexArray(this.quad);
    gl.drawArrays(gl.TRIANGLES, 0, 6);
    gl.bindVertexArray(null);
  }

  #listen() {
    const c = this.canvas;
    let drag = null;
    c.addEventListener('pointerdown', (e) => {
      drag = { x: e.clientX, y: e.clientY, camera: { ...this.camera }, pan: this.pan.slice(), shift: e.shiftKey };
      c.setPointerCapture(e.pointerId);
    });
    c.addEventListener('pointermove', (e) => {
      if (!drag) return;
      const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
      if (drag.shift) {
        const r = this.#radius() * this.camera.distance / Math.max(1, c.clientHeight);
        const yaw = (this.camera.yaw * Math.PI) / 180;
        this.pan = [drag.pan[0] - dx * r * Math.cos(yaw), drag.pan[1] - dx * r * Math.sin(yaw), drag.pan[2] + dy * r];
      } else {
        this.camera.yaw = drag.camera.yaw + dx * 0.4;
        this.camera.pitch = Math.max(-89, Math.min(89, drag.camera.pitch + dy * 0.4));
      }
      this.onChange(this, 'camera');
    });
    c.addEventListener('pointerup', () => (drag = null));
    c.addEventListener('wheel', (e) => {
      e.preventDefault();
      this.camera.distance = Math.max(0.05, Math.min(50, this.camera.distance * Math.exp(e.deltaY * 0.0015)));
      this.onChange(this, 'camera');
    }, { passive: false });
  }
}
