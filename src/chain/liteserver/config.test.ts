import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { freePort } from '../../../test/support/ports.js';
import { GlobalConfigUnreachableError, LiteserverConfigError, TRUST_ANCHORS, ipFromInt32, loadGlobalConfig, networkOf, parseGlobalConfig } from './config.js';

// Entries in the shape of ton.org's global.config.json (two real mainnet liteserver entries and the
// mainnet `validator` section as published; the dht section is left out).
const MAINNET_VALIDATOR = {
  '@type': 'validator.config.global',
  zero_state: { workchain: -1, shard: -9223372036854775808, seqno: 0, root_hash: 'F6OpKZKqvqeFp6CQmFomXNMfMj2EnaUSOXN+Mh+wVWk=', file_hash: 'XplPz01CXAps5qeSWUtxcyBfdAo5zVb1N979KLSKD24=' },
  init_block: { workchain: -1, shard: -9223372036854775808, seqno: 43792209, root_hash: 'AvaCaskwbUZCAOkULgK9zqtArFavpqg/KMTu9qO4M1U=', file_hash: 'mlMbjSH0ahszX7yNIQOOawmCJxzofpaTeqlsrQspqUk=' },
  hardforks: [{ workchain: -1, shard: -9223372036854775808, seqno: 8536841, root_hash: '08Kpc9XxrMKC6BF/FeNHPS3MEL1/Vi/fQU/C9ELUrkc=', file_hash: 't/9VBPODF7Zdh4nsnA49dprO69nQNMqYL+zk5bCjV/8=' }],
};
const LITESERVERS = [
  { ip: 84478511, port: 19949, id: { '@type': 'pub.ed25519', key: 'n4VDnSCUuSpjnCyUk9e3QOOd6o0ItSWYbTnW3Wnn8wk=' } },
  { ip: -2018135749, port: 53312, id: { '@type': 'pub.ed25519', key: 'aF91CuUHuuOv9rm2W5+O/4h38M3sRm40DtSdRxQhmtQ=' } },
];
// The published JSON writes the shard as the literal -9223372036854775808.
const mainnetText = JSON.stringify({ '@type': 'config.global', liteservers: LITESERVERS, validator: MAINNET_VALIDATOR });

