// The devnet's liteserver as the liteserver source's trust code meets it: a fresh devnet's global config names
// block 1, a key block carrying the validator config, and `secure` trust starts from it; after two validator
// rotations the global config names the newest key block; `secure` trust walks getBlockProof from the first key block through
// the second to the head with the devnet validators' real signatures; backward links from the head prove older
// blocks; getConfigParams and getLibraries answer with proofs the trust checks accept.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDevnet, type TestDevnet } from '../../../test/support/devnet.js';
import { parseGlobalConfig } from '../liteserver/config.js';
import { tlBlockIdOf } from '../liteserver/server/block-id.js';
import type { BlockIdExt } from '../liteserver/tl/lite-api.js';
import { SyntheticLiteServer } from '../liteserver/testing/synthetic-server.js';
import { AdnlClient } from '../liteserver/transport/adnl.js';
import { AdnlServer } from '../liteserver/transport/adnl-server.js';
import { LitePool } from '../liteserver/transport/pool.js';
import { checkBackwardLink } from '../liteserver/trust/backward-link.js';
import { SecureTrust } from '../liteserver/trust/secure.js';
import { checkConfigProof } from '../liteserver/trust/state.js';
import { configOfKeyBlock, configOfMasterchainState, readTrustConfig } from '../liteserver/trust/config-params.js';
import { DevnetLiteServer } from './liteserver.js';

let devnet: TestDevnet;
let ls: DevnetLiteServer;
let ours: AdnlClient;
const keyBlocks: BlockIdExt[] = [];
/** The global config printed before any rotation. */
let freshConfig: string;

beforeAll(async () => {
  devnet = await openTestDevnet();
  ls = await DevnetLiteServer.start({ archive: devnet.chain.archive(), feed: devnet.chain, dataDir: devnet.dataDir, port: 0 });
  ours = await AdnlClient.connect({ ...ls.address, publicKey: ls.publicKey, pingIntervalMs: 0 });
  freshConfig = ls.globalConfig();
  for (let rotation = 0; rotation < 2; rotation++) {
    await devnet.chain.produceBlock();
    const rotated = await devnet.control.rotateValidators();
    keyBlocks.push(tlBlockIdOf(devnet.chain.archive().masterchainBlock(rotated.key_block!.seqno)!));
    for (let i = 0; i < 3; i++) await devnet.chain.produceBlock();
  }
}, 120_000);

afterAll(async () => {
  await ours?.close();
  await ls?.close();
  await devnet?.close();
});

const head = (): BlockIdExt => tlBlockIdOf(devnet.chain.archive().masterchainBlock(devnet.chain.masterchainSeqno)!);

