// CRC-32C (Castagnoli), the checksum a BoC ends with. Slicing by four tables: a block's megabytes are
// checked before anything else is read, so the byte-at-a-time loop would cost more than the parse.

const TABLES = (() => {
  const t = new Uint32Array(4 * 256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    t[i] = c >>> 0;
  }
  for (let i = 0; i < 256; i++) {
    for (let s = 1; s < 4; s++) t[s * 256 + i] = (t[(s - 1) * 256 + i]! >>> 8) ^ t[t[(s - 1) * 256 + i]! & 0xff]!;
  }
  return t;
})();

export function crc32c(data: Uint8Array): number {
  let crc = 0xffffffff;
  let i = 0;
  const end4 = data.length & ~3;
  for (; i < end4; i += 4) {
    crc ^= data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24);
    crc = TABLES[768 + (crc & 0xff)]! ^ TABLES[512 + ((crc >>> 8) & 0xff)]! ^ TABLES[256 + ((crc >>> 16) & 0xff)]! ^ TABLES[crc >>> 24]!;
  }
  for (; i < data.length; i++) crc = TABLES[(crc ^ data[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
