// The devnet's blocks are real TON blocks: each stored BoC decodes to the devnet's own transactions, its
// root hash is the cell's hash and its file hash the BoC's, blocks link by prev_ref and state hashes, the
// devnet's validators sign every masterchain block (checked by the liteserver trust code), a rotation
// makes a key block naming the new set, and a restart continues the same chain.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { Cell, toNano } from '@ton/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeBlock } from '../decode/block.js';
import type { BlockIdExt } from '../liteserver/tl/lite-types.js';
import { configOfKeyBlock, configOfMasterchainState, readTrustConfig } from '../liteserver/trust/config-params.js';
import { readSignedHeader } from '../liteserver/trust/signed-header.js';
import { verifyBlockSignatures } from '../liteserver/trust/signatures.js';
import { loadBlock } from '../tlb/block.js';
import { loadShardAccounts, loadShardStateUnsplit } from '../tlb/shard-state.js';
import type { DevnetArchive } from './archive.js';
import { startDevnet, type Devnet } from './index.js';
import { openTestDevnet, type TestDevnet } from '../../../test/support/devnet.js';

let devnet: TestDevnet;
let reopened: Devnet | null = null;

beforeAll(async () => {
  devnet = await openTestDevnet();
});
afterAll(async () => {
  await reopened?.chain.stop();
  await devnet?.close();
});

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

function idExt(archive: DevnetArchive, seqno: number): { id: BlockIdExt; root: Cell } {
  const b = archive.masterchainBlock(seqno)!;
  return {
    id: { workchain: -1, shard: -(2n ** 63n), seqno, rootHash: Buffer.from(b.id.rootHash, 'hex'), fileHash: Buffer.from(b.id.fileHash, 'hex') },
    root: b.root,
  };
}

/** Checks masterchain block `seqno`'s signatures against the config of the key block (or zero state) before it. */
function verifySigned(archive: DevnetArchive, seqno: number, config: Cell) {
  const { id, root } = idExt(archive, seqno);
  return verifyBlockSignatures(id, readSignedHeader(root), readTrustConfig(config), archive.signatures(seqno)!);
}

