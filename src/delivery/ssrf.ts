// Where deliveries may go. A webhook must not become a way into the service's own network (SSRF):
// endpoints whose host is, or resolves to, a loopback, private, link-local, metadata or otherwise
// special-purpose address (IANA registries) are refused when created and again when connecting (the
// connection's own DNS lookup is checked, so a name that changes its answer later is still caught; a
// name that does not resolve when created is accepted for the same reason).
// Local development may allow loopback and private addresses; link-local, metadata and other
// special-purpose addresses are never allowed.
import { isIP, type LookupFunction } from 'node:net';
import { promises as dns } from 'node:dns';
import ipaddr from 'ipaddr.js';

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

export type AddressClass = 'public' | 'loopback' | 'private' | 'link-local' | 'metadata' | 'reserved';

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to every address it has (dns.lookup with all: true by default). */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

export interface EndpointPolicy {
  /** Allow loopback and private addresses (development; the devnet default). */
  allowLoopback: boolean;
  /** Injectable for tests; the system resolver otherwise. */
  resolve?: HostResolver;
}

/** An endpoint URL that is not allowed; `reason` says why in words. */
export class EndpointRefusedError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'EndpointRefusedError';
  }
}

// Ranges come from ipaddr.js, which follows the IANA IPv4 and IPv6 special-purpose registries; what it
// lacks is below. Translation prefixes carry an IPv4 address, classified in its place.
const CLASS_RANK: Record<AddressClass, number> = { public: 0, private: 1, loopback: 2, reserved: 3, 'link-local': 4, metadata: 5 };
const stricter = (a: AddressClass, b: AddressClass): AddressClass => (CLASS_RANK[a] >= CLASS_RANK[b] ? a : b);

/** Cloud instance metadata, DNS, time and host-agent addresses (AWS, GCP, Azure WireServer, Alibaba, Oracle, Tencent). */
const METADATA = new Set(
  [
    '169.254.169.254', '169.254.169.253', '169.254.169.123', '169.254.170.2', '169.254.170.23', '169.254.0.23',
    '168.63.129.16', '100.100.100.200', '192.0.0.192',
    'fd00:ec2::254', 'fd00:ec2::253', 'fd00:ec2::123', 'fd00:ec2::23', 'fd20:ce::254',
  ].map((a) => ipaddr.parse(a).toNormalizedString()),
);

/** Only 2000::/3 is allocated for global unicast; the rest of the IPv6 space is reserved or special. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3') as [IPv6, number];
const NAT64_LOCAL_USE = ipaddr.parseCIDR('64:ff9b:1::/48') as [IPv6, number];

function v4Class(ip: IPv4): AddressClass {
  if (METADATA.has(ip.toNormalizedString())) return 'metadata';
  switch (ip.range()) {
    case 'unicast':
      return 'public';
    case 'private':
    case 'carrierGradeNat':
      return 'private';
    case 'loopback':
      return 'loopback';
    case 'linkLocal':
      return 'link-local';
    default:
      return 'reserved';
  }
}

const v4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);

function v6Class(ip: IPv6): AddressClass {
  if (METADATA.has(ip.toNormalizedString())) return 'metadata';
  const p = ip.parts;
  const last32 = v4(p[6]!, p[7]!);
  const range = ip.range();
  switch (range) {
    case 'ipv4Mapped': // ::ffff:0:0/96
    case 'rfc6145': // ::ffff:0:0:0/96, IPv4-translated
      return v4Class(last32);
    case 'rfc6052':
      // 64:ff9b::/96 carries the address in its last 32 bits; the local-use 64:ff9b:1::/48 is not global.
      if (!ip.match(NAT64_LOCAL_USE)) return v4Class(last32);
      return [last32, v4(p[3]!, ((p[4]! & 0xff) << 8) | (p[5]! >> 8))].map(v4Class).reduce(stricter, 'reserved');
    case '6to4': // 2002:AABB:CCDD::/48
      return stricter('reserved', v4Class(v4(p[1]!, p[2]!)));
    case 'loopback':
      return 'loopback';
    case 'linkLocal':
      return 'link-local';
    case 'uniqueLocal':
      return 'private';
    case 'unicast':
      // ::/96 minus :: and ::1 is the deprecated IPv4-compatible form (::a.b.c.d).
      if (p.slice(0, 6).every((g) => g === 0)) return stricter('reserved', v4Class(last32));
      return ip.match(GLOBAL_UNICAST_V6) ? 'public' : 'reserved';
    default:
      return 'reserved';
  }
}

/** What kind of address an IP literal is. */
export function classifyAddress(ip: string): AddressClass {
  const bare = ip.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  // node:net accepts only the dotted-quad IPv4 form; ipaddr.js would also read 0x7f.1 and friends.
  const family = isIP(bare);
  if (family === 4) return v4Class(ipaddr.IPv4.parse(bare));
  if (family === 0) return 'reserved';
  // ipaddr.js reads "::127.0.0.1" as ::ffff:127.0.0.1; the URL parser writes every IPv6 form in hex.
  return v6Class(ipaddr.IPv6.parse(new URL(`http://[${bare}]/`).hostname.slice(1, -1)));
}

