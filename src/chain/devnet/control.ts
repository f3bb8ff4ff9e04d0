// Driving the devnet as a user would: wallets and balances, TON and jetton transfers, paying a
// ton:// link, making a block now, and scenarios that produce every classification on demand.
// One module API used by the HTTP routes (http.ts), the CLI (through HTTP) and tests.
import { Address, Cell, comment, internal, toNano } from '@ton/core';
import { accountToAddress, toFriendly } from '../address.js';
import type { BlockHeader } from '../model.js';
import { badRequest } from '../../errors.js';
import type { DevnetChain } from './chain.js';
import type { DevnetDirectory } from './directory.js';
import {
  amountInput,
  bocInput,
  destinationInput,
  type Destination,
  jettonBalanceOf,
  jettonInput,
  jettonWalletOf,
  textInput,
  walletInput,
} from './inputs.js';
import { jettonTransferBody, type PayloadLayout } from './jettons.js';
import { InvalidLinkError, parseTransferLink } from './links.js';
import * as scenarios from './scenarios.js';
import { DEFAULT_FORWARD_TON, sendFromWallet, type MessageSent } from './sender.js';

export { DEFAULT_FORWARD_TON, type MessageSent } from './sender.js';
import { MAX_MESSAGES, type DevnetWallet } from './wallets.js';

/** TON attached to a jetton transfer for the jetton wallets' fees (the excess comes back). */
export const JETTON_TRANSFER_GAS = toNano('0.05');
/** What a sender must keep on top of the amount for its own fees. */
const FEE_RESERVE = toNano('0.05');
export interface SendRequest {
  from: string;
  to: string;
  amount: string | bigint;
  comment?: string;
  payload_boc?: string;
  bounce?: boolean;
  /** Further transfers in the same external message: a payout batch, as an exchange sends. */
  batch?: Array<{ to: string; amount: string | bigint; comment?: string }>;
}

export interface JettonSendRequest {
  from: string;
  jetton: string;
  to: string;
  amount: string | bigint;
  comment?: string;
  /** Put the comment in a ref (`forward_payload` bit 1) instead of inline. */
  comment_in_ref?: boolean;
  payload_boc?: string;
  forward_ton_amount?: string | bigint;
}

export interface PayRequest {
  from: string;
  link: string;
  /** Pay even after the link's `exp` (a wallet app refuses; tests of late payments need it). */
  ignore_expiry?: boolean;
}

export interface WalletView {
  name: string;
  version: string;
  address: string;
  /** Non-bounceable user-friendly form, as wallet apps show wallets. */
  friendly: string;
  status: string;
  balance: string;
  jettons: Array<{ key: string; symbol: string; decimals: number; master: string; wallet: string; balance: string }>;
}

export interface ValidatorsView {
  set: number;
  catchain_seqno: number;
  /** gen_validator_list_hash_short of the blocks this set signs. */
  set_hash: number;
  /** ed25519 public keys (hex) in signing order. */
  public_keys: string[];
  /** A rotation was asked for and waits for the next block. */
  rotation_pending: boolean;
}

export class DevnetControl {
  private queryCounter = 0n;

  constructor(
    readonly chain: DevnetChain,
    readonly directory: DevnetDirectory,
  ) {}

  /** A query id unique within this process. */
  nextQueryId(): bigint {
    this.queryCounter += 1n;
    return BigInt(Date.now()) * 1000n + (this.queryCounter % 1000n);
  }

  async wallets(): Promise<WalletView[]> {
    const views: WalletView[] = [];
    for (const wallet of this.directory.wallets) {
      const state = await this.chain.getAccountState(wallet.id);
      const jettons = [];
      for (const jetton of this.directory.jettons) {
        const jettonWallet = await jettonWalletOf(this.chain, jetton.masterId, wallet.address, 'jetton');
        jettons.push({
          key: jetton.key,
          symbol: jetton.symbol,
          decimals: jetton.decimals,
          master: jetton.masterId,
          wallet: `${jettonWallet.workChain}:${jettonWallet.hash.toString('hex')}`,
          balance: (await jettonBalanceOf(this.chain, jettonWallet)).toString(),
        });
      }
      views.push({
        name: wallet.name,
        version: wallet.version,
        address: wallet.id,
        friendly: toFriendly(wallet.id, { bounceable: false }),
        status: state.status,
        balance: state.balance.toString(),
        jettons,
      });
    }
    return views;
  }

