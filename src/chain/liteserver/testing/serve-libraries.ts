// liteServer.getLibraries: the library cells the server holds among those asked for (unknown ones are left out).
import type { Cell } from '@ton/core';
import type { RequestOf, ResponseOf } from '../tl/lite-api.js';

export function serveLibraries(libraries: readonly Cell[], request: RequestOf<'getLibraries'>): ResponseOf<'getLibraries'> {
  const byHash = new Map(libraries.map((c) => [c.hash().toString('hex'), c]));
  return {
    result: request.libraryList.flatMap((h) => {
      const cell = byHash.get(h.toString('hex'));
      return cell ? [{ hash: h, data: cell.toBoc() }] : [];
    }),
  };
}
