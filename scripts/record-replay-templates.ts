// Records the trace shapes the replay chain source re-addresses (src/chain/replay/templates.ts):
// runs real transfers on a fresh devnet, follows each trace through the finalized blocks, and
// writes them with roles in place of accounts and links in place of hashes.
// Usage: npx tsx scripts/record-replay-templates.ts [--out test/fixtures/replay/templates.json]
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { addressToRaw } from '../src/chain/address.js';
import { startDevnet } from '../src/chain/devnet/index.js';
import { settle } from '../src/chain/devnet/genesis.js';
import { jettonWalletOf } from '../src/chain/devnet/inputs.js';
import { NOBODY } from '../src/chain/devnet/scenarios.js';
import { traceOf, transactionsAfter } from '../test/support/devnet.js';
import type { MessageSent } from '../src/chain/devnet/control.js';
import type { AccountId, HashHex } from '../src/chain/model.js';
import {
  DEFAULT_TEMPLATES_PATH,
  templatesFromJson,
  templatesToJson,
  type Role,
  type TemplateKind,
  type TraceTemplate,
} from '../src/chain/replay/templates.js';

const ACCOUNT = /^-?\d+:[0-9a-f]{64}$/;

function outPath(): string {
  const i = process.argv.indexOf('--out');
  return i >= 0 ? process.argv[i + 1]! : fileURLToPath(DEFAULT_TEMPLATES_PATH);
}

/** Copies `value`, replacing accounts by roles and the trace's hashes by links; fails on any other account. */
function placeholders(value: unknown, roles: Map<AccountId, Role>, links: Map<HashHex, string>, path: string): unknown {
  if (typeof value === 'string') {
    const role = roles.get(value);
    if (role) return `@${role}`;
    const link = links.get(value);
    if (link) return link;
    if (ACCOUNT.test(value)) throw new Error(`${path}: account ${value} has no role in the template`);
    return value;
  }
  if (Array.isArray(value)) return value.map((v, i) => placeholders(v, roles, links, `${path}[${i}]`));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = placeholders(v, roles, links, `${path}.${k}`);
    return out;
  }
  return value;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tonwatch-record-replay-'));
  const { chain, control, directory } = await startDevnet({ dataDir, manual: true });
  try {
    const wallet = (name: string) => directory.wallets.find((w) => w.name === name)!;
    const alice = wallet('alice');
    const bob = wallet('bob');
    const usdt = directory.jettons.find((j) => j.key === 'usdt')!;
    const roles = new Map<AccountId, Role>([
      [alice.id, 'sender'],
      [bob.id, 'recipient'],
      [addressToRaw(await jettonWalletOf(chain, usdt.masterId, alice.address, 'jetton')), 'senderJettonWallet'],
      [addressToRaw(await jettonWalletOf(chain, usdt.masterId, bob.address, 'jetton')), 'recipientJettonWallet'],
      [addressToRaw(NOBODY), 'nobody'],
    ]);
    const pendingBocs = new Map<HashHex, string>();
    chain.onPendingMessage((m) => pendingBocs.set(m.hash, m.boc));

    const scenarios: Array<{ kind: TemplateKind; recordedFrom: string; run: () => Promise<MessageSent> }> = [
      { kind: 'ton_transfer', recordedFrom: 'alice sends 1 TON to bob', run: () => control.send({ from: 'alice', to: 'bob', amount: '1000000000' }) },
      {
        kind: 'ton_comment',
        recordedFrom: 'alice sends 1 TON to bob with a comment',
        run: () => control.send({ from: 'alice', to: 'bob', amount: '1000000000', comment: 'replay: payment for order 42' }),
      },
      {
        kind: 'jetton_transfer',
        recordedFrom: 'alice sends 1 USDT to bob with a comment in the forward payload',
        run: () => control.jettonSend({ from: 'alice', jetton: 'usdt', to: 'bob', amount: '1000000', comment: 'replay: jetton payment 42' }),
      },
      { kind: 'bounce', recordedFrom: 'alice sends 0.1 TON, bounceable, to an address without code', run: () => control.bounce({ from: 'alice' }) },
    ];

    const templates: TraceTemplate[] = [];
    for (const scenario of scenarios) {
      const before = chain.masterchainSeqno;
      const { message_hash } = await scenario.run();
      await settle(chain);
      const txs = traceOf(await transactionsAfter(chain, before), message_hash);
      if (txs.length === 0) throw new Error(`${scenario.kind}: the trace produced no transaction`);
      const links = new Map<HashHex, string>();
      let messages = 0;
      txs.forEach((tx, i) => {
        links.set(tx.hash, `#t${i}`);
        for (const m of [tx.inMessage, ...tx.outMessages]) if (m && !links.has(m.hash)) links.set(m.hash, `#m${messages++}`);
      });
      const first = txs[0]!.mcSeqno;
      const rootMessageBoc = pendingBocs.get(message_hash);
      if (!rootMessageBoc) throw new Error(`${scenario.kind}: the root message never entered the mempool`);
      templates.push({
        kind: scenario.kind,
        recordedFrom: scenario.recordedFrom,
        rootMessageBoc,
        transactions: txs.map((tx, i) => ({
          hop: tx.mcSeqno - first,
          // the previous transaction of the account lies outside the trace: regenerated per replay
          tx: placeholders({ ...tx, prevHash: '#prev' }, roles, links, `${scenario.kind}.transactions[${i}]`) as TraceTemplate['transactions'][number]['tx'],
        })),
      });
      console.error(`${scenario.kind}: ${txs.length} transactions over ${txs.at(-1)!.mcSeqno - first + 1} blocks`);
    }

    const text = templatesToJson({ recorded: `scripts/record-replay-templates.ts on ${new Date().toISOString().slice(0, 10)}`, templates });
    templatesFromJson(text); // the file must pass the loader's checks
    const out = outPath();
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, text + '\n');
    console.error(`wrote ${templates.length} templates to ${out}`);
  } finally {
    await chain.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
