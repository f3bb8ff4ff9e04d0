// The liteserver chain source as the service runs it: the global config from TONWATCH_LITESERVER_CONFIG
// or TONWATCH_NETWORK (errors name the setting), the trust level (`secure` walks validator signatures from
// the config's init block and remembers its newest key block in the store; `fast`), the recording hook,
// the start warnings, and the network profile completed from the chain itself (config param 4, the oldest
// block the servers keep, the USDT wallet code) once the source has started.
import type { Cell } from '@ton/core';
import type { Logger } from 'pino';
import { ConfigError, type Config } from '../config.js';
import { jettonData, JettonAnswerError } from '../chain/jetton.js';
import { realNetworkProfile, withOverrides, type NetworkProfile } from '../chain/profile.js';
import { GlobalConfigUnreachableError, loadGlobalConfig, LiteserverConfigError, type LoadedGlobalConfig } from '../chain/liteserver/config.js';
import type { LiteserverChain, LiteserverChainOptions, LiteserverStatus } from '../chain/liteserver/chain.js';
import { jsonlRecorder } from '../chain/liteserver/transport/recording.js';
import type { TrustLevel, TrustMemory } from '../chain/liteserver/trust/head-trust.js';
import type { ChainChoice } from './chain-choice.js';
import { liteserverHealth, registerLiteserverMetrics } from './liteserver-report.js';
import { overlayHealth, registerOverlayMetrics } from './overlay-report.js';

/** The global config, with a wrong or unreachable one turned into the ConfigError that names the setting. */
export async function loadLiteserverConfig(config: Pick<Config, 'liteserverConfig' | 'network' | 'dataDir'>): Promise<LoadedGlobalConfig> {
  try {
    return await loadGlobalConfig({ source: config.liteserverConfig, network: config.network, dataDir: config.dataDir });
  } catch (err) {
    // an unreachable URL is not a wrong setting: it stays itself (the message still names the setting)
    if (err instanceof LiteserverConfigError && !(err instanceof GlobalConfigUnreachableError)) throw new ConfigError([{ setting: err.setting, message: err.message }]);
    throw err;
  }
}

/** The warnings a start with these settings deserves (the log shows them once). */
export function startWarnings(trust: TrustLevel, servers: number): string[] {
  const warnings: string[] = [];
  if (trust === 'fast') {
    warnings.push('TONWATCH_TRUST=fast: a masterchain head is believed when two liteservers report the same block; everything below it is proven by hashes, but liteservers that agree on a forged head are not caught (secure trust checks validator signatures)');
  }
  if (servers === 1) {
    warnings.push(trust === 'fast'
      ? 'the liteserver config lists one server: its head is believed without a second opinion, and the chain stops when it is down; list two or more (TONWATCH_LITESERVER_CONFIG)'
      : 'the liteserver config lists one server: it cannot forge a head, but when it withholds blocks or is down the chain stops, with no other server to compare heads with; list two or more (TONWATCH_LITESERVER_CONFIG)');
  }
  return warnings;
}

/** `secure` walks from a key block: a global config whose init block is the zero state cannot be followed with it. */
export function checkTrustAnchor(config: Pick<Config, 'trust' | 'liteserverConfig'>, global: LoadedGlobalConfig): void {
  if (config.trust !== 'secure' || global.anchor.initBlock.seqno !== 0) return;
  const setting = config.liteserverConfig ? 'TONWATCH_LITESERVER_CONFIG' : 'TONWATCH_NETWORK';
  throw new ConfigError([{
    setting,
    message: `${setting}: the global config ${global.origin} has no validator.init_block (its init block is the zero state), and TONWATCH_TRUST=secure walks validator signatures from a key block: `
      + 'use a global config whose validator.init_block names a key block, or TONWATCH_TRUST=fast (two liteservers agreeing)',
  }]);
}

export interface LiteserverChoiceOptions {
  /** Where `secure` trust remembers its newest key block (the service's store); none: every start walks from the init block. */
  memory?: TrustMemory;
}

export async function createLiteserverChoice(config: Config, logger: Logger, choice: LiteserverChoiceOptions = {}): Promise<ChainChoice> {
  const global = await loadLiteserverConfig(config);
  checkTrustAnchor(config, global);
  logger.info({ origin: global.origin, fromCache: global.fromCache, servers: global.liteservers.length, network: global.network ?? 'other' }, 'liteserver config loaded');
  for (const warning of startWarnings(config.trust, global.liteservers.length)) logger.warn(warning);
  const recorder = config.liteserverRecord ? jsonlRecorder(config.liteserverRecord) : undefined;
  // Loaded on demand: it pulls in the TVM for local get-methods.
  const { createLiteserverChain, SecureTrust } = await import('../chain/liteserver/index.js');
  // A config of another network (a private one, a test's) follows as TONWATCH_NETWORK, with its constants.
  const network = global.network ?? config.network;
  const initBlock = global.anchor.initBlock;
  const options: LiteserverChainOptions = {
    config: global,
    network,
    trust: config.trust === 'fast'
      ? 'fast'
      : (pool, log) => new SecureTrust({ pool, initBlock, memory: choice.memory, maxLagBlocks: config.liteserverMaxLagBlocks, log }),
    startSeqno: config.startSeqno,
    record: recorder?.record,
    log: (level, msg, fields) => logger[level](fields ?? {}, msg),
    ...(config.overlayAddress ? { overlay: overlaySettings(config) } : {}),
  };
  const chain = createLiteserverChain(options);
  // The recording is flushed after the source stops, so its last replies are in the file.
  const stop = chain.stop.bind(chain);
  chain.stop = async () => {
    await stop();
    await recorder?.close();
  };
  const overrides = { usdtMaster: config.usdtMaster, dnsRoot: config.indexerDnsRoot };
  return {
    source: chain,
    // The configured USDT master is the one whose wallet code is read; a configured DNS root wins over param 4.
    profile: async () => withOverrides(await completeProfile(chain, withOverrides(realNetworkProfile(network), overrides), logger), overrides),
    health: () => {
      const status = chain.status();
      return { ...liteserverHealth(status), overlay: overlayHealth(status.overlay) };
    },
    registerMetrics: (registry) => {
      registerLiteserverMetrics(registry, () => chain.status());
      registerOverlayMetrics(registry, () => chain.status().overlay);
    },
  };
}

