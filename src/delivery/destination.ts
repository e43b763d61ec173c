import { lookup } from 'node:dns/promises';
import type { AddressPolicy } from '../webhooks/address.js';
import { type HostLookup, destinationProblem as problemWith } from '../webhooks/address.js';

export type { HostLookup } from '../webhooks/address.js';

/** Every address a host name resolves to (the system resolver, as a connection would use). */
export const systemLookup: HostLookup = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** webhooks/address.ts `destinationProblem`, resolving with the system resolver unless told. */
export function destinationProblem(
  url: string,
  policy: AddressPolicy,
  resolve: HostLookup = systemLookup,
): Promise<string | null> {
  return problemWith(url, policy, resolve);
}