describe('the devnet liteserver and the trust checks', () => {
  it('a fresh devnet\'s init_block is block 1, a key block whose config names the signing set (params 28 and 34)', () => {
    const { anchor } = parseGlobalConfig(JSON.parse(freshConfig), 'global-config');
    expect(anchor.initBlock.seqno).toBe(1);
    const block1 = devnet.chain.archive().masterchainBlock(1)!;
    expect(block1.keyBlock).toBe(true);
    expect(anchor.initBlock.rootHash).toEqual(block1.root.hash());
    const config = readTrustConfig(configOfKeyBlock(block1.root));
    expect(config.catchain.shuffleMcValidators).toBe(true);
    const zeroSet = readTrustConfig(configOfMasterchainState(devnet.chain.archive().zeroStates().masterchain.state)).validators;
    expect(config.validators.list.map((v) => v.publicKey.toString('hex'))).toEqual(zeroSet.list.map((v) => v.publicKey.toString('hex')));
    // no other block before the first rotation is a key block
    for (let seqno = 2; seqno < keyBlocks[0]!.seqno; seqno++) expect(devnet.chain.archive().masterchainBlock(seqno)!.keyBlock).toBe(false);
  });

  it('secure trust starts from a fresh devnet\'s printed init_block and walks to the head', async () => {
    const { anchor } = parseGlobalConfig(JSON.parse(freshConfig), 'global-config');
    const pool = new LitePool({ servers: [{ ...ls.address, publicKey: ls.publicKey }], headPollMs: 500 });
    try {
      await pool.waitReady(5000);
      const trust = new SecureTrust({ pool, initBlock: anchor.initBlock, log: () => {} });
      await trust.start();
      const target = head();
      const believed = await trust.offer(`${ls.address.host}:${ls.address.port}`, target);
      expect(believed?.rootHash).toEqual(target.rootHash);
      expect(trust.status().keyBlock?.seqno).toBe(keyBlocks[1]!.seqno);
    } finally {
      await pool.close();
    }
  });

  it('the global config names the newest key block as init_block', () => {
    const { anchor } = parseGlobalConfig(JSON.parse(ls.globalConfig()), 'global-config');
    expect(anchor.initBlock.seqno).toBe(keyBlocks[1]!.seqno);
    expect(anchor.initBlock.rootHash).toEqual(keyBlocks[1]!.rootHash);
    expect(anchor.zeroState.seqno).toBe(0);
  });

  it('secure trust walks the devnet validators\' signatures from the first key block to the head', async () => {
    const pool = new LitePool({ servers: [{ ...ls.address, publicKey: ls.publicKey }], headPollMs: 500 });
    const lines: string[] = [];
    try {
      await pool.waitReady(5000);
      const trust = new SecureTrust({ pool, initBlock: keyBlocks[0]!, log: (_level, l) => lines.push(l) });
      await trust.start();
      const target = head();
      const believed = await trust.offer(`${ls.address.host}:${ls.address.port}`, target);
      expect(believed?.seqno).toBe(target.seqno);
      expect(believed?.rootHash).toEqual(target.rootHash);
      expect(trust.status().keyBlock?.seqno).toBe(keyBlocks[1]!.seqno); // the second key block was proven on the way
      expect(trust.report()[0]!.failedProofs).toBe(0);
    } finally {
      await pool.close();
    }
  });

  it('a backward link from the head proves every older masterchain block', async () => {
    const from = head();
    for (let seqno = 1; seqno < from.seqno; seqno++) {
      const target = tlBlockIdOf(devnet.chain.archive().masterchainBlock(seqno)!);
      const proof = await ours.query('getBlockProof', { mode: 1, knownBlock: from, targetBlock: target });
      expect(proof.complete).toBe(true);
      expect(proof.steps).toHaveLength(1);
      const step = proof.steps[0]!;
      if (step.kind !== 'back') throw new Error('expected a backward link');
      expect(checkBackwardLink(step).seqno).toBe(seqno);
    }
  });

  it('getConfigParams proves the validator set (param 34) of the head; getLibraries answers none unknown', async () => {
    const at = head();
    const reply = await ours.query('getConfigParams', { mode: 0, id: at, paramList: [34] });
    const params = checkConfigProof(reply.stateProof, reply.configProof, at.rootHash, [34]);
    expect(params.get(34)).toBeTruthy();
    expect((await ours.query('getLibraries', { libraryList: [Buffer.alloc(32, 1)] })).result).toEqual([]);
  });

  it('tests only: forward links with bad signatures from the live devnet\'s archive fail the secure walk; the honest server proves the head', async () => {
    const liar = new SyntheticLiteServer(devnet.chain.archive(), { lie: { badSignatures: () => true } });
    const server = await AdnlServer.listen({ secretKey: randomBytes(32), handler: liar });
    const liarName = `${server.address.host}:${server.address.port}`;
    const pool = new LitePool({ servers: [{ ...server.address, publicKey: server.publicKey }, { ...ls.address, publicKey: ls.publicKey }], headPollMs: 500 });
    try {
      await pool.waitReady(5000);
      // Both up, so after the liar's links fail the honest server is there to prove the head.
      for (let i = 0; i < 100 && pool.status().servers.some((s) => s.state !== 'up' || !s.head); i++) await new Promise((r) => setTimeout(r, 20));
      const trust = new SecureTrust({ pool, initBlock: keyBlocks[0]!, log: () => {} });
      await trust.start();
      const target = head();
      // The liar reports the head, so its getBlockProof is asked first: its links fail, the honest server's hold.
      const believed = await trust.offer(liarName, target);
      expect(believed?.rootHash).toEqual(target.rootHash);
      expect(liar.calls).toContain('getBlockProof');
      const report = trust.report().find((r) => r.server === liarName)!;
      expect(report).toMatchObject({ failedProofs: 1, provenSeqno: null });
      expect(report.lastFailure).toMatch(/signatures\.signature/);
      expect(trust.report().find((r) => r.server === `${ls.address.host}:${ls.address.port}`)).toMatchObject({ failedProofs: 0, provenSeqno: target.seqno });
      expect(pool.status().servers.find((s) => s.server === liarName)).toMatchObject({ demoted: true, disproven: 1 });
      expect(trust.status().alarm).toBeNull();
    } finally {
      await pool.close();
      await server.close();
    }
  });
});

describe('a devnet data dir from before block 1 was a key block', () => {
  let old: TestDevnet;
  let server: DevnetLiteServer;

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tonwatch-devnet-old-'));
    writeFileSync(join(dir, 'devnet.sqlite'), gunzipSync(readFileSync(new URL('../../../test/fixtures/devnet/before-key-block-1.sqlite.gz', import.meta.url))));
    old = await openTestDevnet({ dataDir: dir });
    server = await DevnetLiteServer.start({ archive: old.chain.archive(), feed: old.chain, dataDir: old.dataDir, port: 0 });
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    await old?.close();
  });

  it('names the zero state until its next block, which is the key block secure trust starts from', async () => {
    expect(old.chain.masterchainSeqno).toBe(8);
    expect(old.chain.archive().masterchainBlock(1)!.keyBlock).toBe(false);
    const before = parseGlobalConfig(JSON.parse(server.globalConfig()), 'global-config').anchor;
    expect(before.initBlock.seqno).toBe(0);
    expect(() => new SecureTrust({ pool: null as never, initBlock: before.initBlock })).toThrow(/zero state/);

    const key = await old.chain.produceBlock();
    expect(old.chain.archive().masterchainBlock(key.seqno)!.keyBlock).toBe(true);
    expect(old.control.validators()).toMatchObject({ set: 0, catchain_seqno: 0 }); // the same set, named again
    await old.chain.produceBlock();
    await old.chain.produceBlock();
    expect(old.chain.archive().masterchainBlock(key.seqno + 1)!.keyBlock).toBe(false);
    const { anchor } = parseGlobalConfig(JSON.parse(server.globalConfig()), 'global-config');
    expect(anchor.initBlock.seqno).toBe(key.seqno);
    expect(anchor.zeroState).toEqual(before.zeroState);

    const pool = new LitePool({ servers: [{ ...server.address, publicKey: server.publicKey }], headPollMs: 500 });
    try {
      await pool.waitReady(5000);
      const trust = new SecureTrust({ pool, initBlock: anchor.initBlock, log: () => {} });
      await trust.start();
      const target = tlBlockIdOf(old.chain.archive().masterchainBlock(old.chain.masterchainSeqno)!);
      expect((await trust.offer(`${server.address.host}:${server.address.port}`, target))?.rootHash).toEqual(target.rootHash);
    } finally {
      await pool.close();
    }
  });
});
