// Which liteservers to ask and which blocks to trust: TON's `global.config.json` (liteservers with a
// signed-int32 `ip` and a base64 ed25519 `id.key`; `validator.zero_state`, `init_block`, `hardforks`),
// from a file or URL, cached in the data dir so a restart without network still works. The mainnet
// and testnet trust anchors ship here as constants. Settings are passed in; errors name them.
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BlockIdExt } from './tl/lite-api.js';
import type { PoolServer } from './transport/pool.js';

export type NetworkName = 'mainnet' | 'testnet';

/** The blocks a network's chain of trust starts from. */
export interface TrustAnchor {
  zeroState: BlockIdExt;
  /** The newest key block the config vouches for; the signature chain starts here. */
  initBlock: BlockIdExt;
  hardforks: BlockIdExt[];
}

export interface GlobalConfig {
  liteservers: PoolServer[];
  anchor: TrustAnchor;
  /** The config's `dht` object as written (static nodes for the overlay listener; src/chain/overlay/dht/config-json.ts reads it). */
  dht?: unknown;
}

export interface LoadedGlobalConfig extends GlobalConfig {
  /** Where it came from: a path, a URL, or the cache file used when the URL was unreachable. */
  origin: string;
  fromCache: boolean;
  /** mainnet or testnet when the zero state is one of theirs, else undefined (e.g. a private network). */
  network?: NetworkName;
}

/** The official configs (docs.ton.org; ton-blockchain/docs PR #1987). */
export const GLOBAL_CONFIG_URLS: Record<NetworkName, string> = {
  mainnet: 'https://ton.org/global.config.json',
  testnet: 'https://ton.org/testnet-global.config.json',
};

const MC_SHARD = -(1n << 63n);
const mc = (seqno: number, rootHash: string, fileHash: string): BlockIdExt => ({
  workchain: -1, shard: MC_SHARD, seqno, rootHash: Buffer.from(rootHash, 'base64'), fileHash: Buffer.from(fileHash, 'base64'),
});

/**
 * Trust anchors, copied from `validator` of ton-blockchain/ton-blockchain.github.io global.config.json
 * (commit 23bc3bd3) and testnet-global.config.json (commit f9dc7169), the files ton.org serves.
 */
export const TRUST_ANCHORS: Record<NetworkName, TrustAnchor & { source: string }> = {
  mainnet: {
    source: 'ton-blockchain/ton-blockchain.github.io global.config.json @ 23bc3bd3',
    zeroState: mc(0, 'F6OpKZKqvqeFp6CQmFomXNMfMj2EnaUSOXN+Mh+wVWk=', 'XplPz01CXAps5qeSWUtxcyBfdAo5zVb1N979KLSKD24='),
    initBlock: mc(43792209, 'AvaCaskwbUZCAOkULgK9zqtArFavpqg/KMTu9qO4M1U=', 'mlMbjSH0ahszX7yNIQOOawmCJxzofpaTeqlsrQspqUk='),
    hardforks: [mc(8536841, '08Kpc9XxrMKC6BF/FeNHPS3MEL1/Vi/fQU/C9ELUrkc=', 't/9VBPODF7Zdh4nsnA49dprO69nQNMqYL+zk5bCjV/8=')],
  },
  testnet: {
    source: 'ton-blockchain/ton-blockchain.github.io testnet-global.config.json @ f9dc7169',
    zeroState: mc(0, 'gj+B8wb/AmlPk1z1AhVI484rhrUpgSr2oSFIh56VoSg=', 'Z+IKwYS54DmmJmesw/nAD5DzWadnOCMzee+kdgSYDOg='),
    initBlock: mc(17908219, 'y6qWqhCnLgzWHjUFmXysaiOljuK5xVoCRMLzUwGInVM=', 'Y/GziXxwuYte0AM4WT7tTWsCx+6rcfLpGmRaEQwhUKI='),
    hardforks: [
      mc(5141579, '6JSqIYIkW7y8IorxfbQBoXiuY3kXjcoYgQOxTJpjXXA=', 'jF3RTD+OyOoP+OI9oIjdV6M8EaOh9E+8+c3m5JkPYdg='),
      mc(5172980, '054VCNNtUEwYGoRe1zjH+9b1q21/MeM+3fOo76Vcjes=', 'WrNoMrn5UIVPDV/ug/VPjYatvde8TPvz5v1VYHCLPh8='),
      mc(5176527, 'SoPLqMe9Dz26YJPOGDOHApTSe5i0kXFtRmRh/zPMGuI=', 'xRaxgUwgTXYFb16YnR+Q+VVsczLl6jmYwvzhQ/ncrh4='),
    ],
  },
};

