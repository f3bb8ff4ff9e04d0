// What the served-method modules (serve-*.ts) need from the fake liteserver: its blocks by exact id and
// its proof BoC maker (which applies the tampering lie).
import type { Cell } from '@ton/core';
import type { BuiltBlock } from '../../blocks/build.js';
import type { BlockIdExt, LiteMethodName } from '../tl/lite-api.js';

export interface ServedChain {
  /** The block `id` names, hashes included; throws 651 as the server does for an unknown one. */
  exact(id: BlockIdExt): BuiltBlock;
  /** A proof BoC of these roots, as the server's lying modes leave it. */
  proofBoc(method: LiteMethodName, roots: Cell[]): Buffer;
}
