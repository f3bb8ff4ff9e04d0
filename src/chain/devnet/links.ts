// `ton://transfer/<address>?amount=…&text=…&bin=…&jetton=…&exp=…` payment links, read the way a
// wallet app reads them. Errors name what is wrong in the link.
import { Cell } from '@ton/core';
import { parseAddressInfo } from '../address.js';
import type { AccountId } from '../model.js';

export interface TransferLink {
  destination: AccountId;
  /** Bounce flag of the address form in the link (raw addresses count as bounceable). */
  bounceable: boolean;
  /** Nanotons, or jetton units when `jetton` is set. */
  amount: bigint;
  text: string | null;
  /** Body (TON) or forward payload (jetton) from `bin`. */
  payload: Cell | null;
  jetton: AccountId | null;
  /** Unix seconds after which the link must not be paid. */
  expiresAt: number | null;
}

export class InvalidLinkError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidLinkError';
  }
}

const PREFIX = 'ton://transfer/';

function decodeBase64Boc(value: string): Cell {
  // links carry url-safe or standard base64; a '+' may have become a space on the way
  const b64 = value.replace(/ /g, '+').replace(/-/g, '+').replace(/_/g, '/');
  const roots = Cell.fromBoc(Buffer.from(b64, 'base64'));
  if (roots.length !== 1) throw new Error(`expected one root cell, got ${roots.length}`);
  return roots[0]!;
}

export function parseTransferLink(link: string): TransferLink {
  if (typeof link !== 'string' || !link.toLowerCase().startsWith(PREFIX)) {
    throw new InvalidLinkError(`a payment link starts with ${PREFIX}`);
  }
  const rest = link.slice(PREFIX.length);
  const q = rest.indexOf('?');
  const params = new URLSearchParams(q < 0 ? '' : rest.slice(q + 1));
  let destination: AccountId;
  let bounceable: boolean;
  try {
    const info = parseAddressInfo(decodeURIComponent(q < 0 ? rest : rest.slice(0, q)));
    destination = info.account;
    bounceable = info.bounceable;
  } catch (err) {
    throw new InvalidLinkError(`the link's address is invalid: ${err instanceof Error ? err.message : String(err)}`);
  }
  const amountText = params.get('amount');
  if (amountText === null) throw new InvalidLinkError('the link has no amount');
  if (!/^[0-9]{1,30}$/.test(amountText) || BigInt(amountText) === 0n) {
    throw new InvalidLinkError(`the link's amount must be a positive integer in minimal units, got "${amountText}"`);
  }
  let payload: Cell | null = null;
  const bin = params.get('bin');
  if (bin !== null) {
    try {
      payload = decodeBase64Boc(bin);
    } catch (err) {
      throw new InvalidLinkError(`the link's bin is not a base64 BoC: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  let jetton: AccountId | null = null;
  const jettonText = params.get('jetton');
  if (jettonText !== null) {
    try {
      jetton = parseAddressInfo(jettonText).account;
    } catch (err) {
      throw new InvalidLinkError(`the link's jetton is not an address: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  let expiresAt: number | null = null;
  const exp = params.get('exp');
  if (exp !== null) {
    if (!/^[0-9]{1,12}$/.test(exp)) throw new InvalidLinkError(`the link's exp must be unix seconds, got "${exp}"`);
    expiresAt = Number(exp);
  }
  return {
    destination,
    bounceable,
    amount: BigInt(amountText),
    text: params.get('text'),
    payload,
    jetton,
    expiresAt,
  };
}
