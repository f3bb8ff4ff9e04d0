// Jettons of the devnet, on the reference jetton code shipped in @ton-community/assets-sdk, and
// the message bodies a wallet sends to move them (TEP-74 layouts).
import { createHash } from 'node:crypto';
import { Address, beginCell, Builder, Cell, Dictionary } from '@ton/core';
import { JettonMinter } from '@ton-community/assets-sdk/dist/jetton/JettonMinter.js';
import { storeJettonMintMessage } from '@ton-community/assets-sdk/dist/jetton/types/JettonMintMessage.js';

export const OP_JETTON_TRANSFER = 0x0f8a7ea5;
export const OP_INTERNAL_TRANSFER = 0x178d4519;
export const OP_TRANSFER_NOTIFICATION = 0x7362d09c;

export interface JettonDefinition {
  /** Key used by the control API (`jetton: "usdt"`). */
  key: string;
  symbol: string;
  name: string;
  decimals: number;
  description: string;
  /** Units minted at genesis to each holder. */
  mintPerHolder: bigint;
  /** Wallet names that receive the genesis mint. */
  holders: string[];
}

const USER_HOLDERS = ['alice', 'bob', 'carol', 'dave', 'merchant', 'exchange'];

export const JETTONS: readonly JettonDefinition[] = [
  {
    key: 'usdt',
    symbol: 'USDT',
    name: 'Tether USD (devnet)',
    decimals: 6,
    description: 'Devnet stand-in for USDT: 6 decimals, minted by the faucet.',
    mintPerHolder: 10_000n * 10n ** 6n,
    holders: USER_HOLDERS,
  },
  {
    key: 'gram',
    symbol: 'GRAM',
    name: 'Gram (devnet)',
    decimals: 9,
    description: 'A second devnet jetton with 9 decimals.',
    mintPerHolder: 1_000n * 10n ** 9n,
    holders: USER_HOLDERS,
  },
  {
    // a look-alike: same symbol and decimals as USDT, another master; only the allow-listed master counts
    key: 'fake-usdt',
    symbol: 'USDT',
    name: 'Tether USD',
    decimals: 6,
    description: 'A look-alike USDT from another master. Deposit code must reject it.',
    mintPerHolder: 1_000_000n * 10n ** 6n,
    holders: ['mallory'],
  },
];

/** TEP-64 on-chain content: 0x00 then a dictionary sha256(key) -> snake-encoded value. */
export function onchainContent(fields: Record<string, string>): Cell {
  const dict = Dictionary.empty(Dictionary.Keys.Buffer(32), Dictionary.Values.Cell());
  for (const [key, value] of Object.entries(fields)) {
    const keyHash = createHash('sha256').update(key).digest();
    dict.set(keyHash, beginCell().storeUint(0, 8).storeStringTail(value).endCell());
  }
  return beginCell().storeUint(0, 8).storeDict(dict).endCell();
}

export function jettonMinter(def: JettonDefinition, admin: Address): JettonMinter {
  const content = onchainContent({
    name: def.name,
    symbol: def.symbol,
    decimals: String(def.decimals),
    description: def.description,
  });
  return JettonMinter.createFromConfig({ admin, content });
}

/** The reference minter's mint message (sent by the admin): mints `amount` to `owner`'s jetton wallet. */
export function mintBody(args: { minter: Address; owner: Address; amount: bigint; queryId: bigint }): Cell {
  const forwardTonAmount = 10_000_000n; // 0.01 TON so the owner gets a transfer_notification
  return beginCell()
    .store(
      storeJettonMintMessage({
        queryId: args.queryId,
        amount: args.amount,
        from: args.minter,
        to: args.owner,
        responseAddress: args.owner,
        forwardPayload: null,
        forwardTonAmount,
        walletForwardValue: forwardTonAmount + 50_000_000n,
      }),
    )
    .endCell();
}

export type PayloadLayout = 'inline' | 'ref';

/**
 * Stores `forward_payload:(Either Cell ^Cell)`: inline when asked (or when it fits and no layout
 * is asked), otherwise in a ref. Throws when inline is asked and the payload does not fit.
 */
function storeForwardPayload(b: Builder, payload: Cell | null, layout: PayloadLayout | undefined): void {
  if (!payload) {
    b.storeBit(0);
    return;
  }
  const fits = b.availableBits >= 1 + payload.bits.length && b.availableRefs >= payload.refs.length;
  if (layout === 'inline' && !fits) throw new Error('the payload is too long to travel inline; use a ref');
  if (layout === 'ref' || !fits) {
    b.storeBit(1).storeRef(payload);
    return;
  }
  b.storeBit(0).storeSlice(payload.beginParse());
}

export interface JettonTransferArgs {
  queryId: bigint;
  amount: bigint;
  destination: Address;
  responseDestination: Address | null;
  forwardTonAmount: bigint;
  forwardPayload: Cell | null;
  payloadLayout?: PayloadLayout;
}

/** TEP-74 `transfer`, sent by the owner to its own jetton wallet. */
export function jettonTransferBody(args: JettonTransferArgs): Cell {
  const b = beginCell()
    .storeUint(OP_JETTON_TRANSFER, 32)
    .storeUint(args.queryId, 64)
    .storeCoins(args.amount)
    .storeAddress(args.destination)
    .storeAddress(args.responseDestination)
    .storeBit(0) // no custom payload
    .storeCoins(args.forwardTonAmount);
  storeForwardPayload(b, args.forwardPayload, args.payloadLayout);
  return b.endCell();
}

/** TEP-74 `internal_transfer` as a jetton wallet sends it to another (forged when anyone else sends it). */
export function internalTransferBody(args: {
  queryId: bigint;
  amount: bigint;
  from: Address;
  responseAddress: Address | null;
  forwardTonAmount: bigint;
  forwardPayload: Cell | null;
}): Cell {
  const b = beginCell()
    .storeUint(OP_INTERNAL_TRANSFER, 32)
    .storeUint(args.queryId, 64)
    .storeCoins(args.amount)
    .storeAddress(args.from)
    .storeAddress(args.responseAddress)
    .storeCoins(args.forwardTonAmount);
  storeForwardPayload(b, args.forwardPayload, undefined);
  return b.endCell();
}

/** TEP-74 `transfer_notification` as a jetton wallet sends it to its owner (forged when anyone else does). */
export function transferNotificationBody(args: {
  queryId: bigint;
  amount: bigint;
  sender: Address;
  forwardPayload: Cell | null;
  payloadLayout?: PayloadLayout;
}): Cell {
  const b = beginCell()
    .storeUint(OP_TRANSFER_NOTIFICATION, 32)
    .storeUint(args.queryId, 64)
    .storeCoins(args.amount)
    .storeAddress(args.sender);
  storeForwardPayload(b, args.forwardPayload, args.payloadLayout);
  return b.endCell();
}
