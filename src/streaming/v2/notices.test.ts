// TraceNorms stays bounded and keeps the recent messages (the ones a next block's transactions consume).
import { describe, expect, it } from 'vitest';
import type { HashHex } from '../../chain/model.js';
import { TraceNorms, TraceRoot } from './notices.js';

const hash = (i: number) => i.toString(16).padStart(64, '0') as HashHex;

describe('TraceNorms', () => {
  it('holds at most its limit, always the last half of it at least, and forgets the oldest', () => {
    const norms = new TraceNorms(1000);
    const roots = Array.from({ length: 5000 }, () => new TraceRoot(null));
    roots.forEach((root, i) => norms.set(hash(i), root));
    const kept = roots.filter((_, i) => norms.get(hash(i)) !== undefined).length;
    expect(kept).toBeLessThanOrEqual(1000);
    for (let i = 4500; i < 5000; i++) expect(norms.get(hash(i))).toBe(roots[i]);
    expect(norms.get(hash(0))).toBeUndefined();
    expect(norms.get(hash(3000))).toBeUndefined();
  });
});
