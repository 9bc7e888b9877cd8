// NumPy .npy (format 1.0/2.0/3.0) parsing: what /api/v1/datasets/NAME/data?format=npy returns
// (design.md §5). Only C-order little-endian arrays, the only kind the server writes.

const kTypes = {
  '|b1': Uint8Array, '|u1': Uint8Array, '|i1': Int8Array,
  '<u2': Uint16Array, '<i2': Int16Array, '<u4': Uint32Array, '<i4': Int32Array,
  '<u8': BigUint64Array, '<i8': BigInt64Array, '<f4': Float32Array, '<f8': Float64Array,
  '|u2': Uint16Array, '|i2': Int16Array,
};

/** Parses an ArrayBuffer holding a .npy file into {descr, shape, data (TypedArray)}. */
export function parseNpy(buffer) {
  const bytes = new Uint8Array(buffer);
  const magic = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59];
  if (bytes.length < 10 || magic.some((b, i) => bytes[i] !== b)) throw new Error('not a .npy file (bad magic)');
  const major = bytes[6];
  const view = new DataView(buffer);
  let headerLength, offset;
  if (major === 1) {
    headerLength = view.getUint16(8, true);
    offset = 10;
  } else if (major === 2 || major === 3) {
    headerLength = view.getUint32(8, true);
    offset = 12;
  } else {
    throw new Error(`unsupported .npy version ${major}`);
  }
  const header = new TextDecoder('latin1').decode(bytes.subarray(offset, offset + headerLength));
  const descr = /'descr':\s*'([^']+)'/.exec(header)?.[1];
  const fortran = /'fortran_order':\s*(True|False)/.exec(header)?.[1];
  const shapeText = /'shape':\s*\(([^)]*)\)/.exec(header)?.[1];
  if (!descr || !fortran || shapeText === undefined) throw new Error(`malformed .npy header: ${header}`);
  if (fortran === 'True') throw new Error('Fortran-order .npy arrays are not supported');
  const shape = shapeText.split(',').map((s) => s.trim()).filter((s) => s).map(Number);
  const Type = kTypes[descr];
  if (!Type) throw new Error(`unsupported .npy dtype ${descr}`);
  const count = shape.reduce((a, b) => a * b, 1);
  const start = offset + headerLength;
  if (buffer.byteLength - start < count * Type.BYTES_PER_ELEMENT) {
    throw new Error(`.npy body holds ${buffer.byteLength - start} bytes, shape ${shape} needs more`);
  }
  // Typed arrays need aligned offsets: copy when the header length does not align the body.
  const data = start % Type.BYTES_PER_ELEMENT === 0
    ? new Type(buffer, start, count)
    : new Type(buffer.slice(start, start + count * Type.BYTES_PER_ELEMENT));
  return { descr, shape, data };
}

/** Writes a .npy (version 1.0) for a C-order array; used by tests to make datasets. */
export function encodeNpy(descr, shape, data) {
  const shapeText = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shapeText}, }`;
  const unpadded = 10 + header.length + 1;
  header += ' '.repeat((64 - (unpadded % 64)) % 64) + '\n';
  const out = new Uint8Array(10 + header.length + data.byteLength);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]);
  new DataView(out.buffer).setUint16(8, header.length, true);
  for (let i = 0; i < header.length; ++i) out[10 + i] = header.charCodeAt(i);
  out.set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), 10 + header.length);
  return out;
}
