// What the indexer asks the chain, through ChainSource only (devnet today, liteservers later):
// a jetton wallet as its master derives it, a jetton wallet's balance, and DNS resolution.
import { addressToRaw } from '../chain/address.js';
import { resolveDns, walletFromRecord } from '../chain/dns.js';
import { jettonWalletAddress as deriveWallet, jettonWalletBalance, JettonAnswerError } from '../chain/jetton.js';
import type { AccountId } from '../chain/model.js';
import type { ChainSource } from '../chain/source.js';
import { ApiError, badRequest } from '../errors.js';

/** The chain source failed (not the caller's fault): a 503 naming the operation. */
export function noNode(operation: string, err: unknown): ApiError {
  const why = err instanceof Error ? err.message : String(err);
  return new ApiError(503, `chain source unavailable while ${operation}: ${why}`, { error_code: 'no_node' });
}

/** Runs a chain call, turning a failure of the source into a 503 (ApiErrors pass through). */
export async function chainCall<T>(operation: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw noNode(operation, err);
  }
}

/**
 * The owner's jetton wallet as the master derives it (chain/jetton.ts). Never taken from a message:
 * only this address proves a deposit. 400 when `master` is no jetton master.
 */
export async function jettonWalletAddress(source: ChainSource, master: AccountId, owner: AccountId): Promise<AccountId> {
  return chainCall('deriving the jetton wallet', async () => {
    try {
      return await deriveWallet(source, master, owner);
    } catch (err) {
      if (err instanceof JettonAnswerError) throw badRequest(`jetton: ${err.message}`, 'jetton');
      throw err;
    }
  });
}

/** Jetton balance of a wallet (`get_wallet_data`), 0 while the wallet is not deployed. */
export async function jettonBalance(source: ChainSource, wallet: AccountId): Promise<bigint> {
  return chainCall('reading the jetton balance', () => jettonWalletBalance(source, wallet));
}

/** TEP-81 names: dot-separated components of bytes other than NUL, at most 126 bytes in all. */
const DOMAIN = /^[a-z0-9-]{1,63}(\.[a-z0-9-]{1,63})*$/;

export interface Resolution {
  domain: string;
  address: AccountId;
  resolvers: AccountId[];
}

/** Resolves `domain` to the wallet in its `dns_smc_address` record; null when it has none. */
export async function resolveWallet(source: ChainSource, root: AccountId, input: string): Promise<Resolution | null> {
  const domain = input.trim().toLowerCase().replace(/\.$/, '');
  if (!DOMAIN.test(domain) || Buffer.byteLength(domain) > 126) {
    throw badRequest('domain must be a name like alice.ton: letters, digits and hyphens in dot-separated parts, at most 126 bytes', 'domain');
  }
  const { record, resolvers } = await chainCall('resolving the domain', () => resolveDns(source, root, domain));
  const wallet = walletFromRecord(record);
  return wallet ? { domain, address: addressToRaw(wallet), resolvers } : null;
}
