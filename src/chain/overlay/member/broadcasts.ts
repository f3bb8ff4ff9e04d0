// Receiving an overlay's broadcasts (ton overlay/broadcast-simple.cpp, broadcast-fec.cpp): dates within
// 20 s, the source's signature over overlay.broadcast.toSign{broadcast or part hash, date}, a member
// certificate when one is shown, de-duplication by broadcast hash, FEC parts gathered per broadcast until
// RaptorQ decodes them and the data matches its hash; per-peer rate limits. Refusals are counted by reason.
import { LRUCache } from 'lru-cache';
import { sha256, verifyEd25519 } from '../adnl/crypto.js';
import { FecError, RaptorQDecoder, TON_SYMBOL_SIZE, checkParams } from '../fec/raptorq.js';
import { type PublicKey } from '../tl/adnl-types.js';
import {
  type Certificate, type FecBroadcastPart, type OverlayBroadcast, type SimpleBroadcast, broadcastToSign, certificateToSign,
  fecBroadcastHash, fecPartHash, simpleBroadcastHash,
} from '../tl/overlay-types.js';
import { shortId } from '../dht/values.js';

export interface BroadcastLimits {
  /** Overlay messages accepted per peer per second (token bucket refill) and the bucket size. */
  messagesPerSecond: number;
  burst: number;
  /** FEC broadcasts being assembled at once (oldest evicted first). */
  maxFecInFlight: number;
  /** Largest FEC broadcast decoded (external messages are ≤ 64 KiB). */
  maxFecDataSize: number;
  /** Largest simple broadcast (TON's max_simple_broadcast_size). */
  maxSimpleSize: number;
  /** Broadcast hashes remembered for de-duplication. */
  maxSeen: number;
}

export const DEFAULT_BROADCAST_LIMITS: BroadcastLimits = {
  messagesPerSecond: 200, burst: 400, maxFecInFlight: 64, maxFecDataSize: 1 << 17, maxSimpleSize: 768, maxSeen: 100_000,
};

export type BroadcastDrop =
  | 'rate-limited' | 'stale-date' | 'bad-source' | 'oversized' | 'bad-certificate' | 'bad-signature'
  | 'unsupported-fec' | 'bad-fec' | 'fec-evicted' | 'fec-hash-mismatch' | 'fec-short-unknown';

export interface ReceivedBroadcast {
  data: Buffer;
  source: Buffer;
  kind: 'simple' | 'fec';
  hash: Buffer;
}

const DATE_WINDOW = 20;

interface FecInFlight {
  decoder: RaptorQDecoder;
  dataHash: Buffer;
}

export class BroadcastReceiver {
  readonly stats = { received: 0, fecParts: 0, valid: 0, duplicate: 0, fecDecodes: 0, dropped: {} as Partial<Record<BroadcastDrop, number>> };
  private readonly seen = new Map<string, number>();
  private readonly fec = new Map<string, FecInFlight>();
  /** Token buckets by neighbour, the oldest created leaving first. */
  private readonly buckets = new LRUCache<string, { tokens: number; at: number }>({ max: 4096 });

