// A small liteserver for transport tests: our AdnlServer on loopback over a head that the test
// moves, answering a few methods from that head. The synthetic-chain fake lives elsewhere.
import { createHash, randomBytes } from 'node:crypto';
import { LiteClient, LiteSingleEngine } from 'ton-lite-client';
import { parseGlobalConfig } from '../../src/chain/liteserver/config.js';
import { AdnlServer, MasterchainHead, type AdnlServerOptions, type LiteServerMethods } from '../../src/chain/liteserver/transport/adnl-server.js';
import { LiteServerError } from '../../src/chain/liteserver/tl/envelope.js';
import type { BlockIdExt } from '../../src/chain/liteserver/tl/lite-api.js';

export const MC_SHARD = -(1n << 63n);

/** A masterchain block id whose hashes are derived from the seqno, so every server agrees on them. */
export function mcBlock(seqno: number): BlockIdExt {
  const h = (tag: string) => createHash('sha256').update(`${tag}:${seqno}`).digest();
  return { workchain: -1, shard: MC_SHARD, seqno, rootHash: h('root'), fileHash: h('file') };
}

export interface TestLiteServer {
  server: AdnlServer;
  head: MasterchainHead;
  host: string;
  port: number;
  publicKey: Buffer;
  secretKey: Buffer;
  /** Queries received, by method. */
  calls: string[];
  close(): Promise<void>;
}

/**
 * Serves getMasterchainInfo(Ext), getTime, getVersion, getBlock (data = `blockData(seqno)`) and
 * lookupBlock; blocks above the head get liteServer.error 651. `extra` adds or overrides methods.
 */
export async function startTestLiteServer(options: {
  head?: number;
  secretKey?: Buffer;
  port?: number;
  extra?: LiteServerMethods;
  blockData?: (seqno: number) => Buffer;
  log?: AdnlServerOptions['log'];
  maxQueriesPerConnection?: number;
  writeHighWaterBytes?: number;
} = {}): Promise<TestLiteServer> {
  const head = new MasterchainHead(options.head ?? 100);
  const secretKey = options.secretKey ?? randomBytes(32);
  const calls: string[] = [];
  const blockData = options.blockData ?? ((seqno: number) => Buffer.from(`block ${seqno}`));
  const init = { workchain: -1, rootHash: mcBlock(0).rootHash, fileHash: mcBlock(0).fileHash };
  const known = (seqno: number) => {
    if (seqno > head.seqno) throw new LiteServerError(651, `block ${seqno} is not in db (head ${head.seqno})`);
  };
  const methods: LiteServerMethods = {
    getMasterchainInfo: () => ({ last: mcBlock(head.seqno), stateRootHash: mcBlock(head.seqno).rootHash, init }),
    getMasterchainInfoExt: ({ mode }) => ({
      mode, version: 0x101, capabilities: 7n, last: mcBlock(head.seqno), lastUtime: 1_700_000_000 + head.seqno,
      now: Math.floor(Date.now() / 1000), stateRootHash: mcBlock(head.seqno).rootHash, init,
    }),
    getTime: () => ({ now: Math.floor(Date.now() / 1000) }),
    getVersion: () => ({ mode: 0, version: 0x101, capabilities: 7n, now: Math.floor(Date.now() / 1000) }),
    getBlock: ({ id }) => {
      known(id.seqno);
      return { id, data: blockData(id.seqno) };
    },
    lookupBlock: ({ id }) => {
      known(id.seqno);
      return { id: mcBlock(id.seqno), mode: 0, headerProof: Buffer.from('proof') };
    },
    ...options.extra,
  };
  // Count every call, then dispatch.
  const counted: LiteServerMethods = {};
  for (const [name, fn] of Object.entries(methods)) {
    (counted as Record<string, unknown>)[name] = (req: unknown) => {
      calls.push(name);
      return (fn as (r: unknown) => unknown)(req);
    };
  }
  const server = await AdnlServer.listen({
    secretKey,
    port: options.port ?? 0,
    log: options.log,
    maxQueriesPerConnection: options.maxQueriesPerConnection,
    writeHighWaterBytes: options.writeHighWaterBytes,
    handler: { methods: counted, waitMasterchainSeqno: (seqno, timeoutMs) => head.wait(seqno, timeoutMs) },
  });
  const { host, port } = server.address;
  return { server, head, host, port, publicKey: server.publicKey, secretKey, calls, close: () => server.close() };
}

/** ton-lite-client (a client nobody here wrote) connected to a liteserver; close its `engine` when done. */
export async function connectTheirClient(server: { host: string; port: number; publicKey: Uint8Array }): Promise<{ client: LiteClient; engine: LiteSingleEngine }> {
  const engine = new LiteSingleEngine({ host: `tcp://${server.host}:${server.port}`, publicKey: Buffer.from(server.publicKey) });
  engine.on('error', () => {}); // it emits 'error' with no listener check
  await new Promise<void>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error('ton-lite-client did not become ready')), 5000);
    engine.once('ready', () => (clearTimeout(t), resolve()));
  });
  return { client: new LiteClient({ engine }), engine };
}

/** The same, to the first liteserver of a global.config.json text. */
export function connectTheirClientByConfig(globalConfig: string): Promise<{ client: LiteClient; engine: LiteSingleEngine }> {
  return connectTheirClient(parseGlobalConfig(JSON.parse(globalConfig), 'global config').liteservers[0]!);
}
