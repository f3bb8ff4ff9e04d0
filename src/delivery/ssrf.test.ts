// Where deliveries may not go, range by range: every entry of the IANA IPv4 and IPv6 special-purpose
// address registries, multicast, the translation prefixes mapped back to IPv4, and the cloud metadata
// addresses. Each is refused with loopback not allowed; the table says what it is refused as.
import { describe, expect, it } from 'vitest';
import { checkEndpoint, classifyAddress, guardedLookup, refusalFor, type AddressClass } from './ssrf.js';

/** [registry entry, an address in it, how it is classified]. */
const SPECIAL: Array<[string, string, AddressClass]> = [
  // IANA IPv4 Special-Purpose Address Registry
  ['0.0.0.0/8 "this network"', '0.1.2.3', 'reserved'],
  ['0.0.0.0/32 "this host"', '0.0.0.0', 'reserved'],
  ['10.0.0.0/8 private-use', '10.20.30.40', 'private'],
  ['100.64.0.0/10 shared address space', '100.127.255.254', 'private'],
  ['127.0.0.0/8 loopback', '127.1.2.3', 'loopback'],
  ['169.254.0.0/16 link local', '169.254.10.10', 'link-local'],
  ['172.16.0.0/12 private-use', '172.31.255.255', 'private'],
  ['192.0.0.0/24 IETF protocol assignments', '192.0.0.100', 'reserved'],
  ['192.0.0.0/29 IPv4 service continuity prefix', '192.0.0.1', 'reserved'],
  ['192.0.0.8/32 IPv4 dummy address', '192.0.0.8', 'reserved'],
  ['192.0.0.9/32 PCP anycast', '192.0.0.9', 'reserved'],
  ['192.0.0.10/32 TURN anycast', '192.0.0.10', 'reserved'],
  ['192.0.0.170/32 NAT64/DNS64 discovery', '192.0.0.170', 'reserved'],
  ['192.0.0.171/32 NAT64/DNS64 discovery', '192.0.0.171', 'reserved'],
  ['192.0.2.0/24 TEST-NET-1', '192.0.2.55', 'reserved'],
  ['192.31.196.0/24 AS112-v4', '192.31.196.1', 'reserved'],
  ['192.52.193.0/24 AMT', '192.52.193.1', 'reserved'],
  ['192.88.99.0/24 deprecated 6to4 relay anycast', '192.88.99.1', 'reserved'],
  ['192.88.99.2/32 6a44 relay anycast', '192.88.99.2', 'reserved'],
  ['192.168.0.0/16 private-use', '192.168.100.1', 'private'],
  ['192.175.48.0/24 direct delegation AS112', '192.175.48.6', 'reserved'],
  ['198.18.0.0/15 benchmarking', '198.19.255.1', 'reserved'],
  ['198.51.100.0/24 TEST-NET-2', '198.51.100.7', 'reserved'],
  ['203.0.113.0/24 TEST-NET-3', '203.0.113.9', 'reserved'],
  ['240.0.0.0/4 reserved', '250.1.2.3', 'reserved'],
  ['255.255.255.255/32 limited broadcast', '255.255.255.255', 'reserved'],
  ['224.0.0.0/4 multicast', '239.255.255.250', 'reserved'],
  // IANA IPv6 Special-Purpose Address Registry
  ['::1/128 loopback', '::1', 'loopback'],
  ['::/128 unspecified', '::', 'reserved'],
  ['::ffff:0:0/96 IPv4-mapped (loopback inside)', '::ffff:127.0.0.1', 'loopback'],
  ['::ffff:0:0/96 IPv4-mapped (private inside, hex form)', '::ffff:a00:1', 'private'],
  ['::ffff:0:0/96 IPv4-mapped (metadata inside)', '::ffff:169.254.169.254', 'metadata'],
  ['64:ff9b::/96 IPv4-IPv6 translation (loopback inside)', '64:ff9b::7f00:1', 'loopback'],
  ['64:ff9b::/96 IPv4-IPv6 translation (link-local inside)', '64:ff9b::169.254.1.1', 'link-local'],
  ['64:ff9b:1::/48 local-use translation', '64:ff9b:1::808:808', 'reserved'],
  ['64:ff9b:1::/48 local-use translation (metadata in the last 32 bits)', '64:ff9b:1::a9fe:a9fe', 'metadata'],
  ['64:ff9b:1::/48 local-use translation (metadata in the /48 layout)', '64:ff9b:1:a9fe:a9:fe00::', 'metadata'],
  ['100::/64 discard-only', '100::1', 'reserved'],
  ['100:0:0:1::/64 dummy prefix', '100:0:0:1::1', 'reserved'],
  ['2001::/23 IETF protocol assignments', '2001:1ff::1', 'reserved'],
  ['2001::/32 Teredo', '2001:0:4136:e378:8000:63bf:3fff:fdd2', 'reserved'],
  ['2001:1::1/128 PCP anycast', '2001:1::1', 'reserved'],
  ['2001:1::2/128 TURN anycast', '2001:1::2', 'reserved'],
  ['2001:1::3/128 DNS-SD SRP anycast', '2001:1::3', 'reserved'],
  ['2001:2::/48 benchmarking', '2001:2::1', 'reserved'],
  ['2001:3::/32 AMT', '2001:3::1', 'reserved'],
  ['2001:4:112::/48 AS112-v6', '2001:4:112::1', 'reserved'],
  ['2001:10::/28 deprecated ORCHID', '2001:10::1', 'reserved'],
  ['2001:20::/28 ORCHIDv2', '2001:20::1', 'reserved'],
  ['2001:30::/28 drone remote ID', '2001:30::1', 'reserved'],
  ['2001:db8::/32 documentation', '2001:db8::1', 'reserved'],
  ['2002::/16 6to4 (public IPv4 inside)', '2002:808:808::1', 'reserved'],
  ['2002::/16 6to4 (metadata inside)', '2002:a9fe:a9fe::1', 'metadata'],
  ['2620:4f:8000::/48 direct delegation AS112', '2620:4f:8000::1', 'reserved'],
  ['3fff::/20 documentation', '3fff:fff::1', 'reserved'],
  ['5f00::/16 segment routing SIDs', '5f00::1', 'reserved'],
  ['fc00::/7 unique-local', 'fd12:3456::1', 'private'],
  ['fe80::/10 link-local unicast', 'fe80::1', 'link-local'],
  // Outside the registries but never a public destination
  ['ff00::/8 multicast', 'ff02::1', 'reserved'],
  ['fec0::/10 deprecated site-local', 'fec0::1', 'reserved'],
  ['::/96 IPv4-compatible (deprecated; loopback inside)', '::127.0.0.1', 'reserved'],
  ['::/96 IPv4-compatible (metadata inside)', '::a9fe:a9fe', 'metadata'],
  ['::ffff:0:0:0/96 IPv4-translated', '::ffff:0:7f00:1', 'loopback'],
  ['outside 2000::/3 (unallocated)', '4000::1', 'reserved'],
  // Cloud metadata and host agents
  ['AWS/GCP/Azure/OCI instance metadata', '169.254.169.254', 'metadata'],
  ['AWS ECS task metadata', '169.254.170.2', 'metadata'],
  ['Azure WireServer', '168.63.129.16', 'metadata'],
  ['Alibaba Cloud metadata', '100.100.100.200', 'metadata'],
  ['Oracle Cloud metadata', '192.0.0.192', 'metadata'],
  ['AWS IMDS over IPv6', 'fd00:ec2::254', 'metadata'],
  ['GCP metadata over IPv6', 'fd20:ce::254', 'metadata'],
  ['Azure WireServer, IPv4-mapped', '::ffff:168.63.129.16', 'metadata'],
];

