import { describe, expect, it } from 'vitest';
import { TRUST_ANCHORS, ipFromInt32, parseGlobalConfig } from './config.js';
import { formatGlobalConfig, int32FromIp } from './config-format.js';

describe('formatGlobalConfig', () => {
  it('writes what parseGlobalConfig reads back, the shard as the exact int64 literal', () => {
    const config = {
      liteservers: [
        { host: '127.0.0.1', port: 40001, publicKey: Buffer.alloc(32, 7) },
        { host: '200.1.2.3', port: 65535, publicKey: Buffer.alloc(32, 9) },
      ],
      anchor: { zeroState: TRUST_ANCHORS.testnet.zeroState, initBlock: TRUST_ANCHORS.testnet.initBlock, hardforks: TRUST_ANCHORS.testnet.hardforks },
      // the `dht` object is kept as written (the overlay listener reads its static nodes)
      dht: { '@type': 'dht.config.global', k: 6, a: 3, static_nodes: { '@type': 'dht.nodes', nodes: [] } },
    };
    const text = formatGlobalConfig(config);
    expect(text).toContain('"shard": -9223372036854775808,');
    expect(text).not.toContain('@int64');
    const parsed = parseGlobalConfig(JSON.parse(text), 'test');
    expect(parsed).toEqual(config);
    expect(JSON.parse(text).liteservers[1].ip).toBeLessThan(0); // a signed int32, as the node writes it
  });

  it('converts addresses both ways and refuses a host that is not IPv4', () => {
    for (const ip of ['127.0.0.1', '5.9.10.47', '255.255.255.255', '0.0.0.0']) expect(ipFromInt32(int32FromIp(ip))).toBe(ip);
    expect(int32FromIp('5.9.10.47')).toBe(84478511);
    expect(() => int32FromIp('localhost')).toThrow(/not an IPv4 address/);
  });
});
