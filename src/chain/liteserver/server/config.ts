// liteServer.getConfigAll / getConfigParams: the masterchain state after a block, proven through the
// block's MERKLE_UPDATE, showing the whole ConfigParams dictionary or the paths to the params asked for.
import type { Cell } from '@ton/core';
import type { ConfigInfo } from '../tl/lite-api.js';
import { signedKey } from '../trust/merkle.js';
import { readMcStateExtra } from '../trust/state.js';
import type { ArchivedBlock } from './archive.js';
import { hashmapPath, ProofBuilder } from './proof-builder.js';

export function serveConfig(
  mc: ArchivedBlock,
  state: Cell,
  request: { mode: number; id: ConfigInfo['id']; paramList?: number[] },
  proofBoc: (roots: Cell[]) => Buffer,
): ConfigInfo {
  const blockProof = new ProofBuilder().showWhole(mc.root.refs[0]!, mc.root.refs[2]!).proof(mc.root);
  const custom = state.refs[3]!;
  const dict = readMcStateExtra(custom, 'serve').configParams;
  const shown = new ProofBuilder().show(custom);
  if (!request.paramList) shown.showWhole(dict);
  for (const p of request.paramList ?? []) {
    const path = hashmapPath(dict, 32, signedKey(p, 32));
    shown.show(...path.cells);
    if (path.value) shown.showWhole(...path.cells[path.cells.length - 1]!.refs);
  }
  return { mode: request.mode, id: request.id, stateProof: proofBoc([blockProof]), configProof: proofBoc([shown.proof(state)]) };
}
