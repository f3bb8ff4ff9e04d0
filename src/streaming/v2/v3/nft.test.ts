// NFTs on the devnet (the reference collection and item code of @ton-community/assets-sdk, deployed
// here): a mint is `nft_mint` (with `contract_deploy` for the new item), a transfer is `nft_transfer`,
// both proven through get_nft_data and the collection's get_nft_address_by_index; the item's metadata
// comes from the collection's get_nft_content and a local HTTP server.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { beginCell, internal, toNano, type Address } from '@ton/core';
import { NftCollection } from '@ton-community/assets-sdk/dist/nft/NftCollection.js';
import { storeNftMintMessage } from '@ton-community/assets-sdk/dist/nft/types/NftMintMessage.js';
import { storeNftItemParams } from '@ton-community/assets-sdk/dist/nft/types/NftItemParams.js';
import { storeNftTransferMessage } from '@ton-community/assets-sdk/dist/nft/types/NftTransferMessage.js';
import { openTestDevnet, runTrace, type TestDevnet } from '../../../../test/support/devnet.js';
import { sendFromWallet } from '../../../chain/devnet/sender.js';
import type { DevnetWallet } from '../../../chain/devnet/wallets.js';
import { accountToAddress, addressToRaw } from '../../../chain/address.js';
import type { TransactionModel } from '../../../chain/model.js';
import { MetadataReader, readContractFacts, traceContent, v3Address, v3Hash } from './index.js';

let devnet: TestDevnet;
let server: http.Server;
let base = '';
const wallet = (name: string) => devnet.directory.wallets.find((w) => w.name === name)!;
const run = (a: string, m: string, s?: Parameters<TestDevnet['chain']['runGetMethod']>[2]) => devnet.chain.runGetMethod(a, m, s);

async function trace(from: DevnetWallet, to: Address, body: ReturnType<typeof beginCell>, value = toNano('0.2'), init?: { code: never; data: never }) {
  const { transactions } = await runTrace(devnet.chain, () =>
    sendFromWallet(devnet.chain, from, [internal({ to, value, bounce: !init, init, body: body.endCell() })]).then((message_hash) => ({ message_hash })),
  );
  const root = transactions[0]!;
  const ctx = { finality: 'finalized' as const, emulated: false, traceId: root.hash, traceExternalHash: root.inMessage!.hash };
  return { txs: transactions, content: traceContent(transactions, ctx, await readContractFacts(transactions, run)) };
}

beforeAll(async () => {
  devnet = await openTestDevnet();
  server = http.createServer((req, res) => {
    if (req.url === '/nft/item0.json') return res.end(JSON.stringify({ name: 'Devnet Item #0', description: 'a test item', image: 'https://example.com/0.png', attributes: [{ trait_type: 'kind', value: 'test' }] }));
    res.statusCode = 404;
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);
afterAll(async () => {
  server?.close();
  await devnet?.close();
});

describe('NFTs', () => {
  it('mint, then transfer: nft_mint and nft_transfer with the collection and index proven; item metadata', async () => {
    const faucet = devnet.directory.faucet;
    const content = beginCell().storeRef(beginCell().storeUint(1, 8).storeStringTail(`${base}/collection.json`)).storeRef(beginCell().storeStringTail(`${base}/nft/`)).endCell();
    const collection = NftCollection.createFromConfig({ admin: faucet.address, content, nextItemIndex: 0n } as never);
    const mintMsg = beginCell().store(storeNftMintMessage({ itemIndex: 0n, value: toNano('0.05'), queryId: 7n, itemParams: { owner: wallet('carol').address, individualContent: 'item0.json' } }, storeNftItemParams));
    const minted = await trace(faucet, collection.address, mintMsg, toNano('0.2'), collection.init as never);
    const collectionId = addressToRaw(collection.address);

    const mint = minted.content.actions.find((a) => a.type === 'nft_mint')!;
    expect(mint).toBeDefined();
    const item = (mint.details as { nft_item: string }).nft_item;
    expect(Object.keys(mint.details)).toEqual(['owner', 'nft_item', 'nft_collection', 'nft_item_index']);
    expect(mint.details).toEqual({ owner: v3Address(wallet('carol').id), nft_item: item, nft_collection: v3Address(collectionId), nft_item_index: '0' });
    const itemId = item.replace(/:(.*)$/, (_, h: string) => ':' + h.toLowerCase());
    // the new item (and the collection itself) are deployed in this trace
    const deploys = minted.content.actions.filter((a) => a.type === 'contract_deploy').map((a) => (a.details as { destination: string }).destination);
    expect(deploys.sort()).toEqual([v3Address(collectionId), item].sort());

    const transferBody = beginCell().store(storeNftTransferMessage({ queryId: 9n, newOwner: wallet('dave').address, responseDestination: wallet('carol').address, customPayload: null, forwardAmount: toNano('0.01'), forwardPayload: beginCell().storeUint(0, 32).storeStringTail('enjoy').endCell() }));
    const moved = await trace(wallet('carol'), accountToAddress(itemId), transferBody, toNano('0.1'));
    const t = moved.content.actions.find((a) => a.type === 'nft_transfer')!;
    expect(Object.keys(t.details)).toEqual([
      'nft_collection', 'nft_item', 'nft_item_index', 'old_owner', 'new_owner', 'is_purchase', 'query_id', 'response_destination', 'custom_payload', 'forward_payload', 'forward_amount', 'comment', 'is_encrypted_comment',
      'marketplace', 'real_old_owner', 'marketplace_address', 'payout_amount', 'payout_address', 'payout_comment', 'payout_comment_encrypted', 'payout_comment_encoded', 'royalty_amount',
    ]);
    expect(t.details).toMatchObject({ nft_collection: v3Address(collectionId), nft_item: item, nft_item_index: '0', old_owner: v3Address(wallet('carol').id), new_owner: v3Address(wallet('dave').id), is_purchase: false, query_id: '9', response_destination: v3Address(wallet('carol').id), custom_payload: null, forward_amount: '10000000', comment: 'enjoy', is_encrypted_comment: false });
    expect(t.success).toBe(true);
    const itemTx = moved.txs.find((x: TransactionModel) => x.account === itemId)!;
    expect(t.transactions).toContain(v3Hash(itemTx.hash));
    // nothing of the transfer is left over as call_contract
    expect(moved.content.actions.filter((a) => a.type === 'call_contract')).toEqual([]);

    const reader = new MetadataReader({ runGetMethod: run, policy: { allowLoopback: true } });
    const md = await reader.build([itemId]);
    expect(md[item]).toEqual({
      is_indexed: true,
      token_info: [{ valid: true, type: 'nft_items', name: 'Devnet Item #0', description: 'a test item', image: 'https://example.com/0.png', nft_index: '0', extra: { attributes: [{ trait_type: 'kind', value: 'test' }] } }],
    });
  });
});
