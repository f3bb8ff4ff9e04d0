// Group commit for new invoices: the invoices created within one turn of the event loop (requests
// read in the same I/O phase) and while an insert runs go in together as one multi-row insert.
// The wait is one `setImmediate` when idle; under load the cost of a statement and a commit is
// shared by every invoice in the group (better-sqlite3 runs statements synchronously, so without
// that turn no request could join a group).
import type { Kysely } from 'kysely';
import { invoiceDb, type InvoiceTables } from './tables.js';

type Row = InvoiceTables['invoices'];

/** Most rows one statement carries (17 parameters each, well under both dialects' limits). */
const MAX_GROUP = 200;

export class InvoiceInserts {
  private queue: Array<{ row: Row; resolve: () => void; reject: (err: unknown) => void }> = [];
  private flushing = false;
  private scheduled = false;

  constructor(private readonly db: Kysely<any>) {}

  insert(row: Row): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ row, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.flushing || this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.queue.length > 0) {
        const group = this.queue.splice(0, MAX_GROUP);
        try {
          await invoiceDb(this.db).insertInto('invoices').values(group.map((g) => g.row)).execute();
          for (const g of group) g.resolve();
        } catch (err) {
          if (group.length === 1) {
            group[0]!.reject(err);
            continue;
          }
          // one bad row must not fail the others: retry them one by one
          for (const g of group) {
            try {
              await invoiceDb(this.db).insertInto('invoices').values(g.row).execute();
              g.resolve();
            } catch (e) {
              g.reject(e);
            }
          }
        }
      }
    } finally {
      this.flushing = false;
      if (this.queue.length > 0) this.schedule();
    }
  }
}
