// Replies the liteserver source uses, each checked before it is used: a reply that fails its check demotes
// its server (counted as disproven; LiteserverChain logs every demotion) and the same query goes to another.
// Everything is anchored on a masterchain block the caller already believes (the head, or a block proven
// from it).
import { Cell } from '@ton/core';
import { decodeTransaction } from '../decode/transaction.js';
import type { AccountId, BlockHeader, SourcedTransaction } from '../model.js';
import { MAX_TRANSACTIONS_PER_CALL } from '../source.js';
import type { BlockIdExt, LiteMethodName, RequestOf, ResponseOf } from './tl/lite-api.js';
import { LitePoolUnavailableError, type LitePool, type PoolQueryOptions } from './transport/pool.js';
import { checkAccountState, type ProvenAccountState } from './trust/account.js';
import { checkBackwardProof } from './trust/backward-link.js';
import { describeBlock, shardIdHex } from './trust/block-ref.js';
import { checkBlockHeaderProof } from './trust/blocks.js';
import { checkConfigAll } from './trust/config-all.js';
import { checkConfigProof } from './trust/state.js';
import { ProofError } from './trust/errors.js';
import { hashHex } from './trust/merkle.js';
import { checkTransactionHistory } from './trust/transactions.js';
import { librariesDict, libraryHashes, type TvmContext } from './tvm.js';
import { checkedQuery } from './checked-query.js';
import type { ExistingBlock } from './withheld.js';

const MC_SHARD = -(1n << 63n);
/** Proven history links remembered (getTransactions continues pages from them). */
const MAX_KNOWN_LINKS = 100_000;

export function sameBlock(a: BlockIdExt, b: BlockIdExt): boolean {
  return a.workchain === b.workchain && a.seqno === b.seqno && BigInt.asUintN(64, a.shard) === BigInt.asUintN(64, b.shard)
    && a.rootHash.equals(b.rootHash) && a.fileHash.equals(b.fileHash);
}

function accountRef(address: AccountId) {
  const [wc, hex] = address.split(':') as [string, string];
  return { workchain: Number(wc), id: Buffer.from(hex, 'hex'), hex };
}

const linkKey = (address: AccountId, link: { lt: bigint; hash: string }) => `${address}:${link.lt}:${link.hash.toLowerCase()}`;

export class ProvenReads {
  /** `account:lt:hash` of transactions proven to be in an account's history. */
  private readonly knownLinks = new Set<string>();
  private config: { seqno: number; boc: Promise<string> } | null = null;

  constructor(private readonly pool: LitePool) {}

  /** Runs a query and its check (checked-query.ts); `exists`: the block asked about is proven to exist. */
  query<M extends LiteMethodName, T>(
    method: M, request: RequestOf<M>, options: PoolQueryOptions, check: (r: ResponseOf<M>) => T, exists?: ExistingBlock,
  ): Promise<T> {
    return checkedQuery(this.pool, method, request, options, check, { exists, label: method });
  }

  /** The header of a believed masterchain block (getBlockHeader, proven against its root hash). */
  header(id: BlockIdExt): Promise<BlockHeader> {
    return this.query('getBlockHeader', { id, mode: 0 }, { minSeqno: id.seqno }, (r) => {
      const { info } = checkBlockHeaderProof(r.headerProof, id, 'head.header');
      return {
        workchain: -1, shard: shardIdHex(id.shard), seqno: id.seqno, rootHash: hashHex(id.rootHash), fileHash: hashHex(id.fileHash),
        genUtime: info.genUtime, startLt: info.startLt, endLt: info.endLt, mcSeqno: id.seqno,
      };
    }, { mcSeqno: id.seqno, what: `the header of the believed head ${id.seqno}` });
  }

  /** Masterchain block `n`'s id proven from the believed head: the head's state names it (one backward link). */
  async masterchainId(n: number, head: BlockIdExt): Promise<BlockIdExt> {
    if (n === head.seqno) return head;
    try {
      const claimed = await this.query('lookupBlock', { mode: 1, id: { workchain: -1, shard: MC_SHARD, seqno: n } }, { minSeqno: n }, (r) => {
        if (r.id.workchain !== -1 || r.id.seqno !== n || r.id.shard !== MC_SHARD) throw new ProofError('mc.lookup', 'mismatch', `lookupBlock(${n}) answered ${describeBlock(r.id)}`);
        checkBlockHeaderProof(r.headerProof, r.id, 'mc.header');
        return r.id;
      }, { mcSeqno: n, what: `masterchain block ${n}` });
      return await this.query('getBlockProof', { mode: 1, knownBlock: head, targetBlock: claimed }, { minSeqno: head.seqno }, (r) => {
        const held = checkBackwardProof(r, head, 'mc.backward_link');
        if (!sameBlock(held, claimed)) throw new ProofError('mc.backward_link.to', 'mismatch', `the link ends at ${describeBlock(held)}, not the block asked for`);
        return held;
      });
    } catch (err) {
      if (err instanceof LitePoolUnavailableError) throw new Error(`masterchain block ${n} is not available from any liteserver (pruned, or not reached yet): ${err.message}`);
      throw err;
    }
  }

  /** The account's state at masterchain block `at` (believed or proven), absence proven too. */
  account(address: AccountId, at: BlockIdExt): Promise<ProvenAccountState> {
    const account = accountRef(address);
    return this.query('getAccountState', { id: at, account }, { minSeqno: at.seqno }, (r) => {
      if (!sameBlock(r.id, at)) throw new ProofError('account.block', 'mismatch', `the state is read at ${describeBlock(r.id)}, not ${describeBlock(at)}`);
      return checkAccountState({ id: at, shardblk: r.shardblk, shardProof: r.shardProof, proof: r.proof, state: r.state }, account);
    });
  }