describe('devnet blocks', () => {
  it('every stored block decodes to the devnet’s own transactions, with real root and file hashes', async () => {
    await devnet.control.send({ from: 'alice', to: 'bob', amount: toNano('1').toString(), comment: 'a real block' });
    await devnet.chain.produceBlock();
    await devnet.chain.produceBlock();
    const archive = devnet.chain.archive();
    let transactions = 0;
    let prev: { master: string; shard: string } | null = null;
    for (let seqno = 1; seqno <= devnet.chain.masterchainSeqno; seqno++) {
      const finalized = (await devnet.chain.getFinalizedBlock(seqno))!;
      for (const header of [finalized.masterchain, ...finalized.shards]) {
        const block = archive.block(header.rootHash)!;
        expect(block.root.hash().toString('hex')).toBe(header.rootHash);
        expect(sha256(block.boc)).toBe(header.fileHash);
        const decoded = decodeBlock(block.boc);
        expect(decoded.header).toMatchObject({ workchain: header.workchain, seqno: header.seqno, rootHash: header.rootHash, startLt: header.startLt, endLt: header.endLt });
        const own = finalized.transactions.filter((t) => t.block.workchain === header.workchain).map((t) => t.hash);
        expect(decoded.transactions.map((t) => t.hash).sort()).toEqual([...own].sort());
        transactions += own.length;
        // prev_ref names the previous block of the same chain by its real hashes
        const info = loadBlock(block.root.beginParse()).info;
        const prevHash = header.workchain === -1 ? prev?.master : prev?.shard;
        if (prevHash && info.prevRef.kind === 'prev_blk_info') expect(info.prevRef.prev.rootHash.toString('hex')).toBe(prevHash);
      }
      prev = { master: finalized.masterchain.rootHash, shard: finalized.shards[0]!.rootHash };
    }
    expect(transactions).toBeGreaterThan(10); // genesis funding, the deployments, alice → bob
  });

  it('`tonwatch decode` of a devnet block BoC reproduces the devnet’s transaction hashes', async () => {
    const finalized = (await devnet.chain.getFinalizedBlock(2))!; // alice's transfer and genesis traces
    const shard = finalized.shards[0]!;
    const file = join(devnet.dataDir, 'shard-block.boc');
    writeFileSync(file, devnet.chain.archive().block(shard.rootHash)!.boc);
    const root = fileURLToPath(new URL('../../../', import.meta.url));
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'decode', file], { cwd: root, timeout: 60_000, maxBuffer: 64 << 20 });
    const out = JSON.parse(stdout);
    expect(out.kind).toBe('block');
    expect(out.header).toMatchObject({ workchain: 0, seqno: shard.seqno, rootHash: shard.rootHash });
    const own = finalized.transactions.filter((t) => t.block.workchain === 0).map((t) => t.hash);
    expect(own.length).toBeGreaterThan(0);
    expect(out.transactions.map((t: { hash: string }) => t.hash).sort()).toEqual([...own].sort());
  }, 90_000);

  it('each state update goes from the previous block’s state to this one’s, and the head state holds the accounts', async () => {
    const archive = devnet.chain.archive();
    const zero = archive.zeroStates();
    let from = { master: zero.masterchain.state.hash(), shard: zero.basechain.state.hash() };
    for (let seqno = 1; seqno <= devnet.chain.masterchainSeqno; seqno++) {
      const mc = archive.masterchainBlock(seqno)!;
      const shard = archive.block((await devnet.chain.getFinalizedBlock(seqno))!.shards[0]!.rootHash)!;
      for (const [block, side] of [[mc, 'master'], [shard, 'shard']] as const) {
        const update = loadBlock(block.root.beginParse()).stateUpdate.beginParse(true);
        update.skip(8);
        expect(update.loadBuffer(32).equals(from[side])).toBe(true);
        from = { ...from, [side]: update.loadBuffer(32) };
      }
    }
    const head = devnet.chain.masterchainSeqno;
    const shardHead = archive.block((await devnet.chain.getFinalizedBlock(head))!.shards[0]!.rootHash)!;
    expect(shardHead.state!.hash().equals(from.shard)).toBe(true);
    const accounts = loadShardAccounts(loadShardStateUnsplit(shardHead.state!.beginParse()).accounts);
    const bob = devnet.directory.wallets.find((w) => w.name === 'bob')!;
    const entry = accounts.find((a) => a.address === BigInt(`0x${bob.id.split(':')[1]}`))!;
    expect(entry.balance.coins).toBe((await devnet.chain.getAccountState(bob.id)).balance);
  });

  it('the devnet’s validators sign every masterchain block; a rotation is a key block naming a new set', async () => {
    const archive = devnet.chain.archive();
    const zeroConfig = configOfMasterchainState(archive.zeroStates().masterchain.state);
    const before = devnet.control.validators();
    for (let seqno = 1; seqno <= devnet.chain.masterchainSeqno; seqno++) {
      expect(verifySigned(archive, seqno, zeroConfig).signers).toBe(before.public_keys.length);
    }
    const rotated = await devnet.control.rotateValidators();
    const key = rotated.key_block!;
    expect(archive.masterchainBlock(key.seqno)!.keyBlock).toBe(true);
    expect(rotated.set).toBe(before.set + 1);
    expect(rotated.public_keys).not.toEqual(before.public_keys);
    // the key block itself is signed by the old set; it names the new one
    expect(verifySigned(archive, key.seqno, zeroConfig).signers).toBe(4);
    const newConfig = configOfKeyBlock(archive.masterchainBlock(key.seqno)!.root);
    expect(readTrustConfig(newConfig).validators.list.map((v) => v.publicKey.toString('hex')).sort()).toEqual([...rotated.public_keys].sort());
    const next = await devnet.chain.produceBlock();
    expect(verifySigned(archive, next.seqno, newConfig).signers).toBe(4);
    expect(() => verifySigned(archive, next.seqno, zeroConfig)).toThrow(/signatures\./);
  });

  it('a restart continues the same chain: the next blocks link to the stored head and keep the signing set', async () => {
    const head = await devnet.chain.getMasterchainHead();
    const validators = devnet.control.validators();
    const rotationKey = devnet.chain.archive().masterchainBlock(head.seqno - 1)!;
    await devnet.chain.stop();
    reopened = await startDevnet({ dataDir: devnet.dataDir, manual: true });
    expect(reopened.control.validators()).toEqual(validators);
    await reopened.control.send({ from: 'carol', to: 'dave', amount: toNano('1').toString() });
    const next = await reopened.chain.produceBlock();
    const archive = reopened.chain.archive();
    const block = archive.masterchainBlock(next.seqno)!;
    const info = loadBlock(block.root.beginParse()).info;
    expect(info.prevRef).toMatchObject({ kind: 'prev_blk_info', prev: { seqno: head.seqno } });
    if (info.prevRef.kind === 'prev_blk_info') expect(info.prevRef.prev.rootHash.toString('hex')).toBe(head.rootHash);
    expect(info.prevKeyBlockSeqno).toBe(head.seqno - 1);
    expect(verifySigned(archive, next.seqno, configOfKeyBlock(rotationKey.root)).signers).toBe(4);
    expect(block.state).not.toBeNull();
  });

  it('a data dir from before real blocks (blocks without BoCs) is refused at start, saying what to do', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tonwatch-devnet-old-'));
    try {
      const db = new Database(join(dir, 'devnet.sqlite'));
      db.exec(`CREATE TABLE blocks (workchain INTEGER NOT NULL, seqno INTEGER NOT NULL, shard TEXT NOT NULL, root_hash TEXT NOT NULL,
        file_hash TEXT NOT NULL, gen_utime INTEGER NOT NULL, start_lt INTEGER NOT NULL, end_lt INTEGER NOT NULL, mc_seqno INTEGER NOT NULL,
        PRIMARY KEY (workchain, seqno))`);
      db.close();
      await expect(startDevnet({ dataDir: dir, manual: true })).rejects.toThrow(/blocks were not real TON blocks.*Remove its directory/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