  constructor(
    private readonly overlayId: Buffer,
    private readonly limits: BroadcastLimits,
    private readonly deliver: (b: ReceivedBroadcast) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** Bytes held by FEC broadcasts in assembly (bounded by maxFecInFlight × their K + 64 symbols). */
  get fecInFlight(): number {
    return this.fec.size;
  }

  /** One overlay.Broadcast from neighbour `peer`. */
  receive(peer: Buffer, b: OverlayBroadcast): void {
    if (!this.allow(peer)) return this.drop('rate-limited');
    if (b.kind === 'broadcast') return this.simple(b);
    if (b.kind === 'broadcastFec') return this.fecPart(b);
    if (b.kind === 'broadcastFecShort') return this.drop('fec-short-unknown');
    // fec.received / fec.completed / unicast: nothing to do for a listener
  }

  private drop(reason: BroadcastDrop): void {
    this.stats.dropped[reason] = (this.stats.dropped[reason] ?? 0) + 1;
  }

  /** Token bucket per neighbour; the bucket map is bounded like the peer set above it. */
  private allow(peer: Buffer): boolean {
    const key = peer.toString('hex');
    const t = this.now();
    let b = this.buckets.peek(key);
    if (!b) {
      b = { tokens: this.limits.burst, at: t };
      this.buckets.set(key, b);
    }
    b.tokens = Math.min(this.limits.burst, b.tokens + ((t - b.at) / 1000) * this.limits.messagesPerSecond);
    b.at = t;
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }

  private dateOk(date: number): boolean {
    return Math.abs(date - this.now() / 1000) <= DATE_WINDOW;
  }

  private isSeen(hash: Buffer): boolean {
    const key = hash.toString('hex');
    const until = this.seen.get(key);
    return until !== undefined && until > this.now();
  }

  private markSeen(hash: Buffer): void {
    // a hash outlives the date window by a margin; Map order is insertion order, so the oldest go first
    this.seen.set(hash.toString('hex'), this.now() + 3 * DATE_WINDOW * 1000);
    for (const [k, until] of this.seen) {
      if (this.seen.size <= this.limits.maxSeen && until > this.now()) break;
      this.seen.delete(k);
    }
  }

  /** The source's short id, when its key and certificate are acceptable. */
  private source(src: PublicKey, cert: Certificate, size: number): Buffer | BroadcastDrop {
    if (src.kind !== 'ed25519') return 'bad-source';
    const id = shortId(src);
    if (cert.kind === 'empty') return id;
    if (cert.issuedBy.kind !== 'ed25519' || cert.expireAt < this.now() / 1000 || size > cert.maxSize) return 'bad-certificate';
    if (!verifyEd25519(cert.issuedBy.key, certificateToSign(this.overlayId, id, cert), cert.signature)) return 'bad-certificate';
    return id;
  }

  private simple(b: SimpleBroadcast): void {
    this.stats.received++;
    if (!this.dateOk(b.date)) return this.drop('stale-date');
    if (b.data.length > this.limits.maxSimpleSize) return this.drop('oversized');
    const src = this.source(b.src, b.certificate, b.data.length);
    if (typeof src === 'string') return this.drop(src);
    const hash = simpleBroadcastHash(src, b.data, b.flags);
    if (this.isSeen(hash)) return void this.stats.duplicate++;
    if (!verifyEd25519((b.src as { key: Buffer }).key, broadcastToSign(hash, b.date), b.signature)) return this.drop('bad-signature');
    this.markSeen(hash);
    this.stats.valid++;
    this.deliver({ data: b.data, source: src, kind: 'simple', hash });
  }

  private fecPart(b: FecBroadcastPart): void {
    this.stats.fecParts++;
    if (!this.dateOk(b.date)) return this.drop('stale-date');
    if (b.fec.kind !== 'raptorQ') return this.drop('unsupported-fec');
    // TON always sends 768-byte symbols (broadcast-fec.hpp); other sizes would only buy a larger K
    if (b.fec.symbolSize !== TON_SYMBOL_SIZE) return this.drop('bad-fec');
    if (b.fec.dataSize !== b.dataSize || checkParams(b.fec, this.limits.maxFecDataSize)) return this.drop('bad-fec');
    if (b.seqno < 0 || b.seqno >= b.fec.symbolsCount * 2 + 4 || b.data.length !== b.fec.symbolSize) return this.drop('bad-fec');
    const src = this.source(b.src, b.certificate, b.dataSize);
    if (typeof src === 'string') return this.drop(src);
    const hash = fecBroadcastHash(src, b.fec, b.dataHash, b.dataSize, b.flags);
    if (this.isSeen(hash)) return void this.stats.duplicate++;
    const partHash = fecPartHash(hash, sha256(b.data), b.seqno);
    if (!verifyEd25519((b.src as { key: Buffer }).key, broadcastToSign(partHash, b.date), b.signature)) return this.drop('bad-signature');
    const key = hash.toString('hex');
    let flight = this.fec.get(key);
    if (!flight) {
      if (this.fec.size >= this.limits.maxFecInFlight) {
        const [oldest, f] = this.fec.entries().next().value!;
        f.decoder.free();
        this.fec.delete(oldest);
        this.drop('fec-evicted');
      }
      flight = { decoder: new RaptorQDecoder(b.fec, this.limits.maxFecDataSize), dataHash: b.dataHash };
      this.fec.set(key, flight);
    }
    let data: Buffer | undefined;
    try {
      data = flight.decoder.add(b.seqno, b.data);
    } catch (e) {
      if (!(e instanceof FecError)) throw e;
      this.fec.delete(key);
      return this.drop('bad-fec');
    }
    if (!data) return;
    this.fec.delete(key);
    this.markSeen(hash);
    if (!sha256(data).equals(flight.dataHash)) return this.drop('fec-hash-mismatch');
    this.stats.fecDecodes++;
    this.stats.valid++;
    this.deliver({ data, source: src, kind: 'fec', hash });
  }
}
