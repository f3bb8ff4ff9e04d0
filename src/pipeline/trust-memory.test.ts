import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { BlockIdExt } from '../chain/liteserver/tl/lite-types.js';
import { openStore, type Store } from '../store/db.js';
import { dialects, dropTestStore, openTestStore } from '../../test/support/stores.js';
import { migrate } from '../store/migrate.js';
import { pipelineMigrations } from './migrations.js';
import { StoreTrustMemory } from './trust-memory.js';

const MC_SHARD = -(1n << 63n);
const keyBlock = (seqno: number): BlockIdExt => ({
  workchain: -1,
  shard: MC_SHARD,
  seqno,
  rootHash: createHash('sha256').update(`root ${seqno}`).digest(),
  fileHash: createHash('sha256').update(`file ${seqno}`).digest(),
});

describe.each(dialects)('StoreTrustMemory on %s', (dialect) => {
  let store: Store | undefined;
  afterEach(async () => {
    if (store) await dropTestStore(store);
    store = undefined;
  });

  it('remembers nothing on a new store, then the newest saved key block, across a reopened memory', async () => {
    store = await openTestStore(dialect);
    expect(await new StoreTrustMemory(store).load()).toBeNull();
    await new StoreTrustMemory(store).save(keyBlock(43_792_209));
    await new StoreTrustMemory(store).save(keyBlock(43_800_000));
    const loaded = await new StoreTrustMemory(store).load();
    expect(loaded).toEqual(keyBlock(43_800_000));
    // The masterchain's shard survives as a signed 64-bit number.
    expect(loaded!.shard).toBe(MC_SHARD);
  });

  it('never goes back: saving an older key block after a newer one keeps the newer', async () => {
    store = await openTestStore(dialect);
    const memory = new StoreTrustMemory(store);
    await memory.save(keyBlock(500));
    await memory.save(keyBlock(400));
    expect((await memory.load())!.seqno).toBe(500);
  });
});

describe('StoreTrustMemory before migrations', () => {
  it('loads nothing from a store not migrated yet (the source starts before migrations)', async () => {
    const bare = await openStore({ sqlitePath: ':memory:' });
    try {
      expect(await new StoreTrustMemory(bare).load()).toBeNull();
    } finally {
      await bare.close();
    }
  });

  it('a pending memory holds the newest key block saved before migrations and writes it once opened', async () => {
    const bare = await openStore({ sqlitePath: ':memory:' });
    try {
      const memory = new StoreTrustMemory(bare, { pending: true });
      await memory.save(keyBlock(700));
      await memory.save(keyBlock(900));
      await memory.save(keyBlock(800)); // a late, older one does not replace it
      await migrate(bare, [pipelineMigrations]);
      expect(await memory.load()).toBeNull(); // nothing written before open()
      await memory.open();
      expect(await new StoreTrustMemory(bare).load()).toEqual(keyBlock(900));
      await memory.save(keyBlock(1000)); // open: written at once
      expect((await new StoreTrustMemory(bare).load())!.seqno).toBe(1000);
    } finally {
      await bare.close();
    }
  });
});
