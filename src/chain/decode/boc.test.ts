import { readFileSync } from 'node:fs';
import { beginCell, Cell } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { readTransactionCells } from './block.js';
import { cellToBoc, crc32c, restToBoc } from './boc.js';
import { CellReader } from './reader.js';

const block = (file: string) => Cell.fromBoc(readFileSync(new URL(`../../../test/fixtures/mainnet/blocks/${file}`, import.meta.url)))[0]!;

describe('BoC writer', () => {
  it('crc32c matches the standard check value', () => {
    expect(crc32c(Buffer.from('123456789'))).toBe(0xe3069283);
  });

  it('writes BoCs that @ton/core parses back to the same cell, for every fixture transaction', () => {
    for (const file of ['tongo-block-5.boc', 'tongo-block-6.boc', 'tongo-block-7.boc', 'block_0_8000000000000000_34703989.boc']) {
      for (const tx of readTransactionCells(block(file).refs[3]!.refs[2]!)) {
        const boc = cellToBoc(tx);
        const back = Cell.fromBoc(boc);
        expect(back).toHaveLength(1);
        expect(back[0]!.hash().equals(tx.hash())).toBe(true);
        // same size as @ton/core's own serialisation (both de-duplicated, no index, with CRC)
        expect(boc.length).toBe(tx.toBoc().length);
      }
    }
  });

  it('writes a whole block (deep, shared and exotic Merkle-update cells)', () => {
    const root = block('tongo-block-6.boc');
    const back = Cell.fromBoc(cellToBoc(root))[0]!;
    expect(back.hash().equals(root.hash())).toBe(true);
  });

  it('writes the unread rest of a cell at any bit offset, like building that cell would', () => {
    const child = beginCell().storeUint(7, 3).endCell();
    for (let skip = 0; skip <= 40; skip++) {
      const cell = beginCell().storeUint(0x5a5a5a5a5a, 40).storeUint(0x3, 2).storeRef(child).storeRef(beginCell().endCell()).endCell();
      const r = new CellReader(cell);
      r.skip(skip);
      if (skip % 2) r.ref();
      const expected = r.restAsCell();
      const parsed = Cell.fromBoc(restToBoc(r))[0]!;
      expect(parsed.hash().equals(expected.hash()), `skip ${skip}`).toBe(true);
    }
  });

  it('handles the empty cell', () => {
    const empty = beginCell().endCell();
    expect(cellToBoc(empty).equals(empty.toBoc())).toBe(true);
  });
});
