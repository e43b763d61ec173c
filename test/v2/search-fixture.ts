import type { FastifyInstance } from 'fastify';
import type { Store } from '../../src/store.js';
import { type EngineName, makeEngineStore } from '../support/engines.js';
import { keyFor, load, makeApp } from '../support/helpers.js';

/** 2025-03-10T09:00:00Z: capture times of the search fixture are T + n seconds. */
export const T = Date.parse('2025-03-10T09:00:00Z');
export const at = (s: number): number => T + s * 1000;
export const iso = (s: number): string => new Date(at(s)).toISOString();

/** Team 501: admin 5011, subteam admin 5012 (of 5101, not a member of it), members 5013 and 5014. */
export const TEAM = 501;
export const OTHER_TEAM = 502;
export const M = { admin: 5011, subAdmin: 5012, mia: 5013, max: 5014, outsider: 5021 } as const;
export const SUBTEAM = 5101;
export const OTHER_SUBTEAM = 5102;

/** Leads in storage order; a2 and a3 share a capture time (a3 stored later). */
export function searchRecords(): object[] {
  const lead = (userId: number, id: string, s: number, rest: object) => ({
    type: 'lead',
    userId,
    id,
    epoch: at(s),
    ...rest,
  });
  return [
    { type: 'team', id: TEAM, name: 'Search Co' },
    { type: 'team', id: OTHER_TEAM, name: 'Elsewhere' },
    { type: 'member', id: M.admin, teamId: TEAM, email: 'admin@search.test', role: 'admin', pid: 'p1' },
    { type: 'member', id: M.subAdmin, teamId: TEAM, email: 'sub@search.test', pid: 'p2' },
    { type: 'member', id: M.mia, teamId: TEAM, email: 'mia@search.test', pid: 'p3' },
    { type: 'member', id: M.max, teamId: TEAM, email: 'max@search.test', pid: 'p4' },
    { type: 'member', id: M.outsider, teamId: OTHER_TEAM, email: 'out@else.test', role: 'admin', pid: 'p5' },
    {
      type: 'subteam',
      id: SUBTEAM,
      teamId: TEAM,
      name: 'Field',
      members: [M.mia, M.max],
      admins: [M.subAdmin],
    },
    {
      type: 'subteam',
      id: OTHER_SUBTEAM,
      teamId: OTHER_TEAM,
      name: 'Far',
      members: [M.outsider],
      admins: [],
    },
    lead(M.mia, 'a1', 1, { isLead: true, name: 'John Smith', company: 'ACME Corp', email: 'john@acme.test' }),
    lead(M.mia, 'a2', 2, { isScan: true, name: 'José García', company: 'Globex' }),
    lead(M.max, 'a3', 2, {
      isLead: true,
      apptoapp: true,
      name: 'Micheal Jordan',
      company: 'Initech',
      email: 'MJ@Initech.test',
    }),
    lead(M.subAdmin, 'a4', 3, { isLead: true, isManual: true, name: 'Mark Mike', company: 'Acme Widgets' }),
    lead(M.admin, 'a5', 4, {
      isScan: true,
      name: 'Ana Ruiz',
      company: 'Hooli',
      email: 'ana@hooli.test',
      note: 'met jonh at the booth',
    }),
    lead(M.outsider, 'b1', 1, {
      isLead: true,
      name: 'John Smith',
      company: 'ACME Corp',
      email: 'john@acme.test',
    }),
  ];
}

export interface SearchFixture {
  store: Store;
  app: FastifyInstance;
  key: Record<keyof typeof M, string>;
  cleanup(): Promise<void>;
}

export async function buildSearchFixture(engine: EngineName): Promise<SearchFixture> {
  const { store, cleanup } = await makeEngineStore(engine);
  await load(store, searchRecords());
  const key = {} as Record<keyof typeof M, string>;
  // Legacy-granted: these members' integrations predate the v1 freeze, so they may compare with v1.
  for (const [name, id] of Object.entries(M)) {
    key[name as keyof typeof M] = await keyFor(store, { member: id, legacyV1: true });
  }
  const app = await makeApp(store);
  return {
    store,
    app,
    key,
    cleanup: async () => {
      await app.close();
      await cleanup();
    },
  };
}
