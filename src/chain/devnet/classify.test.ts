// Every classification the consumers rely on, produced with real devnet transactions and read
// back decoded from the finalized blocks (inbound outcome and DecodedBody).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { beginCell } from '@ton/core';
import { jettonWalletAddress } from '../jetton.js';
import type { TransactionModel } from '../model.js';
import { openTestDevnet, runTrace, type TestDevnet } from '../../../test/support/devnet.js';

let devnet: TestDevnet;
const id = (name: string) => devnet.directory.wallets.find((w) => w.name === name)!.id;
const master = (key: string) => devnet.directory.jettons.find((j) => j.key === key)!.masterId;

beforeAll(async () => {
  devnet = await openTestDevnet();
});
afterAll(async () => {
  await devnet?.close();
});

function at(trace: TransactionModel[], account: string): TransactionModel[] {
  return trace.filter((t) => t.account === account);
}

const jettonWallet = (jetton: string, owner: string): Promise<string> => jettonWalletAddress(devnet.chain, master(jetton), id(owner));

describe('devnet classifications', () => {
  it('a TON transfer with a comment is credited with its text at the recipient', async () => {
    const { transactions } = await runTrace(devnet.chain, () =>
      devnet.control.send({ from: 'alice', to: 'bob', amount: '1500000000', comment: 'lunch money 🍜' }),
    );
    expect(transactions).toHaveLength(2);
    const [sender, receiver] = transactions;
    expect(sender!.account).toBe(id('alice'));
    expect(sender!.inMessage!.type).toBe('external-in');
    expect(sender!.inbound).toBe('none');
    expect(receiver!.account).toBe(id('bob'));
    expect(receiver!.inMessage!.source).toBe(id('alice'));
    expect(receiver!.inMessage!.value).toBe(1_500_000_000n);
    expect(receiver!.inMessage!.decoded).toEqual({ kind: 'text_comment', text: 'lunch money 🍜' });
    expect(receiver!.inbound).toBe('credited');
  });

  it.each([
    { layout: 'inline' as const, inRef: false },
    { layout: 'ref' as const, inRef: true },
  ])('a jetton transfer with its comment $layout is recovered at the recipient', async ({ layout, inRef }) => {
    const text = `invoice ${layout}`;
    const { transactions } = await runTrace(devnet.chain, () =>
      devnet.control.jettonSend({ from: 'alice', jetton: 'usdt', to: 'merchant', amount: '2500000', comment: text, comment_in_ref: inRef }),
    );
    const recipientJettonWallet = await jettonWallet('usdt', 'merchant');
    const receive = at(transactions, recipientJettonWallet)[0]!;
    expect(receive.inMessage!.decoded).toMatchObject({ kind: 'jetton_internal_transfer', amount: 2_500_000n, from: id('alice') });
    expect(receive.inbound).toBe('credited');
    const notify = at(transactions, id('merchant'))[0]!;
    expect(notify.inMessage!.source).toBe(recipientJettonWallet);
    expect(notify.inMessage!.decoded).toMatchObject({
      kind: 'jetton_notify',
      amount: 2_500_000n,
      sender: id('alice'),
      forwardPayload: { layout, comment: text },
    });
    expect(notify.inbound).toBe('credited');
  });

  it('the excess of a jetton transfer returns to the sender', async () => {
    const { transactions } = await runTrace(devnet.chain, () =>
      devnet.control.jettonSend({ from: 'bob', jetton: 'gram', to: 'carol', amount: '1000' }),
    );
    const excess = at(transactions, id('bob')).find((t) => t.inMessage!.type === 'internal')!;
    expect(excess.inMessage!.decoded.kind).toBe('excess');
    expect(excess.inbound).toBe('credited');
    expect(excess.inMessage!.value).toBeGreaterThan(0n);
  });

  it('a bounceable transfer to an address without code bounces back', async () => {
    const { transactions } = await runTrace(devnet.chain, async () => devnet.control.bounce({ from: 'carol', amount: '300000000' }));
    const [, nowhere, back] = transactions;
    expect(nowhere!.origStatus).toBe('nonexist');
    expect(nowhere!.inbound).toBe('bounced');
    expect(nowhere!.outMessages[0]!.bounced).toBe(true);
    expect(back!.account).toBe(id('carol'));
    expect(back!.inMessage!.bounced).toBe(true);
    expect(back!.inMessage!.decoded).toEqual({ kind: 'bounced', originalOpcode: 0 });
    expect(back!.inMessage!.value).toBeLessThan(300_000_000n);
    expect(back!.inMessage!.value).toBeGreaterThan(290_000_000n);
  });

  it('a jetton transfer of more than the balance fails at the sender jetton wallet and moves nothing', async () => {
    const before = await devnet.control.wallets();
    const { transactions } = await runTrace(devnet.chain, async () =>
      devnet.control.failedJettonTransfer({ from: 'dave', jetton: 'gram', to: 'alice' }),
    );
    const senderJettonWallet = await jettonWallet('gram', 'dave');
    const failed = at(transactions, senderJettonWallet)[0]!;
    expect(failed.inMessage!.decoded.kind).toBe('jetton_transfer');
    expect(failed.computePhase).toMatchObject({ type: 'vm', success: false });
    expect(failed.inbound).toBe('bounced');
    expect(at(transactions, await jettonWallet('gram', 'alice'))).toHaveLength(0);
    const after = await devnet.control.wallets();
    const gram = (ws: typeof before, name: string) => ws.find((w) => w.name === name)!.jettons.find((j) => j.key === 'gram')!.balance;
    expect(gram(after, 'dave')).toBe(gram(before, 'dave'));
    expect(gram(after, 'alice')).toBe(gram(before, 'alice'));
  });

  it("a forged internal_transfer sent straight to someone's jetton wallet is refused there", async () => {
    const { transactions } = await runTrace(devnet.chain, async () =>
      devnet.control.forgedInternalTransfer({ from: 'mallory', jetton: 'usdt', to: 'exchange', amount: '5000000', comment: 'free money' }),
    );
    const target = await jettonWallet('usdt', 'exchange');
    const refused = at(transactions, target)[0]!;
    expect(refused.inMessage!.source).toBe(id('mallory'));
    expect(refused.inMessage!.decoded).toMatchObject({ kind: 'jetton_internal_transfer', amount: 5_000_000n });
    expect(refused.computePhase).toMatchObject({ type: 'vm', success: false });
    expect(refused.inbound).not.toBe('credited');
    // the forgery never reached the owner
    expect(at(transactions, id('exchange'))).toHaveLength(0);
  });

  it('a forged transfer_notification from a plain wallet looks like a notification but comes from no jetton wallet', async () => {
    const { transactions } = await runTrace(devnet.chain, async () =>
      devnet.control.forgedNotification({ from: 'mallory', to: 'exchange', amount: '7000000', comment: 'deposit 42', sender: 'alice' }),
    );
    const fake = at(transactions, id('exchange'))[0]!;
    expect(fake.inMessage!.source).toBe(id('mallory'));
    expect(fake.inMessage!.decoded).toMatchObject({
      kind: 'jetton_notify',
      amount: 7_000_000n,
      sender: id('alice'),
      forwardPayload: { comment: 'deposit 42' },
    });
  });

  it('a look-alike USDT moves on its own master, not the real one', async () => {
    const { transactions } = await runTrace(devnet.chain, () =>
      devnet.control.jettonSend({ from: 'mallory', jetton: 'fake-usdt', to: 'merchant', amount: '100000000', comment: 'usdt payment' }),
    );
    const fakeReceiver = await jettonWallet('fake-usdt', 'merchant');
    expect(fakeReceiver).not.toBe(await jettonWallet('usdt', 'merchant'));
    expect(at(transactions, fakeReceiver)[0]!.inbound).toBe('credited');
    expect(master('fake-usdt')).not.toBe(master('usdt'));
  });

  it('a contract deploy turns a new address active through a message with StateInit', async () => {
    let address = '';
    const { transactions } = await runTrace(devnet.chain, async () => {
      const res = await devnet.control.deploy({ from: 'dave' });
      address = res.address;
      return res;
    });
    const deployed = at(transactions, address)[0]!;
    expect(deployed.inMessage!.hasInit).toBe(true);
    expect(deployed.origStatus).toBe('nonexist');
    expect(deployed.endStatus).toBe('active');
    expect(deployed.inbound).toBe('credited');
    expect((await devnet.chain.getAccountState(address)).status).toBe('active');
  });

  it('paying a ton:// link sends the bin payload as the body, or the text as a comment', async () => {
    const invoiceId = Buffer.from('0f1e2d3c4b5a69788796a5b4c3d2e1f0', 'hex');
    const payload = beginCell().storeUint(0x7aa23eb5, 32).storeBuffer(invoiceId).storeUint(0, 8).endCell();
    const bin = payload.toBoc().toString('base64url');
    const merchant = id('merchant');
    const paid = await runTrace(devnet.chain, () =>
      devnet.control.pay({ from: 'carol', link: `ton://transfer/${merchant}?amount=2000000000&bin=${bin}&exp=${devnet.chain.now() + 600}` }),
    );
    const credit = at(paid.transactions, merchant)[0]!;
    expect(credit.inMessage!.value).toBe(2_000_000_000n);
    expect(credit.inMessage!.decoded).toMatchObject({ kind: 'invoice_payload', invoiceId: '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0' });

    const byText = await runTrace(devnet.chain, () =>
      devnet.control.pay({ from: 'carol', link: `ton://transfer/${merchant}?amount=1000000000&text=order%2017` }),
    );
    expect(at(byText.transactions, merchant)[0]!.inMessage!.decoded).toEqual({ kind: 'text_comment', text: 'order 17' });
  });

  it('paying a ton:// link with jetton= sends a jetton transfer with the payload forwarded', async () => {
    const merchant = id('merchant');
    const { transactions } = await runTrace(devnet.chain, () =>
      devnet.control.pay({ from: 'bob', link: `ton://transfer/${merchant}?amount=3000000&jetton=${master('usdt')}&text=usdt%20order` }),
    );
    const notify = at(transactions, merchant)[0]!;
    expect(notify.inMessage!.decoded).toMatchObject({ kind: 'jetton_notify', amount: 3_000_000n, sender: id('bob'), forwardPayload: { comment: 'usdt order' } });
    const receive = at(transactions, await jettonWallet('usdt', 'merchant'))[0]!;
    expect(receive.inMessage!.decoded).toMatchObject({ kind: 'jetton_internal_transfer', amount: 3_000_000n });
  });
});