  async send(req: SendRequest): Promise<MessageSent> {
    const wallet = walletInput(this.directory, req.from, 'from');
    const to = destinationInput(this.directory, req.to, 'to');
    const amount = amountInput(req.amount, 'amount');
    if (req.comment !== undefined && req.payload_boc !== undefined) {
      throw badRequest('give either comment or payload_boc, not both', 'payload_boc');
    }
    const body =
      req.payload_boc !== undefined
        ? bocInput(req.payload_boc, 'payload_boc')
        : req.comment !== undefined
          ? comment(textInput(req.comment, 'comment'))
          : undefined;
    if (req.bounce !== undefined && typeof req.bounce !== 'boolean') throw badRequest('bounce must be a boolean', 'bounce');
    // like wallet apps: the address form decides, else bounce only to deployed contracts
    const bounceTo = (t: Destination) => req.bounce ?? t.bounceable ?? this.chain.pendingAccount(t.id).status === 'active';
    const batch = (req.batch ?? []).map((t, i) => {
      const dest = destinationInput(this.directory, t.to, `batch[${i}].to`);
      const value = amountInput(t.amount, `batch[${i}].amount`);
      return { value, message: internal({ to: dest.address, value, bounce: bounceTo(dest), body: t.comment === undefined ? undefined : comment(textInput(t.comment, `batch[${i}].comment`)) }) };
    });
    if (batch.length + 1 > MAX_MESSAGES[wallet.version]) throw badRequest(`batch: a ${wallet.version} wallet sends at most ${MAX_MESSAGES[wallet.version]} messages at once`, 'batch');
    this.requireTon(wallet, batch.reduce((sum, t) => sum + t.value, amount));
    const hash = await sendFromWallet(this.chain, wallet, [internal({ to: to.address, value: amount, bounce: bounceTo(to), body }), ...batch.map((t) => t.message)]);
    return { message_hash: hash };
  }

  async jettonSend(req: JettonSendRequest): Promise<MessageSent> {
    const wallet = walletInput(this.directory, req.from, 'from');
    const { master } = jettonInput(this.directory, req.jetton, 'jetton');
    const to = destinationInput(this.directory, req.to, 'to');
    const amount = amountInput(req.amount, 'amount');
    if (req.comment !== undefined && req.payload_boc !== undefined) {
      throw badRequest('give either comment or payload_boc, not both', 'payload_boc');
    }
    if (req.comment_in_ref !== undefined && typeof req.comment_in_ref !== 'boolean') {
      throw badRequest('comment_in_ref must be a boolean', 'comment_in_ref');
    }
    const forwardTon =
      req.forward_ton_amount === undefined ? DEFAULT_FORWARD_TON : amountInput(req.forward_ton_amount, 'forward_ton_amount', { allowZero: true });
    const payload =
      req.payload_boc !== undefined
        ? bocInput(req.payload_boc, 'payload_boc')
        : req.comment !== undefined
          ? comment(textInput(req.comment, 'comment'))
          : null;
    const layout: PayloadLayout | undefined = req.comment_in_ref === undefined ? undefined : req.comment_in_ref ? 'ref' : 'inline';
    const jettonWallet = await jettonWalletOf(this.chain, master, wallet.address, 'jetton');
    const balance = await jettonBalanceOf(this.chain, jettonWallet);
    if (amount > balance) {
      throw badRequest(`amount: ${wallet.name} holds ${balance} units of this jetton, cannot send ${amount}`, 'amount');
    }
    return this.submitJettonTransfer(wallet, jettonWallet, { amount, to: to.address, payload, layout, forwardTon });
  }

  /** Sends a TEP-74 transfer from `wallet` through its jetton wallet, without balance checks. */
  async submitJettonTransfer(
    wallet: DevnetWallet,
    jettonWallet: Address,
    t: { amount: bigint; to: Address; payload: Cell | null; layout?: PayloadLayout; forwardTon: bigint },
  ): Promise<MessageSent> {
    this.requireTon(wallet, JETTON_TRANSFER_GAS + t.forwardTon);
    let body: Cell;
    try {
      body = jettonTransferBody({
        queryId: this.nextQueryId(),
        amount: t.amount,
        destination: t.to,
        responseDestination: wallet.address,
        forwardTonAmount: t.forwardTon,
        forwardPayload: t.payload,
        payloadLayout: t.layout,
      });
    } catch (err) {
      throw badRequest(`comment: ${err instanceof Error ? err.message : String(err)}`, 'comment');
    }
    const value = JETTON_TRANSFER_GAS + t.forwardTon;
    const hash = await sendFromWallet(this.chain, wallet, [internal({ to: jettonWallet, value, bounce: true, body })]);
    return { message_hash: hash };
  }

