// Issue #19's acceptance for the proof checks, swept over the fixtures rather than picked by hand: every
// real mainnet proof and block in test/fixtures/mainnet/ passes its check, and every pruned hash of every
// proof, flipped one bit at a time, makes the check fail with a ProofError naming the link that broke —
// both when a forger re-wraps the Merkle proof (the anchor hash catches it) and when the bit is flipped in
// the very bytes a server sent (the BoC's Merkle cell no longer matches its child). The hand-picked
// tampered variants (a swapped account, a wrong last_trans_hash, a shard descriptor of another block, a
// truncated history) live in the test of each check; the table below names them per fixture file.
import { createHash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Address, beginCell, Cell, CellType, convertToMerkleProof } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { flipBit, rebuild } from '../../../../test/support/merkle.js';
import { MC_31220993, mainnetFixture, proofFailure } from '../../../../test/support/proofs.js';
import { BLOCK_TAG, decodeBlock } from '../../decode/block.js';
import { checkAccountStateProof } from './account.js';
import { checkBlockHeaderProof, checkFullBlock } from './blocks.js';
import { cellHash, lookupHashmapE, proofRoots, provenReader, unwrapMerkleProof } from './merkle.js';
import { checkShardBlockProof } from './shards.js';
import { checkConfigProof, mcStateExtraOf, provenConfigParam, readShardState } from './state.js';

const FIXTURES = fileURLToPath(new URL('../../../../test/fixtures/mainnet/', import.meta.url));

/**
 * Every file of the mainnet fixtures and where its check is exercised: `here` (this file's sweep) and the
 * test files that hold its hand-picked tampered variants. A new fixture must be added here to pass.
 */
const COVERAGE: Record<string, { here: boolean; tests: string[] }> = {
  'README.md': { here: false, tests: [] },
  'blocks/account_state_elector.boc': { here: false, tests: ['account.test.ts (a swapped state; a masterchain account)'] },
  'blocks/block_0_8000000000000000_34703989.boc': { here: true, tests: ['blocks.test.ts (known root hash; split parent)', 'transport/in-process.test.ts (served by a liteserver, in process and over ADNL; tampered)'] },
  'blocks/tongo-block-4.boc': { here: true, tests: ['transport/in-process.test.ts (served by a liteserver, in process and over ADNL; tampered)'] },
  'blocks/tongo-block-5.boc': { here: true, tests: ['blocks.test.ts (other bytes, another root, another block)', 'transactions.test.ts (wrong last_trans_hash, truncated history)', 'shards.test.ts (getAllShardsInfo)', 'transport/in-process.test.ts (served by a liteserver, in process and over ADNL; tampered)'] },
  'blocks/tongo-block-5.expected.json': { here: false, tests: ['transactions.test.ts (independent transaction hashes and prev hashes)'] },
  'blocks/tongo-block-6.boc': { here: true, tests: ['blocks.test.ts (prev_ref links, merge)', 'transport/in-process.test.ts (served by a liteserver, in process and over ADNL; tampered)'] },
  'blocks/tongo-block-7.boc': { here: true, tests: ['blocks.test.ts (prev_ref links, merge)', 'transport/in-process.test.ts (served by a liteserver, in process and over ADNL; tampered)'] },
  'config/tongo-config_proof_33651872.boc': { here: true, tests: ['state.test.ts', 'config-params.test.ts'] },
  'config/tongo-config_proof_4324374.boc': { here: true, tests: ['state.test.ts'] },
  'config/tongo-config_proof_65466080.boc': { here: true, tests: ['state.test.ts', 'config-params.test.ts'] },
  'proofs/account_proof_EQBvW8.boc': { here: true, tests: ['account.test.ts (a swapped account, a forged last_trans_hash, another block)', 'transport/in-process.test.ts (served by a liteserver, in process and over ADNL; tampered)'] },
  'proofs/account_proof_shard31618192.boc': { here: true, tests: ['account.test.ts (proven absence, a state sent for an absent account)'] },
  'proofs/account_state_EQBvW8.boc': { here: true, tests: ['account.test.ts (its hash, a swapped state)', 'transport/in-process.test.ts (served by a liteserver, in process and over ADNL; tampered)'] },
  'proofs/config_proof_toncore.boc': { here: false, tests: ['state.test.ts (no Merkle wrapper: proves nothing by itself)'] },
  'proofs/header_proof_mc31220993.boc': { here: true, tests: ['blocks.test.ts', 'merkle.test.ts', 'transport/in-process.test.ts (served by a liteserver, in process and over ADNL; tampered)'] },
  'proofs/shard_descr_wc0.boc': { here: false, tests: ['shards.test.ts (a shard descriptor of another block)', 'transport/in-process.test.ts (served by a liteserver, in process and over ADNL; tampered)'] },
  'proofs/shard_proof_mc31220993.boc': { here: true, tests: ['shards.test.ts (a shard descriptor of another block)', 'state.test.ts', 'account.test.ts', 'transport/in-process.test.ts (served by a liteserver, in process and over ADNL; tampered)'] },
};

function listFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? listFiles(path) : [relative(FIXTURES, path).split('\\').join('/')];
  });
}

const SHARD_BLOCK = { workchain: 0, shard: '8000000000000000', seqno: 36908135, rootHash: '39e5cbca5bf69750b5d9897872c3a0d7a3e614e521c53e4de728fafed38dce27' };
const ACCOUNT = { workchain: 0, id: Address.parse('EQBvW8Z5huBkMJYdnfAEM5JqTNkuWX3diqYENkWsIL0XggGG').hash };
const ACCOUNT_STATE = mainnetFixture('proofs/account_state_EQBvW8.boc');

/** Basechain block 31618192: SOURCES.md gives its root hash prefix; the proof's own block carries it whole. */
const other = Cell.fromBoc(mainnetFixture('proofs/account_proof_shard31618192.boc'));
const BLOCK_31618192 = { workchain: 0, shard: '8000000000000000', seqno: 31618192, rootHash: cellHash(other[0]!.refs[0]!) };
/** An account the proof of block 31618192 shows absent (its path leaves the map at a proven label). */
const ABSENT_31618192 = (() => {
  const accounts = readShardState(other[1]!.refs[0]!, 's').accounts;
  const present = BigInt('0x83dfd552e63729b472fcbcc8c45ebcc6691702558b68ec7527e1ba403a0f31a8');
  for (let bit = 0; bit < 256; bit++) {
    const id = present ^ (1n << BigInt(bit));
    if (lookupHashmapE(provenReader(accounts, 'x'), 256, id).status === 'absent') return id.toString(16).padStart(64, '0');
  }
  throw new Error('no absent account found near 83df…');
})();

/** Config proofs from tongo carry only the state: the trusted anchor is the state hash its block names. */
const configAnchor = (file: string) => cellHash(Cell.fromBoc(mainnetFixture(file))[0]!.refs[0]!);
const configCheck = (file: string) => {
  const anchor = configAnchor(file);
  return (roots: Cell[]) => {
    const state = unwrapMerkleProof(roots[0]!, 'config.state_root', anchor);
    const extra = mcStateExtraOf(readShardState(state, 'config.state'), 'config.state');
    return provenConfigParam(extra.configParams, 34);
  };
};

interface ProofCase {
  file: string;
  /** The check over the proof's roots (as cells), anchored on trusted hashes. */
  check: (roots: Cell[]) => unknown;
  /** The same check over the bytes a server sent (when the reply is one BoC). */
  checkBytes?: (boc: Buffer) => unknown;
  /** Per root: the link a re-wrapped proof with one pruned hash flipped must name. */
  brokenLink: string[];
  /** The link a bit flipped in the sent bytes must name (the BoC itself is refused). */
  bytesLink?: string;
}

