// "Snake" data (compat.md §7): the bytes of a cell continue in its first reference, and so on. Used by
// text comments (op 0) and encrypted comments (op 0x2167da4b).
import type { Reader } from '../cell/reader.js';

/** Hard cap on snake data we collect: far above any message the chain accepts, so a loop cannot run away. */
const MAX_SNAKE_BYTES = 1 << 20;

const utf8 = new TextDecoder('utf-8', { fatal: false });

/**
 * Bytes of the unread part of `r`, then of the unread refs chain (next ref, then each cell's first
 * ref). Trailing bits that do not make a whole byte are ignored; `partialBits` reports them.
 */
export function readSnakeBytes(r: Reader): { bytes: Buffer; partialBits: number } {
  const parts: Buffer[] = [];
  let total = 0;
  let partialBits = 0;
  let current: Reader | null = r;
  while (current) {
    const whole = current.remainingBits >> 3;
    partialBits += current.remainingBits & 7;
    if (whole > 0) {
      parts.push(Buffer.from(current.bytesOf(whole)));
      total += whole;
    }
    if (total > MAX_SNAKE_BYTES) break;
    current = current.remainingRefs > 0 ? current.refReader() : null;
  }
  return { bytes: parts.length === 1 ? parts[0]! : Buffer.concat(parts, total), partialBits };
}

/** UTF-8 with invalid sequences replaced by U+FFFD; never throws. */
export function decodeUtf8(bytes: Uint8Array): string {
  return utf8.decode(bytes);
}

