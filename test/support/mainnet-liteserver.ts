// A liteserver that answers from the real mainnet fixtures (test/fixtures/mainnet/, provenance in its
// README) with the block ids they name: masterchain block 31220993 as its head (header proof), the basechain
// block its state lists for shard 8000… (shard proof and descriptor), the account EQBvW8…'s state with its
// two proofs, and the recorded full blocks by id. Anything else is refused as a node without it refuses.
// The same handler serves in process (InProcessTransport) and over ADNL (AdnlServer); `tamper` makes it a
// forger whose replies stay well-formed BoCs.
import { createHash } from 'node:crypto';
import { Address, Cell, convertToMerkleProof } from '@ton/core';
import { decodeBlock } from '../../src/chain/decode/block.js';
import { CellReader } from '../../src/chain/decode/reader.js';
import { readShardDescr } from '../../src/chain/decode/shard-hashes.js';
import { TRUST_ANCHORS } from '../../src/chain/liteserver/config.js';
import { multiRootBoc } from '../../src/chain/liteserver/server/proof-builder.js';
import { forgedBlockBoc, tamperPruned } from '../../src/chain/liteserver/testing/synthetic-server.js';
import { LiteErrorCode, LiteServerError } from '../../src/chain/liteserver/tl/envelope.js';
import type { AccountId, BlockIdExt, LiteMethodName } from '../../src/chain/liteserver/tl/lite-api.js';
import { MasterchainHead, type LiteServerHandler, type LiteServerMethods } from '../../src/chain/liteserver/transport/adnl-server.js';
import { merkleUpdateHashes } from '../../src/chain/liteserver/trust/merkle.js';
import { mainnetFixture } from './proofs.js';

const MC_SHARD = -(1n << 63n);
const hex = (h: string) => Buffer.from(h, 'hex');

/**
 * Masterchain block 31220993 (2023-07-18). Its file hash is not in the proofs: it is the one the TON docs
 * page the proofs come from names (ton-org/docs, foundations/proofs/verifying-liteserver-proofs.mdx).
 */
export const MAINNET_HEAD: BlockIdExt = {
  workchain: -1, shard: MC_SHARD, seqno: 31220993,
  rootHash: hex('51ed3b9e728e7c548b15a5e5ce988b4a74984c3f8374f3f1a52c7b1f46c26406'),
  fileHash: hex('d4fcdc692de1a252deb379cd25774842b733e6a96525adf82b8ffc41da667bf5'),
};

/** The account whose state the fixtures prove, as TL names it. */
export const MAINNET_ACCOUNT: AccountId = { workchain: 0, id: Address.parse('EQBvW8Z5huBkMJYdnfAEM5JqTNkuWX3diqYENkWsIL0XggGG').hash };

/** Basechain block 36908135, as the descriptor in the head's state names it (root and file hash). */
export const MAINNET_SHARD_BLOCK: BlockIdExt = (() => {
  const r = new CellReader(Cell.fromBoc(mainnetFixture('proofs/shard_descr_wc0.boc'))[0]!);
  r.skip(1); // bt_leaf$0
  const d = readShardDescr(r, 0, 1n << 63n);
  return { workchain: 0, shard: MC_SHARD, seqno: d.seqno, rootHash: hex(d.rootHash), fileHash: hex(d.fileHash) };
})();

/** The recorded full blocks: the id each names (root hash of its cells, file hash of its bytes). */
export const MAINNET_FULL_BLOCKS = [
  'blocks/block_0_8000000000000000_34703989.boc', 'blocks/tongo-block-4.boc', 'blocks/tongo-block-5.boc',
  'blocks/tongo-block-6.boc', 'blocks/tongo-block-7.boc',
].map((file) => {
  const data = mainnetFixture(file);
  const h = decodeBlock(data).header;
  const id: BlockIdExt = {
    workchain: h.workchain, shard: BigInt.asIntN(64, BigInt(`0x${h.shard}`)), seqno: h.seqno,
    rootHash: hex(h.rootHash), fileHash: createHash('sha256').update(data).digest(),
  };
  return { file, data, id };
});

export interface MainnetFixtureServerOptions {
  /** Lie in this method's replies: a pruned hash flipped in its proofs, a header bit flipped in a full block. */
  tamper?: (method: LiteMethodName) => boolean;
}

