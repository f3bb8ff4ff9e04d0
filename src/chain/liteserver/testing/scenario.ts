// A SyntheticChain driven for the liteserver tests and benchmarks: every 24 masterchain blocks the basechain
// splits in two, one half splits again, then both merge back; transfers land in varying shards, some
// masterchain blocks commit no shard block (gaps) and some commit two blocks of one shard.
import type { MasterchainStep } from '../../blocks/testing/synthetic.js';
import { SyntheticChain } from '../../blocks/testing/synthetic.js';

export interface SentTransfer {
  /** Raw address of the receiver. */
  account: string;
  amount: bigint;
  /** The masterchain block that commits its transaction. */
  mcSeqno: number;
}

export interface Scenario {
  chain: SyntheticChain;
  /** One step per masterchain block, seqno 1 first. */
  steps: MasterchainStep[];
  sent: SentTransfer[];
  splits: number;
  merges: number;
}

const CYCLE = 24;

/** Builds `mcBlocks` masterchain blocks; deterministic. */
export function driveScenario(mcBlocks: number, chain = new SyntheticChain()): Scenario {
  const steps: MasterchainStep[] = [];
  const sent: SentTransfer[] = [];
  const from = chain.addressIn('8000000000000000', 9_999);
  let amount = 1_000n;
  let splits = 0;
  let merges = 0;
  let account = 0;
  let mcSeqno = 1;
  const pay = (shard: string) => {
    const to = chain.addressIn(shard, account++ % 7); // accounts repeat: histories longer than one transaction
    amount += 1n;
    chain.transfer({ from, to, amount });
    sent.push({ account: to.toRawString(), amount, mcSeqno });
  };
  for (let i = 1; i <= mcBlocks; i++) {
    mcSeqno = i;
    const phase = i % CYCLE;
    const shards = chain.shardIds;
    if (phase === 2 && shards.length === 1) (chain.split(shards[0]!), splits++);
    if (phase === 7 && shards.includes('c000000000000000')) (chain.split('c000000000000000'), splits++);
    if (phase === 13 && shards.includes('a000000000000000')) (chain.merge('a000000000000000'), merges++);
    if (phase === 18 && shards.includes('4000000000000000') && shards.includes('c000000000000000')) (chain.merge('4000000000000000'), merges++);
    if (i % 5 !== 0) {
      // 1–3 transfers to shards picked by position; every fifth block is a gap
      for (let k = 0; k <= i % 3; k++) pay(shards[(i + k) % shards.length]!);
    }
    if (i % 7 === 3 && i % 5 !== 0 && ![2, 7, 13, 18].includes(phase)) {
      const shard = shards[i % shards.length]!;
      chain.shardBlock(shard); // two blocks of one shard under one masterchain block
      pay(shard);
    }
    steps.push(chain.nextMasterchainBlock());
  }
  return { chain, steps, sent, splits, merges };
}
