import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import type { StoreLocation } from '../../src/open-store.js';
import type { Store } from '../../src/store.js';
import { type EngineName, makeEngineStore } from '../support/engines.js';
import { keyFor, load, makeApp } from '../support/helpers.js';
import {
  buildFixture,
  type Fixture,
  fixtureRecords,
  type LeadRec,
  type Model,
  Model as ModelClass,
} from '../v1/fixtures.js';

/**
 * The reliability suite's own view of who may see what (docs/v2.md "Scopes and roles",
 * v1-contract C2), worked out from the fixture's records — never from the service's code.
 */
export type Role = 'teamAdmin' | 'subteamAdmin' | 'member';

/** Identity of a lead on the wire: v1 `userId`/`id`/`epoch`, v2 `assignedMembers[0]`/`legacyLeadId`/`captureDatetime`. */
export const leadKey = (userId: number, id: string, epoch: number): string => `${userId}|${id}|${epoch}`;

export class Oracle {
  /** Leads created through v2 during a run, with the consent they were created with. */
  readonly created = new Map<string, { userId: number; locationShared: boolean }>();

  constructor(readonly model: Model) {}

  teamOf(memberId: number): number {
    return this.model.member(memberId).teamId;
  }

  role(memberId: number): Role {
    if (this.model.member(memberId).role === 'admin') return 'teamAdmin';
    return this.administered(memberId).length > 0 ? 'subteamAdmin' : 'member';
  }

  /** Subteams `memberId` administers. */
  administered(memberId: number): number[] {
    return [...this.model.subteams.values()].filter((s) => s.admins.includes(memberId)).map((s) => s.id);
  }

  subteamMembers(subteamId: number): number[] {
    return this.model.subteams.get(subteamId)?.members ?? [];
  }

  teamMembers(teamId: number): number[] {
    return [...this.model.members.values()].filter((m) => m.teamId === teamId).map((m) => m.id);
  }

  /** Members whose leads `memberId` may read at all (get by id, changes feed): the widest scope of the key. */
  visibleMembers(memberId: number): Set<number> {
    const role = this.role(memberId);
    if (role === 'teamAdmin') return new Set(this.teamMembers(this.teamOf(memberId)));
    const out = new Set([memberId]);
    for (const s of this.administered(memberId)) for (const m of this.subteamMembers(s)) out.add(m);
    return out;
  }

  /** Whether a lead (fixture or created) may carry coordinates on the wire: only with consent (C1). */
  consented(userId: number, id: string, epoch: number): boolean {
    const k = leadKey(userId, id, epoch);
    const made = this.created.get(k);
    if (made !== undefined) return made.locationShared;
    const rec = this.fixtureLead(userId, id, epoch);
    return rec?.locationShared === true;
  }

  /** Whether the lead exists at all in the model (fixture or created). */
  known(userId: number, id: string, epoch: number): boolean {
    return this.created.has(leadKey(userId, id, epoch)) || this.fixtureLead(userId, id, epoch) !== undefined;
  }

  private fixtureLead(userId: number, id: string, epoch: number): LeadRec | undefined {
    return this.model.leads.find((l) => l.userId === userId && l.id === id && l.epoch === epoch);
  }
}

export interface World {
  fx: Fixture;
  app: FastifyInstance;
  oracle: Oracle;
  /** Every member id of the fixture, plus ids that exist nowhere. */
  memberIds: number[];
  subteamIds: number[];
  teamIds: number[];
  /** v2 lead ids of every fixture lead (learned once from each team admin's feed, checked against the model). */
  leadIds: { leadId: string; userId: number }[];
  cleanup(): Promise<void>;
}

export async function buildWorld(engine: EngineName): Promise<World> {
  const fx = await buildFixture(engine);
  const app = await makeApp(fx.store);
  try {
    return await worldOn(fx, app);
  } catch (err) {
    // A half-built world must not keep the process alive with open connections.
    await app.close();
    await fx.cleanup();
    throw err;
  }
}

async function worldOn(fx: Fixture, app: FastifyInstance): Promise<World> {
  const oracle = new Oracle(fx.model);
  const leadIds: { leadId: string; userId: number }[] = [];
  // From each team admin's team search, not the change feed: on PostgreSQL the feed holds back
  // leads while any older transaction on the server is open (docs/v2.md), other tests' included.
  for (const m of fx.model.members.values()) {
    if (m.role !== 'admin') continue;
    const res = await app.inject({
      method: 'POST',
      url: '/api/pub/v2/leads/search',
      headers: { authorization: `Bearer ${fx.key(m.id)}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ filters: { teamId: m.teamId }, limit: 1000 }),
    });
    assert.equal(res.statusCode, 200, res.body);
    const leads = (
      JSON.parse(res.body) as { data: { leads: { leadId: string; assignedMembers: number[] }[] } }
    ).data.leads;
    for (const l of leads) leadIds.push({ leadId: l.leadId, userId: l.assignedMembers[0] as number });
  }
  assert.equal(leadIds.length, fx.model.leads.length, 'the team admins together see every fixture lead once');
  return {
    fx,
    app,
    oracle,
    memberIds: [...fx.model.members.keys(), 1, 999_999, 5011],
    subteamIds: [...fx.model.subteams.keys(), 1, 999_999, 5101],
    teamIds: [...fx.model.teams.keys(), 1, 999_999],
    leadIds,
    cleanup: async () => {
      await app.close();
      await fx.cleanup();
    },
  };
}

/** The v1 fixture on `engine` where a server process or the command can reach it, with a key per member. */
export async function fixtureAt(engine: EngineName): Promise<{
  location: StoreLocation;
  store: Store;
  model: Model;
  key: (memberId: number) => string;
  cleanup: () => Promise<void>;
}> {
  const made = await makeEngineStore(engine);
  const records = fixtureRecords();
  await load(made.store, records);
  const model = new ModelClass(records);
  const keys = new Map<number, string>();
  for (const id of model.members.keys())
    keys.set(id, await keyFor(made.store, { member: id, legacyV1: true }));
  return {
    location: made.location,
    store: made.store,
    model,
    key: (id) => {
      const k = keys.get(id);
      assert.ok(k, `no key for member ${id}`);
      return k;
    },
    cleanup: made.cleanup,
  };
}
