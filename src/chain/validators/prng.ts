// The validator-set PRNG of the TON node (crypto/block/mc-config.cpp, ValidatorSetPRNG): a stream of
// big-endian u64 words cut from sha512(seed ‖ shard ‖ workchain ‖ cc_seqno), the 32-byte seed
// incremented as a big-endian counter after each hash. The node shuffles the masterchain validators
// with it, so a client must reproduce it bit for bit to know who signs a masterchain block.
import { createHash } from 'node:crypto';

const U64 = (1n << 64n) - 1n;

export class ValidatorSetPrng {
  /** 32-byte seed (zero for validator-set computation) followed by shard, workchain and cc_seqno. */
  private readonly input = Buffer.alloc(48);
  private block: Buffer = Buffer.alloc(0);
  private pos = 0;

  constructor(shard: bigint, workchain: number, ccSeqno: number) {
    this.input.writeBigUInt64BE(shard & U64, 32);
    this.input.writeInt32BE(workchain, 40);
    this.input.writeUInt32BE(ccSeqno >>> 0, 44);
  }

  /** The next 64-bit word of the stream. */
  nextU64(): bigint {
    if (this.pos === 0 || this.pos === 8) {
      this.block = createHash('sha512').update(this.input).digest();
      this.incrementSeed();
      this.pos = 0;
    }
    return this.block.readBigUInt64BE(8 * this.pos++);
  }

  /** A number in [0, range): the high word of range × next (the node's `next_ranged`). */
  nextRanged(range: number): number {
    return Number((BigInt(range) * this.nextU64()) >> 64n);
  }

  private incrementSeed(): void {
    for (let i = 31; i >= 0; i--) {
      this.input[i] = (this.input[i]! + 1) & 0xff;
      if (this.input[i] !== 0) return;
    }
  }
}

/**
 * The node's masterchain shuffle: an inside-out Fisher–Yates over `count` indices with `nextRanged(i + 1)`.
 * Returns the permutation: position i of the result holds the original index of the i-th chosen validator.
 */
export function shuffledIndices(count: number, prng: ValidatorSetPrng): number[] {
  const idx = new Array<number>(count).fill(0);
  for (let i = 0; i < count; i++) {
    const j = prng.nextRanged(i + 1);
    idx[i] = idx[j]!;
    idx[j] = i;
  }
  return idx;
}
