// `tonwatch decode` run as a real process on real mainnet BoCs and on garbage.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beginCell, Cell } from '@ton/core';
import { afterAll, describe, expect, it } from 'vitest';
import { readTransactionCells } from '../../chain/decode/block.js';
import { programName } from '../program.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const blocks = join(root, 'test/fixtures/mainnet/blocks');
const tmp = mkdtempSync(join(tmpdir(), 'tonwatch-decode-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function decode(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'decode', ...args], {
      cwd: root,
      timeout: 30_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

describe('tonwatch decode', { timeout: 60_000 }, () => {
  it('prints every transaction of a masterchain block with the hashes tongo recorded', async () => {
    const { code, stdout } = await decode(join(blocks, 'tongo-block-5.boc'));
    expect(code).toBe(0);
    const out = JSON.parse(stdout);
    const expected = JSON.parse(readFileSync(join(blocks, 'tongo-block-5.expected.json'), 'utf8'));
    expect(out.kind).toBe('block');
    expect(out.header).toMatchObject({ workchain: -1, seqno: 17734191, rootHash: '04c2c26fa7f6f84255d142ff2c4f98666db56879911fc2e83b3a284f20ca48ec' });
    expect(out.transactions.map((t: { hash: string }) => t.hash).sort()).toEqual([...expected.TxHashes].sort());
    for (const account of Object.values(expected.Accounts) as { Transactions: Record<string, Record<string, string | number>> }[]) {
      for (const e of Object.values(account.Transactions)) {
        const tx = out.transactions.find((t: { account: string; lt: string }) => t.account === `-1:${e.AccountAddr}` && t.lt === String(e.Lt));
        expect(tx).toMatchObject({ prevHash: e.PrevTransHash, prevLt: String(e.PrevTransLt), origStatus: e.OrigStatus, endStatus: e.EndStatus });
      }
    }
    // bigint fields come out as decimal strings
    expect(typeof out.transactions[0].lt).toBe('string');
    expect(typeof out.header.startLt).toBe('string');
    expect(out.shardBlocks.length).toBeGreaterThan(0);
  });

  it('--summary counts decoded kinds for a basechain block given as base64 text', async () => {
    const b64 = readFileSync(join(blocks, 'tongo-block-6.boc')).toString('base64');
    const { code, stdout } = await decode(b64, '--summary');
    expect(code).toBe(0);
    const out = JSON.parse(stdout);
    expect(out).toMatchObject({ kind: 'block', transactions: 11, unknown: [] });
    expect(out.bodyKinds.text_comment).toBeGreaterThan(0);
    expect(out.bodyKinds.jetton_transfer).toBeGreaterThan(0);
  });

  it('decodes a single Transaction BoC (hex file) and a Message BoC (hex argument)', async () => {
    const blockRoot = Cell.fromBoc(readFileSync(join(blocks, 'tongo-block-6.boc')))[0]!;
    const txCell = readTransactionCells(blockRoot.refs[3]!.refs[2]!).find((c) => c.refs[0]!.bits.length > 0 && c.refs[0]!.refs.length > 0)!;
    const txFile = join(tmp, 'tx.hex');
    writeFileSync(txFile, txCell.toBoc().toString('hex'));
    const tx = await decode(txFile);
    expect(tx.code).toBe(0);
    const txOut = JSON.parse(tx.stdout);
    expect(txOut.kind).toBe('transaction');
    expect(txOut.transaction.hash).toBe(txCell.hash().toString('hex'));
    expect(txOut.transaction.account).toMatch(/^0:[0-9a-f]{64}$/);
    expect(txOut.transaction.block).toBeUndefined();

    const msgCell = txCell.refs[0]!.refs[0]!;
    const msg = await decode(msgCell.toBoc().toString('hex'));
    expect(msg.code).toBe(0);
    const msgOut = JSON.parse(msg.stdout);
    expect(msgOut).toMatchObject({ kind: 'message', message: { hash: msgCell.hash().toString('hex') } });
    expect(msgOut.message.decoded.kind).not.toBe('unknown');
  });

  it('garbage input prints one clear line on stderr and exits 1', async () => {
    for (const args of [['definitely not a boc'], ['deadbeef'], [join(root, 'package.json')]]) {
      const { code, stdout, stderr } = await decode(...args);
      expect(code, args[0]).toBe(1);
      expect(stdout).toBe('');
      expect(stderr.trim().split('\n')).toHaveLength(1);
      expect(stderr).toMatch(/^tonwatch decode: /);
    }
  });

  it('hex or base64 that is no BoC is called that, not an index error', async () => {
    const hex = await decode('abcdef');
    expect(hex.code).toBe(1);
    expect(hex.stderr.trim()).toBe('tonwatch decode: not a BoC: a BoC starts with the bytes b5ee9c72 (or 68ff65f3, acc3a728); these 3 bytes start with abcdef');
    // a BoC cut short after its magic: malformed, with the parser's reason
    const cut = await decode(readFileSync(join(blocks, 'tongo-block-6.boc')).subarray(0, 40).toString('hex'));
    expect(cut.code).toBe(1);
    expect(cut.stderr).toMatch(/^tonwatch decode: not a BoC: truncated or malformed after its magic \(/);
  });

  it('prints opcodes in hex, as 0x0f8a7ea5', async () => {
    const { code, stdout } = await decode(join(blocks, 'tongo-block-6.boc'));
    expect(code).toBe(0);
    const messages = JSON.parse(stdout).transactions.flatMap((t: { inMessage: unknown; outMessages: unknown[] }) => [t.inMessage, ...t.outMessages].filter(Boolean));
    const opcodes = messages.map((m: { opcode: unknown }) => m.opcode).filter((op: unknown) => op !== null);
    expect(opcodes.length).toBeGreaterThan(0);
    for (const op of opcodes) expect(op).toMatch(/^0x[0-9a-f]{8}$/);
    // the jetton transfers of this block: TEP-74's transfer opcode
    expect(opcodes).toContain('0x0f8a7ea5');
  });

  it('a BoC of something else is refused, saying what it is not', async () => {
    const other = beginCell().storeUint(0xcafe, 16).storeRef(beginCell().storeUint(1, 1)).endCell().toBoc().toString('base64');
    const { code, stderr } = await decode(other);
    expect(code).toBe(1);
    expect(stderr).toMatch(/^tonwatch decode: not a block, transaction or message BoC/);
  });

  it('--help explains the command; a missing input is an error', async () => {
    const help = await decode('--help');
    expect(help.code).toBe(0);
    // the child inherits this environment: the program name it prints is the one computed from it
    expect(help.stdout).toContain(`usage: ${programName(process.env, 'src/cli/main.ts')} decode <file|hex|base64|->`);
    const none = await decode();
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/expected exactly one input/);
  });
});