  /** Follows a ton://transfer link as a wallet app does: TON with `text`/`bin`, or a jetton transfer with `jetton`. */
  async pay(req: PayRequest): Promise<MessageSent> {
    const wallet = walletInput(this.directory, req.from, 'from');
    let link;
    try {
      link = parseTransferLink(req.link);
    } catch (err) {
      if (err instanceof InvalidLinkError) throw badRequest(`link: ${err.message}`, 'link');
      throw err;
    }
    if (link.expiresAt !== null && link.expiresAt < this.chain.now() && req.ignore_expiry !== true) {
      throw badRequest(`link: the link expired at ${link.expiresAt} (now ${this.chain.now()})`, 'link');
    }
    const payload = link.payload ?? (link.text !== null ? comment(link.text) : null);
    const to = accountToAddress(link.destination);
    if (link.jetton) {
      const jettonWallet = await jettonWalletOf(this.chain, link.jetton, wallet.address, 'link');
      const balance = await jettonBalanceOf(this.chain, jettonWallet);
      if (link.amount > balance) {
        throw badRequest(`link: ${wallet.name} holds ${balance} units of that jetton, the link asks ${link.amount}`, 'link');
      }
      return this.submitJettonTransfer(wallet, jettonWallet, { amount: link.amount, to, payload, forwardTon: DEFAULT_FORWARD_TON });
    }
    this.requireTon(wallet, link.amount, 'link');
    const hash = await sendFromWallet(this.chain, wallet, [
      internal({ to, value: link.amount, bounce: link.bounceable, body: payload ?? undefined }),
    ]);
    return { message_hash: hash };
  }

  produceBlock(): Promise<BlockHeader> {
    return this.chain.produceBlock();
  }

  /** The validators that sign the next masterchain block. */
  validators(): ValidatorsView {
    const v = this.chain.validatorSet();
    return { set: v.epoch.set, catchain_seqno: v.epoch.ccSeqno, set_hash: v.setHash, public_keys: v.publicKeys, rotation_pending: v.rotationPending };
  }

  /**
   * Rotates the validator set: the next masterchain block is a key block naming a new set (params 34, 28),
   * signed by the current set; the blocks after it are signed by the new one. A manual devnet makes that block
   * now and returns the new set; a timed one returns the current set with the rotation pending.
   */
  async rotateValidators(): Promise<ValidatorsView & { key_block: BlockHeader | null }> {
    this.chain.requestValidatorRotation();
    const keyBlock = this.chain.manual ? await this.chain.produceBlock() : null;
    return { ...this.validators(), key_block: keyBlock };
  }

  /**
   * Test mode: the next shard candidate that carries an external message is shown (confirmed), then loses to
   * another block for the same shard and seqno made without its first external message, which is forgotten.
   */
  loseNextCandidate(): { armed: true } {
    this.chain.loseNextCandidate();
    return { armed: true };
  }

  /** Refuses up front a transfer the wallet cannot pay for (it would accept the message and then fail silently). */
  requireTon(wallet: DevnetWallet, amount: bigint, field = 'amount'): void {
    const balance = this.chain.pendingAccount(wallet.id).balance;
    if (balance < amount + FEE_RESERVE) {
      throw badRequest(`${field}: ${wallet.name} has ${balance} nanoton, not enough to send ${amount} plus fees`, field);
    }
  }

  bounce(req: scenarios.BounceRequest): Promise<MessageSent & { to: string }> {
    return scenarios.bounce(this, req);
  }

  failedJettonTransfer(req: scenarios.FailedJettonRequest): Promise<MessageSent & { amount: string }> {
    return scenarios.failedJettonTransfer(this, req);
  }

  forgedInternalTransfer(req: scenarios.ForgedInternalTransferRequest): Promise<MessageSent & { target: string }> {
    return scenarios.forgedInternalTransfer(this, req);
  }

  forgedNotification(req: scenarios.ForgedNotificationRequest): Promise<MessageSent> {
    return scenarios.forgedNotification(this, req);
  }

  deploy(req: scenarios.DeployRequest): Promise<MessageSent & { address: string }> {
    return scenarios.deploy(this, req);
  }
}
