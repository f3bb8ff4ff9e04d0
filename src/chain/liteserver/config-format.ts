// Writes a global.config.json as TON's tools read it (ton-lite-client, tonutils-go, pytoniq, the node's
// lite-client): liteservers with a signed-int32 `ip`, block ids with the shard as a literal int64 (a JSON
// number JavaScript would print rounded, -9223372036854776000, which int64 parsers refuse).
import type { GlobalConfig } from './config.js';
import type { BlockIdExt } from './tl/lite-api.js';

/** The signed int32 of a dotted IPv4 (5.9.10.47 → 84478511). */
export function int32FromIp(host: string): number {
  const parts = host.split('.').map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) throw new Error(`${host} is not an IPv4 address`);
  return ((parts[0]! << 24) | (parts[1]! << 16) | (parts[2]! << 8) | parts[3]!) | 0;
}

const INT64 = '@int64:';

function block(id: BlockIdExt) {
  return {
    workchain: id.workchain, shard: `${INT64}${BigInt.asIntN(64, id.shard)}`, seqno: id.seqno,
    root_hash: id.rootHash.toString('base64'), file_hash: id.fileHash.toString('base64'),
  };
}

export function formatGlobalConfig(config: GlobalConfig): string {
  const json = {
    '@type': 'config.global',
    dht: config.dht ?? { '@type': 'dht.config.global', k: 6, a: 3, static_nodes: { '@type': 'dht.nodes', nodes: [] } },
    liteservers: config.liteservers.map((s) => ({
      ip: int32FromIp(s.host), port: s.port, id: { '@type': 'pub.ed25519', key: Buffer.from(s.publicKey).toString('base64') },
    })),
    validator: {
      '@type': 'validator.config.global',
      zero_state: block(config.anchor.zeroState),
      init_block: block(config.anchor.initBlock),
      hardforks: config.anchor.hardforks.map(block),
    },
  };
  return `${JSON.stringify(json, null, 2).replace(new RegExp(`"${INT64}(-?\\d+)"`, 'g'), '$1')}\n`;
}
