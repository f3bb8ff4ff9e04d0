// The liteserver chain source: follow mainnet or testnet through untrusted liteservers.
//
// Stable API (the service wires it; keep it so):
//   createLiteserverChain({
//     config: GlobalConfig,                  // liteservers + trust anchor (loadGlobalConfig)
//     network: 'mainnet' | 'testnet',        // networkOf(config.anchor) for the official configs
//     trust: 'fast' | HeadTrust | ((pool, log) => HeadTrust),   // e.g. (pool, log) => new SecureTrust({ pool, initBlock, memory, log })
//     startSeqno?: number,                   // floor of getOldestAvailableSeqno (default 2)
//     record?: QueryRecorder,                // every query and reply (jsonlRecorder)
//     transport?: (server, settings) => LiteConnection,  // instead of ADNL: InProcessTransport, ReplayTransport
//     log?: (level: 'debug' | 'info' | 'warn' | 'error', msg: string, fields?: object) => void,  // demotions at warn
//     poolOptions?: Partial<LitePoolOptions>,
//     headWaitMs?, pendingTtlMs?, sendFanout?,
//   }): LiteserverChain                      // implements ChainSource
//   chain.getConfigParams(params: number[], mcSeqno?): Map<param, Cell | null>   // proven; not in ChainSource
//   chain.status(): LiteserverStatus = {
//     network, trust: TrustStatus, pool: PoolStatus (per server: state, head, latencyMs, queries, failures,
//     timeouts, disproven, withheld, reconnects, demoted, lastError), head: BlockHeader | null, lagBlocks, lagSeconds,
//     disproven: { [host:port]: count }, walkedSeqno, waiting: string | null (why nothing can be served now)
//   }
import { LiteserverChain, type LiteserverChainOptions } from './chain.js';

export { LiteserverChain, type LiteserverChainOptions, type LiteserverStatus, type RealNetwork } from './chain.js';
export { FastTrust } from './trust/fast.js';
export { SecureTrust, TrustAlarmError, DEFAULT_MAX_LAG_BLOCKS, type SecureTrustOptions } from './trust/secure.js';
export { describeAlarm, type HeadTrust, type TrustStatus, type TrustLevel, type TrustLog, type TrustMemory, type TrustAlarm, type ServerTrustReport } from './trust/head-trust.js';
export type { PoolStatus, ServerStatus, LitePoolOptions } from './transport/pool.js';

export function createLiteserverChain(options: LiteserverChainOptions): LiteserverChain {
  return new LiteserverChain(options);
}
