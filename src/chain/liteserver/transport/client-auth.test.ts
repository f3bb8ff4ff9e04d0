// The tcp.authentificate exchange over loopback TCP, as TON's adnl-ext-server does it: our client with a
// key of its own connects and queries; a raw client gets a 256-byte server nonce, and a wrong signature,
// a second exchange or a message the server does not know close the connection with a warning naming the peer.
import { randomBytes } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import { afterEach, describe, expect, it } from 'vitest';
import { mcBlock, startTestLiteServer, type TestLiteServer } from '../../../../test/support/liteserver.js';
import { rawAdnlSession, type RawAdnlSession } from '../../../../test/support/adnl-raw.js';
import { AdnlClient } from './adnl.js';
import type { AdnlLogDetail } from './adnl-server.js';
import { keyId } from './frame.js';

const open: { close(): unknown }[] = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

interface Logged extends AdnlLogDetail {
  message: string;
}
async function serve(head = 50): Promise<TestLiteServer & { logs: Logged[] }> {
  const logs: Logged[] = [];
  const s = await startTestLiteServer({ head, log: (message, detail) => logs.push({ message, ...detail }) });
  open.push(s);
  return { ...s, logs };
}
async function raw(s: TestLiteServer): Promise<RawAdnlSession> {
  const r = await rawAdnlSession(s);
  open.push({ close: () => r.destroy() });
  return r;
}
const until = async (cond: () => boolean, what: string) => {
  const deadline = Date.now() + 5000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('tcp.authentificate on our ADNL server', () => {
  it('lets a client with its own key authenticate, then answers its queries', async () => {
    const s = await serve(77);
    const seed = randomBytes(32);
    const c = await AdnlClient.connect({ host: s.host, port: s.port, publicKey: s.publicKey, authenticateWith: seed });
    open.push(c);
    expect((await c.query('getMasterchainInfo', {})).last).toEqual(mcBlock(77));
    const id = keyId(ed25519.getPublicKey(seed)).toString('hex');
    await until(() => s.logs.some((l) => l.message.endsWith(`client authenticated as key id ${id}`)), 'the authentication log');
    expect(s.logs.filter((l) => l.level === 'warn')).toEqual([]);
  });

  it('answers tcp.authentificate with its own 256-byte nonce and accepts a signature over both nonces', async () => {
    const s = await serve();
    const r = await raw(s);
    const clientNonce = randomBytes(32);
    r.send({ kind: 'authenticate', nonce: clientNonce });
    const answer = await r.next();
    expect(answer).toMatchObject({ kind: 'authNonce' });
    const serverNonce = (answer as { nonce: Buffer }).nonce;
    expect(serverNonce).toHaveLength(256);
    const seed = randomBytes(32);
    const publicKey = Buffer.from(ed25519.getPublicKey(seed));
    r.send({ kind: 'authComplete', publicKey, signature: Buffer.from(ed25519.sign(Buffer.concat([clientNonce, serverNonce]), seed)) });
    r.send({ kind: 'ping', randomId: 5n });
    expect(await r.next()).toEqual({ kind: 'pong', randomId: 5n });
  });

  it('refuses a bad signature: the connection closes and a warning names the peer', async () => {
    const s = await serve();
    for (const forge of ['server nonce only', 'another key'] as const) {
      const r = await raw(s);
      const clientNonce = randomBytes(32);
      r.send({ kind: 'authenticate', nonce: clientNonce });
      const serverNonce = ((await r.next()) as { nonce: Buffer }).nonce;
      const seed = randomBytes(32);
      const publicKey = Buffer.from(ed25519.getPublicKey(forge === 'another key' ? randomBytes(32) : seed));
      const signed = forge === 'server nonce only' ? serverNonce : Buffer.concat([clientNonce, serverNonce]);
      r.send({ kind: 'authComplete', publicKey, signature: Buffer.from(ed25519.sign(signed, seed)) });
      r.send({ kind: 'ping', randomId: 6n });
      expect(await r.next(), forge).toBe('closed');
    }
    const warnings = s.logs.filter((l) => l.level === 'warn');
    expect(warnings).toHaveLength(2);
    for (const w of warnings) {
      expect(w.peer).toMatch(/^127\.0\.0\.1:\d+$/);
      expect(w.message).toMatch(new RegExp(`^liteserver connection ${w.peer}: tcp.authentificationComplete: bad signature for key id [0-9a-f]{64}$`));
    }
  });

  it('refuses a second tcp.authentificate and a completion that was never asked for', async () => {
    const s = await serve();
    const twice = await raw(s);
    twice.send({ kind: 'authenticate', nonce: randomBytes(32) });
    expect(await twice.next()).toMatchObject({ kind: 'authNonce' });
    twice.send({ kind: 'authenticate', nonce: randomBytes(32) });
    expect(await twice.next()).toBe('closed');
    const unasked = await raw(s);
    unasked.send({ kind: 'authComplete', publicKey: Buffer.alloc(32, 1), signature: Buffer.alloc(64) });
    expect(await unasked.next()).toBe('closed');
    expect(s.logs.filter((l) => l.level === 'warn').map((l) => l.message.replace(/^.*?: /, ''))).toEqual([
      'duplicate tcp.authentificate',
      'tcp.authentificationComplete without tcp.authentificate first',
    ]);
  });

  it('logs a message it does not know at warning level with the peer, and closes the connection', async () => {
    const s = await serve();
    const r = await raw(s);
    r.send(Buffer.from([0x01, 0x02, 0x03, 0x04, 0, 0, 0, 0]));
    expect(await r.next()).toBe('closed');
    expect(s.logs).toEqual([expect.objectContaining({ level: 'warn', message: expect.stringMatching(/^liteserver connection 127\.0\.0\.1:\d+: ADNL: unexpected message #04030201$/) })]);
    expect(s.logs[0]!.peer).toMatch(/^127\.0\.0\.1:\d+$/);
  });
});