/** A configuration problem; `setting` is the environment variable the user should look at. */
export class LiteserverConfigError extends Error {
  override readonly name: string = 'LiteserverConfigError';
  constructor(
    readonly setting: 'TONWATCH_LITESERVER_CONFIG' | 'TONWATCH_NETWORK',
    detail: string,
  ) {
    super(`${setting}: ${detail}`);
  }
}

/** The config's URL could not be fetched and no copy is cached: the network is at fault, not the settings. */
export class GlobalConfigUnreachableError extends LiteserverConfigError {
  override readonly name = 'GlobalConfigUnreachableError';
}

/** Dotted IPv4 of the signed int32 a global config stores (84478511 → 5.9.10.47). */
export function ipFromInt32(ip: number): string {
  const u = ip >>> 0;
  return [u >>> 24, (u >>> 16) & 255, (u >>> 8) & 255, u & 255].join('.');
}

/** Parses a global config; `where` names its origin in errors. Throws a plain Error saying which field is wrong. */
export function parseGlobalConfig(json: unknown, where: string): GlobalConfig {
  const fail = (what: string): never => {
    throw new Error(`${where}: ${what}`);
  };
  const obj = (v: unknown, path: string): Record<string, unknown> =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : fail(`${path} must be an object`);
  const int = (v: unknown, path: string, min: number, max: number): number =>
    Number.isInteger(v) && (v as number) >= min && (v as number) <= max ? (v as number) : fail(`${path} must be an integer in ${min}..${max}`);
  const hash = (v: unknown, path: string): Buffer => {
    const b = typeof v === 'string' ? Buffer.from(v, 'base64') : undefined;
    return b && b.length === 32 ? b : fail(`${path} must be 32 bytes in base64`);
  };
  // Shards are 64-bit; JSON.parse rounds -9223372036854775808 to a double that is still exact.
  const shard = (v: unknown, path: string): bigint => {
    if (typeof v !== 'number' && typeof v !== 'string') fail(`${path} must be a number`);
    try {
      return BigInt.asIntN(64, BigInt(v as number | string));
    } catch {
      return fail(`${path} must be an integer`);
    }
  };
  const block = (v: unknown, path: string): BlockIdExt => {
    const b = obj(v, path);
    return {
      workchain: int(b.workchain, `${path}.workchain`, -0x80000000, 0x7fffffff), shard: shard(b.shard, `${path}.shard`),
      seqno: int(b.seqno, `${path}.seqno`, 0, 0xffffffff), rootHash: hash(b.root_hash, `${path}.root_hash`),
      fileHash: hash(b.file_hash, `${path}.file_hash`),
    };
  };
  const root = obj(json, 'the config');
  if (!Array.isArray(root.liteservers) || root.liteservers.length === 0) fail('liteservers must be a non-empty array');
  const liteservers = (root.liteservers as unknown[]).map((entry, i): PoolServer => {
    const s = obj(entry, `liteservers[${i}]`);
    const id = obj(s.id, `liteservers[${i}].id`);
    if (id['@type'] !== undefined && id['@type'] !== 'pub.ed25519') fail(`liteservers[${i}].id must be a pub.ed25519 key`);
    return {
      host: ipFromInt32(int(s.ip, `liteservers[${i}].ip`, -0x80000000, 0xffffffff)),
      port: int(s.port, `liteservers[${i}].port`, 1, 65535),
      publicKey: hash(id.key, `liteservers[${i}].id.key`),
    };
  });
  const v = obj(root.validator, 'validator');
  const hardforks = v.hardforks === undefined ? [] : Array.isArray(v.hardforks) ? v.hardforks : fail('validator.hardforks must be an array');
  return {
    liteservers,
    ...(root.dht === undefined ? {} : { dht: root.dht }),
    anchor: {
      zeroState: block(v.zero_state, 'validator.zero_state'),
      initBlock: block(v.init_block ?? v.zero_state, 'validator.init_block'),
      hardforks: hardforks.map((h, i) => block(h, `validator.hardforks[${i}]`)),
    },
  };
}

/** mainnet or testnet when the config's zero state is theirs. */
export function networkOf(anchor: TrustAnchor): NetworkName | undefined {
  return (Object.keys(TRUST_ANCHORS) as NetworkName[]).find((n) => TRUST_ANCHORS[n].zeroState.rootHash.equals(anchor.zeroState.rootHash)
    && TRUST_ANCHORS[n].zeroState.fileHash.equals(anchor.zeroState.fileHash));
}

