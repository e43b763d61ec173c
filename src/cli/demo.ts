import type { Member } from '../directory/directory.js';
import { createKey } from '../keys/create-key.js';
import type { Store } from '../store.js';
import type { GlobalOptions } from './command-context.js';
import { seedStore } from './seed.js';

const DEMO = { teams: 3, membersPerTeam: 8, leads: 3000, seed: 'demo' };
/** The label of the key `npm start` makes; on a later start it tells whose key that was. */
const DEMO_LABEL = 'demo (npm start)';

interface SeededDemo {
  key: string;
  email: string;
  teamId: number;
  leads: number;
}

/** Seeds the demo data set and returns a key of the first seeded team's admin. */
export async function seedDemo(store: Store): Promise<SeededDemo> {
  const firstMember = (await store.directory.maxIds()).member + 1;
  const summary = await seedStore(store, DEMO);
  for (let id = firstMember; id < firstMember + DEMO.membersPerTeam; id++) {
    const member = await store.directory.findMember(id);
    if (member?.role === 'admin') {
      // Legacy-granted, so the demo can try v1 as well as v2 (keys made after the freeze cannot).
      const created = await createKey(store, { member: id, label: DEMO_LABEL, legacyV1: true });
      return { key: created.key, email: member.email, teamId: member.teamId, leads: summary.leads };
    }
  }
  throw new Error('the demo data set has no team admin');
}

/** `base` is the service's public URL, so the lines work as printed (the port it got on --port 0). */
export function demoBanner(base: string, demo: SeededDemo): string {
  return [
    '',
    `leadline: seeded a demo data set (${demo.leads} leads) into the empty store.`,
    `Demo API key of team admin ${demo.email} (shown once; keep it):`,
    `  ${demo.key}`,
    'Try:',
    `  curl -H "Authorization: Bearer ${demo.key}" ${base}/api/pub/leads/getLastLeadTeam`,
    'or the same with v2 (the search that replaces v1; docs at /docs/v2):',
    `  curl -H "Authorization: Bearer ${demo.key}" -H "Content-Type: application/json" ${base}/api/pub/v2/leads/search \\`,
    `    -d '{"filters":{"teamId":${demo.teamId}},"limit":1}'`,
    '',
  ].join('\n');
}

/** How many member ids, from the highest down, a start looks through for a team admin. */
const ADMIN_SEARCH_LIMIT = 500;

/**
 * The admin to offer a key for on a store that already has data: the member of the demo key
 * `npm start` made, else the team admin with the highest member id (the latest imported or
 * seeded), looked up by id among the last few hundred.
 */
export async function demoAdmin(store: Store): Promise<Member | null> {
  const demoKey = (await store.keys.list()).find((k) => k.label === DEMO_LABEL);
  const owner = demoKey === undefined ? null : await store.directory.findMember(demoKey.memberId);
  if (owner !== null) return owner;
  const highest = (await store.directory.maxIds()).member;
  for (let id = highest; id > 0 && id > highest - ADMIN_SEARCH_LIMIT; id--) {
    const member = await store.directory.findMember(id);
    if (member?.role === 'admin') return member;
  }
  return null;
}

/**
 * `npm start` on a store that already has data. A key's secret is shown once, when it is made,
 * so the demo key cannot be shown again; no new key is minted either (**leadline decision**:
 * each start would leave one more live credential nobody revokes, its secret in every captured
 * terminal). It prints the admin and the one command that makes a key for them.
 */
export function returningBanner(base: string, admin: Member | null, global: GlobalOptions): string {
  // The store this server uses, as the command line named it (DATABASE_URL is read again).
  const flags =
    global.db !== undefined
      ? ` --db ${global.db}`
      : global.databaseUrl !== undefined
        ? ' --database-url <url>'
        : '';
  const cli = `npx leadline${flags}`;
  if (admin === null) {
    return [
      '',
      'leadline: the store already has data, so no demo was seeded, and it has no team admin.',
      `Make a key for a member of yours: ${cli} keys create --member <id or e-mail>`,
      '',
    ].join('\n');
  }
  return [
    '',
    'leadline: the store already has data, so no demo was seeded and no key is shown',
    '(a key is shown once, when it is made; the demo key of an earlier start still works).',
    `Team admin: ${admin.email} (member ${admin.id}, team ${admin.teamId}). A new key for them:`,
    `  ${cli} keys create --member ${admin.email} --legacy-v1 --label "demo (npm start)"`,
    'then, with KEY set to the key it prints:',
    `  curl -H "Authorization: Bearer $KEY" ${base}/api/pub/leads/getLastLeadTeam`,
    '',
  ].join('\n');
}
