// MERKLE_UPDATE of a block's state (the `state_update` of block.tlb): the old and the new state, each with
// every subtree the other one also holds replaced by a pruned branch, so the update carries only what changed.
//   !merkle_update#04 {X:Type} old_hash:bits256 new_hash:bits256 old_depth:uint16 new_depth:uint16 old:^X new:^X
import { beginCell, Cell } from '@ton/core';

const MERKLE_UPDATE = 4;
const PRUNED_BRANCH = 1;

/** A level-1 pruned branch standing for `cell` (its level-0 hash and depth). */
export function prunedBranch(cell: Cell): Cell {
  return beginCell().storeUint(PRUNED_BRANCH, 8).storeUint(1, 8).storeBuffer(cell.hash(0)).storeUint(cell.depth(0), 16).endCell({ exotic: true });
}

/**
 * Hashes of the subtrees the two states share, found top-down without walking what they share: cells are
 * visited in order of decreasing depth (a cell's children are shallower), and a cell met on both sides at
 * its depth is shared and not entered. Work is proportional to what changed, not to the state's size —
 * the devnet's states grow with every account, while a block touches a few.
 */
function sharedSubtrees(from: Cell, to: Cell): Set<string> {
  const shared = new Set<string>();
  // per depth: hash → cell, for each side
  const levels = new Map<number, [Map<string, Cell>, Map<string, Cell>]>();
  const push = (c: Cell, side: 0 | 1): void => {
    const d = c.depth();
    let level = levels.get(d);
    if (!level) levels.set(d, (level = [new Map(), new Map()]));
    level[side].set(c.hash().toString('hex'), c);
  };
  push(from, 0);
  push(to, 1);
  for (let d = Math.max(from.depth(), to.depth()); d >= 0; d--) {
    const level = levels.get(d);
    if (!level) continue;
    levels.delete(d);
    const [older, newer] = level;
    for (const [h, c] of older) {
      if (newer.has(h)) shared.add(h);
      else if (!c.isExotic) for (const r of c.refs) push(r, 0);
    }
    for (const [h, c] of newer) if (!shared.has(h) && !c.isExotic) for (const r of c.refs) push(r, 1);
  }
  return shared;
}

/** `root` with every subtree whose hash is in `shared` pruned (the root itself is never pruned). */
function pruneShared(root: Cell, shared: Set<string>): Cell {
  const memo = new Map<string, Cell>();
  const rebuild = (c: Cell): Cell => {
    const h = c.hash().toString('hex');
    const done = memo.get(h);
    if (done) return done;
    let out = c;
    if (!c.isExotic && c.refs.length > 0) {
      const refs = c.refs.map((r) => (shared.has(r.hash().toString('hex')) ? prunedBranch(r) : rebuild(r)));
      if (refs.some((r, i) => r !== c.refs[i])) {
        const b = beginCell().storeBits(c.bits);
        for (const r of refs) b.storeRef(r);
        out = b.endCell();
      }
    }
    memo.set(h, out);
    return out;
  };
  return rebuild(root);
}

/** The MERKLE_UPDATE cell taking state `from` to state `to`. */
export function merkleUpdate(from: Cell, to: Cell): Cell {
  const shared = sharedSubtrees(from, to);
  const oldPart = pruneShared(from, shared);
  const newPart = pruneShared(to, shared);
  return beginCell()
    .storeUint(MERKLE_UPDATE, 8)
    .storeBuffer(from.hash(0))
    .storeBuffer(to.hash(0))
    .storeUint(from.depth(0), 16)
    .storeUint(to.depth(0), 16)
    .storeRef(oldPart)
    .storeRef(newPart)
    .endCell({ exotic: true });
}
