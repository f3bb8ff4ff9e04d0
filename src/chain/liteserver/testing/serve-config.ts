// liteServer.getConfigAll / getConfigParams: the masterchain state after a block, proven through the
// block's MERKLE_UPDATE, showing the whole ConfigParams dictionary or the paths to the asked params.
import type { RequestOf, ResponseOf } from '../tl/lite-api.js';
import { readMcStateExtra } from '../trust/state.js';
import { signedKey } from '../trust/merkle.js';
import { hashmapPath, ProofBuilder } from './proof-builder.js';
import type { ServedChain } from './served.js';

export function serveConfig(chain: ServedChain, request: RequestOf<'getConfigAll'> & { paramList?: number[] }): ResponseOf<'getConfigAll'> {
  const mc = chain.exact(request.id);
  const method = request.paramList ? 'getConfigParams' : 'getConfigAll';
  const blockProof = new ProofBuilder().showWhole(mc.root.refs[0]!, mc.root.refs[2]!).proof(mc.root);
  const custom = mc.state.refs[3]!;
  const dict = readMcStateExtra(custom, 'serve').configParams;
  const shown = new ProofBuilder().show(custom);
  if (!request.paramList) shown.showWhole(dict);
  for (const p of request.paramList ?? []) {
    const path = hashmapPath(dict, 32, signedKey(p, 32));
    shown.show(...path.cells);
    if (path.value) shown.showWhole(...path.cells[path.cells.length - 1]!.refs);
  }
  return {
    mode: request.mode, id: request.id,
    stateProof: chain.proofBoc(method, [blockProof]),
    configProof: chain.proofBoc(method, [shown.proof(mc.state)]),
  };
}
