import type { Scope } from '../directory/access.js';
import { normaliseEmail } from './email.js';
import type { StoredLead } from './lead.js';
import type { LeadStore } from './leads.port.js';

/**
 * Duplicates (docs/v2.md "Find duplicates"): leads of one scope that share a normalised e-mail
 * (trimmed, lower case) or phone (its digits, at least six). Leads linked through any shared
 * value form one group (A and B share an e-mail, B and C a phone: one group of three).
 */

export interface DuplicateGroup {
  /** The shared values that link the group, e.g. `email:anna@x.test`, `phone:4915112345`. */
  keys: string[];
  /** Oldest stored first: a natural survivor for a merge. */
  leads: StoredLead[];
}

export interface FindDuplicatesInput {
  /** Whose leads: a caller's visibleScope, or a team (the operator). */
  scope: Scope;
  /** At most this many groups, the largest first. */
  limit: number;
}

const MIN_PHONE_DIGITS = 6;

/** A lead's normalised contact keys. */
export function contactKeys(lead: StoredLead): string[] {
  const fields = JSON.parse(lead.fields) as Record<string, unknown>;
  const keys: string[] = [];
  if (typeof fields.email === 'string' && fields.email.trim() !== '')
    keys.push(`email:${normaliseEmail(fields.email)}`);
  if (typeof fields.number === 'string') {
    const digits = fields.number.replace(/\D/g, '');
    if (digits.length >= MIN_PHONE_DIGITS) keys.push(`phone:${digits}`);
  }
  return keys;
}

const SCAN_BATCH = 1000;

export async function findDuplicates(
  ports: { leads: LeadStore },
  input: FindDuplicatesInput,
): Promise<DuplicateGroup[]> {
  // Union-find over the leads, joined by each key's first lead.
  const parent: number[] = [];
  const leads: StoredLead[] = [];
  const firstWith = new Map<string, number>();
  const root = (i: number): number => {
    while (parent[i] !== i) {
      parent[i] = parent[parent[i]!]!;
      i = parent[i]!;
    }
    return i;
  };
  for await (const batch of ports.leads.scan(input.scope, SCAN_BATCH)) {
    for (const lead of batch) {
      const keys = contactKeys(lead);
      if (keys.length === 0) continue;
      const i = leads.push(lead) - 1;
      parent[i] = i;
      for (const key of keys) {
        const j = firstWith.get(key);
        if (j === undefined) firstWith.set(key, i);
        else parent[root(i)] = root(j);
      }
    }
  }
  const groups = new Map<number, DuplicateGroup>();
  for (const [key, i] of firstWith) {
    const r = root(i);
    const group = groups.get(r) ?? { keys: [], leads: [] };
    group.keys.push(key);
    groups.set(r, group);
  }
  for (let i = 0; i < leads.length; i++) groups.get(root(i))?.leads.push(leads[i]!);
  return [...groups.values()]
    .filter((g) => g.leads.length > 1)
    .map((g) => ({ keys: g.keys.filter((k) => sharedBy(k, g.leads)), leads: g.leads }))
    .sort((a, b) => b.leads.length - a.leads.length || a.leads[0]!.seq - b.leads[0]!.seq)
    .slice(0, input.limit);
}

/** Whether at least two of the group's leads have the key. */
function sharedBy(key: string, leads: StoredLead[]): boolean {
  return leads.filter((l) => contactKeys(l).includes(key)).length > 1;
}
