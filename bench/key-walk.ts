// The first secure start (issue 20): SecureTrust walks getBlockProof links from the init block over a
// chain of key blocks, each naming a new validator set, served by the fake liteserver over real ADNL on
// loopback. Reported per 100 key blocks, for small sets (the walk's own cost: proofs, TL, transport) and
// mainnet-sized ones (400 validators, 100 signing). Baseline: bare ed25519 verification of the same
// signatures, so the ratio says how much of the walk is the signatures themselves.
import { randomBytes, sign, verify } from 'node:crypto';
import { serveBlockProof } from '../src/chain/liteserver/testing/serve-block-proof.js';
import { SignedChain } from '../src/chain/liteserver/testing/signed-chain.js';
import { SyntheticLiteServer } from '../src/chain/liteserver/testing/synthetic-server.js';
import { AdnlServer } from '../src/chain/liteserver/transport/adnl-server.js';
import { LitePool } from '../src/chain/liteserver/transport/pool.js';
import { blockIdPayload } from '../src/chain/validators/payloads.js';
import { SecureTrust } from '../src/chain/liteserver/trust/secure.js';
import { ed25519KeyObject } from '../src/chain/liteserver/trust/validators.js';
import type { Benchmark, BenchRow } from './harness.js';

/** Spec §Q5: mainnet's init block is ~600 key blocks old; a first start should stay within a few minutes. */
const TARGET_S_PER_100 = 30;

async function walk(keyBlocks: number, total: number, main: number, progress: (m: string) => void) {
  progress(`${total} validators (${main} signing): building ${keyBlocks} key blocks`);
  const signed = new SignedChain({ label: `bench-walk-${total}`, total, main });
  for (let k = 0; k < keyBlocks; k++) {
    signed.blocks(1);
    signed.keyBlock();
  }
  signed.blocks(1);
  // The fake server runs in this process: time spent building its replies is taken out of the client's.
  let serverMs = 0;
  const fake = new SyntheticLiteServer(signed.chain, {
    blockProof: (head) => {
      const answer = serveBlockProof(signed, head);
      return (req) => {
        const t = performance.now();
        try {
          return answer(req);
        } finally {
          serverMs += performance.now() - t;
        }
      };
    },
  });
  const server = await AdnlServer.listen({ secretKey: randomBytes(32), handler: fake });
  const pool = new LitePool({ servers: [{ ...server.address, publicKey: server.publicKey }], pingIntervalMs: 0, queryTimeoutMs: 60_000 });
  try {
    const ready = await pool.waitReady(10_000);
    const trust = new SecureTrust({ pool, initBlock: signed.init });
    await trust.start();
    progress(`${total} validators: walking`);
    const started = performance.now();
    const head = await trust.offer(ready.servers[0]!.server, signed.head);
    const wall = performance.now() - started;
    const ms = wall - serverMs;
    if (head?.seqno !== signed.head.seqno) throw new Error(`the walk ended at ${head?.seqno}, not ${signed.head.seqno}: ${trust.status().waiting}`);
    // The same signatures, verified bare: what the walk cannot do without.
    const sigs = [];
    for (let s = signed.init.seqno + 1; s <= signed.head.seqno; s++) {
      const b = signed.chain.masterchainBlock(s)!;
      if (!b.info.keyBlock && s !== signed.head.seqno) continue;
      const session = signed.sessionOf(s)!;
      const id = signed.id(s);
      const data = blockIdPayload(id);
      for (const v of session.signers) sigs.push({ key: ed25519KeyObject(v.publicKey), data, sig: sign(null, data, v.privateKey) });
    }
    const bareStarted = performance.now();
    for (const x of sigs) if (!verify(null, x.data, x.key, x.sig)) throw new Error('baseline signature failed');
    const bare = performance.now() - bareStarted;
    return { ms, wall, bare, links: keyBlocks + 1, proofCalls: fake.calls.filter((c) => c === 'getBlockProof').length };
  } finally {
    await pool.close();
    await server.close();
  }
}

const bench: Benchmark = {
  name: 'key-walk',
  description: 'First secure start: SecureTrust walks getBlockProof links over a chain of key blocks (a new validator set at each, ordinary and simplex alternating) over ADNL on loopback; s per 100 key blocks; baseline: bare ed25519 verification of the same signatures.',
  issue: 20,
  budgetSeconds: 240,
  async run(ctx) {
    const rows: BenchRow[] = [];
    const keyBlocks = Math.max(10, Math.round(100 * ctx.scale));
    for (const [total, main] of [[16, 12], [400, 100]] as const) {
      const r = await walk(keyBlocks, total, main, ctx.progress);
      const per100 = (r.ms / 1000) * (100 / keyBlocks);
      const bare100 = (r.bare / 1000) * (100 / keyBlocks);
      rows.push({
        metric: `first-start walk, ${main} signing validators of ${total}: client time per 100 key blocks`,
        value: per100,
        unit: 's',
        baseline: { name: `bare ed25519 verify of the same ${main}-signature links`, value: bare100 },
        ratio: bare100 / per100,
        target: `< ${TARGET_S_PER_100} s`,
        met: per100 < TARGET_S_PER_100,
        note: `${keyBlocks} key blocks, ${r.links} links in ${r.proofCalls} replies; wall time with the in-process fake server building its proofs ${((r.wall / 1000) * (100 / keyBlocks)).toFixed(1)} s; ratio = share of the client's time spent in bare signature checks`,
      });
    }
    return rows;
  },
};

export default bench;
