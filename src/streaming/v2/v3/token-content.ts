// TEP-64 token content: on-chain (0x00, a dictionary of sha256(key) → snake or chunked value),
// off-chain (0x01, a snake URL), or both (on-chain with a `uri` key to merge).
import { createHash } from 'node:crypto';
import { Dictionary, type Cell, type Slice } from '@ton/core';

const KEYS = ['uri', 'name', 'description', 'image', 'image_data', 'symbol', 'decimals', 'amount_style', 'render_type', 'content_url', 'attributes'];
const keyHash = (k: string) => BigInt('0x' + createHash('sha256').update(k).digest('hex'));
const BY_HASH = new Map(KEYS.map((k) => [keyHash(k), k]));

function snake(s: Slice): Buffer {
  const parts: Buffer[] = [];
  for (let cur: Slice | null = s; cur; ) {
    parts.push(cur.loadBuffer(cur.remainingBits >> 3));
    cur = cur.remainingRefs > 0 ? cur.loadRef().beginParse() : null;
  }
  return Buffer.concat(parts);
}

function value(cell: Cell): string {
  const s = cell.beginParse();
  const prefix = s.loadUint(8);
  if (prefix === 0x00) return snake(s).toString('utf8');
  if (prefix === 0x01) {
    // chunked: HashmapE 32 ^(SnakeData)
    const chunks = s.loadDict(Dictionary.Keys.Uint(32), Dictionary.Values.Cell());
    return Buffer.concat([...chunks.keys()].sort((a, b) => a - b).map((k) => snake(chunks.get(k)!.beginParse()))).toString('utf8');
  }
  throw new Error(`unknown content data prefix ${prefix}`);
}

export type TokenContent = { onchain: Record<string, string>; uri: string | null };

/** Reads a content cell; throws on a layout TEP-64 does not define. */
export function readTokenContent(cell: Cell): TokenContent {
  const s = cell.beginParse();
  const layout = s.loadUint(8);
  if (layout === 0x01) return { onchain: {}, uri: snake(s).toString('utf8') };
  if (layout !== 0x00) throw new Error(`unknown content layout ${layout}`);
  const dict = s.loadDict(Dictionary.Keys.BigUint(256), Dictionary.Values.Cell());
  const onchain: Record<string, string> = {};
  for (const [h, v] of dict) {
    const k = BY_HASH.get(h);
    if (k) onchain[k] = value(v);
  }
  return { onchain, uri: onchain.uri ?? null };
}
