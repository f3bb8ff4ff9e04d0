// TEP-74 bodies built with @ton/core, decoded field by field.
import { Address, beginCell } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { decodeBody } from './body.js';
import { OP } from './opcode.js';

const ALICE = new Address(0, Buffer.alloc(32, 0xa1));
const BOB = new Address(-1, Buffer.alloc(32, 0xb0));
const raw = (a: Address) => a.toRawString();

describe('jetton bodies', () => {
  it('transfer 0x0f8a7ea5 with every field, custom payload and ref forward payload', () => {
    const body = beginCell()
      .storeUint(OP.jettonTransfer, 32)
      .storeUint(0x1122334455667788n, 64)
      .storeCoins(2n ** 100n)
      .storeAddress(BOB)
      .storeAddress(ALICE)
      .storeMaybeRef(beginCell().storeUint(1, 8))
      .storeCoins(50_000_000n)
      .storeBit(true)
      .storeRef(beginCell().storeUint(0, 32).storeStringTail('for order 17'))
      .endCell();
    expect(decodeBody(body)).toMatchObject({
      kind: 'jetton_transfer',
      queryId: 0x1122334455667788n,
      amount: 2n ** 100n,
      destination: raw(BOB),
      responseDestination: raw(ALICE),
      forwardTonAmount: 50_000_000n,
      forwardPayload: { layout: 'ref', comment: 'for order 17' },
    });
  });

  it('transfer with addr_none response destination', () => {
    const body = beginCell()
      .storeUint(OP.jettonTransfer, 32)
      .storeUint(0, 64)
      .storeCoins(5n)
      .storeAddress(BOB)
      .storeAddress(null)
      .storeBit(false)
      .storeCoins(0n)
      .storeBit(false)
      .endCell();
    expect(decodeBody(body)).toMatchObject({ kind: 'jetton_transfer', responseDestination: null, forwardPayload: { layout: 'none' } });
  });

  it('internal_transfer 0x178d4519', () => {
    const body = beginCell()
      .storeUint(OP.jettonInternalTransfer, 32)
      .storeUint(9, 64)
      .storeCoins(1_500_000n)
      .storeAddress(ALICE)
      .storeAddress(ALICE)
      .storeCoins(1n)
      .storeBit(false)
      .storeUint(0, 32)
      .storeStringTail('hi')
      .endCell();
    expect(decodeBody(body)).toMatchObject({
      kind: 'jetton_internal_transfer',
      queryId: 9n,
      amount: 1_500_000n,
      from: raw(ALICE),
      responseAddress: raw(ALICE),
      forwardTonAmount: 1n,
      forwardPayload: { layout: 'inline', comment: 'hi' },
    });
  });

  it('transfer_notification 0x7362d09c', () => {
    const body = beginCell()
      .storeUint(OP.jettonNotify, 32)
      .storeUint(3, 64)
      .storeCoins(42n)
      .storeAddress(ALICE)
      .storeBit(true)
      .storeRef(beginCell().storeUint(0, 32).storeStringTail('deposit'))
      .endCell();
    expect(decodeBody(body)).toEqual({
      kind: 'jetton_notify',
      queryId: 3n,
      amount: 42n,
      sender: raw(ALICE),
      forwardPayload: expect.objectContaining({ layout: 'ref', comment: 'deposit' }),
    });
  });

  it('excesses 0xd53276db and burn 0x595f07bc', () => {
    expect(decodeBody(beginCell().storeUint(OP.excesses, 32).storeUint(77, 64).endCell())).toEqual({ kind: 'excess', queryId: 77n });
    const burn = beginCell().storeUint(OP.jettonBurn, 32).storeUint(1, 64).storeCoins(10n).storeAddress(ALICE).storeBit(false).endCell();
    expect(decodeBody(burn)).toEqual({ kind: 'jetton_burn', queryId: 1n, amount: 10n, responseDestination: raw(ALICE) });
  });

  it('a truncated body is unknown, naming the field, and never throws', () => {
    const cut = beginCell().storeUint(OP.jettonTransfer, 32).storeUint(1, 64).storeCoins(5n).storeUint(2, 2).endCell();
    const decoded = decodeBody(cut);
    expect(decoded).toEqual({
      kind: 'unknown',
      reason: expect.stringMatching(/^jetton transfer \(0x0f8a7ea5\): cannot read destination: needs/),
    });
    const noQuery = decodeBody(beginCell().storeUint(OP.excesses, 32).storeUint(1, 10).endCell());
    expect(noQuery).toMatchObject({ kind: 'unknown', reason: expect.stringMatching(/excesses.*query_id/) });
  });
});
