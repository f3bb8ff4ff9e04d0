import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JettonWallet } from '@ton-community/assets-sdk/dist/jetton/JettonWallet.js';
import { Cell } from '@ton/core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { captureLogger } from '../../test/support/app.js';
import { openTestDevnet, type TestDevnet } from '../../test/support/devnet.js';
import { devnetProfile } from '../chain/devnet/profile.js';
import { createLiteserverChain, type LiteserverChain } from '../chain/liteserver/index.js';
import { ArchiveLiteServer } from '../chain/liteserver/server/archive-server.js';
import { AdnlServer } from '../chain/liteserver/transport/adnl-server.js';
import { MAINNET_DNS_ROOT, realNetworkProfile } from '../chain/profile.js';
import { TRUST_ANCHORS } from '../chain/liteserver/config.js';
import { unwrapMerkleProof } from '../chain/liteserver/trust/merkle.js';
import { mcStateExtraOf, provenConfigParam, readShardState } from '../chain/liteserver/trust/state.js';
import { ConfigError } from '../config.js';
import type { TrustStatus } from '../chain/liteserver/trust/head-trust.js';
import { mcBlock } from '../../test/support/liteserver.js';
import { mainnetFixture } from '../../test/support/proofs.js';
import { completeProfile, dnsRootOfParam4, headBelieved, loadLiteserverConfig, startWarnings } from './liteserver.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tonwatch-ls-service-'));
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

const b64 = (b: Buffer) => b.toString('base64');
const anchorJson = (id: (typeof TRUST_ANCHORS)['testnet']['zeroState']) => ({
  workchain: id.workchain, shard: -9223372036854775808, seqno: id.seqno, root_hash: b64(id.rootHash), file_hash: b64(id.fileHash),
});

describe('the liteserver config as the service loads it', () => {
  it('reads a global.config.json file and tells its network by the zero state', async () => {
    const file = join(dir, 'testnet.json');
    const anchor = TRUST_ANCHORS.testnet;
    await writeFile(file, JSON.stringify({
      liteservers: [{ ip: 2130706433, port: 4924, id: { '@type': 'pub.ed25519', key: b64(Buffer.alloc(32, 7)) } }],
      validator: { zero_state: anchorJson(anchor.zeroState), init_block: anchorJson(anchor.initBlock) },
    }));
    const loaded = await loadLiteserverConfig({ liteserverConfig: file, network: 'mainnet', dataDir: dir });
    expect(loaded).toMatchObject({ network: 'testnet', origin: file, fromCache: false, liteservers: [{ host: '127.0.0.1', port: 4924 }] });
  });

  it.each([
    ['a missing file', () => join(dir, 'missing.json'), /^TONWATCH_LITESERVER_CONFIG: cannot read .*missing\.json/],
    ['a file that is not JSON', () => join(dir, 'bad.json'), /^TONWATCH_LITESERVER_CONFIG: .*bad\.json is not JSON/],
    ['a file without liteservers', () => join(dir, 'empty.json'), /^TONWATCH_LITESERVER_CONFIG: .*empty\.json: liteservers must be a non-empty array/],
  ])('turns %s into a ConfigError naming TONWATCH_LITESERVER_CONFIG', async (_what, file, message) => {
    await writeFile(join(dir, 'bad.json'), '{ not json');
    await writeFile(join(dir, 'empty.json'), JSON.stringify({ liteservers: [], validator: {} }));
    const err = await loadLiteserverConfig({ liteserverConfig: file(), network: 'mainnet', dataDir: dir }).catch((e) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problems).toEqual([{ setting: 'TONWATCH_LITESERVER_CONFIG', message: expect.stringMatching(message) }]);
  });
});

describe('start warnings', () => {
  it('warns for fast trust and for a single server, and for nothing else', () => {
    expect(startWarnings('fast', 1)).toEqual([
      expect.stringMatching(/^TONWATCH_TRUST=fast: a masterchain head is believed when two liteservers report the same block/),
      expect.stringMatching(/lists one server: its head is believed without a second opinion/),
    ]);
    expect(startWarnings('fast', 3)).toHaveLength(1);
    expect(startWarnings('secure', 3)).toEqual([]);
    // One server cannot forge a head under secure trust, but nothing tells its withholding apart.
    expect(startWarnings('secure', 1)).toEqual([expect.stringMatching(/lists one server: it cannot forge a head, but when it withholds blocks/)]);
  });
});

