import { BlockList, isIP } from 'node:net';

/**
 * Where webhooks may go (issue 13 §6): `https` to public addresses only, unless the operator
 * allows `http` and private addresses (LEADLINE_WEBHOOK_ALLOW_PRIVATE, for on-premises
 * receivers and tests). Checked at registration on every address the host resolves to, and
 * again at delivery on the address actually connected to (a DNS answer can change in between).
 */

export interface AddressPolicy {
  allowPrivate: boolean;
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
  ['64:ff9b::', 96], // NAT64 translations can reach private IPv4
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16], // 6to4 carries an IPv4 address
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  NOT_PUBLIC.addSubnet(net, bits, 'ipv6');

/** Whether `ip` (an IPv4 or IPv6 literal) is a public unicast address. */
export function isPublicAddress(ip: string): boolean {
  const family = isIP(ip);
  if (family === 0) return false;
  if (family === 6) {
    const mapped = mappedIpv4(ip);
    if (mapped !== null) return isPublicAddress(mapped);
    return !NOT_PUBLIC.check(ip, 'ipv6');
  }
  return !NOT_PUBLIC.check(ip, 'ipv4');
}

/** The IPv4 address inside an IPv4-mapped IPv6 one (`::ffff:1.2.3.4` or, as URLs write it, `::ffff:102:304`). */
function mappedIpv4(ip: string): string | null {
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (dotted !== null) return dotted[1]!;
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(ip);
  if (hex === null) return null;
  const [hi, lo] = [Number.parseInt(hex[1]!, 16), Number.parseInt(hex[2]!, 16)];
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** Why an endpoint URL is refused before any lookup (null: acceptable so far). */
export function urlProblem(text: string, policy: AddressPolicy): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'not an absolute URL';
  }
  if (url.protocol !== 'https:' && !(policy.allowPrivate && url.protocol === 'http:')) {
    return policy.allowPrivate ? 'must be http or https' : 'must be https';
  }
  if (url.username !== '' || url.password !== '') return 'must not carry credentials';
  if (url.hash !== '') return 'must not carry a fragment';
  const host = hostOf(url);
  if (isIP(host) !== 0) return addressProblem(host, policy);
  if (!/^[a-z0-9.-]+$/i.test(host) || host.endsWith('.')) return 'has an invalid host name';
  if (!policy.allowPrivate && (host === 'localhost' || host.endsWith('.localhost'))) {
    return 'must be a public host';
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
  return `resolves to ${ip}, which is not a public address`;
}
