// The optional tcp.authentificate exchange after the ADNL handshake, by which a client proves it holds an
// ed25519 key (ton adnl/adnl-ext-server.cpp, adnl-ext-client.cpp): the client sends a nonce, the server
// answers with its own random nonce, the client signs client nonce ‖ server nonce and sends its key and
// the signature; the server checks it and answers nothing. tonutils-go's pool always does it.
import { randomBytes } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import type { AdnlMessage } from '../tl/envelope.js';
import { keyId } from './frame.js';

/** The server's nonce length, as TON's server draws it. */
export const SERVER_NONCE_BYTES = 256;
/** The client's nonce length, as TON's client draws it. */
export const CLIENT_NONCE_BYTES = 32;
/** The longest server nonce a client accepts (TON's client refuses longer ones). */
export const MAX_SERVER_NONCE_BYTES = 512;

/** A client broke the exchange: the server closes the connection, as TON's does (protoviolation). */
export class ClientAuthError extends Error {
  override readonly name = 'ClientAuthError';
}

/** Server side of one connection: at most one exchange, then the client's key id is known. */
export class ClientAuthServer {
  private signedNonce: Buffer | null = null;
  /** The ADNL short id of the key the client proved, once it has. */
  clientKeyId: Buffer | null = null;

  /** tcp.authentificate → the tcp.authentificationNonce to send back. */
  challenge(clientNonce: Buffer): AdnlMessage {
    if (this.signedNonce || this.clientKeyId) throw new ClientAuthError('duplicate tcp.authentificate');
    const serverNonce = randomBytes(SERVER_NONCE_BYTES);
    this.signedNonce = Buffer.concat([clientNonce, serverNonce]);
    return { kind: 'authNonce', nonce: serverNonce };
  }

  /** tcp.authentificationComplete: checks the signature over both nonces; returns the client's key id. */
  complete(publicKey: Buffer, signature: Buffer): Buffer {
    if (!this.signedNonce) throw new ClientAuthError('tcp.authentificationComplete without tcp.authentificate first');
    const message = this.signedNonce;
    this.signedNonce = null;
    let valid = false;
    try {
      valid = signature.length === 64 && ed25519.verify(signature, message, publicKey);
    } catch {
      valid = false;
    }
    if (!valid) throw new ClientAuthError(`tcp.authentificationComplete: bad signature for key id ${keyId(publicKey).toString('hex')}`);
    this.clientKeyId = keyId(publicKey);
    return this.clientKeyId;
  }
}

/** Client side: the opening message, and the signed answer to the server's nonce. */
export class ClientAuthClient {
  private readonly nonce = randomBytes(CLIENT_NONCE_BYTES);
  private readonly publicKey: Buffer;

  constructor(private readonly secretKey: Uint8Array) {
    if (secretKey.length !== 32) throw new Error(`the client's ed25519 key must be a 32-byte seed, got ${secretKey.length} bytes`);
    this.publicKey = Buffer.from(ed25519.getPublicKey(secretKey));
  }

  start(): AdnlMessage {
    return { kind: 'authenticate', nonce: this.nonce };
  }

  answer(serverNonce: Buffer): AdnlMessage {
    if (serverNonce.length === 0 || serverNonce.length > MAX_SERVER_NONCE_BYTES) {
      throw new ClientAuthError(`server nonce of ${serverNonce.length} bytes (1 to ${MAX_SERVER_NONCE_BYTES} expected)`);
    }
    const signature = Buffer.from(ed25519.sign(Buffer.concat([this.nonce, serverNonce]), this.secretKey));
    return { kind: 'authComplete', publicKey: this.publicKey, signature };
  }
}
