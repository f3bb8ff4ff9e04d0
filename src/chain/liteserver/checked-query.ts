// A query whose reply is believed only once its check passes: a reply that fails the check demotes its
// server (counted as disproven; LiteserverChain logs every demotion) and the same query goes to another,
// never twice to a server that failed it. Throws when every server that answered failed, or none could.
import type { LiteMethodName, RequestOf, ResponseOf } from './tl/lite-api.js';
import { LitePoolUnavailableError, type LitePool, type PoolQueryOptions } from './transport/pool.js';
import { ProofError } from './trust/errors.js';
import { queryExisting, type ExistingBlock } from './withheld.js';

export interface CheckedQueryOptions {
  /** The block asked about is proven to exist, so a server refusing it may be withholding (withheld.ts). */
  exists?: ExistingBlock;
  /** Prefix of the demotion's reason (the method, for reads that are not one block). */
  label?: string;
}

export async function checkedQuery<M extends LiteMethodName, T>(
  pool: LitePool, method: M, request: RequestOf<M>, options: PoolQueryOptions, check: (r: ResponseOf<M>) => T, extra: CheckedQueryOptions = {},
): Promise<T> {
  const disproven: string[] = [];
  for (;;) {
    const asked = { ...options, exclude: [...(options.exclude ?? []), ...disproven] };
    const reply = extra.exists ? queryExisting(pool, method, request, asked, extra.exists) : pool.queryWithServer(method, request, asked);
    const { response, server } = await reply.catch((err) => {
      if (err instanceof LitePoolUnavailableError && disproven.length > 0) {
        throw new Error(`${method}: every liteserver that answered failed a proof check (${disproven.join(', ')}); ${err.message}`);
      }
      throw err;
    });
    try {
      return check(response);
    } catch (err) {
      if (!(err instanceof ProofError)) throw err;
      pool.demote(server, extra.label ? `${extra.label}: ${err.message}` : err.message);
      disproven.push(server);
    }
  }
}
