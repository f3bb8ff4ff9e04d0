// Applications in the store: an application has a name, a recipient wallet, an API token (an API
// key of scope `invoices` bound with ownerRef `app:<id>`) and webhook URLs (delivery endpoints).
// Every recipient it ever had stays in `invoice_recipients`, with its USDT jetton wallet.
import type { Kysely } from 'kysely';
import type { AccountId } from '../chain/model.js';
import { toNum } from '../store/db.js';
import type { App } from './model.js';
import { appFromRow, invoiceDb } from './tables.js';

export interface RecipientRow {
  appId: number;
  account: AccountId;
  usdtMaster: AccountId | null;
  usdtWallet: AccountId | null;
}

export async function insertApp(
  db: Kysely<any>,
  input: { name: string; description: string | null; recipient: AccountId; now: number },
): Promise<App> {
  const row = await invoiceDb(db)
    .insertInto('invoice_apps')
    .values({
      name: input.name,
      description: input.description,
      recipient: input.recipient,
      token_key_id: null,
      created_at: BigInt(input.now),
      updated_at: BigInt(input.now),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return appFromRow(row);
}

export async function selectApp(db: Kysely<any>, id: number): Promise<App | null> {
  if (!Number.isSafeInteger(id) || id <= 0) return null;
  const row = await invoiceDb(db).selectFrom('invoice_apps').selectAll().where('id', '=', BigInt(id)).executeTakeFirst();
  return row ? appFromRow(row) : null;
}

export async function selectApps(db: Kysely<any>): Promise<App[]> {
  return (await invoiceDb(db).selectFrom('invoice_apps').selectAll().orderBy('id').execute()).map(appFromRow);
}

export async function updateApp(
  db: Kysely<any>,
  id: number,
  patch: { name?: string; description?: string | null; recipient?: AccountId; tokenKeyId?: string },
  now: number,
): Promise<void> {
  const set: Record<string, unknown> = { updated_at: BigInt(now) };
  if (patch.name !== undefined) set.name = patch.name;
  if (patch.description !== undefined) set.description = patch.description;
  if (patch.recipient !== undefined) set.recipient = patch.recipient;
  if (patch.tokenKeyId !== undefined) set.token_key_id = patch.tokenKeyId;
  await invoiceDb(db).updateTable('invoice_apps').set(set).where('id', '=', BigInt(id)).execute();
}

/** Removes the application with its invoices, payments and recipients (its endpoints go through the engine). */
export async function deleteAppRows(db: Kysely<any>, id: number): Promise<boolean> {
  const d = invoiceDb(db);
  const appId = BigInt(id);
  await d.deleteFrom('invoice_payments').where('app_id', '=', appId).execute();
  await d.deleteFrom('invoices').where('app_id', '=', appId).execute();
  await d.deleteFrom('invoice_recipients').where('app_id', '=', appId).execute();
  const r = await d.deleteFrom('invoice_apps').where('id', '=', appId).executeTakeFirst();
  return r.numDeletedRows > 0n;
}

/** Records a recipient of the application (or refreshes its USDT wallet). */
export async function upsertRecipient(db: Kysely<any>, r: RecipientRow, now: number): Promise<void> {
  await invoiceDb(db)
    .insertInto('invoice_recipients')
    .values({ app_id: BigInt(r.appId), account: r.account, usdt_master: r.usdtMaster, usdt_wallet: r.usdtWallet, added_at: BigInt(now) })
    .onConflict((oc) => oc.columns(['app_id', 'account']).doUpdateSet({ usdt_master: r.usdtMaster, usdt_wallet: r.usdtWallet }))
    .execute();
}

export async function selectRecipients(db: Kysely<any>): Promise<RecipientRow[]> {
  const rows = await invoiceDb(db).selectFrom('invoice_recipients').selectAll().execute();
  return rows.map((r) => ({ appId: toNum(r.app_id), account: r.account, usdtMaster: r.usdt_master, usdtWallet: r.usdt_wallet }));
}
