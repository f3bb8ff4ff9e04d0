// What one ADNL node remembers of one peer (ton adnl/adnl-peer.cpp): its keys and address, both reinit
// dates, sequence numbers with a 64-packet window of delivered ones, the channel once both sides have
// exchanged keys, and one huge message being reassembled. Pure state: the node does the I/O.
import { randomBytes } from 'node:crypto';
import { ed25519KeyPair } from '../../liteserver/transport/frame.js';
import { type AdnlMessage, type PacketContents } from '../tl/adnl-types.js';
import { type ChannelKeys, channelKeys } from './crypto.js';

/** Delivered sequence numbers: the highest one and a 64-bit mask below it (adnl-received-mask.h). */
export class ReceivedMask {
  private top = 0n;
  private mask = 0n;

  delivered(seqno: bigint): boolean {
    if (seqno <= 0n || seqno > this.top) return false;
    const diff = this.top - seqno;
    return diff >= 64n || (this.mask & (1n << diff)) !== 0n;
  }

  deliver(seqno: bigint): void {
    if (seqno <= 0n || this.delivered(seqno)) return;
    if (seqno <= this.top) this.mask |= 1n << (this.top - seqno);
    else {
      const shift = seqno - this.top;
      this.mask = shift >= 64n ? 1n : ((this.mask << shift) | 1n) & 0xffffffffffffffffn;
      this.top = seqno;
    }
  }

  get highest(): bigint {
    return this.top;
  }
}

export interface PeerAddress {
  host: string;
  port: number;
}

/** Why an incoming packet was dropped after decryption (the node counts each). */
export type PacketRefusal = 'reinit-too-new' | 'reinit-old' | 'replayed' | 'ack-too-new' | 'dst-reinit-old';

export class PeerState {
  address?: PeerAddress;
  /** The peer's reinit date as last seen (0: unknown). */
  reinitDate = 0;
  outSeqno = 0n;
  ackSeqno = 0n;
  received = new ReceivedMask();
  /** Our channel key pair for this peer, created with the peer and kept until it reinits. */
  private channelSeed: Buffer;
  readonly channelPublic: Buffer;
  readonly channelDate: number;
  peerChannelPublic?: Buffer;
  private peerChannelDate = 0;
  channel?: ChannelKeys;
  channelReady = false;
  /** The one adnl.message.part stream being reassembled (TON keeps one per peer too). */
  huge?: { hash: Buffer; data: Buffer; offset: number };
  lastSeen = Date.now();

  constructor(
    readonly id: Buffer,
    public publicKey: Buffer | undefined,
    private readonly localId: Buffer,
    now: number,
  ) {
    const kp = ed25519KeyPair(randomBytes(32));
    this.channelSeed = kp.secret;
    this.channelPublic = kp.publicKey;
    this.channelDate = now;
  }

  /**
   * Checks a decrypted packet's dates and sequence numbers against this peer; null when it is to be
   * delivered (and the state has taken it in), else why it is refused.
   */
  accept(p: PacketContents, ourReinitDate: number, nowSeconds: number): PacketRefusal | null {
    const reinit = p.reinitDate ?? 0;
    const dst = p.dstReinitDate ?? 0;
    if (dst > ourReinitDate) return 'reinit-too-new';
    if (reinit > nowSeconds + 60) return 'reinit-too-new';
    if (reinit > this.reinitDate) this.reinit(reinit);
    if (reinit > 0 && reinit < this.reinitDate) return 'reinit-old';
    if (dst > 0 && dst < ourReinitDate) return 'dst-reinit-old';
    const seqno = p.seqno ?? 0n;
    if (seqno > 0n && this.received.delivered(seqno)) return 'replayed';
    if ((p.confirmSeqno ?? 0n) > this.outSeqno) return 'ack-too-new';
    if (seqno > 0n) this.received.deliver(seqno);
    if ((p.confirmSeqno ?? 0n) > this.ackSeqno) this.ackSeqno = p.confirmSeqno!;
    this.lastSeen = Date.now();
    return null;
  }

  /** The peer restarted (a newer reinit date): sequence numbers and channel start over. */
  private reinit(date: number): void {
    const first = this.reinitDate === 0;
    this.reinitDate = date;
    if (first) return;
    this.outSeqno = 0n;
    this.ackSeqno = 0n;
    this.received = new ReceivedMask();
    this.channel = undefined;
    this.channelReady = false;
    this.peerChannelPublic = undefined;
    this.huge = undefined;
  }

  /** adnl.message.createChannel / confirmChannel from the peer; returns the channel when it changed. */
  onChannelMessage(m: Extract<AdnlMessage, { kind: 'createChannel' | 'confirmChannel' }>): { changed?: ChannelKeys; previous?: ChannelKeys } {
    if (m.kind === 'confirmChannel' && !m.peerKey.equals(this.channelPublic)) return {};
    const result: { changed?: ChannelKeys; previous?: ChannelKeys } = {};
    const same = this.channel && this.peerChannelPublic?.equals(m.key);
    if (!same && !(this.channel && m.date <= this.peerChannelDate)) {
      result.previous = this.channel;
      this.peerChannelPublic = m.key;
      this.peerChannelDate = m.date;
      this.channel = channelKeys(this.channelSeed, m.key, this.localId, this.id);
      this.channelReady = false;
      result.changed = this.channel;
    }
    if (m.kind === 'confirmChannel' && this.channel && this.peerChannelPublic?.equals(m.key)) this.channelReady = true;
    return result;
  }

  /** The channel message an unencrypted-channel packet carries until the channel is ready. */
  channelHandshake(): AdnlMessage | undefined {
    if (!this.channel) return { kind: 'createChannel', key: this.channelPublic, date: this.channelDate };
    if (!this.channelReady) return { kind: 'confirmChannel', key: this.channelPublic, peerKey: this.peerChannelPublic!, date: this.channelDate };
    return undefined;
  }
}
