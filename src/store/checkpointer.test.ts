import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { Checkpointer } from './checkpointer.js';
import { openStore, toNum, type Store } from './db.js';
import { registerStoreMetrics } from './metrics.js';

// WAL checkpoints run in a worker thread: commits on the main connection never checkpoint.
describe('SQLite WAL checkpointer', () => {
  let store: Store | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await store?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    store = dir = undefined;
  });

  it('keeps checkpoints off commits and copies the WAL into the database from its worker', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-ckpt-'));
    const file = path.join(dir, 'tonwatch.db');
    store = await openStore({ sqlitePath: file });
    const autocheckpoint = await sql<{ wal_autocheckpoint: bigint }>`pragma wal_autocheckpoint`.execute(store.db);
    expect(toNum(autocheckpoint.rows[0]!.wal_autocheckpoint)).toBe(0);

    await sql`create table t (id integer primary key, v blob)`.execute(store.db);
    // ~2,000 pages: past the 1,000 at which SQLite itself would have checkpointed inside a commit.
    for (let i = 0; i < 2000; i++) await sql`insert into t (v) values (${Buffer.alloc(4000, i % 256)})`.execute(store.db);
    const walBytes = fs.statSync(`${file}-wal`).size;
    expect(walBytes).toBeGreaterThan(2000 * 4096);
    const stats = store.checkpoints!;
    const deadline = Date.now() + 10_000;
    while ((stats.runs === 0 || stats.checkpointedFrames < stats.walFrames || stats.walFrames < 2000) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(stats.walFrames).toBeGreaterThanOrEqual(2000);
    expect(stats.checkpointedFrames).toBe(stats.walFrames);
    // What /metrics shows of it.
    const registry = new Registry();
    registerStoreMetrics(registry, store);
    const text = await registry.metrics();
    expect(Number(/^tonwatch_sqlite_checkpoints_total (\d+)$/m.exec(text)?.[1])).toBeGreaterThan(0);
    expect(Number(/^tonwatch_sqlite_wal_frames (\d+)$/m.exec(text)?.[1])).toBe(stats.walFrames);
    // The rows are in the database file itself, readable without the WAL.
    expect(fs.statSync(file).size).toBeGreaterThan(2000 * 4000);

    await store.close();
    store = undefined;
    // The last connection to close removes the WAL; the data is all there on reopen.
    expect(fs.existsSync(`${file}-wal`)).toBe(false);
    store = await openStore({ sqlitePath: file });
    const count = await sql<{ n: bigint }>`select count(*) as n from t`.execute(store.db);
    expect(toNum(count.rows[0]!.n)).toBe(2000);
  });
});

