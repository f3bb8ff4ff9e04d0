import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cell } from '@ton/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAINNET_DNS_ROOT } from '../chain/profile.js';
import { TRUST_ANCHORS } from '../chain/liteserver/config.js';
import { unwrapMerkleProof } from '../chain/liteserver/trust/merkle.js';
import { mcStateExtraOf, provenConfigParam, readShardState } from '../chain/liteserver/trust/state.js';
import { ConfigError } from '../config.js';
import type { TrustStatus } from '../chain/liteserver/trust/head-trust.js';
import { mcBlock } from '../../test/support/liteserver.js';
import { mainnetFixture } from '../../test/support/proofs.js';
import { dnsRootOfParam4, headBelieved, loadLiteserverConfig, startWarnings } from './liteserver.js';

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
  const status = (over: Partial<TrustStatus>) => ({
    trust: { level: 'secure' as const, head: null, keyBlock: null, progress: null, waiting: 'walking', alarm: null, ...over },
    pool: { ready: true, servers: [] },
  });

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