export class MainnetFixtureServer implements LiteServerHandler {
  readonly methods: LiteServerMethods;
  /** Stays at 31220993: the fixtures hold no newer block. */
  readonly head = new MasterchainHead(MAINNET_HEAD.seqno);
  /** Method names of the queries answered (or refused), in order. */
  readonly calls: LiteMethodName[] = [];

  constructor(options: MainnetFixtureServerOptions = {}) {
    const tamper = (method: LiteMethodName, proof: Buffer): Buffer =>
      options.tamper?.(method) ? multiRootBoc(Cell.fromBoc(proof).map((root) => convertToMerkleProof(tamperPruned(root.refs[0]!)))) : proof;
    const headerProof = mainnetFixture('proofs/header_proof_mc31220993.boc');
    const shardProof = mainnetFixture('proofs/shard_proof_mc31220993.boc');
    const stateRootHash = hex(merkleUpdateHashes(Cell.fromBoc(shardProof)[0]!.refs[0]!.refs[2]!, 'fixture').newHash);
    const zero = TRUST_ANCHORS.mainnet.zeroState;
    const isHead = (id: BlockIdExt) => sameId(id, MAINNET_HEAD);
    const notInDb = (what: string) => new LiteServerError(LiteErrorCode.notReady, `${what} is not in db (the mainnet fixtures do not hold it)`);
    const methods: LiteServerMethods = {
      getMasterchainInfo: () => ({ last: MAINNET_HEAD, stateRootHash, init: { workchain: -1, rootHash: zero.rootHash, fileHash: zero.fileHash } }),
      getBlockHeader: ({ id, mode }) => {
        if (!isHead(id)) throw notInDb(`block (${id.workchain},${id.seqno})`);
        return { id, mode, headerProof: tamper('getBlockHeader', headerProof) };
      },
      lookupBlock: ({ mode, id }) => {
        if (!(mode & 1) || id.workchain !== -1 || id.seqno !== MAINNET_HEAD.seqno) throw notInDb(`block (${id.workchain},${id.seqno})`);
        return { id: MAINNET_HEAD, mode: 0, headerProof: tamper('lookupBlock', headerProof) };
      },
      getShardInfo: ({ id, workchain }) => {
        if (!isHead(id) || workchain !== 0) throw notInDb(`the shard of workchain ${workchain} at (${id.workchain},${id.seqno})`);
        return { id, shardblk: MAINNET_SHARD_BLOCK, shardProof: tamper('getShardInfo', shardProof), shardDescr: mainnetFixture('proofs/shard_descr_wc0.boc') };
      },
      getAccountState: ({ id, account }) => {
        if (!isHead(id)) throw notInDb(`the state at (${id.workchain},${id.seqno})`);
        if (account.workchain !== MAINNET_ACCOUNT.workchain || !account.id.equals(MAINNET_ACCOUNT.id)) {
          throw new LiteServerError(LiteErrorCode.error, 'the mainnet fixtures prove the state of EQBvW8… only');
        }
        return {
          id, shardblk: MAINNET_SHARD_BLOCK, shardProof: tamper('getAccountState', shardProof),
          proof: tamper('getAccountState', mainnetFixture('proofs/account_proof_EQBvW8.boc')), state: mainnetFixture('proofs/account_state_EQBvW8.boc'),
        };
      },
      getBlock: ({ id }) => {
        const found = MAINNET_FULL_BLOCKS.find((b) => sameId(b.id, id));
        if (!found) throw notInDb(`block (${id.workchain},${id.seqno})`);
        return { id, data: options.tamper?.('getBlock') ? forgedBlockBoc(Cell.fromBoc(found.data)[0]!) : found.data };
      },
    };
    for (const [name, fn] of Object.entries(methods)) {
      (methods as Record<string, unknown>)[name] = (req: unknown) => {
        this.calls.push(name as LiteMethodName);
        return (fn as (r: unknown) => unknown)(req);
      };
    }
    this.methods = methods;
  }

  waitMasterchainSeqno(seqno: number, timeoutMs: number): Promise<void> {
    return this.head.wait(seqno, timeoutMs);
  }
}

function sameId(a: BlockIdExt, b: BlockIdExt): boolean {
  return a.workchain === b.workchain && BigInt.asUintN(64, a.shard) === BigInt.asUintN(64, b.shard) && a.seqno === b.seqno && a.rootHash.equals(b.rootHash);
}
