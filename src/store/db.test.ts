import { afterEach, describe, expect, it } from 'vitest';
import { dialects, dropTestStore, openTestStore } from '../../test/support/stores.js';
import type { Store } from './db.js';
import { toBool, toNum } from './db.js';

describe.each(dialects)('store on %s', (dialect) => {
  let store: Store | undefined;
  afterEach(async () => {
    if (store) await dropTestStore(store);
    store = undefined;
  });

  it('runs migrations and returns integers as bigint, binary as Buffer', async () => {
    store = await openTestStore(dialect);
    const big = 2n ** 62n + 7n;
    await store.db
      .insertInto('event_batches')
      .values({ first_position: big, last_position: big, mc_seqno: 1n, kind: 'block', event_count: 0n, payload: Buffer.from([1, 2, 3]), appended_at: 5n })
      .execute();
    const row = await store.db.selectFrom('event_batches').selectAll().executeTakeFirstOrThrow();
    expect(row.first_position).toBe(big);
    expect(Buffer.isBuffer(row.payload) ? [...row.payload] : null).toEqual([1, 2, 3]);
    const count = await store.db.selectFrom('event_batches').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    expect(toNum(count.n)).toBe(1);
    expect(toBool(1n)).toBe(true);
  });
});
