// The TL declarations of ADNL over UDP, the DHT, overlays, FEC and the tonNode broadcasts, copied as
// facts from ton-blockchain/ton tl/generate/scheme/ton_api.tl (ca7d6e4, 2026-07-16). A constructor id
// is the crc32 of the normalized declaration (our tlId), unless the schema states `#id`.
import { declaredId } from '../../liteserver/tl/lite-schema.js';

export const DECLARATIONS = {
  // keys
  'pub.unenc': 'pub.unenc data:bytes = PublicKey',
  'pub.ed25519': 'pub.ed25519 key:int256 = PublicKey',
  'pub.aes': 'pub.aes key:int256 = PublicKey',
  'pub.overlay': 'pub.overlay name:bytes = PublicKey',

  // ADNL addresses and packets
  'adnl.id.short': 'adnl.id.short id:int256 = adnl.id.Short',
  'adnl.address.udp': 'adnl.address.udp ip:int port:int = adnl.Address',
  'adnl.address.udp6': 'adnl.address.udp6 ip:int128 port:int = adnl.Address',
  'adnl.address.tunnel': 'adnl.address.tunnel to:int256 pubkey:PublicKey = adnl.Address',
  'adnl.address.reverse': 'adnl.address.reverse = adnl.Address',
  'adnl.address.quic': 'adnl.address.quic ip:int port:int = adnl.Address',
  'adnl.addressList': 'adnl.addressList addrs:(vector adnl.Address) version:int reinit_date:int priority:int expire_at:int = adnl.AddressList',
  'adnl.node': 'adnl.node id:PublicKey addr_list:adnl.addressList = adnl.Node',
  'adnl.nodes': 'adnl.nodes nodes:(vector adnl.node) = adnl.Nodes',
  'adnl.packetContents': `adnl.packetContents
  rand1:bytes
  flags:#
  from:flags.0?PublicKey
  from_short:flags.1?adnl.id.short
  message:flags.2?adnl.Message
  messages:flags.3?(vector adnl.Message)
  address:flags.4?adnl.addressList
  priority_address:flags.5?adnl.addressList
  seqno:flags.6?long
  confirm_seqno:flags.7?long
  recv_addr_list_version:flags.8?int
  recv_priority_addr_list_version:flags.9?int
  reinit_date:flags.10?int
  dst_reinit_date:flags.10?int
  signature:flags.11?bytes
  rand2:bytes
        = adnl.PacketContents`,
  'adnl.message.createChannel': 'adnl.message.createChannel key:int256 date:int = adnl.Message',
  'adnl.message.confirmChannel': 'adnl.message.confirmChannel key:int256 peer_key:int256 date:int = adnl.Message',
  'adnl.message.custom': 'adnl.message.custom data:bytes = adnl.Message',
  'adnl.message.nop': 'adnl.message.nop = adnl.Message',
  'adnl.message.reinit': 'adnl.message.reinit date:int = adnl.Message',
  'adnl.message.query': 'adnl.message.query query_id:int256 query:bytes = adnl.Message',
  'adnl.message.answer': 'adnl.message.answer query_id:int256 answer:bytes = adnl.Message',
  'adnl.message.part': 'adnl.message.part hash:int256 total_size:int offset:int data:bytes = adnl.Message',
  'adnl.ping': 'adnl.ping value:long = adnl.Pong',
  'adnl.pong': 'adnl.pong value:long = adnl.Pong',

  // DHT
  'dht.node': 'dht.node id:PublicKey addr_list:adnl.addressList version:int signature:bytes = dht.Node',
  'dht.nodes': 'dht.nodes nodes:(vector dht.node) = dht.Nodes',
  'dht.key': 'dht.key id:int256 name:bytes idx:int = dht.Key',
  'dht.updateRule.signature': 'dht.updateRule.signature = dht.UpdateRule',
  'dht.updateRule.anybody': 'dht.updateRule.anybody = dht.UpdateRule',
  'dht.updateRule.overlayNodes': 'dht.updateRule.overlayNodes = dht.UpdateRule',
  'dht.keyDescription': 'dht.keyDescription key:dht.key id:PublicKey update_rule:dht.UpdateRule signature:bytes = dht.KeyDescription',
  'dht.value': 'dht.value key:dht.keyDescription value:bytes ttl:int signature:bytes = dht.Value',
  'dht.pong': 'dht.pong random_id:long = dht.Pong',
  'dht.valueNotFound': 'dht.valueNotFound nodes:dht.nodes = dht.ValueResult',
  'dht.valueFound': 'dht.valueFound value:dht.Value = dht.ValueResult',
  'dht.stored': 'dht.stored = dht.Stored',
  'dht.ping': 'dht.ping random_id:long = dht.Pong',
  'dht.store': 'dht.store value:dht.value = dht.Stored',
  'dht.findNode': 'dht.findNode key:int256 k:int = dht.Nodes',
  'dht.findValue': 'dht.findValue key:int256 k:int = dht.ValueResult',
  'dht.getSignedAddressList': 'dht.getSignedAddressList = dht.Node',
  'dht.query': 'dht.query node:dht.node = True',

  // overlays
  'overlay.node.toSign': 'overlay.node.toSign id:adnl.id.short overlay:int256 version:int = overlay.node.ToSign',
  'overlay.node': 'overlay.node id:PublicKey overlay:int256 version:int signature:bytes = overlay.Node',
  'overlay.nodes': 'overlay.nodes nodes:(vector overlay.node) = overlay.Nodes',
  'overlay.pong': 'overlay.pong = overlay.Pong',
  'overlay.message': 'overlay.message overlay:int256 = overlay.Message',
  'overlay.memberCertificate': 'overlay.memberCertificate issued_by:PublicKey flags:int slot:int expire_at:int signature:bytes = overlay.MemberCertificate',
  'overlay.emptyMemberCertificate': 'overlay.emptyMemberCertificate = overlay.MemberCertificate',
  'overlay.messageExtra': 'overlay.messageExtra flags:# certificate:flags.0?overlay.MemberCertificate = overlay.MessageExtra',
  'overlay.messageWithExtra': 'overlay.messageWithExtra overlay:int256 extra:overlay.messageExtra = overlay.Message',
  'overlay.queryWithExtra': 'overlay.queryWithExtra overlay:int256 extra:overlay.messageExtra = True',
  'overlay.fec.received': 'overlay.fec.received hash:int256 = overlay.Broadcast',
  'overlay.fec.completed': 'overlay.fec.completed hash:int256 = overlay.Broadcast',
  'overlay.broadcast.id': 'overlay.broadcast.id src:int256 data_hash:int256 flags:int = overlay.broadcast.Id',
  'overlay.broadcastFec.id': 'overlay.broadcastFec.id src:int256 type:int256 data_hash:int256 size:int flags:int = overlay.broadcastFec.Id',
  'overlay.broadcastFec.partId': 'overlay.broadcastFec.partId broadcast_hash:int256 data_hash:int256 seqno:int = overlay.broadcastFec.PartId',
  'overlay.broadcast.toSign': 'overlay.broadcast.toSign hash:int256 date:int = overlay.broadcast.ToSign',
  'overlay.certificate': 'overlay.certificate issued_by:PublicKey expire_at:int max_size:int signature:bytes = overlay.Certificate',
  'overlay.certificateV2': 'overlay.certificateV2 issued_by:PublicKey expire_at:int max_size:int flags:int signature:bytes = overlay.Certificate',
  'overlay.emptyCertificate': 'overlay.emptyCertificate = overlay.Certificate',
  'overlay.certificateId': 'overlay.certificateId overlay_id:int256 node:int256 expire_at:int max_size:int = overlay.CertificateId',
  'overlay.certificateIdV2': 'overlay.certificateIdV2 overlay_id:int256 node:int256 expire_at:int max_size:int flags:int = overlay.CertificateId',
  'overlay.unicast': 'overlay.unicast data:bytes = overlay.Broadcast',
  'overlay.broadcast': 'overlay.broadcast src:PublicKey certificate:overlay.Certificate flags:int data:bytes date:int signature:bytes = overlay.Broadcast',
  'overlay.broadcastFec': `overlay.broadcastFec src:PublicKey certificate:overlay.Certificate data_hash:int256 data_size:int flags:int
          data:bytes seqno:int fec:fec.Type date:int signature:bytes = overlay.Broadcast`,
  'overlay.broadcastFecShort': 'overlay.broadcastFecShort src:PublicKey certificate:overlay.Certificate broadcast_hash:int256 part_data_hash:int256 seqno:int signature:bytes = overlay.Broadcast',
  'overlay.broadcastNotFound': 'overlay.broadcastNotFound = overlay.Broadcast',
  'overlay.getRandomPeers': 'overlay.getRandomPeers peers:overlay.nodes = overlay.Nodes',
  'overlay.ping': 'overlay.ping = overlay.Pong',
  'overlay.query': 'overlay.query overlay:int256 = True',
  'overlay.getBroadcast': 'overlay.getBroadcast hash:int256 = overlay.Broadcast',

  // FEC
  'fec.raptorQ': 'fec.raptorQ data_size:int symbol_size:int symbols_count:int = fec.Type',
  'fec.roundRobin': 'fec.roundRobin data_size:int symbol_size:int symbols_count:int = fec.Type',
  'fec.online': 'fec.online data_size:int symbol_size:int symbols_count:int = fec.Type',

  // the full node's public overlay
  'tonNode.shardPublicOverlayId': 'tonNode.shardPublicOverlayId workchain:int shard:long zero_state_file_hash:int256 = tonNode.ShardPublicOverlayId',
  'tonNode.externalMessage': 'tonNode.externalMessage data:bytes = tonNode.ExternalMessage',
  'tonNode.externalMessageBroadcast': 'tonNode.externalMessageBroadcast message:tonNode.externalMessage = tonNode.Broadcast',
  'tonNode.capabilities': 'tonNode.capabilities#f5bf60c0 version_major:int version_minor:int flags:# = tonNode.Capabilities',
  'tonNode.getCapabilities': 'tonNode.getCapabilities = tonNode.Capabilities',
} as const;

export type OverlayTLName = keyof typeof DECLARATIONS;

/** Constructor id by TL name. */
export const ID = Object.fromEntries(
  Object.entries(DECLARATIONS).map(([name, decl]) => [name, declaredId(decl)]),
) as Record<OverlayTLName, number>;

/** TL name by constructor id, for error messages. */
export const NAME_BY_ID: ReadonlyMap<number, OverlayTLName> = new Map(
  (Object.keys(ID) as OverlayTLName[]).map((name) => [ID[name], name]),
);

/** `name #id` for an error message. */
export function describeOverlayId(id: number): string {
  return `${NAME_BY_ID.get(id >>> 0) ?? 'unknown'} #${(id >>> 0).toString(16).padStart(8, '0')}`;
}