describe('waiting for the first believed head at start', () => {
  const status = (over: Partial<TrustStatus>) => {
    const trust = { level: 'secure' as const, head: null, keyBlock: null, progress: null, waiting: 'walking', alarm: null, ...over };
    // the source's own head: the believed head once its header is proven (here at once)
    return { head: trust.head, trust, pool: { ready: true, servers: [] } };
  };

  it('gives up after the wait without a head, but not while a key-block walk moves on', async () => {
    expect(await headBelieved({ status: () => status({}) }, 300)).toBe(false);
    // A walk that moves on at every look for four times the wait, then proves the head.
    let at = 100;
    const began = Date.now();
    const walking = {
      status: () => {
        at += 1;
        const done = Date.now() - began > 1200;
        return status(done ? { head: mcBlock(at) } : { progress: { from: 100, at, to: 10_000 } });
      },
    };
    expect(await headBelieved(walking, 300)).toBe(true);
  });
});

describe('the DNS root from config param 4', () => {
  for (const file of ['config/tongo-config_proof_65466080.boc', 'config/tongo-config_proof_33651872.boc']) {
    it(`reads mainnet's root resolver from the real config proof ${file}`, () => {
      const state = readShardState(unwrapMerkleProof(Cell.fromBoc(mainnetFixture(file))[0]!, 'config'), 'config');
      const param4 = provenConfigParam(mcStateExtraOf(state, 'config').configParams, 4)!;
      expect(dnsRootOfParam4(param4)).toBe(MAINNET_DNS_ROOT);
    });
  }

  it('refuses a param 4 too short to hold an address', () => {
    expect(() => dnsRootOfParam4(Cell.EMPTY)).toThrow('config param 4 holds 0 bits, not a 256-bit address');
  });
});

describe('the network profile completed from a real chain over liteservers', () => {
  let devnet: TestDevnet;
  const open: { close(): Promise<void> }[] = [];

  beforeAll(async () => {
    // A devnet holds real jetton masters (the assets-sdk minter and wallet code); its archive is served as
    // liteservers over ADNL on loopback, and the liteserver source follows it like any network.
    devnet = await openTestDevnet();
    await devnet.chain.produceBlock();
    await devnet.chain.produceBlock();
  }, 60_000);

  afterAll(async () => {
    for (const x of open.splice(0).reverse()) await x.close();
    await devnet?.close();
  });

  async function liteserverChain(): Promise<LiteserverChain> {
    const archive = devnet.chain.archive();
    const servers = await Promise.all([0, 1].map(() => AdnlServer.listen({ secretKey: randomBytes(32), handler: new ArchiveLiteServer(archive) })));
    open.push(...servers);
    const zero = archive.zeroStates().masterchain.ref;
    const anchor = { workchain: -1, shard: -(1n << 63n), seqno: 0, rootHash: zero.rootHash, fileHash: zero.fileHash };
    const chain = createLiteserverChain({
      config: { liteservers: servers.map((s) => ({ ...s.address, publicKey: s.publicKey })), anchor: { zeroState: anchor, initBlock: anchor, hardforks: [] } },
      network: 'testnet', trust: 'fast', poolOptions: { headPollMs: 500, backoff: { minMs: 50, maxMs: 200 }, pingIntervalMs: 0 },
    });
    open.push({ close: () => chain.stop() });
    await chain.start();
    return chain;
  }

  it("reads the USDT wallet code from the master's get_jetton_data, run locally on its proven state; the DNS root and the oldest block too", async () => {
    const chain = await liteserverChain();
    const usdt = devnet.directory.jettons.find((j) => j.key === 'usdt')!;
    const { logger, lines } = captureLogger('info');
    const profile = await completeProfile(chain, { ...realNetworkProfile('testnet'), usdtMaster: usdt.masterId }, logger);
    // The wallet code the minter was deployed with, and what the devnet itself answers.
    expect(profile.usdtWalletCodeHashes).toEqual([JettonWallet.code.hash().toString('hex')]);
    expect(profile.usdtWalletCodeHashes).toEqual((await devnetProfile(devnet.chain)).usdtWalletCodeHashes);
    // The devnet's masterchain state carries config params 0, 28 and 34 only: param 4 is proven absent.
    expect(profile).toMatchObject({ network: 'testnet', usdtMaster: usdt.masterId, dnsRoot: null, oldestSeqno: 2 });
    expect(lines.filter((l) => (l.level as number) >= 40)).toEqual([]);

    // A master that is not a jetton (a wallet: get_jetton_data does not exist) leaves the list empty.
    const alice = devnet.directory.wallets.find((w) => w.name === 'alice')!;
    const notJetton = await completeProfile(chain, { ...realNetworkProfile('testnet'), usdtMaster: alice.id }, logger);
    expect(notJetton.usdtWalletCodeHashes).toEqual([]);
  }, 60_000);
});
