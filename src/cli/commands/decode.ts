// `tonwatch decode <file|hex|base64>`: an operator's view of a Block, Transaction or Message BoC as the
// chain model sees it (every decoded field, bigint as decimal strings).
import { readFileSync, statSync } from 'node:fs';
import { Cell } from '@ton/core';
import type { MessageModel, TransactionModel } from '../../chain/model.js';
import { BLOCK_TAG, decodeBlock } from '../../chain/decode/block.js';
import { decodeMessage } from '../../chain/decode/message.js';
import { opHex } from '../../chain/decode/opcode.js';
import { decodeTransaction } from '../../chain/decode/transaction.js';
import { PROGRAM } from '../program.js';

export const summary = 'decode a block, transaction or message BoC (file, hex or base64) to JSON';

const HELP = `usage: ${PROGRAM} decode <file|hex|base64|-> [--summary]

Decodes a BoC of a full Block (every transaction), a Transaction, or a Message and prints JSON with
every decoded field. Amounts and lt are decimal strings, opcodes hex (0x0f8a7ea5). The input is a file (binary BoC, or a text
file holding hex/base64), '-' for standard input, or the hex/base64 text itself.

options:
  --summary   print counts (transactions, inbound outcomes, body kinds) instead of every field
  -h, --help  this help`;

const BOC_MAGICS = ['b5ee9c72', '68ff65f3', 'acc3a728'];

class InputError extends Error {}

function bytesFromText(text: string, what: string): Buffer {
  const t = text.replace(/\s+/g, ''); // tools like base64(1) wrap lines
  if (t.length > 0 && t.length % 2 === 0 && /^[0-9a-fA-F]+$/.test(t)) return Buffer.from(t, 'hex');
  if (t.length > 0 && /^[A-Za-z0-9+/_-]+={0,2}$/.test(t)) return Buffer.from(t.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  throw new InputError(`${what} is neither a readable file, nor hex, nor base64`);
}

function readInput(arg: string): Buffer {
  if (arg === '-') return bytesFromText(readFileSync(0, 'utf8'), 'standard input');
  let isFile = false;
  try {
    isFile = statSync(arg).isFile();
  } catch {
    isFile = false;
  }
  if (!isFile) return bytesFromText(arg, 'the argument');
  const data = readFileSync(arg);
  if (data.length >= 4 && BOC_MAGICS.includes(data.subarray(0, 4).toString('hex'))) return data;
  return bytesFromText(data.toString('utf8'), `file ${arg}`);
}

function parseBoc(bytes: Buffer): Cell {
  const magic = bytes.subarray(0, 4).toString('hex');
  if (!BOC_MAGICS.includes(magic)) {
    throw new InputError(`not a BoC: a BoC starts with the bytes ${BOC_MAGICS[0]} (or ${BOC_MAGICS.slice(1).join(', ')}); these ${bytes.length} bytes start with ${magic || 'nothing'}`);
  }
  let roots: Cell[];
  try {
    roots = Cell.fromBoc(bytes);
  } catch (err) {
    throw new InputError(`not a BoC: truncated or malformed after its magic (${(err as Error).message})`);
  }
  if (roots.length !== 1) throw new InputError(`the BoC has ${roots.length} roots; expected one block, transaction or message`);
  return roots[0]!;
}

/** The account's workchain is not in a Transaction cell: take it from the messages. */
function transactionWorkchain(cell: Cell, boc: string): number {
  const probe = decodeTransaction(cell, { block: { workchain: 0, shard: '8000000000000000', seqno: 0 }, mcSeqno: 0, boc });
  const own = probe.inMessage?.destination ?? probe.outMessages[0]?.source;
  return own ? Number(own.split(':')[0]) : 0;
}

function decodeAny(bytes: Buffer): Record<string, unknown> {
  const root = parseBoc(bytes);
  const bits = root.bits.length;
  const head = bits >= 32 ? root.beginParse().preloadUint(32) : -1;
  if (head === BLOCK_TAG) return { kind: 'block', ...decodeBlock(bytes) };
  const failures: string[] = [];
  if (bits >= 4 && root.beginParse().preloadUint(4) === 0b0111) {
    try {
      const boc = bytes.toString('base64');
      const workchain = transactionWorkchain(root, boc);
      const tx: Partial<TransactionModel> = decodeTransaction(root, {
        block: { workchain, shard: '8000000000000000', seqno: 0 },
        mcSeqno: 0,
        boc,
      });
      // A lone transaction says nothing about its block: do not print made-up ones.
      delete tx.block;
      delete tx.mcSeqno;
      return { kind: 'transaction', transaction: tx };
    } catch (err) {
      failures.push((err as Error).message);
    }
  }
  try {
    const message: MessageModel = decodeMessage(root);
    return { kind: 'message', message };
  } catch (err) {
    failures.push((err as Error).message);
  }
  throw new InputError(`not a block, transaction or message BoC (${failures.join('; ')})`);
}

function countBy<T>(items: T[], key: (item: T) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const item of items) out[key(item)] = (out[key(item)] ?? 0) + 1;
  return out;
}

function summarise(result: Record<string, unknown>): Record<string, unknown> {
  const txs: TransactionModel[] =
    result.kind === 'block'
      ? (result.transactions as TransactionModel[])
      : result.kind === 'transaction'
        ? [result.transaction as TransactionModel]
        : [];
  const messages: MessageModel[] =
    result.kind === 'message'
      ? [result.message as MessageModel]
      : txs.flatMap((t) => (t.inMessage ? [t.inMessage, ...t.outMessages] : t.outMessages));
  return {
    kind: result.kind,
    ...(result.kind === 'block' ? { header: result.header, shardBlocks: (result.shardBlocks as unknown[] | undefined)?.length } : {}),
    transactions: txs.length,
    inbound: countBy(txs, (t) => t.inbound),
    messages: messages.length,
    bodyKinds: countBy(messages, (m) => m.decoded.kind),
    unknown: messages.filter((m) => m.decoded.kind === 'unknown').map((m) => ({ hash: m.hash, decoded: m.decoded })),
  };
}

/** bigint as decimal strings, opcodes as 0x0f8a7ea5 (as TON's tools and the webhook filters write them). */
const json = (value: unknown): string =>
  JSON.stringify(
    value,
    (key, v: unknown) => {
      if (typeof v === 'bigint') return v.toString();
      if (key === 'opcode' && typeof v === 'number') return opHex(v);
      if (key === 'opcodes' && Array.isArray(v)) return v.map((op) => (typeof op === 'number' ? opHex(op) : op));
      return v;
    },
    2,
  );

export async function run(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(HELP);
    return 0;
  }
  const flags = argv.filter((a) => a.startsWith('--'));
  const positional = argv.filter((a) => !a.startsWith('--'));
  const unknown = flags.filter((f) => f !== '--summary');
  if (unknown.length > 0 || positional.length !== 1) {
    console.error(unknown.length > 0 ? `tonwatch decode: unknown option ${unknown[0]}` : 'tonwatch decode: expected exactly one input (see --help)');
    return 1;
  }
  try {
    const result = decodeAny(readInput(positional[0]!));
    console.log(json(flags.includes('--summary') ? summarise(result) : result));
    return 0;
  } catch (err) {
    console.error(`tonwatch decode: ${(err as Error).message}`);
    return 1;
  }
}
