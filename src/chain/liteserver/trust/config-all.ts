// A whole proven config (`getConfigAll`): the ConfigParams dictionary of the masterchain state after a
// trusted block, with no pruned cell anywhere in it — the TVM reads any param, so all must be proven.
import type { Cell } from '@ton/core';
import { ProofError } from './errors.js';
import { hashHex, isPruned, proofRoots, type HashLike } from './merkle.js';
import { mcStateExtraOf, provenStateOfBlock, readShardState } from './state.js';

/** `getConfigAll` reply (`state_proof`, `config_proof`) of block `blockRootHash` → the `Hashmap 32 ^Cell` root. */
export function checkConfigAll(stateProof: Buffer, configProof: Buffer, blockRootHash: HashLike, check = 'config'): Cell {
  const [blockProof] = proofRoots(stateProof, `${check}.block`, 1);
  const [stateRoot] = proofRoots(configProof, `${check}.state`, 1);
  const { state } = provenStateOfBlock(blockProof!, stateRoot!, hashHex(blockRootHash), check);
  const dict = mcStateExtraOf(readShardState(state, `${check}.state`), `${check}.state`).configParams;
  const pending = [dict];
  const seen = new Set<Cell>();
  while (pending.length > 0) {
    const c = pending.pop()!;
    if (seen.has(c)) continue;
    seen.add(c);
    if (isPruned(c)) throw new ProofError(`${check}.params`, 'not-proven', 'the config dictionary has a pruned branch: getConfigAll must prove every param');
    pending.push(...c.refs);
  }
  return dict;
}
