// checkPartialProof over getBlockProof replies as the fake liteserver builds them from a signed synthetic
// chain (the node's route: back to the key block before a non-key known block, then forward key block by
// key block), and over replies that are cut short, re-routed or mislabelled.
import { describe, expect, it } from 'vitest';
import { forwardLink, serveBlockProof } from '../testing/serve-block-proof.js';
import { SignedChain } from '../testing/signed-chain.js';
import type { PartialBlockProof } from '../tl/lite-api.js';
import { sameBlockId } from './block-ref.js';
import { checkPartialProof } from './key-walk.js';
import { proofFailure } from '../../../../test/support/proofs.js';

// init 3; key blocks 5, 7 (keeps the set: another param changed), 9; head 11.
const signed = new SignedChain({ label: 'key-walk' });
signed.blocks(1);
signed.keyBlock();
signed.blocks(1);
signed.keyBlock({ keepSet: true });
signed.blocks(1);
signed.keyBlock();
signed.blocks(2);
const serve = (maxLinks?: number) => serveBlockProof(signed, () => signed.chain.masterchainSeqno, { maxLinks });
const ask = (known: number, target = signed.head, maxLinks?: number): PartialBlockProof =>
  serve(maxLinks)({ mode: 1, knownBlock: signed.id(known), targetBlock: target });
const seqnos = (ids: { seqno: number }[]) => ids.map((b) => b.seqno);

describe('checkPartialProof', () => {
  it('follows the node route from a non-key block: back to its key block, then key block by key block', () => {
    const reply = ask(4);
    expect(reply.steps.map((s) => `${s.kind}:${s.to.seqno}`)).toEqual(['back:3', 'forward:5', 'forward:7', 'forward:9', 'forward:11']);
    const checked = checkPartialProof(reply, { id: signed.id(4), keyBlock: false }, signed.head);
    expect(checked.complete).toBe(true);
    expect(sameBlockId(checked.reached.id, signed.head)).toBe(true);
    expect(seqnos(checked.keyBlocks)).toEqual([3, 5, 7, 9]);
  });

  it('continues a reply cut short from where it stopped', () => {
    const first = checkPartialProof(ask(3, signed.head, 2), { id: signed.init, keyBlock: true }, signed.head);
    expect(first).toMatchObject({ complete: false, reached: { keyBlock: true } });
    expect(first.reached.id.seqno).toBe(7);
    const second = checkPartialProof(ask(7), first.reached, signed.head);
    expect(second.complete).toBe(true);
    expect(seqnos(second.keyBlocks)).toEqual([9]);
  });

  it('refuses a forward link from a block not proven to be a key block', () => {
    expect(proofFailure(() => checkPartialProof(ask(3), { id: signed.init, keyBlock: false }, signed.head))).toMatchObject({ check: 'link.from' });
  });

  it('refuses a link that skips a key block, even when the skipped one kept the validators', () => {
    // Key block 7 changed no validator, so a link 5 → 9 carries signatures that verify against 5's set; yet
    // 9's proven header names 7 as its previous key block.
    const skip = forwardLink(signed, signed.chain.masterchainBlock(5)!, signed.chain.masterchainBlock(9)!);
    const reply: PartialBlockProof = { complete: false, from: signed.id(5), to: signed.id(9), steps: [skip] };
    expect(proofFailure(() => checkPartialProof(reply, { id: signed.id(5), keyBlock: true }, signed.head))).toMatchObject({ check: 'link.dest.prev_key_block' });
  });

  it('refuses replies that start elsewhere, end elsewhere, stop at the wrong target or make no progress', () => {
    const honest = ask(3);
    const from = { id: signed.init, keyBlock: true };
    expect(proofFailure(() => checkPartialProof({ ...honest, from: signed.id(4) }, from, signed.head)).check).toBe('proof.from');
    expect(proofFailure(() => checkPartialProof({ ...honest, to: signed.id(10) }, from, signed.head)).check).toBe('proof.to');
    expect(proofFailure(() => checkPartialProof(ask(3, signed.id(10)), from, signed.head)).check).toBe('proof.target');
    expect(proofFailure(() => checkPartialProof({ complete: false, from: signed.init, to: signed.init, steps: [] }, from, signed.head)).check).toBe('proof.progress');
    expect(proofFailure(() => checkPartialProof(honest, from, signed.id(10))).check).toBe('link.to'); // walks past the target
    const gap = { ...honest, steps: honest.steps.slice(1) };
    expect(proofFailure(() => checkPartialProof(gap, from, signed.head)).check).toBe('link.from');
  });
});
