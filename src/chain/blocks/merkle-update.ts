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

function hashesOf(root: Cell): Set<string> {
  const seen = new Set<string>();
  const visit = (c: Cell): void => {
    const h = c.hash().toString('hex');
    if (seen.has(h)) return;
    seen.add(h);
    for (const r of c.refs) visit(r);
  };
  visit(root);
  return seen;
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
  const inFrom = hashesOf(from);
  const inTo = hashesOf(to);
  const oldPart = pruneShared(from, inTo);
  const newPart = pruneShared(to, inFrom);
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
