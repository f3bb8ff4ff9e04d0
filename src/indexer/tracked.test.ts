// The live set: lookups agree with a plain map through adds, removals, shared fingerprints and growth.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { TON, type Role } from './extract.js';
import { fingerprint, forEachRole, TrackedSet } from './tracked.js';

const account = () => `0:${randomBytes(32).toString('hex')}`;
const roles = (set: TrackedSet, a: string) => {
  const out: Role[] = [];
  const r = set.get(a);
  if (r) forEachRole(r, (x) => out.push(x));
  return out;
};

describe('TrackedSet', () => {
  it('agrees with a plain map through random adds and removals, at any size', () => {
    const set = new TrackedSet();
    const reference = new Map<string, Role[]>();
    const pool = Array.from({ length: 5000 }, account);
    const master = '0:' + '11'.repeat(32);
    for (let step = 0; step < 20_000; step++) {
      const a = pool[Math.floor(Math.random() * pool.length)]!;
      const role: Role = step % 3 === 0 ? { asset: master, owner: a } : { asset: TON, owner: a };
      const list = reference.get(a) ?? [];
      const has = list.some((r) => r.asset === role.asset);
      if (Math.random() < 0.7) {
        expect(set.add(a, role)).toBe(!has);
        if (!has) reference.set(a, [...list, role]);
      } else {
        set.remove(a, role);
        const left = list.filter((r) => r.asset !== role.asset);
        if (left.length) reference.set(a, left);
        else reference.delete(a);
      }
    }
    expect(set.contracts).toBe(reference.size);
    expect(set.size).toBe([...reference.values()].reduce((n, l) => n + l.length, 0));
    for (const a of pool) expect(roles(set, a).map((r) => r.asset).sort()).toEqual((reference.get(a) ?? []).map((r) => r.asset).sort());
    for (let i = 0; i < 1000; i++) expect(set.get(account())).toBeUndefined();
  });

  it('tells apart addresses that share a fingerprint', () => {
    const tail = 'deadbeef';
    const a = `0:${'1'.repeat(56)}${tail}`;
    const b = `0:${'2'.repeat(56)}${tail}`;
    const c = `-1:${'3'.repeat(56)}${tail}`;
    expect(fingerprint(a)).toBe(fingerprint(b));
    const set = new TrackedSet();
    set.add(a, { asset: TON, owner: a });
    expect(set.get(b)).toBeUndefined();
    set.add(b, { asset: TON, owner: b });
    set.remove(a, { asset: TON, owner: a });
    expect(set.get(a)).toBeUndefined();
    expect(roles(set, b)).toEqual([{ asset: TON, owner: b }]);
    expect(set.get(c)).toBeUndefined();
  });

  it('holds hundreds of thousands of addresses (the benchmark goes to a million)', () => {
    const set = new TrackedSet();
    const some: string[] = [];
    for (let i = 0; i < 200_000; i++) {
      const a = account();
      if (i % 20_000 === 0) some.push(a);
      set.add(a, { asset: TON, owner: a });
    }
    expect(set.contracts).toBe(200_000);
    for (const a of some) expect(roles(set, a)).toEqual([{ asset: TON, owner: a }]);
    let misses = 0;
    for (let i = 0; i < 10_000; i++) if (set.get(account()) === undefined) misses++;
    expect(misses).toBe(10_000);
  }, 60_000);
});
