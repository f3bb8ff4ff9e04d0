// A bare ADNL-over-TCP session for tests that must send what no well-behaved client sends (a bad
// signature, an unknown message): the handshake, then single messages out and frames in, and the close.
import { connect as tcpConnect } from 'node:net';
import { decodeAdnlMessage, encodeAdnlMessage, type AdnlMessage } from '../../src/chain/liteserver/tl/envelope.js';
import { FrameDecoder, clientHandshake, encodeFrame, sessionCiphers } from '../../src/chain/liteserver/transport/frame.js';

export interface RawAdnlSession {
  send(message: AdnlMessage | Buffer): void;
  /** The next message from the server (the handshake's empty frame is skipped), or 'closed'. */
  next(timeoutMs?: number): Promise<AdnlMessage | 'closed'>;
  /** Resolves when the server has closed the connection. */
  closed: Promise<void>;
  destroy(): void;
}

export async function rawAdnlSession(server: { host: string; port: number; publicKey: Uint8Array }): Promise<RawAdnlSession> {
  const hs = clientHandshake(server.publicKey);
  const ciphers = sessionCiphers(hs.params, 'client');
  const sock = tcpConnect({ host: server.host, port: server.port });
  await new Promise((resolve, reject) => sock.once('connect', resolve).once('error', reject));
  const decoder = new FrameDecoder();
  const frames: Buffer[] = [];
  let wake: (() => void) | null = null;
  let handshakeDone = false;
  const closed = new Promise<void>((resolve) => sock.once('close', () => (resolve(), wake?.())));
  let isClosed = false;
  void closed.then(() => (isClosed = true));
  sock.on('error', () => {});
  sock.on('data', (chunk: Buffer) => {
    for (const f of decoder.push(ciphers.rx.update(chunk))) {
      if (!handshakeDone && f.length === 0) handshakeDone = true;
      else frames.push(f);
    }
    wake?.();
  });
  sock.write(hs.packet);
  return {
    send: (message) => void sock.write(ciphers.tx.update(encodeFrame(Buffer.isBuffer(message) ? message : encodeAdnlMessage(message)))),
    next: async (timeoutMs = 5000) => {
      const deadline = Date.now() + timeoutMs;
      while (frames.length === 0 && !isClosed) {
        if (Date.now() > deadline) throw new Error(`no ADNL message within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 50);
        });
      }
      return frames.length > 0 ? decodeAdnlMessage(frames.shift()!) : 'closed';
    },
    closed,
    destroy: () => sock.destroy(),
  };
}
