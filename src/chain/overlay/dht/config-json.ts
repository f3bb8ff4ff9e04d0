// dht.static_nodes of a global.config.json (TON's JSON of dht.node: a pub.ed25519 id in base64, an
// adnl.addressList whose udp `ip` is a signed int32, the node version, a base64 signature) to and from
// our DhtNode. Signatures are not checked here: the node table checks each node before using it.
import { type AdnlAddress } from '../tl/adnl-types.js';
import { type DhtNode } from '../tl/dht-types.js';

type Json = Record<string, unknown>;

const obj = (v: unknown, path: string): Json => {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new Error(`${path} must be an object`);
  return v as Json;
};
const int = (v: unknown, path: string): number => {
  if (!Number.isInteger(v)) throw new Error(`${path} must be an integer`);
  return v as number;
};
const b64 = (v: unknown, path: string): Buffer => {
  if (typeof v !== 'string') throw new Error(`${path} must be base64`);
  return Buffer.from(v, 'base64');
};

/** The nodes of a config's `dht` object (`static_nodes.nodes`); nodes that are not udp/ed25519 are skipped. */
export function dhtNodesFromConfig(dht: unknown): DhtNode[] {
  if (dht === undefined || dht === null) return [];
  const nodes = obj(obj(dht, 'dht').static_nodes ?? { nodes: [] }, 'dht.static_nodes').nodes ?? [];
  if (!Array.isArray(nodes)) throw new Error('dht.static_nodes.nodes must be an array');
  return nodes.flatMap((entry, i) => {
    const path = `dht.static_nodes.nodes[${i}]`;
    const n = obj(entry, path);
    const id = obj(n.id, `${path}.id`);
    if (id['@type'] !== 'pub.ed25519') return [];
    const list = obj(n.addr_list, `${path}.addr_list`);
    const addrs: AdnlAddress[] = (Array.isArray(list.addrs) ? list.addrs : []).flatMap((a, j) => {
      const addr = obj(a, `${path}.addr_list.addrs[${j}]`);
      return addr['@type'] === 'adnl.address.udp' ? [{ kind: 'udp' as const, ip: int(addr.ip, 'ip') >>> 0, port: int(addr.port, 'port') }] : [];
    });
    return [{
      id: { kind: 'ed25519' as const, key: b64(id.key, `${path}.id.key`) },
      addrList: {
        addrs, version: int(list.version ?? 0, 'version'), reinitDate: int(list.reinit_date ?? 0, 'reinit_date'),
        priority: int(list.priority ?? 0, 'priority'), expireAt: int(list.expire_at ?? 0, 'expire_at'),
      },
      version: int(n.version ?? -1, `${path}.version`),
      signature: b64(n.signature, `${path}.signature`),
    }];
  });
}

/** A dht.node as a global config lists it. */
export function dhtNodeToConfig(n: DhtNode): Json {
  if (n.id.kind !== 'ed25519') throw new Error('a static DHT node has an ed25519 key');
  return {
    '@type': 'dht.node',
    id: { '@type': 'pub.ed25519', key: n.id.key.toString('base64') },
    addr_list: {
      '@type': 'adnl.addressList',
      addrs: n.addrList.addrs.flatMap((a) => a.kind === 'udp' ? [{ '@type': 'adnl.address.udp', ip: a.ip | 0, port: a.port }] : []),
      version: n.addrList.version, reinit_date: n.addrList.reinitDate, priority: n.addrList.priority, expire_at: n.addrList.expireAt,
    },
    version: n.version,
    signature: n.signature.toString('base64'),
  };
}