describe('SQLite WAL checkpointer under writes that never pause', () => {
  it('restarts the WAL once it passes the bound, so it does not grow without end', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-ckpt-'));
    const file = path.join(dir, 'bounded.db');
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.pragma('wal_autocheckpoint = 0');
    db.exec('create table t (id integer primary key, v blob)');
    const insert = db.prepare('insert into t (v) values (?)');
    const checkpointer = new Checkpointer(file, { intervalMs: 20, restartFrames: 200, onFailure: (err) => expect.fail(err.message) });
    try {
      // Writes keep coming while the worker checkpoints: the WAL restarts whenever it passes 200 frames.
      const deadline = Date.now() + 10_000;
      let rows = 0;
      while ((checkpointer.stats.restarts < 2 || rows < 3000) && Date.now() < deadline) {
        for (let i = 0; i < 20; i++, rows++) insert.run(Buffer.alloc(4000, rows % 256));
        await new Promise((r) => setTimeout(r, 1));
      }
      expect(checkpointer.stats.restarts).toBeGreaterThanOrEqual(2);
      // On a loaded machine the worker may have restarted long before the loop ended: write on until it
      // restarts once more, then once again so the WAL's next writer starts it over (frames since then only).
      const seen = checkpointer.stats.restarts;
      while (checkpointer.stats.restarts === seen && Date.now() < deadline + 10_000) {
        for (let i = 0; i < 20; i++, rows++) insert.run(Buffer.alloc(4000, rows % 256));
        await new Promise((r) => setTimeout(r, 1));
      }
      expect(checkpointer.stats.restarts).toBeGreaterThan(seen);
      insert.run(Buffer.alloc(4000, 1));
      rows++;
      // 3,000 pages written; a WAL that never restarted would hold them all.
      // Frames in the WAL now, from its last restart on; without restarts it would hold every page written.
      // (-1: the worker's own checkpoint was running at that instant; ask again.)
      let log = -1;
      for (let tries = 0; log < 0 && tries < 100; tries++) {
        log = (db.pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number }>)[0]!.log;
        if (log < 0) await new Promise((r) => setTimeout(r, 3));
      }
      expect(log).toBeGreaterThan(0);
      expect(log).toBeLessThan(rows / 2);
      expect(db.prepare('select count(*) as n from t').get()).toEqual({ n: rows });
    } finally {
      await checkpointer.stop();
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('SQLite WAL checkpointer after writes', () => {
  it("runs a checkpoint shortly after the store's writes and commits, and none for reads", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-ckpt-'));
    // a slow timer that stays out of the way: every run below is one a write asked for
    const store = await openStore({ sqlitePath: path.join(dir, 'after.db'), checkpoints: { intervalMs: 600_000, afterWriteMs: 100 } });
    const stats = store.checkpoints!;
    const until = async (done: () => boolean) => {
      const deadline = Date.now() + 5000;
      while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      await new Promise((r) => setTimeout(r, 300)); // then whatever else was asked for
    };
    try {
      await sql`create table t (id integer primary key, v blob)`.execute(store.db);
      await until(() => stats.runs >= 1);
      expect(stats.runs).toBe(1);
      // a transaction's commit and writes outside one: checkpointed shortly after (more writes than one
      // moment's may take a second run on a busy machine)
      await store.db.transaction().execute(async (trx) => {
        for (let i = 0; i < 50; i++) await sql`insert into t (v) values (${Buffer.alloc(4000, i)})`.execute(trx);
      });
      for (let i = 0; i < 50; i++) await sql`insert into t (v) values (${Buffer.alloc(4000, i)})`.execute(store.db);
      await until(() => stats.runs >= 2 && stats.walFrames >= 100 && stats.checkpointedFrames === stats.walFrames);
      expect(stats.walFrames).toBeGreaterThanOrEqual(100);
      expect(stats.checkpointedFrames).toBe(stats.walFrames);
      // reads ask for nothing
      const before = stats.runs;
      for (let i = 0; i < 20; i++) await sql`select count(*) from t`.execute(store.db);
      await new Promise((r) => setTimeout(r, 400));
      expect(stats.runs).toBe(before);
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('SQLite WAL checkpointer timing', () => {
  it('runs its slow timer only after a whole period without a checkpoint: never beside the ones writes ask for', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-ckpt-'));
    const store = await openStore({ sqlitePath: path.join(dir, 'timing.db'), checkpoints: { intervalMs: 1000, afterWriteMs: 20 } });
    const stats = store.checkpoints!;
    try {
      await sql`create table t (id integer primary key, v blob)`.execute(store.db);
      // a write every 100 ms for 2 s, each asking for a checkpoint 20 ms later: a fixed 1 s timer
      // would have run twice in between, at whatever moment it fell on
      const started = Date.now();
      while (Date.now() - started < 2000) {
        await sql`insert into t (v) values (${Buffer.alloc(4000, 1)})`.execute(store.db);
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(stats.runs).toBeGreaterThanOrEqual(10);
      expect(stats.idleRuns).toBe(0);
      // once the writes stop, the timer keeps running
      const deadline = Date.now() + 5000;
      while (stats.idleRuns < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(stats.idleRuns).toBeGreaterThanOrEqual(2);
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('SQLite WAL checkpointer failing', () => {
  it('reports the failure once (the store turns SQLite checkpoints back on) and still stops', async () => {
    const failures: string[] = [];
    const checkpointer = new Checkpointer(path.join(os.tmpdir(), 'tw-ckpt-missing', 'none.db'), { onFailure: (err) => failures.push(err.message) });
    const deadline = Date.now() + 10_000;
    while (failures.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatch(/unable to open|does not exist|no such file/i);
    await checkpointer.stop();
    expect(checkpointer.stats.runs).toBe(0);
  });
});