const shardProofCells = (roots: Cell[]) => checkShardBlockProof(roots, MC_31220993, SHARD_BLOCK);
const CASES: ProofCase[] = [
  {
    file: 'proofs/header_proof_mc31220993.boc',
    check: (roots) => checkBlockHeaderProof(roots[0]!, MC_31220993),
    checkBytes: (boc) => checkBlockHeaderProof(boc, MC_31220993),
    brokenLink: ['header.root_hash'],
    bytesLink: 'header',
  },
  {
    file: 'proofs/shard_proof_mc31220993.boc',
    check: shardProofCells,
    checkBytes: (boc) => checkShardBlockProof(boc, MC_31220993, SHARD_BLOCK),
    brokenLink: ['shard.block_root_hash', 'shard.state_root'],
    bytesLink: 'shard',
  },
  {
    // The same two roots as a getConfigParams reply (block proof, state proof) of masterchain block 31220993.
    file: 'proofs/shard_proof_mc31220993.boc',
    check: (roots) => checkConfigProof(roots[0]!.toBoc(), roots[1]!.toBoc(), MC_31220993.rootHash, []),
    brokenLink: ['config.block_root_hash', 'config.state_root'],
  },
  {
    file: 'proofs/account_proof_EQBvW8.boc',
    check: (roots) => checkAccountStateProof(roots, SHARD_BLOCK, ACCOUNT, ACCOUNT_STATE),
    checkBytes: (boc) => checkAccountStateProof(boc, SHARD_BLOCK, ACCOUNT, ACCOUNT_STATE),
    brokenLink: ['account.block_root_hash', 'account.state_root'],
    bytesLink: 'account',
  },
  {
    file: 'proofs/account_proof_shard31618192.boc',
    check: (roots) => checkAccountStateProof(roots, BLOCK_31618192, { workchain: 0, id: ABSENT_31618192 }, Buffer.alloc(0)),
    checkBytes: (boc) => checkAccountStateProof(boc, BLOCK_31618192, { workchain: 0, id: ABSENT_31618192 }, Buffer.alloc(0)),
    brokenLink: ['account.block_root_hash', 'account.state_root'],
    bytesLink: 'account',
  },
  ...['config/tongo-config_proof_65466080.boc', 'config/tongo-config_proof_33651872.boc', 'config/tongo-config_proof_4324374.boc'].map((file): ProofCase => ({
    file,
    check: configCheck(file),
    checkBytes: (boc) => configCheck(file)(proofRoots(boc, 'config', 1)),
    brokenLink: ['config.state_root'],
    bytesLink: 'config',
  })),
];

/**
 * Replaces the cell at `path` and rebuilds every ancestor as a forger must: a MERKLE_UPDATE on the way gets
 * the new hashes and depths of its children (else @ton/core, like the node, refuses to build it).
 */
function replaceForged(root: Cell, path: number[], replace: (old: Cell) => Cell): Cell {
  if (path.length === 0) return replace(root);
  const [i, ...rest] = path;
  const refs = root.refs.map((r, k) => (k === i ? replaceForged(r, rest, replace) : r));
  if (root.type !== CellType.MerkleUpdate) return rebuild(root, root.bits, refs);
  // merkle_update#04 old_hash:bits256 new_hash:bits256 old_depth:uint16 new_depth:uint16
  const bits = beginCell().storeUint(4, 8).storeBuffer(refs[0]!.hash(0)).storeBuffer(refs[1]!.hash(0))
    .storeUint(refs[0]!.depth(0), 16).storeUint(refs[1]!.depth(0), 16).endCell().bits;
  return rebuild(root, bits, refs);
}

/** Reference paths to every distinct pruned cell under `root` (a DAG: each cell once). */
function prunedPaths(root: Cell): number[][] {
  const out: number[][] = [];
  const seen = new Set<string>();
  const walk = (c: Cell, path: number[]) => {
    const key = c.hash().toString('hex');
    if (seen.has(key)) return;
    seen.add(key);
    if (c.type === CellType.PrunedBranch) out.push(path);
    else c.refs.forEach((r, i) => walk(r, [...path, i]));
  };
  walk(root, []);
  return out;
}

/** Bits of the 256-bit stored hash to flip (after the type and level-mask bytes): both ends and between. */
const HASH_BITS = [0, 77, 200, 255];

describe('#19 acceptance: every mainnet fixture is checked', () => {
  it('each file under test/fixtures/mainnet/ is listed with the tests that exercise it', () => {
    expect(listFiles(FIXTURES).sort()).toEqual(Object.keys(COVERAGE).sort());
    for (const [file, c] of Object.entries(COVERAGE)) {
      if (file.endsWith('.boc') || file.endsWith('.json')) expect(c.here || c.tests.length > 0, file).toBe(true);
    }
  });
});

