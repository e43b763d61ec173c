import { BlockList, isIP } from 'node:net';

/**
 * Where webhooks may go (docs/webhooks.md "Where webhooks may go"): `https` to public addresses only, unless the operator
 * allows `http` and private addresses (LEADLINE_WEBHOOK_ALLOW_PRIVATE, for on-premises
 * receivers and tests). Checked at registration on every address the host resolves to, and
 * again at delivery on the address actually connected to (a DNS answer can change in between).
 */

export interface AddressPolicy {
  allowPrivate: boolean;
  /** The only ports a URL may name, its scheme's default included (LEADLINE_WEBHOOK_PORTS); null: any. */
  ports: readonly number[] | null;
}

/** Special-purpose ranges (IANA IPv4 and IPv6 special-purpose address registries, RFC 6890). */
const NOT_PUBLIC = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata (169.254.169.254)
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  NOT_PUBLIC.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 127], // unspecified and loopback
  // `::/96`, `::ffff:0:0/96` and `64:ff9b::/96` carry an IPv4 address, judged by the rules above.
  ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215)
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16], // 6to4 carries an IPv4 address
  ['3fff::', 20], // documentation (RFC 9637)
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  NOT_PUBLIC.addSubnet(net, bits, 'ipv6');

/** Whether `ip` (an IPv4 or IPv6 literal) is a public unicast address. */
export function isPublicAddress(ip: string): boolean {
  const family = isIP(ip);
  if (family === 0) return false;
  if (family === 4) return !NOT_PUBLIC.check(ip, 'ipv4');
  const embedded = embeddedIpv4(ip);
  if (embedded !== null) return isPublicAddress(embedded);
  // Public IPv6 is global unicast (2000::/3, RFC 4291 §2.4) outside the special ranges above:
  // everything else — site-local fec0::/10, reserved and unassigned space — is refused.
  const first = ipv6Groups(ip)?.[0];
  return first !== undefined && (first & 0xe000) === 0x2000 && !NOT_PUBLIC.check(ip, 'ipv6');
}

/**
 * The IPv4 address an IPv6 one stands for, which the IPv4 rules then judge: IPv4-mapped
 * `::ffff:0:0/96`, IPv4-compatible `::/96` (RFC 4291 §2.5.5.1)
 * but not `::` and `::1`, and the NAT64 well-known prefix `64:ff9b::/96` (RFC 6052) — a URL
 * writes them in hex (`[::7f00:1]` for `[::127.0.0.1]`). Null for any other IPv6 address.
 */
function embeddedIpv4(ip: string): string | null {
  const g = ipv6Groups(ip);
  if (g === null) return null;
  const zeroTo = (end: number) => g.slice(0, end).every((x) => x === 0);
  const mapped = zeroTo(5) && g[5] === 0xffff;
  const compatible = zeroTo(6) && (g[6] !== 0 || g[7]! > 1);
  const nat64 = g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0);
  if (!mapped && !compatible && !nat64) return null;
  return `${g[6]! >> 8}.${g[6]! & 255}.${g[7]! >> 8}.${g[7]! & 255}`;
}

/** The eight 16-bit groups of an IPv6 literal (a zone `%eth0` ignored); null if it is not one. */
function ipv6Groups(ip: string): number[] | null {
  let text = ip.replace(/%.*$/, '');
  if (isIP(text) !== 6) return null;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted !== null) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const part = (s: string | undefined) => (s === undefined || s === '' ? [] : s.split(':'));
  const [left, right] = [part(head), part(tail)];
  const groups =
    tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return groups.map((h) => Number.parseInt(h, 16));
}

/** How an operator allows what the public-only rule refuses: said wherever it refuses. */
const ALLOWED_PRIVATE =
  'allowed only with LEADLINE_WEBHOOK_ALLOW_PRIVATE=true (receivers on your own network)';

/** Why an endpoint URL is refused before any lookup (null: acceptable so far). */
export function urlProblem(text: string, policy: AddressPolicy): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'not an absolute URL';
  }
  if (url.protocol !== 'https:' && !(policy.allowPrivate && url.protocol === 'http:')) {
    return policy.allowPrivate ? 'must be http or https' : `must be https; http is ${ALLOWED_PRIVATE}`;
  }
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  if (policy.ports !== null && !policy.ports.includes(port)) {
    const allowed = `port${policy.ports.length === 1 ? '' : 's'} ${policy.ports.join(', ')}`;
    return `port ${port} is not allowed: webhooks go to ${allowed} only (LEADLINE_WEBHOOK_PORTS)`;
  }
  if (url.username !== '' || url.password !== '') return 'must not carry credentials';
  if (url.hash !== '') return 'must not carry a fragment';
  const host = hostOf(url);
  if (isIP(host) !== 0) return addressProblem(host, policy);
  if (!/^[a-z0-9.-]+$/i.test(host) || host.endsWith('.')) return 'has an invalid host name';
  if (!policy.allowPrivate && (host === 'localhost' || host.endsWith('.localhost'))) {
    return `must be a public host; localhost is ${ALLOWED_PRIVATE}`;
  }
  return null;
}

/** The host of a URL, without the brackets of an IPv6 literal. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/** Why an address may not be connected to (null: it may). */
export function addressProblem(ip: string, policy: AddressPolicy): string | null {
  if (policy.allowPrivate || isPublicAddress(ip)) return null;
  const v4 = isIP(ip) === 6 ? embeddedIpv4(ip) : null;
  const shown = `${ip}${v4 === null ? '' : ` (${v4})`}`;
  return `resolves to ${shown}, which is not a public address; private addresses are ${ALLOWED_PRIVATE}`;
}

/** Every address a host name resolves to; the system resolver is delivery/destination.ts's. */
export type HostLookup = (host: string) => Promise<string[]>;

/**
 * Why webhooks may not go to `url` (null: they may): its form, then every address its host
 * resolves to now. Delivery checks again against the address it connects to (connect.ts).
 */
export async function destinationProblem(
  url: string,
  policy: AddressPolicy,
  resolve: HostLookup,
): Promise<string | null> {
  const problem = urlProblem(url, policy);
  if (problem !== null || policy.allowPrivate) return problem;
  const host = hostOf(new URL(url));
  if (isIP(host) !== 0) return null; // an address literal: urlProblem judged it
  let addresses: string[];
  try {
    addresses = await resolve(host);
  } catch {
    return `its host ${host} does not resolve`;
  }
  if (addresses.length === 0) return `its host ${host} does not resolve`;
  for (const a of addresses) {
    const refused = addressProblem(a, policy);
    if (refused !== null) return refused;
  }
  return null;
}
