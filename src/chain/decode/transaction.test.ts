// Real mainnet transactions cross-checked field by field against @ton/core's loadTransaction, and built
// transactions for each inbound classification of compat.md §7.
import { readFileSync } from 'node:fs';
import { Address, beginCell, Cell, Dictionary, loadTransaction, storeMessage, storeTransaction, type Message, type Transaction, type TransactionComputePhase, type TransactionDescriptionGeneric } from '@ton/core';
import { describe, expect, it } from 'vitest';
import type { MessageModel, TransactionModel } from '../model.js';
import { readTransactionCells } from './block.js';
import { decodeTransaction, type TransactionLocation } from './transaction.js';

const FIXTURES = new URL('../../../test/fixtures/mainnet/blocks/', import.meta.url);
const BLOCKS = ['tongo-block-5.boc', 'tongo-block-6.boc', 'tongo-block-7.boc', 'block_0_8000000000000000_34703989.boc'];
const WHERE: TransactionLocation = { block: { workchain: 0, shard: '8000000000000000', seqno: 1 }, mcSeqno: 2 };

function fixtureTransactions(): { file: string; cell: Cell; workchain: number }[] {
  return BLOCKS.flatMap((file) => {
    const root = Cell.fromBoc(readFileSync(new URL(file, FIXTURES)))[0]!;
    const workchain = file === 'tongo-block-5.boc' ? -1 : 0;
    return readTransactionCells(root.refs[3]!.refs[2]!).map((cell) => ({ file, cell, workchain }));
  });
}

const STATUS = { uninitialized: 'uninit', frozen: 'frozen', active: 'active', 'non-existing': 'nonexist' } as const;
const raw = (a: unknown) => (a instanceof Address ? a.toRawString() : null);

function expectSameMessage(ours: MessageModel, theirs: Message): void {
  const info = theirs.info;
  expect(ours.type).toBe(info.type);
  expect(ours.source).toBe(info.type === 'external-in' ? null : raw(info.src));
  expect(ours.destination).toBe(info.type === 'external-out' ? null : raw(info.dest));
  if (info.type === 'internal') {
    expect(ours).toMatchObject({ value: info.value.coins, fwdFee: info.forwardFee, bounce: info.bounce, bounced: info.bounced, createdLt: info.createdLt, createdAt: info.createdAt });
  }
  expect(ours.hasInit).toBe(!!theirs.init);
  expect(Cell.fromBase64(ours.bodyBoc).hash().equals(theirs.body.hash())).toBe(true);
  expect(ours.opcode).toBe(theirs.body.bits.length >= 32 ? theirs.body.beginParse().preloadUint(32) : null);
}

function expectSameCompute(ours: TransactionModel['computePhase'], theirs: TransactionComputePhase): void {
  if (theirs.type === 'skipped') expect(ours).toEqual({ type: 'skipped', reason: theirs.reason });
  else expect(ours).toEqual({ type: 'vm', success: theirs.success, exitCode: theirs.exitCode, gasUsed: theirs.gasUsed, vmSteps: theirs.vmSteps });
}

