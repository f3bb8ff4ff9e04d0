// The `metadata` of v2 notifications (AddressMetadata: is_indexed, token_info) for jetton masters and
// NFT items: on-chain content read through get-methods (TEP-74 get_jetton_data, TEP-62 get_nft_data +
// the collection's get_nft_content), off-chain content fetched over HTTP(S) behind the webhooks' SSRF
// guard — bounded in bytes and time, cached with a bound on entries and age.
import http from 'node:http';
import https from 'node:https';
import { LRUCache } from 'lru-cache';
import { guardedLookup, hostIpLiteral, refusalFor, type EndpointPolicy } from '../../../delivery/ssrf.js';
import type { AccountId } from '../../../chain/model.js';
import { dec, v3Address } from './encode.js';
import type { GetMethodRunner } from './facts.js';
import { readTokenContent, type TokenContent } from './token-content.js';
import type { V3Address, V3AddressMetadata, V3Metadata, V3TokenInfo } from './types.js';

/** Fetches a JSON document at an off-chain content URL; throws when it cannot. */
export type OffchainFetcher = (url: string) => Promise<unknown>;

export interface MetadataOptions {
  runGetMethod: GetMethodRunner;
  /** Off-chain fetcher; the default is guardedFetcher(policy) with the webhooks' SSRF policy. */
  fetchOffchain?: OffchainFetcher;
  policy?: EndpointPolicy;
  maxEntries?: number;
  ttlMs?: number;
  now?: () => number;
}

/** An HTTP(S) GET of a JSON document behind the SSRF guard: at most `maxBytes`, `timeoutMs`, no redirects. */
export function guardedFetcher(policy: EndpointPolicy, maxBytes = 256 * 1024, timeoutMs = 5_000): OffchainFetcher {
  const lookup = guardedLookup(policy);
  return (raw) =>
    new Promise((resolve, reject) => {
      const url = new URL(raw);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return reject(new Error(`unsupported scheme ${url.protocol}`));
      const literal = hostIpLiteral(url);
      const refused = literal ? refusalFor(literal, policy.allowLoopback) : null;
      if (refused) return reject(new Error(refused));
      const req = (url.protocol === 'https:' ? https : http).get(url, { lookup, timeout: timeoutMs, headers: { accept: 'application/json' } }, (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          return reject(new Error(`HTTP ${res.statusCode}`));
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > maxBytes) return req.destroy(new Error(`larger than ${maxBytes} bytes`));
          chunks.push(c);
        });
        res.on('end', () => {
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
          } catch (e) {
            reject(e as Error);
          }
        });
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`no answer in ${timeoutMs} ms`)));
      req.on('error', reject);
    });
}

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

function tokenInfo(type: V3TokenInfo['type'], c: Record<string, unknown>, extra: Record<string, unknown>): V3TokenInfo {
  const info: V3TokenInfo = { valid: true, type };
  if (str(c.name)) info.name = str(c.name);
  if (str(c.symbol)) info.symbol = str(c.symbol);
  if (str(c.description)) info.description = str(c.description);
  if (str(c.image)) info.image = str(c.image);
  if (extra.nft_index !== undefined) info.nft_index = extra.nft_index as string;
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(c)) if (!['name', 'symbol', 'description', 'image', 'uri'].includes(k)) rest[k] = v;
  if (Object.keys(rest).length) info.extra = rest;
  return info;
}

/** Reads and caches token metadata; one instance per service. */
export class MetadataReader {
  /** Oldest written leaves first (a hit does not move an entry); LRUCache, not a Map: V8 makes a Map's oldest-key eviction cost O(size). */
  private readonly cache: LRUCache<AccountId, { value: V3AddressMetadata | null; at: number }>;
  private readonly inflight = new Map<AccountId, Promise<V3AddressMetadata | null>>();
  private readonly fetchOffchain: OffchainFetcher;
  constructor(private readonly o: MetadataOptions) {
    this.fetchOffchain = o.fetchOffchain ?? guardedFetcher(o.policy ?? { allowLoopback: false });
    this.cache = new LRUCache({ max: o.maxEntries ?? 10_000 });
  }

  private now = () => (this.o.now ?? Date.now)();

  /** On-chain fields win; off-chain ones fill the rest (TEP-64 semi-chain). An unreachable URL leaves the on-chain part. */
  private async merged(content: TokenContent): Promise<Record<string, unknown>> {
    if (!content.uri) return content.onchain;
    const off = await this.fetchOffchain(content.uri).catch(() => null);
    return off && typeof off === 'object' ? { ...(off as Record<string, unknown>), ...content.onchain } : content.onchain;
  }

  private async read(account: AccountId): Promise<V3AddressMetadata | null> {
    const run = this.o.runGetMethod;
    const jetton = await run(account, 'get_jetton_data').catch(() => null);
    if (jetton?.exitCode === 0 && jetton.stack[3]?.type === 'cell') {
      const c = await this.merged(readTokenContent(jetton.stack[3].cell));
      return { is_indexed: true, token_info: [tokenInfo('jetton_masters', c, {})] };
    }
    const nft = await run(account, 'get_nft_data').catch(() => null);
    if (nft?.exitCode === 0 && nft.stack[1]?.type === 'int' && nft.stack[4]?.type === 'cell') {
      const index = nft.stack[1].value;
      const collection = nft.stack[2];
      let content = nft.stack[4].cell;
      if (collection?.type === 'slice' || collection?.type === 'cell') {
        const addr = collection.cell.beginParse().loadMaybeAddress();
        if (addr) {
          const full = await run(`${addr.workChain}:${addr.hash.toString('hex')}`, 'get_nft_content', [{ type: 'int', value: index }, { type: 'cell', cell: content }]).catch(() => null);
          if (full?.exitCode !== 0 || full.stack[0]?.type !== 'cell') return null;
          content = full.stack[0].cell;
        }
      }
      const c = await this.merged(readTokenContent(content));
      return { is_indexed: true, token_info: [tokenInfo('nft_items', c, { nft_index: dec(index) })] };
    }
    return null;
  }

  /** Metadata of one account (null: not a token we read), cached. */
  async get(account: AccountId): Promise<V3AddressMetadata | null> {
    const hit = this.cache.peek(account);
    if (hit && this.now() - hit.at < (this.o.ttlMs ?? 600_000)) return hit.value;
    let p = this.inflight.get(account);
    if (!p) {
      p = this.read(account).catch(() => null).finally(() => this.inflight.delete(account));
      this.inflight.set(account, p);
    }
    const value = await p;
    this.cache.set(account, { value, at: this.now() });
    return value;
  }

  /** Metadata for the accounts of one event, keyed by raw V3 address; accounts without token metadata are left out. */
  async build(accounts: Iterable<AccountId>): Promise<V3Metadata> {
    const list = [...new Set(accounts)].sort();
    const values = await Promise.all(list.map((a) => this.get(a)));
    const out: V3Metadata = {};
    list.forEach((a, i) => values[i] && (out[v3Address(a)] = values[i]!));
    return out;
  }
}

/** The part of the metadata one client's notification mentions. */
export function pickMetadata(metadata: V3Metadata, addresses: Iterable<V3Address>): V3Metadata {
  const out: V3Metadata = {};
  for (const a of [...addresses].sort()) if (metadata[a]) out[a] = metadata[a]!;
  return out;
}
