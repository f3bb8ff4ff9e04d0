// A small real network for end-to-end tests of `TONWATCH_CHAIN=liteserver`: a SyntheticChain the test
// advances, served by fake liteservers over real ADNL TCP on loopback, and the global.config.json that
// points tonwatch at them (their keys, and the synthetic zero state as the trust anchor). With `signed`, the
// chain is a SignedChain (validators sign its masterchain, key blocks rotate them), the servers answer
// getBlockProof with signed links (some may lie), and the config's init_block is its init key block: what
// `secure` trust walks from. The builder's own blocks are the ground truth the service's output is compared with.
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Address } from '@ton/core';
import { SyntheticChain, type MasterchainStep } from '../../src/chain/blocks/testing/synthetic.js';
import { decodeBlock } from '../../src/chain/decode/block.js';
import type { AccountId, TransactionModel } from '../../src/chain/model.js';
import { serveBlockProof, type BlockProofLies } from '../../src/chain/liteserver/testing/serve-block-proof.js';
import { SignedChain } from '../../src/chain/liteserver/testing/signed-chain.js';
import { SyntheticLiteServer, type LyingModes } from '../../src/chain/liteserver/testing/synthetic-server.js';
import type { BlockIdExt } from '../../src/chain/liteserver/tl/lite-types.js';
import { LiteErrorCode, LiteServerError } from '../../src/chain/liteserver/tl/envelope.js';
import type { LiteMethodName } from '../../src/chain/liteserver/tl/lite-api.js';
import { AdnlServer } from '../../src/chain/liteserver/transport/adnl-server.js';

export interface NetworkServer {
  fake: SyntheticLiteServer;
  server: AdnlServer;
  /** host:port, as the pool, /readyz and /metrics name it. */
  name: string;
}

export interface LiteserverNetwork {
  chain: SyntheticChain;
  /** The signed chain (with `signed`), whose init key block the config names. */
  signed?: SignedChain;
  servers: NetworkServer[];
  /** The global.config.json for TONWATCH_LITESERVER_CONFIG. */
  configFile: string;
  /** Every masterchain step made so far, seqno 1 first. */
  steps: MasterchainStep[];
  /** Makes `n` masterchain blocks (committing what was queued) and moves every server's head to the last. */
  advance(n?: number): MasterchainStep[];
  /** With `signed`: a key block naming a new validator set, then every server's head moved to it. */
  keyBlock(): MasterchainStep;
  /** Stops server `i` (its port closes: connections are refused). */
  stop(i: number): Promise<void>;
  /** Starts server `i` again on its port with its key, as the config file lists it. */
  restart(i: number): Promise<void>;
  /** Every transaction the builder put in for `account`, newest first: the ground truth. */
  transactionsOf(account: AccountId | Address): TransactionModel[];
  close(): Promise<void>;
}

export interface LiteserverNetworkOptions {
  /** Directory for the config file (the test's temp dir). */
  dir: string;
  /** Liteservers serving the same chain (default 2: `fast` trust believes a head two servers report). */
  servers?: number;
  /** Masterchain blocks made before the servers start (default 2). */
  blocks?: number;
  /** Lying modes per server index. */
  lie?: Record<number, LyingModes>;
  /** A signed chain (made by the test, e.g. with key blocks) instead of a plain one; `blocks` is then ignored. */
  signed?: SignedChain;
  /** With `signed`: forged getBlockProof links per server index. */
  proofLies?: Record<number, BlockProofLies>;
  /** With `signed`: another chain a server serves instead (a fork sharing the first blocks). */
  serves?: Record<number, SignedChain>;
  /** With `signed`: links per getBlockProof reply (default 16, as the node). */
  maxLinks?: number;
}

/**
 * Makes `x`'s fake refuse these methods (liteServer.error -400, which a pool fails over and never takes for a
 * withheld block) while `until()` is false, so every such query reaches the liar whatever the servers'
 * latencies or a walk's sticky server, until the test has seen it caught; after that it answers.
 */
export function refuseUntil<T extends { fake: SyntheticLiteServer }>(x: T, refused: LiteMethodName[], until: () => boolean): T {
  const methods = x.fake.methods as Record<string, (r: unknown) => unknown>;
  for (const name of refused) {
    const fn = methods[name]!;
    methods[name] = (r: unknown) => {
      if (!until()) throw new LiteServerError(LiteErrorCode.error, `${name} refused until the liar is caught (test)`);
      return fn(r);
    };
  }
  return x;
}

