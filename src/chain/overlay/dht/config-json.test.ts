// dht.static_nodes as TON's global configs write them: a real mainnet node (docs.ton.org, "ADNL UDP —
// first packet", from ton-blockchain.github.io/global.config.json) read, its signature checked over our
// serialization, and written back to the same JSON; malformed entries refused with their path.
import { describe, expect, it } from 'vitest';
import { checkDhtNode } from './values.js';
import { dhtNodeToConfig, dhtNodesFromConfig } from './config-json.js';

const MAINNET_NODE = {
  '@type': 'dht.node',
  id: { '@type': 'pub.ed25519', key: 'fZnkoIAxrTd4xeBgVpZFRm5SvVvSx7eN3Vbe8c83YMk=' },
  addr_list: { '@type': 'adnl.addressList', addrs: [{ '@type': 'adnl.address.udp', ip: 1091897261, port: 15813 }], version: 0, reinit_date: 0, priority: 0, expire_at: 0 },
  version: -1,
  signature: 'cmaMrV/9wuaHOOyXYjoxBnckJktJqrQZ2i+YaY3ehIyiL3LkW81OQ91vm8zzsx1kwwadGZNzgq4hI4PCB/U5Dw==',
};
const dht = { '@type': 'dht.config.global', k: 6, a: 3, static_nodes: { '@type': 'dht.nodes', nodes: [MAINNET_NODE] } };

describe('dht.static_nodes of a global config', () => {
  it('reads a real mainnet node whose signature verifies, and writes it back unchanged', () => {
    const [node] = dhtNodesFromConfig(dht);
    expect(checkDhtNode(node!)).toMatchObject({ host: '65.21.7.173', port: 15813 });
    expect(dhtNodeToConfig(node!)).toEqual(MAINNET_NODE);
  });

  it('a changed port no longer verifies; negative int32 ips round-trip', () => {
    const [moved] = dhtNodesFromConfig({ static_nodes: { nodes: [{ ...MAINNET_NODE, addr_list: { ...MAINNET_NODE.addr_list, addrs: [{ '@type': 'adnl.address.udp', ip: 1091897261, port: 15814 }] } }] } });
    expect(checkDhtNode(moved!)).toBe('bad node signature');
    const high = { ...MAINNET_NODE, addr_list: { ...MAINNET_NODE.addr_list, addrs: [{ '@type': 'adnl.address.udp', ip: -1062724860, port: 18003 }] } };
    const [read] = dhtNodesFromConfig({ static_nodes: { nodes: [high] } });
    expect(read!.addrList.addrs[0]).toEqual({ kind: 'udp', ip: 0xc0a81b04, port: 18003 });
    expect(dhtNodeToConfig(read!)).toEqual(high);
  });

  it('no dht section is no nodes; malformed entries are refused with their path', () => {
    expect(dhtNodesFromConfig(undefined)).toEqual([]);
    expect(() => dhtNodesFromConfig({ static_nodes: { nodes: [{ id: { '@type': 'pub.ed25519', key: 'AA==' } }] } })).toThrow(/dht.static_nodes.nodes\[0\].addr_list must be an object/);
    expect(() => dhtNodesFromConfig({ static_nodes: { nodes: {} } })).toThrow(/must be an array/);
  });
});
