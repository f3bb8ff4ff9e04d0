// Turning a live liteserver session into test data: `jsonlRecorder` writes every query and reply
// the transport's `record` option reports as one JSON line (docs/LITESERVER.md, "Recording a
// session"); `ReplayTransport` answers the same queries from such a file, byte for byte.
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { TLWriter } from '../tl/codec.js';
import type { LiteMethodName, RequestOf, ResponseOf } from '../tl/lite-api.js';
import { LiteErrorCode, LiteServerError, decodeLiteAnswer, decodeLiteQuery, encodeLiteQuery } from '../tl/envelope.js';
import { liteApi } from '../tl/lite-api.js';
import { Wakeup } from './wakeup.js';
import { AdnlError, CLOSED_BY_CLIENT, type LiteConnection, type LiteQueryOptions, type QueryRecorder, type RecordedQuery } from './types.js';

/** Appends each recorded query to `path` as JSON Lines; `close` flushes. */
export function jsonlRecorder(path: string): { record: QueryRecorder; close(): Promise<void> } {
  const out = createWriteStream(path, { flags: 'a' });
  let failure: Error | undefined;
  out.on('error', (e) => (failure = e));
  return {
    record: (entry) => {
      if (!failure) out.write(`${JSON.stringify(entry)}\n`);
    },
    close: () => new Promise((resolve, reject) => out.end(() => (failure ? reject(failure) : resolve()))),
  };
}

/** The query without its waitMasterchainSeqno prefix, so a replay does not depend on the head it waited for. */
function requestKey(queryBase64: string): string {
  const q = decodeLiteQuery(Buffer.from(queryBase64, 'base64'));
  const w = new TLWriter();
  (liteApi[q.method].request as { write(w: TLWriter, v: unknown): void }).write(w, q.request);
  return w.finish().toString('base64');
}

/**
 * A LiteTransport that serves a recording; a query it has no answer for is an error naming it. It can stand
 * for a pool's connection (`LitePoolOptions.connect`): a head long-poll the recording answered "no new block"
 * (652) takes its wait's timeout again, as the server did, so a replayed pool polls at the recorded pace.
 */
export class ReplayTransport implements LiteConnection {
  private readonly exact = new Map<string, RecordedQuery[]>();
  private readonly loose = new Map<string, RecordedQuery[]>();
  private readonly served = new Map<RecordedQuery[], number>();
  private readonly waits = new Wakeup();
  private closedBy: AdnlError | undefined;

  constructor(entries: readonly RecordedQuery[]) {
    for (const e of entries) {
      // A query cut short by the recording client's own close (the session ended) says nothing about the server.
      if (e.errorKind === 'closed' && e.error?.endsWith(CLOSED_BY_CLIENT)) continue;
      const push = (m: Map<string, RecordedQuery[]>, k: string) => (m.get(k) ?? m.set(k, []).get(k)!).push(e);
      push(this.exact, e.query);
      push(this.loose, requestKey(e.query));
    }
  }

  static async fromFile(path: string): Promise<ReplayTransport> {
    const lines = (await readFile(path, 'utf8')).split('\n').filter((l) => l.trim() !== '');
    return new ReplayTransport(lines.map((l, i) => {
      try {
        return JSON.parse(l) as RecordedQuery;
      } catch (e) {
        throw new Error(`${path}:${i + 1}: not a recorded query: ${(e as Error).message}`);
      }
    }));
  }

  get closed(): boolean {
    return this.closedBy !== undefined;
  }

  /**
   * Same query bytes first, else the same request with any wait prefix. Repeated queries get the
   * recorded answers in order, then the last one again (a head poll keeps seeing the last head).
   */
  async query<M extends LiteMethodName>(method: M, request: RequestOf<M>, options: LiteQueryOptions = {}): Promise<ResponseOf<M>> {
    if (this.closedBy) throw this.closedBy;
    const query = encodeLiteQuery(method, request, options.wait).toString('base64');
    const list = this.exact.get(query) ?? this.loose.get(requestKey(query));
    if (!list) throw new Error(`replay: no recorded answer for ${method} (query ${query.slice(0, 60)}…)`);
    const i = this.served.get(list) ?? 0;
    this.served.set(list, i + 1);
    const e = list[Math.min(i, list.length - 1)]!;
    if (e.answer === undefined) {
      const prefix = `liteserver ${e.server}: `;
      const detail = e.error?.startsWith(prefix) ? e.error.slice(prefix.length) : (e.error ?? 'failed');
      throw new AdnlError(e.errorKind ?? 'closed', e.server, detail);
    }
    try {
      return decodeLiteAnswer(method, Buffer.from(e.answer, 'base64'));
    } catch (err) {
      if (options.wait && err instanceof LiteServerError && err.code === LiteErrorCode.timeout) await this.sleep(options.wait.timeoutMs);
      throw err;
    }
  }

  async close(): Promise<void> {
    this.closedBy ??= new AdnlError('closed', 'replay', CLOSED_BY_CLIENT);
    this.waits.wakeAll();
  }

  /** Waits `ms`, or until close (then throws as a closed connection). */
  private async sleep(ms: number): Promise<void> {
    await this.waits.wait(ms);
    if (this.closedBy) throw this.closedBy;
  }
}
