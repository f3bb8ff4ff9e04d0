// The in-memory set live tracking scans each finalized block against: contract → the roles it plays
// for tracked entries. A block costs one map lookup per transaction, whatever the pool size.
import type { AccountId } from '../chain/model.js';
import type { Role } from './extract.js';

export class TrackedSet {
  // One role per contract is the common case: keep it unboxed to save memory on large pools.
  private readonly byContract = new Map<AccountId, Role | Role[]>();
  private roleCount = 0;

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
    const removed = (Array.isArray(current) ? current.length : 1) - list.length;
    this.roleCount -= removed;
    if (list.length === 0) this.byContract.delete(contract);
    else this.byContract.set(contract, list.length === 1 ? list[0]! : list);
  }

  /** Roles of a contract, or undefined when it is not tracked (the hot path: no allocation). */
  get(contract: AccountId): Role | Role[] | undefined {
    return this.byContract.get(contract);
  }
}

/** Calls `fn` for each role of a `TrackedSet.get` result. */
export function forEachRole(roles: Role | Role[], fn: (role: Role) => void): void {
  if (Array.isArray(roles)) for (const r of roles) fn(r);
  else fn(roles);
}
