// liteServer.getLibraries: the library cells the masterchain state's `libraries` dictionary holds among
// those asked for (unknown hashes are left out, as the node leaves them).
import type { Cell } from '@ton/core';
import { loadShardStateUnsplit } from '../../tlb/shard-state.js';
import type { LibraryResult } from '../tl/lite-api.js';
import { hashmapPath } from './proof-builder.js';

/** Most libraries one query may ask for, as the node caps it. */
export const MAX_LIBRARIES = 16;

export function serveLibraries(mcState: Cell, hashes: Buffer[]): LibraryResult {
  const root = loadShardStateUnsplit(mcState.beginParse()).libraries;
  if (!root) return { result: [] };
  return {
    result: hashes.slice(0, MAX_LIBRARIES).flatMap((hash) => {
      const found = hashmapPath(root, 256, BigInt(`0x${hash.toString('hex')}`)).value;
      if (!found) return [];
      found.skip(2); // shared_lib_descr$00 lib:^Cell publishers:(Hashmap 256 True)
      return [{ hash, data: found.ref().toBoc() }];
    }),
  };
}
