// Builders of chain-model values for tests of pure logic (trace linking, event ordering).
// Chain behaviour itself is tested against the devnet and mainnet fixtures, not with these.
import { createHash } from 'node:crypto';
import type { BlockHeader, MessageModel, TransactionModel } from '../../src/chain/model.js';

export const hashOf = (label: string): string => createHash('sha256').update(label).digest('hex');
export const account = (n: number, wc = 0): string => `${wc}:${n.toString(16).padStart(64, '0')}`;

export function message(hash: string, type: MessageModel['type'], source: string | null, destination: string | null): MessageModel {
  return {
    hash,
    type,
    source,
    destination,
    value: type === 'internal' ? 1_000_000n : 0n,
    fwdFee: 0n,
    bounce: false,
    bounced: false,
    createdLt: 0n,
    createdAt: 0,
    opcode: null,
    bodyBoc: '',
    hasInit: false,
    decoded: { kind: 'empty' },
  };
}

export function transaction(opts: { account: string; lt: bigint; hash?: string; inMsg?: MessageModel | null; out?: MessageModel[]; mcSeqno?: number }): TransactionModel {
  return {
    account: opts.account,
    lt: opts.lt,
    hash: opts.hash ?? hashOf(`${opts.account}:${opts.lt}`),
    utime: 1_700_000_000,
    prevLt: 0n,
    prevHash: '0'.repeat(64),
    origStatus: 'active',
    endStatus: 'active',
    kind: 'generic',
    inMessage: opts.inMsg ?? null,
    outMessages: opts.out ?? [],
    computePhase: { type: 'vm', success: true, exitCode: 0, gasUsed: 0n, vmSteps: 0 },
    actionPhase: null,
    bouncePhase: null,
    creditAmount: null,
    totalFees: 0n,
    aborted: false,
    destroyed: false,
    inbound: 'none',
    block: { workchain: 0, shard: '8000000000000000', seqno: opts.mcSeqno ?? 1 },
    mcSeqno: opts.mcSeqno ?? 1,
    boc: '',
  };
}

export function blockHeader(seqno: number, workchain = -1): BlockHeader {
  return {
    workchain,
    shard: '8000000000000000',
    seqno,
    rootHash: hashOf(`root:${workchain}:${seqno}`),
    fileHash: hashOf(`file:${workchain}:${seqno}`),
    genUtime: 1_700_000_000 + seqno,
    startLt: BigInt(seqno) * 1_000_000n,
    endLt: BigInt(seqno) * 1_000_000n + 999n,
    mcSeqno: seqno,
  };
}
