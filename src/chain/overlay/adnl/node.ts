// An ADNL-over-UDP node (ton adnl/): one identity on one UDP socket, signed packets encrypted to a peer's
// key until a channel is confirmed, then channel packets; queries with retransmission and a deadline,
// custom messages, huge messages in parts. Every refused datagram is counted by reason, never thrown.
import { randomBytes } from 'node:crypto';
import { type RemoteInfo, type Socket, createSocket } from 'node:dgram';
import { LRUCache } from 'lru-cache';
import { tlRead, tlWrite } from '../../liteserver/tl/codec.js';
import {
  type AdnlMessage, type AddressList, type PacketContents, decodePacketContents, encodePacketContents, ipv4Number, packetToSign,
  readAdnlMessage, writeAdnlMessage,
} from '../tl/adnl-types.js';
import { type Identity, identity as newIdentity, keyId, openAes, openWithKey, sealAes, sealToKey, sha256, signEd25519, verifyEd25519 } from './crypto.js';
import { type PeerAddress, PeerState } from './peer.js';

/** Largest message sent whole; larger ones travel as adnl.message.part (TON's ADNL message MTU). */
export const MESSAGE_MTU = 1024;
const PART_SIZE = 768;
const MAX_DATAGRAM = 4096;

export interface AdnlNodeOptions {
  /** Our ed25519 seed; a fresh identity when absent. */
  seed?: Uint8Array;
  host?: string;
  port?: number;
  /** The address announced in our packets' address list (the public UDP address). */
  publicAddress?: PeerAddress;
  maxPeers?: number;
  maxPendingQueriesPerPeer?: number;
  /** Largest reassembled huge message (TON's limit, 8320 bytes, by default). */
  maxHugeMessage?: number;
  queryTimeoutMs?: number;
  /** Resend an unanswered query this often (same query id) until its deadline. */
  retransmitMs?: number;
  /** Datagrams taken per source IP per second before any decryption (TON limits decryption per IP too). */
  packetsPerSecondPerIp?: number;
  /** The socket's kernel receive buffer (default 4 MiB; the system may cap it at net.core.rmem_max). */
  receiveBufferBytes?: number;
  /** Datagram bytes taken per second from all sources together (unset: no bound). */
  bytesPerSecond?: number;
}

export interface RemotePeer {
  id: Buffer;
  publicKey?: Buffer;
  address?: PeerAddress;
}

/** Answers a query, or returns undefined to let the next handler try. */
export type QueryHandler = (peer: RemotePeer, query: Buffer) => Promise<Buffer | undefined> | Buffer | undefined;
export type MessageHandler = (peer: RemotePeer, data: Buffer) => void;

export type DropReason =
  | 'rate-limited' | 'byte-rate' | 'size' | 'unknown-destination' | 'decrypt' | 'malformed' | 'no-source' | 'unsigned' | 'bad-signature'
  | 'reinit-too-new' | 'reinit-old' | 'dst-reinit-old' | 'replayed' | 'ack-too-new' | 'huge-message' | 'unknown-answer' | 'handler-error';

export class AdnlQueryError extends Error {
  override readonly name = 'AdnlQueryError';
}

interface PendingQuery {
  peer: Buffer;
  resolve(answer: Buffer): void;
  reject(err: Error): void;
  timers: NodeJS.Timeout[];
}

export class AdnlNode {
  readonly identity: Identity;
  /** Our reinit date: the start time, in seconds. */
  readonly reinitDate = Math.floor(Date.now() / 1000);
  readonly stats = { packetsIn: 0, packetsOut: 0, messagesIn: 0, dropped: {} as Partial<Record<DropReason, number>> };
  private readonly peers = new Map<string, PeerState>();
  private readonly channels = new Map<string, PeerState>();
  private readonly pending = new Map<string, PendingQuery>();
  private readonly queryHandlers: QueryHandler[] = [];
  private readonly messageHandlers: MessageHandler[] = [];
  private readonly nopSentAt = new WeakMap<PeerState, number>();
  /** Token buckets by source IP, the oldest created leaving first. */
  private readonly ipBuckets = new LRUCache<string, { tokens: number; at: number }>({ max: 4096 });
  private closed = false;

  private constructor(
    private readonly socket: Socket,
    private readonly options: AdnlNodeOptions,
  ) {
    this.identity = newIdentity(options.seed);
    socket.on('message', (msg, rinfo) => this.onDatagram(msg, rinfo));
    socket.on('error', () => this.count('size'));
  }

