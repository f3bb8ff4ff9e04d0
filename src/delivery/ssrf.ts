// Where deliveries may go. A webhook must not become a way into the service's own network (SSRF):
// endpoints whose host is, or resolves to, a loopback, private, link-local, metadata or otherwise
// special address are refused when created and again when connecting (the connection's own DNS
// lookup is checked, so a name that changes its answer later is still caught). Local development
// may allow loopback and private addresses; link-local and metadata addresses are never allowed.
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { promises as dns } from 'node:dns';

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

function list(entries: Array<[string, number, 'ipv4' | 'ipv6']>): BlockList {
  const b = new BlockList();
  for (const [net, prefix, type] of entries) b.addSubnet(net, prefix, type);
  return b;
}

const METADATA = new Set(['169.254.169.254', '169.254.170.2', '100.100.100.200', 'fd00:ec2::254']);
const LOOPBACK = list([['127.0.0.0', 8, 'ipv4'], ['::1', 128, 'ipv6']]);
const PRIVATE = list([
  ['10.0.0.0', 8, 'ipv4'],
  ['172.16.0.0', 12, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'],
  ['fc00::', 7, 'ipv6'],
]);
const LINK_LOCAL = list([['169.254.0.0', 16, 'ipv4'], ['fe80::', 10, 'ipv6']]);
const RESERVED = list([
  ['0.0.0.0', 8, 'ipv4'],
  ['192.0.0.0', 24, 'ipv4'],
  ['192.0.2.0', 24, 'ipv4'],
  ['198.18.0.0', 15, 'ipv4'],
  ['198.51.100.0', 24, 'ipv4'],
  ['203.0.113.0', 24, 'ipv4'],
  ['224.0.0.0', 4, 'ipv4'],
  ['240.0.0.0', 4, 'ipv4'],
  ['::', 128, 'ipv6'],
  ['ff00::', 8, 'ipv6'],
  ['2001:db8::', 32, 'ipv6'],
  ['100::', 64, 'ipv6'],
]);

/** The IPv4 address an IPv6 address carries (mapped ::ffff:a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16), if any. */
function embeddedIpv4(ip: string): string | null {
  const lower = ip.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::)(\d{1,3}(?:\.\d{1,3}){3})$/.exec(lower);
  if (dotted) return dotted[1]!;
  const groups = expandIpv6(lower);
  if (!groups) return null;
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
  const zeros = (from: number, to: number) => groups.slice(from, to).every((g) => g === 0);
  if (zeros(0, 5) && groups[5] === 0xffff) return v4(groups[6]!, groups[7]!);
  if (groups[0] === 0x64 && groups[1] === 0xff9b && zeros(2, 6)) return v4(groups[6]!, groups[7]!);
  if (groups[0] === 0x2002) return v4(groups[1]!, groups[2]!);
  return null;
}

function expandIpv6(ip: string): number[] | null {
  let text = ip;
  const tail = /(\d{1,3}(?:\.\d{1,3}){3})$/.exec(text);
  if (tail) {
    const [a, b, c, d] = tail[1]!.split('.').map(Number) as [number, number, number, number];
    text = text.slice(0, -tail[1]!.length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const parse = (s: string) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const head = parse(halves[0]!);
  const rest = halves.length === 2 ? parse(halves[1]!) : [];
  const fill = 8 - head.length - rest.length;
  if (fill < 0 || (halves.length === 1 && fill !== 0)) return null;
  const groups = [...head, ...new Array(halves.length === 2 ? fill : 0).fill(0), ...rest];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

/** What kind of address an IP literal is. */
export function classifyAddress(ip: string): AddressClass {
  const bare = ip.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 0) return 'reserved';
  if (family === 6) {
    const v4 = embeddedIpv4(bare);
    if (v4) return classifyAddress(v4);
  }
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (METADATA.has(bare.toLowerCase())) return 'metadata';
  if (LOOPBACK.check(bare, type)) return 'loopback';
  if (LINK_LOCAL.check(bare, type)) return 'link-local';
  if (PRIVATE.check(bare, type)) return 'private';
  if (RESERVED.check(bare, type)) return 'reserved';
  return 'public';
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
 * Checks an endpoint before it is stored: the URL form, then every address its host resolves to.
 * Returns the normalised URL string.
 */
export async function checkEndpoint(raw: string, policy: EndpointPolicy): Promise<string> {
  const url = parseEndpointUrl(raw);
  const literal = hostIpLiteral(url);
  const addresses = literal ? [literal] : await resolveAll(url.hostname, policy.resolve ?? systemResolve);
  for (const address of addresses) {
    const refusal = refusalFor(address, policy.allowLoopback);
    if (refusal) throw new EndpointRefusedError(literal ? refusal : `${url.hostname} resolves to ${refusal}`);
  }
  return url.toString();
}

async function resolveAll(hostname: string, resolve: HostResolver): Promise<string[]> {
  let found: ResolvedAddress[];
  try {
    found = await resolve(hostname);
  } catch (err) {
    throw new EndpointRefusedError(`endpoint host ${hostname} does not resolve (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  if (found.length === 0) throw new EndpointRefusedError(`endpoint host ${hostname} does not resolve`);
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
