import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { type AddressPolicy, addressProblem, hostOf, urlProblem } from '../webhooks/address.js';

/** Every address a host name resolves to (the system resolver, as a connection would use). */
export type HostLookup = (host: string) => Promise<string[]>;

export const systemLookup: HostLookup = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/**
 * Why webhooks may not go to `url` (null: they may): its form, then every address its host
 * resolves to now. Delivery checks again against the address it connects to (connect.ts).
 */
export async function destinationProblem(
  url: string,
  policy: AddressPolicy,
  resolve: HostLookup = systemLookup,
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