  static listen(options: AdnlNodeOptions = {}): Promise<AdnlNode> {
    const socket = createSocket('udp4');
    return new Promise((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(options.port ?? 0, options.host ?? '127.0.0.1', () => {
        socket.off('error', reject);
        // bursts (FEC parts arrive together) wait in the kernel while a packet is being decrypted
        try {
          socket.setRecvBufferSize(options.receiveBufferBytes ?? 4 << 20);
        } catch {
          // the system's limit stays
        }
        resolve(new AdnlNode(socket, options));
      });
    });
  }

  get address(): PeerAddress {
    const a = this.socket.address();
    return { host: a.address, port: a.port };
  }

  get peerCount(): number {
    return this.peers.size;
  }

  /** Sets the address announced in our packets and DHT records (e.g. once the bound port is known). */
  setPublicAddress(address: PeerAddress): void {
    this.options.publicAddress = address;
  }

  /** The address list we announce (empty when no public address is configured). */
  addressList(): AddressList {
    const a = this.options.publicAddress;
    return { addrs: a ? [{ kind: 'udp', ip: ipv4Number(a.host), port: a.port }] : [], version: this.reinitDate, reinitDate: this.reinitDate, priority: 0, expireAt: 0 };
  }

  /** Makes a peer known by its ed25519 key and address; returns its short id. */
  addPeer(publicKey: Buffer, address: PeerAddress): Buffer {
    const peer = this.peer(keyId(publicKey), publicKey);
    peer.address = address;
    return peer.id;
  }

  onQuery(handler: QueryHandler): void {
    this.queryHandlers.push(handler);
  }

  onMessage(handler: MessageHandler): void {
    this.messageHandlers.push(handler);
  }

  /** Sends adnl.message.custom. */
  send(peerId: Buffer, data: Buffer): void {
    const peer = this.peers.get(peerId.toString('hex'));
    if (!peer?.address || !peer.publicKey) throw new AdnlQueryError(`ADNL: peer ${peerId.toString('hex')} has no known key or address`);
    this.sendMessage(peer, { kind: 'custom', data });
  }

  /** Sends a query and waits for its answer, resending it every retransmitMs until timeoutMs. */
  query(peerId: Buffer, data: Buffer, timeoutMs = this.options.queryTimeoutMs ?? 5000): Promise<Buffer> {
    const peer = this.peers.get(peerId.toString('hex'));
    if (!peer?.address || !peer.publicKey) return Promise.reject(new AdnlQueryError(`ADNL: peer ${peerId.toString('hex')} has no known key or address`));
    const limit = this.options.maxPendingQueriesPerPeer ?? 64;
    let mine = 0;
    for (const q of this.pending.values()) if (q.peer.equals(peerId)) mine++;
    if (mine >= limit) return Promise.reject(new AdnlQueryError(`ADNL: ${limit} queries already pending to this peer`));
    const queryId = randomBytes(32);
    const key = queryId.toString('hex');
    const message: AdnlMessage = { kind: 'query', queryId, query: data };
    return new Promise((resolve, reject) => {
      const done = () => (this.pending.get(key)?.timers.forEach(clearTimeout), this.pending.delete(key));
      const q: PendingQuery = { peer: peerId, resolve: (a) => (done(), resolve(a)), reject: (e) => (done(), reject(e)), timers: [] };
      this.pending.set(key, q);
      const every = this.options.retransmitMs ?? 1000;
      for (let t = every; t < timeoutMs; t += every) q.timers.push(setTimeout(() => this.sendMessage(peer, message), t));
      q.timers.push(setTimeout(() => q.reject(new AdnlQueryError(`ADNL: no answer from ${peerId.toString('hex').slice(0, 16)} within ${timeoutMs} ms`)), timeoutMs));
      this.sendMessage(peer, message);
    });
  }

  /** Whether we can send to a peer (its key and address are known). */
  reachable(peerId: Buffer): boolean {
    const peer = this.peers.get(peerId.toString('hex'));
    return !!peer?.address && !!peer.publicKey;
  }

