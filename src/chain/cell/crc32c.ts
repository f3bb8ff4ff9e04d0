// CRC-32C (Castagnoli), the checksum a BoC ends with. Slicing by eight tables: a block's megabytes are
// checked before anything else is read, so the byte-at-a-time loop would cost a good part of the parse.

const TABLES = (() => {
  const t = new Int32Array(8 * 256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    t[i] = c;
  }
  for (let i = 0; i < 256; i++) {
    for (let s = 1; s < 8; s++) t[s * 256 + i] = (t[(s - 1) * 256 + i]! >>> 8) ^ t[t[(s - 1) * 256 + i]! & 0xff]!;
  }
  return t;
})();

export function crc32c(data: Uint8Array): number {
  const t = TABLES;
  let crc = -1;
  let i = 0;
  const end8 = data.length & ~7;
  for (; i < end8; i += 8) {
    const lo = crc ^ (data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24));
    const hi = data[i + 4]! | (data[i + 5]! << 8) | (data[i + 6]! << 16) | (data[i + 7]! << 24);
    crc = t[1792 + (lo & 0xff)]! ^ t[1536 + ((lo >>> 8) & 0xff)]! ^ t[1280 + ((lo >>> 16) & 0xff)]! ^ t[1024 + (lo >>> 24)]!
      ^ t[768 + (hi & 0xff)]! ^ t[512 + ((hi >>> 8) & 0xff)]! ^ t[256 + ((hi >>> 16) & 0xff)]! ^ t[hi >>> 24]!;
  }
  for (; i < data.length; i++) crc = t[(crc ^ data[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ -1) >>> 0;
}