export interface LoadGlobalConfigOptions {
  /** TONWATCH_LITESERVER_CONFIG: a file path or an http(s) URL; wins over `network`. */
  source?: string;
  /** TONWATCH_NETWORK: mainnet or testnet, for the official config. */
  network?: string;
  /** Where the last good copy of a fetched config is kept. */
  dataDir: string;
  fetchTimeoutMs?: number;
  /** Other addresses for the official configs (a mirror; tests). */
  urls?: Partial<Record<NetworkName, string>>;
}

/**
 * Loads the liteserver list and trust anchor. A URL is fetched and cached; when it cannot be fetched,
 * the cached copy is used. Errors name the setting to fix.
 */
export async function loadGlobalConfig(options: LoadGlobalConfigOptions): Promise<LoadedGlobalConfig> {
  const { source, dataDir } = options;
  let setting: LiteserverConfigError['setting'];
  let location: string;
  let expected: NetworkName | undefined;
  if (source !== undefined && source.trim() !== '') {
    setting = 'TONWATCH_LITESERVER_CONFIG';
    location = source.trim();
  } else {
    setting = 'TONWATCH_NETWORK';
    if (options.network !== 'mainnet' && options.network !== 'testnet') {
      throw new LiteserverConfigError(setting, `must be mainnet or testnet (got ${options.network === undefined ? 'nothing' : JSON.stringify(options.network)}), or set TONWATCH_LITESERVER_CONFIG to a global.config.json path or URL`);
    }
    expected = options.network;
    location = options.urls?.[expected] ?? GLOBAL_CONFIG_URLS[expected];
  }
  const parse = (text: string, where: string): GlobalConfig => {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (e) {
      throw new LiteserverConfigError(setting, `${where} is not JSON: ${(e as Error).message}`);
    }
    try {
      return parseGlobalConfig(json, where);
    } catch (e) {
      throw new LiteserverConfigError(setting, (e as Error).message);
    }
  };
  const finish = (config: GlobalConfig, origin: string, fromCache: boolean): LoadedGlobalConfig => {
    const network = networkOf(config.anchor);
    if (expected && network !== expected) {
      throw new LiteserverConfigError(setting, `${origin} is not a ${expected} config (its zero state is ${network ?? 'of another network'})`);
    }
    return { ...config, origin, fromCache, network };
  };

  if (!/^https?:\/\//i.test(location)) {
    let text: string;
    try {
      text = await readFile(location, 'utf8');
    } catch (e) {
      throw new LiteserverConfigError(setting, `cannot read ${location}: ${(e as Error).message}`);
    }
    return finish(parse(text, location), location, false);
  }

  const cacheFile = join(dataDir, 'liteserver', `global-config-${createHash('sha256').update(location).digest('hex').slice(0, 16)}.json`);
  let fetchError: string;
  try {
    const res = await fetch(location, { signal: AbortSignal.timeout(options.fetchTimeoutMs ?? 15_000) });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const text = await res.text();
    const loaded = finish(parse(text, location), location, false);
    await mkdir(join(dataDir, 'liteserver'), { recursive: true });
    await writeFile(`${cacheFile}.tmp`, text);
    await rename(`${cacheFile}.tmp`, cacheFile);
    return loaded;
  } catch (e) {
    if (e instanceof LiteserverConfigError) throw e; // fetched but wrong: the cache must not hide that
    // fetch's own message is "fetch failed": the cause says why (ECONNREFUSED, ENOTFOUND…)
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    fetchError = cause?.code || cause?.message ? `${(e as Error).message}: ${cause.code ?? cause.message}` : (e as Error).message;
  }
  let cached: string;
  try {
    cached = await readFile(cacheFile, 'utf8');
  } catch {
    const what = expected ? `${expected}'s official config from ${location}` : location;
    const instead = expected
      ? `set TONWATCH_NETWORK (mainnet, testnet; mainnet when unset) to another network, or TONWATCH_LITESERVER_CONFIG to a global.config.json file or URL`
      : 'or give TONWATCH_LITESERVER_CONFIG a global.config.json file instead';
    throw new GlobalConfigUnreachableError(setting, `cannot fetch ${what} (${fetchError}) and there is no cached copy at ${cacheFile}: check that this machine reaches it, ${instead}`);
  }
  return finish(parse(cached, cacheFile), cacheFile, true);
}