  /** Whether our channel to a peer is established (both keys exchanged and used). */
  channelReady(peerId: Buffer): boolean {
    return this.peers.get(peerId.toString('hex'))?.channelReady ?? false;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const q of [...this.pending.values()]) q.reject(new AdnlQueryError('ADNL: node closed'));
    await new Promise<void>((resolve) => this.socket.close(() => resolve()));
  }

  private count(reason: DropReason): void {
    this.stats.dropped[reason] = (this.stats.dropped[reason] ?? 0) + 1;
  }

  /** The state of a peer, created (evicting the longest-silent one past maxPeers) when new. */
  private peer(id: Buffer, publicKey?: Buffer): PeerState {
    const key = id.toString('hex');
    let peer = this.peers.get(key);
    if (peer) {
      if (!peer.publicKey && publicKey) peer.publicKey = publicKey;
      return peer;
    }
    if (this.peers.size >= (this.options.maxPeers ?? 1000)) {
      // the map is kept in order of last accepted packet: its first peer is the longest silent
      const oldest = this.peers.values().next().value;
      if (oldest) this.forget(oldest);
    }
    peer = new PeerState(id, publicKey, this.identity.id, Math.floor(Date.now() / 1000));
    this.peers.set(key, peer);
    return peer;
  }

  private forget(peer: PeerState): void {
    this.peers.delete(peer.id.toString('hex'));
    if (peer.channel) this.channels.delete(peer.channel.inId.toString('hex'));
  }

  private sendMessage(peer: PeerState, message: AdnlMessage): void {
    const bytes = tlWrite((w) => writeAdnlMessage(w, message));
    if (bytes.length <= MESSAGE_MTU) return this.sendPacket(peer, [message]);
    const hash = sha256(bytes);
    for (let offset = 0; offset < bytes.length; offset += PART_SIZE) {
      this.sendPacket(peer, [{ kind: 'part', hash, totalSize: bytes.length, offset, data: bytes.subarray(offset, offset + PART_SIZE) }]);
    }
  }

  private sendPacket(peer: PeerState, messages: AdnlMessage[]): void {
    if (this.closed || !peer.address || !peer.publicKey) return;
    peer.outSeqno++;
    const rand = () => randomBytes(Math.random() < 0.5 ? 7 : 15);
    const p: PacketContents = { rand1: rand(), messages, seqno: peer.outSeqno, confirmSeqno: peer.received.highest, rand2: rand() };
    let datagram: Buffer;
    if (peer.channelReady && peer.channel) {
      datagram = Buffer.concat([peer.channel.outId, sealAes(peer.channel.outKey, encodePacketContents(p))]);
    } else {
      const handshake = peer.channelHandshake();
      if (handshake) p.messages = [...messages, handshake];
      p.from = { kind: 'ed25519', key: this.identity.publicKey };
      if (this.options.publicAddress) p.address = this.addressList();
      p.reinitDate = this.reinitDate;
      p.dstReinitDate = peer.reinitDate;
      p.signature = signEd25519(this.identity.secret, packetToSign(p));
      datagram = Buffer.concat([peer.id, sealToKey(peer.publicKey, encodePacketContents(p))]);
    }
    this.stats.packetsOut++;
    this.socket.send(datagram, peer.address.port, peer.address.host);
  }

  private onDatagram(msg: Buffer, rinfo: RemoteInfo): void {
    this.stats.packetsIn++;
    if (!this.allowIp(rinfo.address)) return this.count('rate-limited');
    if (!this.allowBytes(msg.length)) return this.count('byte-rate');
    if (msg.length < 64 || msg.length > MAX_DATAGRAM) return this.count('size');
    const head = msg.subarray(0, 32);
    const channelPeer = this.channels.get(head.toString('hex'));
    let plain: Buffer | null;
    if (channelPeer) plain = openAes(channelPeer.channel!.inKey, msg.subarray(32));
    else if (head.equals(this.identity.id)) plain = openWithKey(this.identity.secret, msg.subarray(32));
    else return this.count('unknown-destination');
    if (!plain) return this.count('decrypt');
    let p: PacketContents;
    try {
      p = decodePacketContents(plain);
    } catch {
      return this.count('malformed');
    }
    const peer = channelPeer ? this.fromChannel(channelPeer, p) : this.fromKey(p);
    if (!peer) return;
    const refusal = peer.accept(p, this.reinitDate, Math.floor(Date.now() / 1000));
    if (refusal) {
      this.count(refusal);
      if (refusal === 'dst-reinit-old') this.sendPacket(peer, [{ kind: 'nop' }]);
      return;
    }
    peer.address = { host: rinfo.address, port: rinfo.port };
    this.peers.delete(peer.id.toString('hex'));
    this.peers.set(peer.id.toString('hex'), peer);
    const hadChannel = peer.channelReady;
    for (const m of p.messages) this.deliver(peer, m);
    // The peer opened a channel and we have nothing to say: a nop carries our confirmChannel (TON: respond_with_nop).
    if (!channelPeer && !hadChannel && !peer.channelReady && p.messages.some((m) => m.kind === 'createChannel')) this.nop(peer);
  }

  /** Token bucket per source IP (decrypting costs an x25519 per packet); at most 4096 IPs remembered. */
  private bytes = { tokens: 0, at: 0 };

  /** One bucket over all sources: the inbound bandwidth the node accepts, refilled per second. */
  private allowBytes(size: number): boolean {
    const rate = this.options.bytesPerSecond;
    if (!rate) return true;
    const now = Date.now();
    const b = this.bytes;
    b.tokens = b.at === 0 ? rate : Math.min(rate, b.tokens + ((now - b.at) / 1000) * rate);
    b.at = now;
    if (b.tokens < size) return false;
    b.tokens -= size;
    return true;
  }

  private allowIp(ip: string): boolean {
    const rate = this.options.packetsPerSecondPerIp ?? 2000;
    const now = Date.now();
    let b = this.ipBuckets.peek(ip);
    if (!b) {
      b = { tokens: rate, at: now };
      this.ipBuckets.set(ip, b);
    }
    b.tokens = Math.min(rate, b.tokens + ((now - b.at) / 1000) * rate);
    b.at = now;
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }

  /** A packet on a channel: the peer is the channel's; its first use makes the channel ready. */
  private fromChannel(peer: PeerState, p: PacketContents): PeerState | null {
    if (p.fromShort && !p.fromShort.equals(peer.id)) return (this.count('malformed'), null);
    peer.channelReady = true;
    return peer;
  }

  /** A packet to our key: it must name its source key and carry that key's signature. */
  private fromKey(p: PacketContents): PeerState | null {
    const known = p.fromShort ? this.peers.get(p.fromShort.toString('hex')) : undefined;
    const key = p.from?.kind === 'ed25519' ? p.from.key : known?.publicKey;
    if (!key) return (this.count('no-source'), null);
    const id = keyId(key);
    if (p.fromShort && !p.fromShort.equals(id)) return (this.count('malformed'), null);
    if (!p.signature) return (this.count('unsigned'), null);
    if (!verifyEd25519(key, packetToSign(p), p.signature)) return (this.count('bad-signature'), null);
    return this.peer(id, key);
  }

  private nop(peer: PeerState): void {
    const now = Date.now();
    if (now - (this.nopSentAt.get(peer) ?? 0) < 200) return;
    this.nopSentAt.set(peer, now);
    this.sendPacket(peer, [{ kind: 'nop' }]);
  }

  private deliver(peer: PeerState, m: AdnlMessage, nested = false): void {
    this.stats.messagesIn++;
    const remote: RemotePeer = { id: peer.id, publicKey: peer.publicKey, address: peer.address };
    switch (m.kind) {
      case 'createChannel':
      case 'confirmChannel': {
        const { changed, previous } = peer.onChannelMessage(m);
        if (previous) this.channels.delete(previous.inId.toString('hex'));
        if (changed) this.channels.set(changed.inId.toString('hex'), peer);
        return;
      }
      case 'custom':
        for (const h of this.messageHandlers) {
          try {
            h(remote, m.data);
          } catch {
            this.count('handler-error');
          }
        }
        return;
      case 'query':
        return void this.answer(peer, remote, m.queryId, m.query);
      case 'answer': {
        const q = this.pending.get(m.queryId.toString('hex'));
        if (!q || !q.peer.equals(peer.id)) return this.count('unknown-answer');
        return q.resolve(m.answer);
      }
      case 'part':
        if (!nested) this.onPart(peer, m);
        return;
      case 'nop':
      case 'reinit':
        return;
    }
  }

  private async answer(peer: PeerState, remote: RemotePeer, queryId: Buffer, query: Buffer): Promise<void> {
    try {
      for (const h of this.queryHandlers) {
        const answer = await h(remote, query);
        if (answer) return this.sendMessage(peer, { kind: 'answer', queryId, answer });
      }
    } catch {
      this.count('handler-error');
    }
  }

  /** One huge message per peer, parts in order (adnl-peer.cpp): a new hash at offset 0 restarts it. */
  private onPart(peer: PeerState, m: Extract<AdnlMessage, { kind: 'part' }>): void {
    // TON's AdnlPeerPair::huge_packet_max_size: 8 KiB + 128
    const max = this.options.maxHugeMessage ?? 8192 + 128;
    if (m.totalSize <= 0 || m.totalSize > max) return this.count('huge-message');
    if (!peer.huge || !peer.huge.hash.equals(m.hash)) {
      if (m.offset !== 0) return this.count('huge-message');
      peer.huge = { hash: m.hash, data: Buffer.alloc(m.totalSize), offset: 0 };
    }
    const h = peer.huge;
    if (m.totalSize !== h.data.length || m.offset + m.data.length > h.data.length) return this.count('huge-message');
    if (m.offset !== h.offset) return;
    m.data.copy(h.data, h.offset);
    h.offset += m.data.length;
    if (h.offset < h.data.length) return;
    peer.huge = undefined;
    if (!sha256(h.data).equals(h.hash)) return this.count('huge-message');
    let inner: AdnlMessage;
    try {
      inner = tlRead(h.data, readAdnlMessage, 'adnl.Message');
    } catch {
      return this.count('malformed');
    }
    this.deliver(peer, inner, true);
  }
}

