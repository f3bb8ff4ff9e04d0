// A store holds one chain's history: a start against another chain is refused before anything is
// written, and /readyz never calls a cursor ahead of the head healthy.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { ChainMismatchError, checkChainIdentity, readChainIdentity, recordChainIdentity } from '../pipeline/chain-identity.js';
import { openStore, type Store } from '../store/db.js';
import { startTestService } from '../../test/support/service.js';
import { dialects, dropTestStore, openTestStore, PG_URL, uniqueSchema } from '../../test/support/stores.js';

/** Every table's row count and the cursors: what "nothing was written" is checked against. */
async function snapshot(store: Store): Promise<string> {
  const tables =
    store.dialect === 'postgres'
      ? (await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema()`.execute(store.db)).rows
      : (await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(store.db)).rows;
  const counts: string[] = [];
  for (const { name } of tables.sort((a, b) => a.name.localeCompare(b.name))) {
    const { rows } = await sql<{ n: unknown }>`select count(*) as n from ${sql.table(name)}`.execute(store.db);
    counts.push(`${name}=${String(rows[0]!.n)}`);
  }
  const cursors = await sql<{ name: string; position: unknown }>`select name, position from cursors order by name`.execute(store.db);
  return [...counts, ...cursors.rows.map((r) => `${r.name}@${String(r.position)}`)].join(' ');
}

const schemas: string[] = [];
afterAll(async () => {
  if (!schemas.length) return;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  for (const s of schemas) await admin.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
  await admin.end();
});

describe.each(dialects)('chain identity (%s)', (dialect) => {
  it('a new devnet on a store that followed another devnet is refused, naming both, with nothing written', { timeout: 180_000 }, async () => {
    const env: Record<string, string> = {};
    if (dialect === 'postgres') {
      const schema = uniqueSchema('chainid');
      schemas.push(schema);
      const admin = new pg.Client({ connectionString: PG_URL });
      await admin.connect();
      await admin.query(`CREATE SCHEMA ${schema}`);
      await admin.end();
      env.DATABASE_URL = `${PG_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    }
    const first = await startTestService({ env });
    await first.produceBlock();
    await first.produceBlock();
    const firstChain = first.source.identity();
    expect(firstChain.network).toBe('devnet');
    const lastSeqno = first.follower!.status().lastSeqno!;
    await first.close({ keepData: true });

    // Same store, new devnet: on PostgreSQL a fresh data dir; on SQLite the store file stays and the devnet's goes.
    const dataDir = dialect === 'sqlite' ? first.dataDir : mkdtempSync(path.join(tmpdir(), 'tonwatch-test-'));
    if (dialect === 'sqlite') rmSync(path.join(first.dataDir, 'devnet'), { recursive: true, force: true });
    const storeOf = () =>
      dialect === 'postgres' ? openStore({ databaseUrl: env.DATABASE_URL! }) : openStore({ sqlitePath: path.join(first.dataDir, 'tonwatch.sqlite') });
    let store = await storeOf();
    const before = await snapshot(store);
    await store.close();

    const refused = await startTestService({ env, dataDir }).then(
      async (s) => {
        await s.close();
        return null;
      },
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(ChainMismatchError);
    const message = (refused as Error).message;
    expect(message).toContain(`devnet chain ${firstChain.id}`);
    const secondChain = (refused as ChainMismatchError).current;
    expect(secondChain.id).not.toBe(firstChain.id);
    expect(message).toContain(`devnet chain ${secondChain.id}`);

    store = await storeOf();
    expect(await snapshot(store)).toBe(before);
    expect(before).toContain(`follower@${lastSeqno}`);
    await store.close();
    for (const dir of new Set([first.dataDir, dataDir])) rmSync(dir, { recursive: true, force: true });
  });

  it('testnet history refuses mainnet, and the same chain is accepted again', async () => {
    const store = await openTestStore(dialect);
    try {
      const testnet = { network: 'testnet' as const, id: 'zero-state-testnet' };
      const mainnet = { network: 'mainnet' as const, id: 'zero-state-mainnet' };
      expect(await readChainIdentity(store)).toBeNull();
      await recordChainIdentity(store, testnet);
      await recordChainIdentity(store, testnet);
      await checkChainIdentity(store, testnet);
      const before = await snapshot(store);
      await expect(checkChainIdentity(store, mainnet)).rejects.toThrow(/holds the history of testnet chain zero-state-testnet, but the chain source follows mainnet chain zero-state-mainnet/);
      await expect(recordChainIdentity(store, mainnet)).rejects.toBeInstanceOf(ChainMismatchError);
      expect(await snapshot(store)).toBe(before);
      expect(await readChainIdentity(store)).toEqual(testnet);
    } finally {
      await dropTestStore(store);
    }
  });
});

describe('readiness with the cursor ahead of the head', () => {
  it('is not ready, and says why', async () => {
    const service = await startTestService();
    try {
      await service.produceBlock();
      expect((await service.api('/readyz')).status).toBe(200);
      // A cursor moved past the head, as a store from another chain would leave it (before identities were recorded).
      const status = service.follower!.status();
      (service.follower as unknown as { lastSeqno: number }).lastSeqno = status.headSeqno! + 23;
      const res = await service.api('/readyz');
      expect(res.status).toBe(503);
      const body = JSON.stringify(await res.json());
      expect(body).toContain(`cursor (block ${status.headSeqno! + 23}) is ahead of the chain's head (block ${status.headSeqno})`);
    } finally {
      await service.close();
    }
  });
});
