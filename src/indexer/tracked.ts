// The in-memory set live tracking scans each finalized block against: contract → the roles it plays
// for tracked entries. A block costs one lookup per transaction, whatever the pool size: a compact
// fingerprint table answers "not tracked" for almost every transaction from a few MB of memory, so
// the lookup stays cache-friendly at a million addresses; only fingerprint hits reach the map.
import type { AccountId } from '../chain/model.js';
import type { Role } from './extract.js';

const HEX = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) HEX['0123456789abcdef'.charCodeAt(i)] = i;

/** 32 bits of the account's hash (its last 8 hex digits), never 0 (the table's empty slot). */
export function fingerprint(account: AccountId): number {
  let fp = 0;
  const end = account.length;
  for (let i = end - 8; i < end; i++) fp = (fp << 4) | (HEX[account.charCodeAt(i) & 127]! & 15);
  return (fp | 1) >>> 0;
}

/** Open-addressing table of fingerprints (linear probing); removals leave stale entries (harmless false positives). */
class FingerprintTable {
  private table = new Uint32Array(1024);
  private mask = 1023;
  private used = 0;

  private slot(fp: number): number {
    return (Math.imul(fp, 0x9e3779b1) >>> 0) & this.mask;
  }

  mightHave(fp: number): boolean {
    for (let i = this.slot(fp); ; i = (i + 1) & this.mask) {
      const v = this.table[i]!;
      if (v === 0) return false;
      if (v === fp) return true;
    }
  }

  insert(fp: number): void {
    if ((this.used + 1) * 2 > this.table.length) this.rebuild(this.table.length * 2, this.entries());
    for (let i = this.slot(fp); ; i = (i + 1) & this.mask) {
      const v = this.table[i]!;
      if (v === fp) return;
      if (v === 0) {
        this.table[i] = fp;
        this.used++;
        return;
      }
    }
  }

  private entries(): number[] {
    return Array.from(this.table).filter((v) => v !== 0);
  }

  /** Rebuilds from `fingerprints` (drops stale entries). */
  rebuild(capacity: number, fingerprints: Iterable<number>): void {
    let size = 1024;
    while (size < capacity) size *= 2;
    this.table = new Uint32Array(size);
    this.mask = size - 1;
    this.used = 0;
    for (const fp of fingerprints) this.insert(fp);
  }

  get size(): number {
    return this.used;
  }
}

export class TrackedSet {
  // One role per contract is the common case: keep it unboxed to save memory on large pools.
  private readonly byContract = new Map<AccountId, Role | Role[]>();
  private readonly filter = new FingerprintTable();
  private roleCount = 0;
  private removedContracts = 0;

  get size(): number {
    return this.roleCount;
  }

  get contracts(): number {
    return this.byContract.size;
  }

  /** Adds a role; false when the contract already had it. */
  add(contract: AccountId, role: Role): boolean {
    const current = this.byContract.get(contract);
    if (!current) {
      this.byContract.set(contract, role);
      this.filter.insert(fingerprint(contract));
    } else {
      const list = Array.isArray(current) ? current : [current];
      if (list.some((r) => r.asset === role.asset && r.owner === role.owner)) return false;
      this.byContract.set(contract, [...list, role]);
    }
    this.roleCount++;
    return true;
  }

  remove(contract: AccountId, role: Role): void {
    const current = this.byContract.get(contract);
    if (!current) return;
    const list = (Array.isArray(current) ? current : [current]).filter((r) => !(r.asset === role.asset && r.owner === role.owner));
    this.roleCount -= (Array.isArray(current) ? current.length : 1) - list.length;
    if (list.length > 0) {
      this.byContract.set(contract, list.length === 1 ? list[0]! : list);
      return;
    }
    this.byContract.delete(contract);
    // the fingerprint stays (another contract may share it); drop stale ones once they pile up
    if (++this.removedContracts * 4 > this.byContract.size + 1024) {
      this.removedContracts = 0;
      this.filter.rebuild(this.byContract.size * 2, [...this.byContract.keys()].map(fingerprint));
    }
  }

  /** Roles of a contract, or undefined when it is not tracked (the hot path: no allocation). */
  get(contract: AccountId): Role | Role[] | undefined {
    if (!this.filter.mightHave(fingerprint(contract))) return undefined;
    return this.byContract.get(contract);
  }
}

/** Calls `fn` for each role of a `TrackedSet.get` result. */
export function forEachRole(roles: Role | Role[], fn: (role: Role) => void): void {
  if (Array.isArray(roles)) for (const r of roles) fn(r);
  else fn(roles);
}