describe('decodeTransaction on mainnet fixtures', () => {
  const all = fixtureTransactions();

  it('has transactions from every non-empty fixture block', () => {
    expect(new Set(all.map((t) => t.file))).toEqual(new Set(BLOCKS));
    expect(all.length).toBeGreaterThanOrEqual(30);
  });

  it('matches @ton/core loadTransaction on every field', () => {
    for (const { cell, workchain } of all) {
      const core = loadTransaction(cell.beginParse());
      const tx = decodeTransaction(cell, { ...WHERE, block: { ...WHERE.block, workchain } });
      expect(tx.account).toBe(`${workchain}:${core.address.toString(16).padStart(64, '0')}`);
      expect(tx.hash).toBe(cell.hash().toString('hex'));
      expect(tx).toMatchObject({
        lt: core.lt,
        prevLt: core.prevTransactionLt,
        prevHash: core.prevTransactionHash.toString(16).padStart(64, '0'),
        utime: core.now,
        origStatus: STATUS[core.oldStatus],
        endStatus: STATUS[core.endStatus],
        totalFees: core.totalFees.coins,
        block: { workchain, shard: '8000000000000000', seqno: 1 },
        mcSeqno: 2,
      });
      expect(!!tx.inMessage).toBe(!!core.inMessage);
      if (core.inMessage) expectSameMessage(tx.inMessage!, core.inMessage);
      const keys = core.outMessages.keys().sort((a, b) => a - b);
      expect(tx.outMessages.length).toBe(core.outMessagesCount);
      keys.forEach((k, i) => expectSameMessage(tx.outMessages[i]!, core.outMessages.get(k)!));
      const d = core.description;
      if (d.type === 'generic' || d.type === 'tick-tock') {
        expect(tx.kind).toBe(d.type);
        expectSameCompute(tx.computePhase, d.computePhase);
        expect(tx.aborted).toBe(d.aborted);
        expect(tx.destroyed).toBe(d.destroyed);
        if (d.actionPhase) {
          const a = d.actionPhase;
          expect(tx.actionPhase).toEqual({ success: a.success, valid: a.valid, noFunds: a.noFunds, resultCode: a.resultCode, totalActions: a.totalActions, messagesCreated: a.messagesCreated });
        } else expect(tx.actionPhase).toBeNull();
      }
      if (d.type === 'generic') {
        expect(tx.creditAmount).toBe(d.creditPhase ? d.creditPhase.credit.coins : null);
        const b = d.bouncePhase;
        expect(tx.bouncePhase).toEqual(
          !b ? null : b.type === 'ok' ? { type: 'ok', forwardFees: b.forwardFees } : b.type === 'no-funds' ? { type: 'no-funds', requiredForwardFees: b.requiredForwardFees } : { type: 'negative-funds' },
        );
      }
    }
  });

  it('serialises its own BoC when none is given, and reuses the one given', () => {
    const { cell } = all[0]!;
    const tx = decodeTransaction(cell, WHERE);
    expect(Cell.fromBase64(tx.boc).hash().equals(cell.hash())).toBe(true);
    expect(decodeTransaction(cell, { ...WHERE, boc: 'given' }).boc).toBe('given');
  });

  it('rejects a cell that is not a transaction, naming the field', () => {
    expect(() => decodeTransaction(beginCell().storeUint(0b0110, 4).endCell(), WHERE)).toThrow(/transaction tag: expected tag 0111/);
    expect(() => decodeTransaction(beginCell().storeUint(0b0111, 4).storeUint(0, 100).endCell(), WHERE)).toThrow(/transaction header: needs/);
  });
});

// ---- built transactions for the inbound classification ----

const ACCOUNT = new Address(0, Buffer.alloc(32, 0x42));
const SENDER = new Address(0, Buffer.alloc(32, 0x24));

function inbound(bounce: boolean): Message {
  return {
    info: { type: 'internal', ihrDisabled: true, bounce, bounced: false, src: SENDER, dest: ACCOUNT, value: { coins: 1_000_000_000n }, ihrFee: 0n, forwardFee: 1n, createdLt: 10n, createdAt: 100 },
    body: beginCell().storeUint(0, 32).storeStringTail('pay').endCell(),
  };
}

const vm = (success: boolean, exitCode: number): TransactionComputePhase => ({
  type: 'vm', success, messageStateUsed: false, accountActivated: false, gasFees: 1000n, gasUsed: 2000n, gasLimit: 0n, mode: 0, exitCode, vmSteps: 33, vmInitStateHash: 0n, vmFinalStateHash: 0n,
});

const action = (success: boolean, resultCode: number) => ({
  success, valid: true, noFunds: !success, statusChange: 'unchanged' as const, resultCode, totalActions: 1, specActions: 0, skippedActions: 0, messagesCreated: success ? 1 : 0, actionListHash: 0n, totalMessageSize: { cells: 1n, bits: 100n },
});

function build(opts: { inMessage?: Message; oldStatus?: Transaction['oldStatus']; description: Partial<TransactionDescriptionGeneric>; outMessages?: Message[] }): Cell {
  const out = Dictionary.empty(Dictionary.Keys.Uint(15), {
    serialize: (m: Message, b) => void b.storeRef(beginCell().store(storeMessage(m))),
    parse: () => { throw new Error('unused'); },
  });
  (opts.outMessages ?? []).forEach((m, i) => out.set(i, m));
  const tx = {
    address: BigInt(`0x${ACCOUNT.hash.toString('hex')}`), lt: 20n, prevTransactionHash: 5n, prevTransactionLt: 15n, now: 200, outMessagesCount: out.size,
    oldStatus: opts.oldStatus ?? 'active', endStatus: 'active', inMessage: opts.inMessage, outMessages: out, totalFees: { coins: 12345n },
    stateUpdate: { oldHash: Buffer.alloc(32), newHash: Buffer.alloc(32) },
    description: { type: 'generic', creditFirst: !opts.inMessage || !(opts.inMessage.info.type === 'internal' && opts.inMessage.info.bounce), computePhase: vm(true, 0), aborted: false, destroyed: false, ...opts.description } as TransactionDescriptionGeneric,
  } as unknown as Transaction;
  return beginCell().store(storeTransaction(tx)).endCell();
}

