// The store remembers which chain its history belongs to. A start against another chain (a new
// devnet, testnet's store pointed at mainnet) would otherwise mix two histories and hide the new
// chain's blocks behind the old cursor, so it refuses before anything is written.
import type { Kysely } from 'kysely';
import type { ChainIdentity } from '../chain/source.js';
import type { Store } from '../store/db.js';

interface IdentityTables {
  chain_identity: { singleton: number; network: string; chain_id: string; recorded_at: bigint };
}

export class ChainMismatchError extends Error {
  constructor(
    readonly stored: ChainIdentity,
    readonly current: ChainIdentity,
    storeDescription: string,
  ) {
    super(
      `the store ${storeDescription} holds the history of ${describeChain(stored)}, but the chain source follows ` +
        `${describeChain(current)}; use another database or data directory for this chain (or the one that followed it)`,
    );
    this.name = 'ChainMismatchError';
  }
}

export function describeChain(identity: ChainIdentity): string {
  return `${identity.network} chain ${identity.id}`;
}

/** The chain recorded in the store; null for a new store (or one from before chains were recorded). */
export async function readChainIdentity(store: Store): Promise<ChainIdentity | null> {
  try {
    const row = await (store.db as Kysely<IdentityTables>)
      .selectFrom('chain_identity')
      .select(['network', 'chain_id'])
      .executeTakeFirst();
    return row ? { network: row.network as ChainIdentity['network'], id: row.chain_id } : null;
  } catch (err) {
    // Read before migrations: a new store has no table yet.
    if (/no such table|does not exist/i.test((err as Error).message)) return null;
    throw err;
  }
}

/** Refuses a chain other than the recorded one; writes nothing. */
export async function checkChainIdentity(store: Store, current: ChainIdentity): Promise<void> {
  const stored = await readChainIdentity(store);
  if (stored && (stored.network !== current.network || stored.id !== current.id)) {
    throw new ChainMismatchError(stored, current, store.description);
  }
}

/** Records the chain on a store that has none yet (after migrations); idempotent. */
export async function recordChainIdentity(store: Store, current: ChainIdentity, now = Date.now()): Promise<void> {
  await (store.db as Kysely<IdentityTables>)
    .insertInto('chain_identity')
    .values({ singleton: 1, network: current.network, chain_id: current.id, recorded_at: BigInt(now) })
    .onConflict((oc) => oc.doNothing())
    .execute();
  // Of two processes starting at once on an empty store with different chains, the second is refused here.
  await checkChainIdentity(store, current);
}