let dir: string;
let http: Server | undefined;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tonwatch-lsconfig-'));
});
afterEach(async () => {
  await new Promise<void>((r) => (http ? http.close(() => r()) : r()));
  http = undefined;
  await rm(dir, { recursive: true, force: true });
});
async function serveConfig(body: () => { status: number; text: string }): Promise<string> {
  http = createServer((_, res) => {
    const b = body();
    res.writeHead(b.status, { 'content-type': 'application/json' }).end(b.text);
  });
  await new Promise<void>((r) => http!.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(http.address() as { port: number }).port}/global.config.json`;
}

describe('global.config.json', () => {
  it('parses liteservers (signed int32 ip, base64 key) and the trust anchor', () => {
    const c = parseGlobalConfig(JSON.parse(mainnetText), 'test');
    expect(c.liteservers).toEqual([
      { host: '5.9.10.47', port: 19949, publicKey: Buffer.from('n4VDnSCUuSpjnCyUk9e3QOOd6o0ItSWYbTnW3Wnn8wk=', 'base64') },
      { host: '135.181.177.59', port: 53312, publicKey: Buffer.from('aF91CuUHuuOv9rm2W5+O/4h38M3sRm40DtSdRxQhmtQ=', 'base64') },
    ]);
    expect(c.anchor.initBlock).toEqual(TRUST_ANCHORS.mainnet.initBlock);
    expect(c.anchor.initBlock.shard).toBe(-(1n << 63n));
    expect(c.anchor.zeroState).toEqual(TRUST_ANCHORS.mainnet.zeroState);
    expect(c.anchor.hardforks).toEqual(TRUST_ANCHORS.mainnet.hardforks);
    expect(networkOf(c.anchor)).toBe('mainnet');
    expect(ipFromInt32(-1)).toBe('255.255.255.255');
  });

  it('names the field that is wrong', () => {
    const bad = JSON.parse(mainnetText);
    bad.liteservers[1].id.key = 'AAAA';
    expect(() => parseGlobalConfig(bad, 'x.json')).toThrow('x.json: liteservers[1].id.key must be 32 bytes in base64');
    const noPort = JSON.parse(mainnetText);
    delete noPort.liteservers[0].port;
    expect(() => parseGlobalConfig(noPort, 'x.json')).toThrow('x.json: liteservers[0].port must be an integer in 1..65535');
    expect(() => parseGlobalConfig({ liteservers: [] }, 'x.json')).toThrow('liteservers must be a non-empty array');
    const noInit = JSON.parse(mainnetText);
    noInit.validator.init_block.root_hash = 5;
    expect(() => parseGlobalConfig(noInit, 'x.json')).toThrow('validator.init_block.root_hash must be 32 bytes in base64');
  });

  it('loads a file given by TONWATCH_LITESERVER_CONFIG; errors name the setting', async () => {
    const file = join(dir, 'global.config.json');
    await writeFile(file, mainnetText);
    const c = await loadGlobalConfig({ source: file, dataDir: dir });
    expect(c).toMatchObject({ origin: file, fromCache: false, network: 'mainnet' });
    expect(c.liteservers).toHaveLength(2);
    await expect(loadGlobalConfig({ source: join(dir, 'missing.json'), dataDir: dir })).rejects.toThrow(
      new RegExp(`^TONWATCH_LITESERVER_CONFIG: cannot read ${join(dir, 'missing.json')}: .*ENOENT`),
    );
    await writeFile(file, '{not json');
    const err = await loadGlobalConfig({ source: file, dataDir: dir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LiteserverConfigError);
    expect(err).toMatchObject({ setting: 'TONWATCH_LITESERVER_CONFIG', message: expect.stringMatching(/^TONWATCH_LITESERVER_CONFIG: .* is not JSON/) });
  });

  it('fetches TONWATCH_NETWORK\'s config, caches it, and starts from the cache when the URL is unreachable', async () => {
    let up = true;
    const url = await serveConfig(() => (up ? { status: 200, text: mainnetText } : { status: 503, text: 'down' }));
    const first = await loadGlobalConfig({ network: 'mainnet', dataDir: dir, urls: { mainnet: url } });
    expect(first).toMatchObject({ origin: url, fromCache: false, network: 'mainnet' });
    up = false;
    const second = await loadGlobalConfig({ network: 'mainnet', dataDir: dir, urls: { mainnet: url } });
    expect(second.fromCache).toBe(true);
    expect(second.origin).toMatch(new RegExp(`^${join(dir, 'liteserver')}/global-config-[0-9a-f]{16}\\.json$`));
    expect(second.liteservers).toEqual(first.liteservers);
    // Nothing cached for testnet: the error names the setting, the network, the URL and why, and what to set instead.
    const err = await loadGlobalConfig({ network: 'testnet', dataDir: dir, urls: { testnet: `${url}?testnet` } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GlobalConfigUnreachableError);
    expect((err as Error).message).toMatch(
      /^TONWATCH_NETWORK: cannot fetch testnet's official config from http:\/\/127\.0\.0\.1:\d+\/global\.config\.json\?testnet \(HTTP 503\) and there is no cached copy at .*: check that this machine reaches it, set TONWATCH_NETWORK \(mainnet, testnet; mainnet when unset\) to another network, or TONWATCH_LITESERVER_CONFIG to a global\.config\.json file or URL$/,
    );
  });

  it('an official config URL on a closed port: the network it tried, the connection error, and the settings to change', async () => {
    const closed = await freePort();
    const err = await loadGlobalConfig({ network: 'mainnet', dataDir: join(dir, 'fresh'), urls: { mainnet: `http://127.0.0.1:${closed}/global.config.json` } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GlobalConfigUnreachableError);
    expect(err).toMatchObject({ setting: 'TONWATCH_NETWORK' });
    expect((err as Error).message).toContain(`TONWATCH_NETWORK: cannot fetch mainnet's official config from http://127.0.0.1:${closed}/global.config.json (fetch failed: ECONNREFUSED)`);
    expect((err as Error).message).toContain('TONWATCH_LITESERVER_CONFIG');
  });

  it('refuses a config of the wrong network and a wrong TONWATCH_NETWORK', async () => {
    const url = await serveConfig(() => ({ status: 200, text: mainnetText }));
    await expect(loadGlobalConfig({ network: 'testnet', dataDir: dir, urls: { testnet: url } })).rejects.toThrow(
      `TONWATCH_NETWORK: ${url} is not a testnet config (its zero state is mainnet)`,
    );
    await expect(loadGlobalConfig({ network: 'devnet', dataDir: dir })).rejects.toThrow(
      'TONWATCH_NETWORK: must be mainnet or testnet (got "devnet"), or set TONWATCH_LITESERVER_CONFIG to a global.config.json path or URL',
    );
    // A URL in TONWATCH_LITESERVER_CONFIG may be any network (a private one has no constant anchor).
    const priv = JSON.parse(mainnetText);
    priv.validator.zero_state.root_hash = Buffer.alloc(32, 7).toString('base64');
    await writeFile(join(dir, 'private.json'), JSON.stringify(priv));
    expect((await loadGlobalConfig({ source: join(dir, 'private.json'), dataDir: dir })).network).toBeUndefined();
  });
});