  /**
   * Up to `count` transactions from (lt, hash) back. (lt, hash) must be a proven link of the account's
   * history: the last transaction of a proven state or a `prev` of a page checked before; an unknown one
   * is first reached by walking pages down from the account's state at `head`.
   */
  async transactions(address: AccountId, start: { lt: bigint; hash: string }, count: number, head: BlockIdExt): Promise<SourcedTransaction[]> {
    if (!this.knownLinks.has(linkKey(address, start))) await this.anchor(address, start, head);
    return this.page(address, start, count, head);
  }

  /** Config params of masterchain block `at` (getConfigParams, proven); null for a param the proof shows absent. */
  configParams(at: BlockIdExt, params: number[]): Promise<Map<number, Cell | null>> {
    return this.query('getConfigParams', { mode: 0, id: at, paramList: params }, { minSeqno: at.seqno }, (r) => {
      if (!sameBlock(r.id, at)) throw new ProofError('config.block', 'mismatch', `the config is of ${describeBlock(r.id)}, not ${describeBlock(at)}`);
      return checkConfigProof(r.stateProof, r.configProof, at.rootHash, params);
    });
  }

  /** The whole config of `head` (cached per head) and the libraries these cells use (checked by hash). */
  async tvmContext(head: BlockIdExt, header: BlockHeader, roots: Cell[], moreLibraries: Buffer[] = []): Promise<TvmContext> {
    if (this.config?.seqno !== head.seqno) {
      const boc = this.query('getConfigAll', { mode: 0, id: head }, { minSeqno: head.seqno }, (r) => {
        if (!sameBlock(r.id, head)) throw new ProofError('config.block', 'mismatch', `the config is of ${describeBlock(r.id)}, not the head`);
        return checkConfigAll(r.stateProof, r.configProof, head.rootHash).toBoc().toString('base64');
      });
      const entry = { seqno: head.seqno, boc };
      this.config = entry;
      boc.catch(() => {
        if (this.config === entry) this.config = null;
      });
    }
    const config = await this.config.boc;
    const wanted = [...libraryHashes(roots), ...moreLibraries.filter((h) => !libraryHashes(roots).some((x) => x.equals(h)))];
    const libs = wanted.length === 0 ? [] : await this.query('getLibraries', { libraryList: wanted }, {}, (r) => wanted.map((h) => {
      const entry = r.result.find((e) => e.hash.equals(h));
      if (!entry) throw new ProofError('library', 'mismatch', `library ${h.toString('hex')} was not returned`);
      const cell = Cell.fromBoc(entry.data)[0];
      if (!cell || !cell.hash().equals(h)) throw new ProofError('library.hash', 'mismatch', `the library sent for ${h.toString('hex')} has another hash`);
      return cell;
    }));
    return { config, libs: librariesDict(libs), now: header.genUtime, lt: header.endLt };
  }

  private async anchor(address: AccountId, start: { lt: bigint; hash: string }, head: BlockIdExt): Promise<void> {
    const state = await this.account(address, head);
    if (state.kind === 'absent') throw new Error(`account ${address} does not exist at masterchain block ${head.seqno}: transaction ${start.hash} is not in a proven history`);
    let at = { lt: state.lastTransLt, hash: state.lastTransHash };
    this.remember(address, at);
    while (!this.knownLinks.has(linkKey(address, start))) {
      if (at.lt === 0n || at.lt < start.lt) {
        throw new Error(`transaction (${start.lt}, ${start.hash}) is not in the proven history of ${address} (the chain from its state at ${head.seqno} passes lt ${start.lt} without it)`);
      }
      const page = await this.page(address, at, MAX_TRANSACTIONS_PER_CALL, head);
      const last = page[page.length - 1]!;
      at = { lt: last.prevLt, hash: last.prevHash };
    }
  }

  /** One page from a proven (lt, hash), checked link by link; every link on it is remembered. */
  private async page(address: AccountId, from: { lt: bigint; hash: string }, count: number, head: BlockIdExt): Promise<SourcedTransaction[]> {
    const account = accountRef(address);
    const page = await this.query('getTransactions', { count, account, lt: from.lt, hash: Buffer.from(from.hash, 'hex') }, {}, (r) => {
      const txs = checkTransactionHistory(r.transactions, { hash: from.hash, lt: from.lt }, account.hex, 'history');
      if (txs.length === 0) throw new ProofError('history', 'malformed', `no transaction at (${from.lt}, ${from.hash})`);
      if (r.ids.length !== txs.length) throw new ProofError('history.ids', 'malformed', `${r.ids.length} block ids for ${txs.length} transactions`);
      return txs.map((tx, i) => {
        const block = r.ids[i]!;
        // Masterchain transactions are final in their own block; a shard block's committing masterchain
        // block is not in the reply: the head the history was proven from is an upper bound.
        const mcSeqno = block.workchain === -1 ? block.seqno : head.seqno;
        return decodeTransaction(tx.cell, { block: { workchain: block.workchain, shard: shardIdHex(block.shard), seqno: block.seqno }, mcSeqno, boc: tx.cell.toBoc().toString('base64') });
      });
    });
    for (const tx of page) {
      this.remember(address, { lt: tx.lt, hash: tx.hash });
      if (tx.prevLt > 0n) this.remember(address, { lt: tx.prevLt, hash: tx.prevHash });
    }
    return page;
  }

  private remember(address: AccountId, link: { lt: bigint; hash: string }): void {
    if (this.knownLinks.size >= MAX_KNOWN_LINKS) this.knownLinks.clear();
    this.knownLinks.add(linkKey(address, link));
  }
}