const MC_SHARD = -9223372036854775808; // JSON writes the masterchain shard as this literal, as ton.org's configs do

/** The global.config.json listing `servers`, anchored on the chain's zero state and `initBlock` (default: the zero state). */
export function globalConfigOf(chain: SyntheticChain, servers: Array<{ server: AdnlServer }>, initBlock?: BlockIdExt): object {
  const zero = chain.zeroStates().masterchain.ref;
  const ipv4 = (host: string) => host.split('.').reduce((n, part) => (n << 8) | Number(part), 0);
  const anchor = { workchain: -1, shard: MC_SHARD, seqno: 0, root_hash: zero.rootHash.toString('base64'), file_hash: zero.fileHash.toString('base64') };
  const init = initBlock
    ? { workchain: -1, shard: MC_SHARD, seqno: initBlock.seqno, root_hash: initBlock.rootHash.toString('base64'), file_hash: initBlock.fileHash.toString('base64') }
    : anchor;
  return {
    '@type': 'config.global',
    liteservers: servers.map(({ server }) => ({
      ip: ipv4(server.address.host),
      port: server.address.port,
      id: { '@type': 'pub.ed25519', key: server.publicKey.toString('base64') },
    })),
    validator: { '@type': 'validator.config.global', zero_state: anchor, init_block: init, hardforks: [] },
  };
}

export async function startLiteserverNetwork(options: LiteserverNetworkOptions): Promise<LiteserverNetwork> {
  const { signed } = options;
  // Block times near the wall clock, as on a live network (lag in seconds, invoice times).
  const chain = signed?.chain ?? new SyntheticChain({ startUtime: Math.floor(Date.now() / 1000) - 60 });
  const steps: MasterchainStep[] = signed?.steps ?? [];
  if (!signed) for (let i = 0; i < (options.blocks ?? 2); i++) steps.push(chain.nextMasterchainBlock());
  const servers: NetworkServer[] = [];
  const keys: Buffer[] = [];
  try {
    for (let i = 0; i < (options.servers ?? 2); i++) {
      const served = options.serves?.[i] ?? signed;
      const fake = new SyntheticLiteServer(served?.chain ?? chain, {
        lie: options.lie?.[i],
        blockProof: served && ((head) => serveBlockProof(served, head, { maxLinks: options.maxLinks, lie: options.proofLies?.[i] })),
      });
      keys.push(randomBytes(32));
      const server = await AdnlServer.listen({ secretKey: keys[i]!, host: '127.0.0.1', handler: fake });
      servers.push({ fake, server, name: `${server.address.host}:${server.address.port}` });
    }
  } catch (err) {
    for (const s of servers) await s.server.close();
    throw err;
  }
  const configFile = path.join(options.dir, 'global.config.json');
  await writeFile(configFile, JSON.stringify(globalConfigOf(chain, servers, signed?.init), null, 2));
  const moveHeads = () => {
    for (const s of servers) s.fake.advance();
  };
  return {
    chain,
    signed,
    servers,
    configFile,
    steps,
    advance(n = 1) {
      const made: MasterchainStep[] = [];
      for (let i = 0; i < n; i++) made.push(signed ? signed.step() : chain.nextMasterchainBlock());
      if (!signed) steps.push(...made);
      moveHeads();
      return made;
    },
    keyBlock() {
      if (!signed) throw new Error('keyBlock() needs a signed network');
      signed.keyBlock();
      moveHeads();
      return steps.at(-1)!;
    },
    async stop(i) {
      await servers[i]!.server.close();
    },
    async restart(i) {
      const { fake, name } = servers[i]!;
      fake.advance();
      const [host, port] = name.split(':');
      const again = await AdnlServer.listen({ secretKey: keys[i]!, host, port: Number(port), handler: fake });
      servers[i] = { fake, server: again, name };
    },
    transactionsOf(account) {
      const raw = typeof account === 'string' ? account : account.toRawString();
      return steps
        .flatMap((s) => [s.masterchain, ...s.shardBlocks].flatMap((b) => decodeBlock(b.boc).transactions))
        .filter((t) => t.account === raw)
        .sort((a, b) => (a.lt === b.lt ? 0 : a.lt > b.lt ? -1 : 1));
    },
    async close() {
      for (const s of servers) await s.server.close().catch(() => {});
    },
  };
}