const hostPort = (s: string): { host: string; port: number } => {
  const i = s.lastIndexOf(':');
  return { host: s.slice(0, i), port: Number(s.slice(i + 1)) };
};

/** The overlay listener's addresses and limits (TONWATCH_OVERLAY_*); the socket binds on all interfaces by default. */
export function overlaySettings(config: Config): NonNullable<LiteserverChainOptions['overlay']> {
  const publicAddress = hostPort(config.overlayAddress!);
  const listen = config.overlayListen ? hostPort(config.overlayListen) : { host: '0.0.0.0', port: publicAddress.port };
  for (const [setting, a] of [['TONWATCH_OVERLAY_ADDRESS', publicAddress], ['TONWATCH_OVERLAY_LISTEN', listen]] as const) {
    if (a.port > 65535 || a.host.split('.').some((p) => Number(p) > 255)) throw new ConfigError([{ setting, message: `${setting}: ${a.host}:${a.port} is not an IPv4 address and port` }]);
  }
  return {
    publicAddress, listen,
    limits: { maxPeers: config.overlayMaxPeers, bytesPerSecond: config.overlayBytesPerSecond, messagesPerSecond: config.overlayMessagesPerSecond, memoryBytes: config.overlayMemoryMb << 20 },
  };
}

/** How long the start waits for a believed head before the profile keeps its constants. */
const HEAD_WAIT_MS = 15_000;

/**
 * Resolves true once a head is believed and its header proven (what reads are anchored on); false after
 * `timeoutMs` without one, or as soon as every server has failed and none is up (a start with the network
 * unreachable need not wait the whole time). A key-block walk that moves on (secure's first start, hundreds of
 * key blocks) restarts the wait: progress is not a failure.
 */
export async function headBelieved(chain: { status(): Pick<LiteserverStatus, 'trust' | 'pool'> & { head: object | null } }, timeoutMs: number): Promise<boolean> {
  let end = Date.now() + timeoutMs;
  let walkedTo: number | null = null;
  for (;;) {
    const { head, trust, pool } = chain.status();
    // Not trust.head: the level believes a head a moment before its header is proven and reads can use it.
    if (head) return true;
    if (trust.alarm || (pool.servers.length > 0 && pool.servers.every((s) => s.state !== 'up' && s.lastError !== undefined))) return false;
    if (trust.progress && trust.progress.at !== walkedTo) {
      walkedTo = trust.progress.at;
      end = Date.now() + timeoutMs;
    }
    if (Date.now() >= end) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Fills what the constant profile cannot know from the chain: the DNS root (config param 4), the
 * oldest block the servers keep, the code of USDT's jetton wallets. A value the chain cannot give
 * now keeps the constant (logged): a start must not fail on an optional fact.
 */
export async function completeProfile(chain: LiteserverChain, base: NetworkProfile, logger: Logger): Promise<NetworkProfile> {
  const profile: NetworkProfile = { ...base };
  // Every read below is proven from the believed head; without one (every server down) the constants stay.
  if (!(await headBelieved(chain, HEAD_WAIT_MS))) {
    logger.warn({ waiting: chain.status().waiting }, 'no masterchain head is believed yet: the network profile keeps its built-in values');
    return profile;
  }
  try {
    profile.dnsRoot = await dnsRootFromChain(chain);
  } catch (err) {
    logger.warn({ err }, 'config param 4 (the root DNS resolver) could not be read; keeping the built-in value');
  }
  try {
    profile.oldestSeqno = await chain.getOldestAvailableSeqno();
  } catch (err) {
    logger.warn({ err }, 'the oldest block the liteservers keep could not be found');
  }
  if (profile.usdtMaster) {
    try {
      // get_jetton_data's fifth value is the jetton wallet code every genuine wallet runs.
      profile.usdtWalletCodeHashes = [(await jettonData(chain, profile.usdtMaster)).walletCode.hash().toString('hex')];
    } catch (err) {
      // A master that is no jetton has no wallet code to trust: the list stays empty, quietly.
      if (!(err instanceof JettonAnswerError)) logger.warn({ err, usdtMaster: profile.usdtMaster }, "the USDT master's jetton wallet code could not be read");
    }
  }
  return profile;
}

/** Config param 4 of the believed head's proven config; null on a network whose config has none. */
export async function dnsRootFromChain(chain: Pick<LiteserverChain, 'getConfigParams'>): Promise<string | null> {
  const param4 = (await chain.getConfigParams([4])).get(4);
  return param4 ? dnsRootOfParam4(param4) : null;
}

/** `_ dns_root_addr:bits256 = ConfigParam 4;` — a masterchain account. */
export function dnsRootOfParam4(cell: Cell): string {
  const slice = cell.beginParse();
  if (slice.remainingBits < 256) throw new Error(`config param 4 holds ${slice.remainingBits} bits, not a 256-bit address`);
  return `-1:${slice.loadBuffer(32).toString('hex')}`;
}
