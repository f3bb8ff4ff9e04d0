// Durable named cursors (the follower's, and every consumer's), written inside the caller's
// transaction so a cursor moves exactly when the work it covers commits.
import type { Kysely } from 'kysely';
import { toNum } from '../store/db.js';

interface CursorTables {
  cursors: { name: string; position: bigint; updated_at: bigint };
}

export async function readCursor(db: Kysely<any>, name: string): Promise<number | null> {
  const row = await (db as Kysely<CursorTables>)
    .selectFrom('cursors')
    .select('position')
    .where('name', '=', name)
    .executeTakeFirst();
  return row ? toNum(row.position) : null;
}

export async function writeCursor(db: Kysely<any>, name: string, position: number, now = Date.now()): Promise<void> {
  await (db as Kysely<CursorTables>)
    .insertInto('cursors')
    .values({ name, position: BigInt(position), updated_at: BigInt(now) })
    .onConflict((oc) => oc.column('name').doUpdateSet({ position: BigInt(position), updated_at: BigInt(now) }))
    .execute();
}
