// The audit's chain check on its own: where a processed prev-link chain is broken between two points.
import { describe, expect, it } from 'vitest';
import { chainBreaks } from './audit.js';

const h = (n: number) => n.toString(16).padStart(64, '0');
const line = (lt: number, prevLt: number, hash = h(lt), prevHash = h(prevLt)) => ({ lt: BigInt(lt), hash, prev_lt: BigInt(prevLt), prev_hash: prevHash });
const creation = { lt: 0n, hash: '' };

describe('chainBreaks', () => {
  // newest first, as the audit reads them
  const whole = [line(50, 40), line(40, 30), line(30, 0)];

  it('finds nothing in a whole chain from the head to the creation', () => {
    expect(chainBreaks(whole, { lt: 50n, hash: h(50) }, creation)).toEqual([]);
    expect(chainBreaks([], creation, creation)).toEqual([]);
  });

  it('names the missing transactions: a hole, a missing head, a missing first transaction', () => {
    expect(chainBreaks([line(50, 40), line(30, 0)], { lt: 50n, hash: h(50) }, creation)).toEqual([{ lt: 40, hash: h(40) }]);
    expect(chainBreaks(whole, { lt: 60n, hash: h(60) }, creation)).toEqual([{ lt: 60, hash: h(60) }]);
    expect(chainBreaks([line(50, 40), line(40, 30)], { lt: 50n, hash: h(50) }, creation)).toEqual([{ lt: 30, hash: h(30) }]);
    // same lt, other hash: not the transaction the link names
    expect(chainBreaks([line(50, 40), line(40, 30, h(999)), line(30, 0)], { lt: 50n, hash: h(50) }, creation)).toEqual([{ lt: 40, hash: h(40) }]);
  });

  it('between a checkpoint and the head, the chain must land on the checkpoint\'s transaction', () => {
    expect(chainBreaks([line(50, 40)], { lt: 50n, hash: h(50) }, { lt: 40n, hash: h(40) })).toEqual([]);
    expect(chainBreaks([line(50, 40)], { lt: 50n, hash: h(50) }, { lt: 40n, hash: h(41) })).toEqual([{ lt: 40, hash: h(40) }]);
    expect(chainBreaks([line(50, 35)], { lt: 50n, hash: h(50) }, { lt: 40n, hash: h(40) })).toEqual([{ lt: 35, hash: h(35) }]);
    expect(chainBreaks([], { lt: 40n, hash: h(40) }, { lt: 40n, hash: h(40) })).toEqual([]);
  });
});