function bounceBack(): Message {
  return {
    info: { type: 'internal', ihrDisabled: true, bounce: false, bounced: true, src: ACCOUNT, dest: SENDER, value: { coins: 990_000_000n }, ihrFee: 0n, forwardFee: 1n, createdLt: 21n, createdAt: 200 },
    body: beginCell().storeUint(0xffffffff, 32).storeUint(0, 32).endCell(),
  };
}

describe('inbound classification', () => {
  const classify = (cell: Cell) => decodeTransaction(cell, WHERE);

  it('credited: compute and action succeeded', () => {
    const tx = classify(build({ inMessage: inbound(true), description: { creditPhase: { credit: { coins: 1_000_000_000n } }, actionPhase: action(true, 0) } }));
    expect(tx).toMatchObject({ inbound: 'credited', creditAmount: 1_000_000_000n, kind: 'generic', aborted: false });
    expect(tx.inMessage?.decoded).toEqual({ kind: 'text_comment', text: 'pay' });
  });

  it('bounced: a bounce phase that produced the bounce message', () => {
    const tx = classify(build({
      inMessage: inbound(true),
      description: { computePhase: vm(false, 9), aborted: true, bouncePhase: { type: 'ok', messageSize: { cells: 1n, bits: 10n }, messageFees: 5n, forwardFees: 7n } },
      outMessages: [bounceBack()],
    }));
    expect(tx).toMatchObject({ inbound: 'bounced', aborted: true, bouncePhase: { type: 'ok', forwardFees: 7n }, computePhase: { type: 'vm', success: false, exitCode: 9 } });
    expect(tx.outMessages[0]).toMatchObject({ bounced: true, decoded: { kind: 'bounced', originalOpcode: 0 } });
  });

  it('failed: compute failed on a non-bounceable message (nothing returned)', () => {
    expect(classify(build({ inMessage: inbound(false), description: { computePhase: vm(false, 33), aborted: true } })).inbound).toBe('failed');
  });

  it('failed: action phase failed without a bounce', () => {
    const tx = classify(build({ inMessage: inbound(false), description: { actionPhase: action(false, 37), aborted: true } }));
    expect(tx).toMatchObject({ inbound: 'failed', actionPhase: { success: false, resultCode: 37, noFunds: true } });
  });

  it('failed: bounceable but the bounce itself could not be paid', () => {
    const tx = classify(build({
      inMessage: inbound(true),
      description: { computePhase: vm(false, 5), aborted: true, bouncePhase: { type: 'no-funds', messageSize: { cells: 1n, bits: 1n }, requiredForwardFees: 99n } },
    }));
    expect(tx).toMatchObject({ inbound: 'failed', bouncePhase: { type: 'no-funds', requiredForwardFees: 99n } });
  });

  it('credited: non-bounceable transfer to an uninitialised account (compute skipped no-state)', () => {
    const tx = classify(build({ inMessage: inbound(false), oldStatus: 'uninitialized', description: { computePhase: { type: 'skipped', reason: 'no-state' }, aborted: true } }));
    expect(tx).toMatchObject({ inbound: 'credited', aborted: true, computePhase: { type: 'skipped', reason: 'no-state' }, origStatus: 'uninit' });
  });

  it('bounceable transfer to an uninitialised account bounces', () => {
    const tx = classify(build({
      inMessage: inbound(true), oldStatus: 'uninitialized',
      description: { computePhase: { type: 'skipped', reason: 'no-state' }, aborted: true, bouncePhase: { type: 'ok', messageSize: { cells: 1n, bits: 1n }, messageFees: 1n, forwardFees: 1n } },
      outMessages: [bounceBack()],
    }));
    expect(tx.inbound).toBe('bounced');
  });

  it('credited: compute skipped for no-gas on an active account (a 1-nanoton notification keeps its value)', () => {
    expect(classify(build({ inMessage: inbound(false), description: { computePhase: { type: 'skipped', reason: 'no-gas' }, aborted: true } })).inbound).toBe('credited');
  });

  it('failed: compute skipped for a bad state init', () => {
    expect(classify(build({ inMessage: inbound(false), description: { computePhase: { type: 'skipped', reason: 'bad-state' }, aborted: true } })).inbound).toBe('failed');
  });

  it('none: external message or no message', () => {
    const ext: Message = { info: { type: 'external-in', dest: ACCOUNT, importFee: 0n }, body: beginCell().storeUint(1, 32).endCell() };
    expect(classify(build({ inMessage: ext, description: {} })).inbound).toBe('none');
    expect(classify(build({ description: {} })).inbound).toBe('none');
  });
});