/** Null when deliveries may go to `ip`; otherwise why not. */
export function refusalFor(ip: string, allowLoopback: boolean): string | null {
  const kind = classifyAddress(ip);
  if (kind === 'public') return null;
  if (allowLoopback && (kind === 'loopback' || kind === 'private')) return null;
  const what: Record<Exclude<AddressClass, 'public'>, string> = {
    loopback: 'a loopback address',
    private: 'a private network address',
    'link-local': 'a link-local address',
    metadata: 'a cloud metadata address',
    reserved: 'a reserved or special-purpose address',
  };
  const hint = kind === 'loopback' || kind === 'private' ? ' (set TONWATCH_WEBHOOK_ALLOW_LOOPBACK=true for local development)' : '';
  return `${ip} is ${what[kind]}; webhooks may only reach public addresses${hint}`;
}

export const MAX_ENDPOINT_URL_LENGTH = 2048;

/** Checks the form of an endpoint URL; returns it normalised, or throws EndpointRefusedError. */
export function parseEndpointUrl(raw: string): URL {
  if (typeof raw !== 'string' || raw.trim() === '') throw new EndpointRefusedError('endpoint must be a non-empty URL');
  if (raw.length > MAX_ENDPOINT_URL_LENGTH) throw new EndpointRefusedError(`endpoint must be at most ${MAX_ENDPOINT_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new EndpointRefusedError('endpoint must be an absolute http:// or https:// URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new EndpointRefusedError(`endpoint must use http or https, not ${url.protocol.replace(/:$/, '')}`);
  }
  if (!url.hostname) throw new EndpointRefusedError('endpoint must name a host');
  if (url.username || url.password) throw new EndpointRefusedError('endpoint must not carry credentials; deliveries authenticate with the webhook token');
  if (url.hash) throw new EndpointRefusedError('endpoint must not have a #fragment');
  return url;
}

const systemResolve: HostResolver = async (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

/** The URL's host as an IP literal (brackets removed), or null for a name. */
export function hostIpLiteral(url: URL): string | null {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return isIP(host) ? host : null;
}

/**
 * Checks an endpoint before it is stored: the URL form, then every address its host resolves to now.
 * A name that does not resolve now is accepted: every connection checks its own DNS answer
 * (`guardedLookup`), so it can never reach a refused address later, and a receiver whose DNS record
 * comes after its webhook (or a resolver that is down for a moment) is not turned away.
 * Returns the normalised URL string.
 */
export async function checkEndpoint(raw: string, policy: EndpointPolicy): Promise<string> {
  const url = parseEndpointUrl(raw);
  const literal = hostIpLiteral(url);
  const addresses = literal ? [literal] : await resolveNow(url.hostname, policy.resolve ?? systemResolve);
  for (const address of addresses) {
    const refusal = refusalFor(address, policy.allowLoopback);
    if (refusal) throw new EndpointRefusedError(literal ? refusal : `${url.hostname} resolves to ${refusal}`);
  }
  return url.toString();
}

/** The addresses a name has now; none when it does not resolve (checked again at every connect). */
async function resolveNow(hostname: string, resolve: HostResolver): Promise<string[]> {
  const found: ResolvedAddress[] = await resolve(hostname).catch(() => []);
  return found.map((a) => a.address);
}

/**
 * A `lookup` for outgoing connections: resolves like the system, then refuses the connection when
 * any address is not allowed — checked at connect time, so DNS answers that change are caught too.
 */
export function guardedLookup(policy: EndpointPolicy): LookupFunction {
  const resolve = policy.resolve ?? systemResolve;
  return ((hostname: string, options: { all?: boolean } | number | undefined, callback: (...args: unknown[]) => void) => {
    const cb = typeof options === 'function' ? (options as unknown as typeof callback) : callback;
    const all = typeof options === 'object' && options !== null && options.all === true;
    resolve(hostname).then(
      (addresses) => {
        for (const a of addresses) {
          const refusal = refusalFor(a.address, policy.allowLoopback);
          if (refusal) return cb(Object.assign(new Error(`refused: ${hostname} resolves to ${refusal}`), { code: 'ESSRF' }));
        }
        if (addresses.length === 0) return cb(Object.assign(new Error(`${hostname} does not resolve`), { code: 'ENOTFOUND' }));
        if (all) cb(null, addresses);
        else cb(null, addresses[0]!.address, addresses[0]!.family);
      },
      (err) => cb(err),
    );
  }) as LookupFunction;
}