describe('#19 acceptance: full blocks pass their root and file hash check, one flipped bit fails it', () => {
  const files = readdirSync(join(FIXTURES, 'blocks')).filter((f) => f.endsWith('.boc') && Cell.fromBoc(mainnetFixture(`blocks/${f}`))[0]!.beginParse(true).preloadUint(32) === BLOCK_TAG);
  // The root hashes the fixtures' README names come from their sources, not from our code.
  const known: Record<string, string> = {
    'tongo-block-5.boc': '04c2c26fa7f6f84255d142ff2c4f98666db56879911fc2e83b3a284f20ca48ec',
    'block_0_8000000000000000_34703989.boc': '84753a60efefc7169959fdf34ea21f3fa9f5a85c3a8690db77b1f141e0ff47ee',
  };

  it.each(files)('%s', (file) => {
    expect(COVERAGE[`blocks/${file}`]?.here).toBe(true);
    const boc = mainnetFixture(`blocks/${file}`);
    const decoded = decodeBlock(boc);
    const h = decoded.header;
    if (known[file]) expect(h.rootHash).toBe(known[file]);
    const id = { workchain: h.workchain, shard: h.shard, seqno: h.seqno, rootHash: h.rootHash, fileHash: createHash('sha256').update(boc).digest('hex') };
    const proven = checkFullBlock(boc, id, 'block');
    expect(decodeBlock(proven.block, { fileHash: id.fileHash }).transactions).toEqual(decoded.transactions);

    // One bit flipped in the bytes: the file hash breaks first; without a file hash the BoC or its root breaks.
    for (const at of [boc.length - 40, Math.floor(boc.length / 2), 60]) {
      const tampered = Buffer.from(boc);
      tampered[at]! ^= 0x10;
      expect(proofFailure(() => checkFullBlock(tampered, id, 'block'))).toMatchObject({ check: 'block.file_hash', failure: 'mismatch' });
      const { fileHash: _, ...byRoot } = id;
      const e = (() => {
        try {
          return proofFailure(() => checkFullBlock(tampered, byRoot, 'block'));
        } catch (err) {
          // A flip that leaves the same cells (e.g. in the BoC index) changes no hash: only the file hash sees it.
          expect((err as Error).message).toBe('expected a ProofError, the check passed');
          return null;
        }
      })();
      if (e) expect(['block', 'block.root_hash', 'block.id', 'block.info']).toContain(e.check);
    }
    // One bit flipped in the block's account_blocks (the root of its transactions), re-serialised with its own
    // file hash as a forger would: only the root hash catches it.
    const root = Cell.fromBoc(boc)[0]!;
    const forged = replaceForged(root, [3, 2], (accountBlocks) => flipBit(accountBlocks, accountBlocks.bits.length - 1)).toBoc();
    expect(proofFailure(() => checkFullBlock(forged, { ...id, fileHash: createHash('sha256').update(forged).digest('hex') }, 'block'))).toMatchObject({ check: 'block.root_hash', failure: 'mismatch' });
  });
});

describe('#19 acceptance: every pruned hash of every mainnet proof, one bit flipped, breaks a named link', () => {
  it.each(CASES.map((c, i) => [`${c.file}${CASES.findIndex((x) => x.file === c.file) === i ? '' : ' (as getConfigParams)'}`, c] as const))('%s', (_, c) => {
    expect(COVERAGE[c.file]?.here).toBe(true);
    expect(BLOCK_31618192.rootHash.startsWith('ad1fac01')).toBe(true);
    const boc = mainnetFixture(c.file);
    const roots = Cell.fromBoc(boc);
    c.check(roots); // the real proof passes
    c.checkBytes?.(boc);
    let flips = 0;
    roots.forEach((root, r) => {
      if (c.brokenLink[r] === undefined) return;
      expect(root.type).toBe(CellType.MerkleProof);
      const paths = prunedPaths(root.refs[0]!);
      expect(paths.length).toBeGreaterThan(0);
      for (const path of paths) {
        for (const bit of HASH_BITS) {
          // A forger re-wraps the tree: the Merkle cell is valid, its proven hash is not the trusted one.
          const tampered = convertToMerkleProof(replaceForged(root.refs[0]!, path, (pruned) => flipBit(pruned, 16 + bit)));
          const swapped = roots.map((x, k) => (k === r ? tampered : x));
          const e = proofFailure(() => c.check(swapped));
          expect(e, `${c.file} root ${r} pruned ${path.join('.')} bit ${bit}`).toMatchObject({ check: c.brokenLink[r], failure: 'mismatch' });
          expect(e.message).toContain(c.brokenLink[r]);
          flips++;
          // The same bit flipped in the bytes the server sent: the BoC's Merkle cell disowns its child.
          if (!c.checkBytes) continue;
          // A pruned branch's data: type 1, its level mask, then the stored hash.
          const pruned = path.reduce((x, i) => x.refs[i]!, root.refs[0]!);
          const at = boc.indexOf(Buffer.concat([Buffer.from([1, pruned.mask.value]), pruned.hash(0)]));
          expect(at, 'the pruned cell is in the BoC').toBeGreaterThanOrEqual(0);
          const bytes = Buffer.from(boc);
          bytes[at + 2 + (bit >> 3)]! ^= 0x80 >> (bit & 7);
          expect(proofFailure(() => c.checkBytes!(bytes))).toMatchObject({ check: c.bytesLink, failure: 'malformed' });
        }
      }
    });
    expect(flips).toBeGreaterThanOrEqual(HASH_BITS.length);
  });
});
