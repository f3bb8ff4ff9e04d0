// Confirmed account_state_change through the real service on the devnet (confirmation lag 2 s: margin for a loaded machine): a TON
// transfer watched with min_finality "confirmed" yields, over SSE and over WebSocket, the sender's state
// `confirmed` (read from the non-final block's own state update, before the masterchain commits the block)
// and then `finalized`, both being the state the chain reports after that transaction once it is final
// (hash from the transaction's HASH_UPDATE, balance, code and data hashes, read independently).
import { Cell, internal, loadTransaction, toNano } from '@ton/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevnetChain } from '../../src/chain/devnet/chain.js';
import { signedTransfer, walletSeqno } from '../../src/chain/devnet/wallets.js';
import type { TestService } from '../support/service.js';
import { openSse, openWs } from '../support/v2-client.js';
import { startV2Devnet, until, v3 } from '../support/v2-devnet.js';


/** A notification as it arrived, with the devnet's finalized masterchain head at that moment. */
interface Arrival {
  data: Record<string, any>;
  finalizedHead: number;
}

describe('streaming v2 confirmed account states on the devnet', () => {
  let svc: TestService;
  let key: string;
  let chain: DevnetChain;

  beforeAll(async () => void ({ svc, key, chain } = await startV2Devnet(2000)), 120_000);
  afterAll(() => svc?.close());

  it('a TON transfer: the sender state confirmed before its block is final, then finalized, both the state that transaction left', async () => {
    const carol = chain.directory!.wallets.find((w) => w.name === 'carol')!;
    const dave = chain.directory!.wallets.find((w) => w.name === 'dave')!;
    const sub = { types: ['account_state_change'], addresses: [carol.id], min_finality: 'confirmed' };
    const sse: Arrival[] = [];
    const a = await openSse(`${svc.url}/streaming/v2/sse?api_key=${key}`, sub, {
      onEvent: (e) => e.event === 'event' && sse.push({ data: e.data, finalizedHead: chain.masterchainSeqno }),
    });
    const ws = await openWs(`${svc.url.replace('http', 'ws')}/streaming/v2/ws`, { authorization: `Bearer ${key}` });
    const wsSeen: Arrival[] = [];
    ws.ws.on('message', (m) => {
      const data = JSON.parse(m.toString()) as Record<string, any>;
      if (data.type === 'account_state_change') wsSeen.push({ data, finalizedHead: chain.masterchainSeqno });
    });
    expect(await ws.request({ operation: 'subscribe', ...sub, id: 's' })).toEqual({ id: 's', status: 'subscribed' });

    const seqno = walletSeqno(carol.version, chain.pendingAccount(carol.id).data);
    const cell = await signedTransfer(carol, { seqno, now: chain.now(), messages: [internal({ to: dave.address, value: toNano('0.7'), bounce: false })] });
    await chain.sendExternalMessage(cell.toBoc());
    await svc.produceBlock();
    await svc.produceBlock();
    const levels = (list: Arrival[]) => list.map((n) => n.data.finality);
    await until(() => levels(sse).includes('finalized') && levels(wsSeen).includes('finalized'), () => ({ sse, wsSeen }));

    // independently, once final: carol's transaction, the state it left, and the chain's state of carol now
    const state = await chain.getAccountState(carol.id);
    const [tx] = await chain.getTransactions(carol.id, state.lastTxLt, state.lastTxHash, 1);
    expect(tx!.inMessage?.source ?? null).toBeNull(); // the transfer's own (external) transaction, nothing after it
    const expected = {
      hash: loadTransaction(Cell.fromBase64(tx!.boc!).beginParse()).stateUpdate.newHash.toString('base64'),
      balance: state.balance.toString(),
      account_status: 'active',
      code_hash: Cell.fromBase64(state.code!).hash().toString('base64'),
      data_hash: Cell.fromBase64(state.data!).hash().toString('base64'),
    };
    for (const list of [sse, wsSeen]) {
      expect(levels(list)).toEqual(['confirmed', 'finalized']);
      for (const n of list) {
        expect(n.data).toMatchObject({ type: 'account_state_change', account: v3(carol.id) });
        expect(n.data.state).toMatchObject(expected);
      }
      // confirmed while the masterchain block that commits the transaction was still to come
      expect(list[0]!.finalizedHead).toBeLessThan(tx!.mcSeqno);
      expect(list[1]!.finalizedHead).toBeGreaterThanOrEqual(tx!.mcSeqno);
    }
    a.abort();
    ws.close();
  }, 90_000);
});