describe('special-purpose addresses', () => {
  it.each(SPECIAL)('%s: %s is refused as %s', (_range, address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
    expect(refusalFor(address, false)).not.toBeNull();
    // With loopback allowed (development) only loopback and private networks open up.
    const opens = kind === 'loopback' || kind === 'private';
    expect(refusalFor(address, true) === null).toBe(opens);
  });

  it.each([
    ['8.8.8.8'],
    ['1.1.1.1'],
    ['172.32.0.1'],
    ['100.128.0.1'],
    ['198.20.0.1'],
    ['168.63.129.17'],
    ['2606:4700::1111'],
    ['2a00:1450:4001:81c::200e'],
    ['::ffff:8.8.8.8'],
    ['64:ff9b::808:808'],
  ])('%s is public', (address) => {
    expect(classifyAddress(address)).toBe('public');
    expect(refusalFor(address, false)).toBeNull();
  });

  it.each([
    ['http://[::127.0.0.1]/', /reserved or special-purpose/],
    ['http://[::ffff:127.0.0.1]/', /loopback/],
    ['http://[::ffff:0:0]/', /reserved/],
    ['http://[64:ff9b:1::7f00:1]/', /reserved/],
    ['http://168.63.129.16/', /metadata/],
    ['https://[fd00:ec2::254]/latest/meta-data/', /metadata/],
  ])('checkEndpoint refuses %s', async (url, reason) => {
    await expect(checkEndpoint(url, { allowLoopback: false })).rejects.toThrow(reason);
  });

  it('a name resolving to an IPv4-compatible loopback is refused when connecting', async () => {
    const lookup = guardedLookup({ allowLoopback: false, resolve: async () => [{ address: '::127.0.0.1', family: 6 }] });
    const err = await new Promise<NodeJS.ErrnoException | null>((resolve) => lookup('hook.example', { all: true }, (e) => resolve(e)));
    expect(err?.code).toBe('ESSRF');
  });
});
