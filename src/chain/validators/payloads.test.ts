import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { tlIdHex, TLError } from '../liteserver/tl/codec.js';
import {
  blockIdPayload,
  CANDIDATE_HASH_DATA_EMPTY,
  CANDIDATE_HASH_DATA_ORDINARY,
  CANDIDATE_ID,
  DATA_TO_SIGN,
  FINALIZE_VOTE,
  finalizeVotePayload,
  parseCandidate,
  PUB_ED25519,
  serializeCandidate,
  TON_BLOCK_ID,
  validatorSetHashPayload,
  type CandidateHashData,
} from './payloads.js';
import { shuffledIndices, ValidatorSetPrng } from './prng.js';

const block = { workchain: -1, shard: -(1n << 63n), seqno: 123, rootHash: Buffer.alloc(32, 1), fileHash: Buffer.alloc(32, 2) };

describe('TL payloads that validators sign', () => {
  it('constructor ids from the declarations equal the ids other implementations use', () => {
    expect(
      [TON_BLOCK_ID, PUB_ED25519, CANDIDATE_ID, FINALIZE_VOTE, DATA_TO_SIGN, CANDIDATE_HASH_DATA_ORDINARY, CANDIDATE_HASH_DATA_EMPTY].map(tlIdHex),
    ).toEqual(['c50b6e70', '4813b4c6', 'b691cd3f', '40a7e105', 'a8e33df8', 'e8f9bcdc', '72b4d933']);
  });

  it('ton.blockId is the id and the two hashes (68 bytes)', () => {
    const p = blockIdPayload(block);
    expect(p).toHaveLength(68);
    expect(p.readUInt32LE(0)).toBe(0xc50b6e70);
    expect(p.subarray(4, 36).equals(block.rootHash)).toBe(true);
    expect(p.subarray(36).equals(block.fileHash)).toBe(true);
  });

  it('the finalize vote wraps candidateId{slot, sha256(candidate)} as bytes inside dataToSign', () => {
    const candidate = serializeCandidate({ kind: 'ordinary', block, collatedFileHash: Buffer.alloc(32, 3), parent: null });
    const session = Buffer.alloc(32, 9);
    const p = finalizeVotePayload(session, 0xfffffffe, candidate);
    expect(p.readUInt32LE(0)).toBe(DATA_TO_SIGN);
    expect(p.subarray(4, 36).equals(session)).toBe(true);
    expect(p[36]).toBe(44); // bytes length: finalizeVote id + candidateId id + slot + hash
    expect(p.readUInt32LE(37)).toBe(FINALIZE_VOTE);
    expect(p.readUInt32LE(41)).toBe(CANDIDATE_ID);
    expect(p.readUInt32LE(45)).toBe(0xfffffffe);
    expect(p.subarray(49, 81).equals(createHash('sha256').update(candidate).digest())).toBe(true);
    expect(p).toHaveLength(84); // 1 + 44 bytes padded to 48
  });

  it('candidate hash data round-trips (ordinary with and without parent, empty) and refuses trailing bytes', () => {
    const cases: CandidateHashData[] = [
      { kind: 'ordinary', block, collatedFileHash: Buffer.alloc(32, 3), parent: null },
      { kind: 'ordinary', block, collatedFileHash: Buffer.alloc(32, 3), parent: { slot: 5, hash: Buffer.alloc(32, 4) } },
      { kind: 'empty', block, parent: { slot: 6, hash: Buffer.alloc(32, 5) } },
    ];
    for (const c of cases) expect(parseCandidate(serializeCandidate(c))).toEqual(c);
    expect(() => parseCandidate(Buffer.concat([serializeCandidate(cases[0]!), Buffer.alloc(4)]))).toThrow(TLError);
    expect(() => parseCandidate(serializeCandidate(cases[1]!).subarray(0, 100))).toThrow(TLError);
  });

  it('the validator-set hash input is the node literal 0x901660ed, cc_seqno, count and key/weight/addr per member', () => {
    const m = { publicKey: Buffer.alloc(32, 7), weight: 0xfedcba9876543210n, adnlAddr: Buffer.alloc(32, 8) };
    const p = validatorSetHashPayload(0xffffffff, [m, m]);
    expect(p).toHaveLength(12 + 2 * 72);
    expect(p.readUInt32LE(0)).toBe(0x901660ed);
    expect(p.readUInt32LE(4)).toBe(0xffffffff);
    expect(p.readUInt32LE(8)).toBe(2);
    expect(p.readBigUInt64LE(12 + 32)).toBe(m.weight);
  });
});

describe('validator-set PRNG', () => {
  it('is the stream of sha512(seed ‖ shard ‖ workchain ‖ cc_seqno) words, seed counting up per block of 8', () => {
    const prng = new ValidatorSetPrng(0x8000000000000000n, -1, 816085);
    const words = Array.from({ length: 10 }, () => prng.nextU64());
    const input = (seedLast: number) => {
      const b = Buffer.alloc(48);
      b[31] = seedLast;
      b.writeBigUInt64BE(0x8000000000000000n, 32);
      b.writeInt32BE(-1, 40);
      b.writeUInt32BE(816085, 44);
      return createHash('sha512').update(b).digest();
    };
    const first = input(0);
    const second = input(1);
    expect(words.slice(0, 8)).toEqual(Array.from({ length: 8 }, (_, i) => first.readBigUInt64BE(8 * i)));
    expect(words.slice(8)).toEqual([second.readBigUInt64BE(0), second.readBigUInt64BE(8)]);
  });

  it('shuffles into a permutation that depends on the catchain seqno', () => {
    const a = shuffledIndices(100, new ValidatorSetPrng(0x8000000000000000n, -1, 1));
    const b = shuffledIndices(100, new ValidatorSetPrng(0x8000000000000000n, -1, 2));
    expect([...a].sort((x, y) => x - y)).toEqual([...Array(100).keys()]);
    expect(a).not.toEqual(b);
    expect(shuffledIndices(100, new ValidatorSetPrng(0x8000000000000000n, -1, 1))).toEqual(a);
  });

  it('nextRanged stays within its range', () => {
    const prng = new ValidatorSetPrng(0x8000000000000000n, -1, 7);
    for (let i = 1; i < 500; i++) {
      const v = prng.nextRanged(i);
      expect(v).toBeGreaterThanOrEqual(0);
      expect(v).toBeLessThan(i);
    }
  });
});
