// A SyntheticChain with a real chain config (@ton/sandbox's) and a deployed v4 wallet, whose transactions the
// TVM executor makes: the chain an unrelated client (ton-lite-client) reads, runs get-methods on and sends
// messages to. `apply` plays a mempool: it runs an external message and puts its transaction in the next block.
import { Executor, defaultConfig } from '@ton/sandbox';
import { keyPairFromSeed, type KeyPair } from '@ton/crypto';
import { WalletContractV4 } from '@ton/ton';
import {
  Address, beginCell, Cell, loadShardAccount, storeMessage, storeShardAccount, type Message, type ShardAccount,
} from '@ton/core';
import { SyntheticChain } from '../../blocks/testing/synthetic.js';
import type { ShardAccountEntry } from '../../tlb/shard-state.js';

export const WALLET_DEPLOY_AMOUNT = 5_000_000_000n;

export interface WalletChain {
  chain: SyntheticChain;
  wallet: WalletContractV4;
  keys: KeyPair;
  /** Runs an inbound message on the wallet (from its current state) and queues its transaction; throws if refused. */
  apply(message: Message): Promise<void>;
}

const NONE: ShardAccount = { account: null, lastTransactionLt: 0n, lastTransactionHash: 0n };

export async function walletChain(): Promise<WalletChain> {
  const chain = new SyntheticChain({ config: Cell.fromBase64(defaultConfig) });
  const keys = keyPairFromSeed(Buffer.alloc(32, 7));
  const wallet = WalletContractV4.create({ workchain: 0, publicKey: keys.publicKey });
  const executor = await Executor.create();
  let shardAccount = beginCell().store(storeShardAccount(NONE)).endCell().toBoc().toString('base64');
  const utime = () => chain.masterchainBlock(chain.masterchainSeqno)?.info.genUtime ?? 1_700_000_000;
  // Above every lt made so far: the last masterchain block ends below the next block's start.
  const nextLt = () => (chain.masterchainBlock(chain.masterchainSeqno)?.info.endLt ?? 0n) + 1_000n;
  const apply = async (message: Message) => {
    const res = await executor.runTransaction({
      config: defaultConfig, libs: null, verbosity: 'short', shardAccount, message: beginCell().store(storeMessage(message)).endCell(),
      now: utime() + 1, lt: nextLt(), randomSeed: Buffer.alloc(32), ignoreChksig: false, debugEnabled: false,
    });
    if (!res.result.success) throw new Error(`the wallet refused the message: ${res.result.error}`);
    shardAccount = res.result.shardAccount;
    const root = Cell.fromBase64(shardAccount);
    const sa = loadShardAccount(root.beginParse());
    const entry: ShardAccountEntry = {
      address: BigInt(`0x${wallet.address.hash.toString('hex')}`),
      account: root.refs[0]!,
      lastTransHash: Buffer.from(sa.lastTransactionHash.toString(16).padStart(64, '0'), 'hex'),
      lastTransLt: sa.lastTransactionLt,
      splitDepth: 0,
      balance: { coins: sa.account?.storage.balance.coins ?? 0n },
    };
    chain.addTransaction(0, Cell.fromBase64(res.result.transaction), entry);
  };
  // Deployment: an internal transfer bringing the wallet's code and data.
  chain.nextMasterchainBlock();
  await apply({
    info: {
      type: 'internal', ihrDisabled: true, bounce: false, bounced: false, src: new Address(0, Buffer.alloc(32, 1)), dest: wallet.address,
      value: { coins: WALLET_DEPLOY_AMOUNT }, ihrFee: 0n, forwardFee: 0n, createdLt: nextLt() - 1n, createdAt: utime(),
    },
    init: wallet.init,
    body: beginCell().endCell(),
  });
  chain.nextMasterchainBlock();
  return { chain, wallet, keys, apply };
}
