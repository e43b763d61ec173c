import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { loadWebhookConfig } from '../../src/config.js';
import { DeliveryLoop } from '../../src/delivery/loop.js';
import type { Store } from '../../src/store.js';
import { type EngineStore, enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { eventually, load } from '../support/helpers.js';
import { endpointFor } from './endpoints.js';
import { Receiver } from './receiver.js';

/**
 * Issue 13 tests, isolation: two teams, random leads, random subscriptions (member and subteam
 * filters): no endpoint ever receives another team's lead or a lead its filters exclude, each
 * receives every lead it should, and no payload carries coordinates without consent.
 */
const SEED = Number(process.env.WEBHOOK_ISOLATION_SEED ?? Date.now() % 100_000);
let state = SEED;
const random = () => {
  state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
  return state / 2 ** 31;
};
const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)]!;

const TEAMS = [1801, 1802];
const membersOf = (t: number) => [t * 10 + 1, t * 10 + 2, t * 10 + 3];
const subteamOf = (t: number) => t * 10; // members 1 and 2 of each team

interface Sub {
  team: number;
  members: number[] | null;
  subteams: number[] | null;
  receiver: Receiver;
}

for (const engine of enginesUnderTest()) {
  describe(`webhook isolation [${engine}] (seed ${SEED})`, () => {
    let made: EngineStore;
    let store: Store;
    let loop: DeliveryLoop;
    const subs: Sub[] = [];

    before(async () => {
      made = await makeEngineStore(engine);
      store = made.store;
      await load(store, [
        ...TEAMS.map((t) => ({ type: 'team', id: t, name: `T${t}` })),
        ...TEAMS.flatMap((t) =>
          membersOf(t).map((m, i) => ({
            type: 'member',
            id: m,
            teamId: t,
            email: `m${m}@t${t}.test`,
            role: i === 0 ? 'admin' : 'member',
            pid: `p${m}`,
          })),
        ),
        ...TEAMS.map((t) => ({
          type: 'subteam',
          id: subteamOf(t),
          teamId: t,
          name: 'Sub',
          members: membersOf(t).slice(0, 2),
          admins: [],
        })),
      ]);
      const config = loadWebhookConfig({
        LEADLINE_WEBHOOK_ALLOW_PRIVATE: 'true',
        LEADLINE_WEBHOOK_POLL_MS: '10',
      });
      loop = new DeliveryLoop(store, config, pino({ level: 'silent' }));
      loop.start();
    });
    after(async () => {
      await loop.stop();
      for (const s of subs) await s.receiver.close();
      await made.cleanup();
    });

    it('every endpoint gets exactly its own team’s leads that its filters take, never coordinates without consent', async () => {
      for (let i = 0; i < 6; i++) {
        const team = pick(TEAMS);
        const kind = pick(['all', 'members', 'subteams', 'both']);
        const members = kind === 'members' || kind === 'both' ? [pick(membersOf(team))] : null;
        const subteams = kind === 'subteams' || kind === 'both' ? [subteamOf(team)] : null;
        const receiver = await Receiver.start(['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw']);
        await endpointFor(store, team, {
          url: receiver.url,
          members,
          subteams,
          secret: receiver.secrets[0]!,
          createdAt: Date.now() - 1000,
        });
        subs.push({ team, members, subteams, receiver });
      }
      const leads = Array.from({ length: 120 }, (_, i) => {
        const team = pick(TEAMS);
        const consent = random() < 0.5;
        return {
          type: 'lead',
          userId: pick(membersOf(team)),
          id: `iso-${i}`,
          epoch: 1_750_000_000_000 + i,
          isLead: true,
          lat: '48.1',
          long: '11.5',
          locationShared: consent,
        };
      });
      await load(store, leads);
      const teamOf = (member: number) => Math.floor(member / 10);
      const wants = (s: Sub, member: number) =>
        teamOf(member) === s.team &&
        ((s.members === null && s.subteams === null) ||
          (s.members?.includes(member) ?? false) ||
          (s.subteams !== null && membersOf(s.team).slice(0, 2).includes(member)));
      for (const s of subs) {
        const expected = leads.filter((l) => wants(s, l.userId)).map((l) => l.id);
        await eventually(async () => assert.equal(s.receiver.received.length, expected.length));
        const got = s.receiver.received.map((r) => r.payload.data);
        assert.deepEqual(
          got.map((d) => d.legacyLeadId).sort(),
          [...expected].sort(),
          JSON.stringify(s.members),
        );
        for (const d of got) {
          assert.equal(teamOf(d.assignedMembers[0]), s.team, 'never another team’s lead');
          const consented = leads.find((l) => l.id === d.legacyLeadId)!.locationShared;
          assert.equal(d.systemFields.location?.latitude ?? null, consented ? 48.1 : null);
          if (!consented) assert.equal(JSON.stringify(d).includes('48.1'), false, 'no coordinates anywhere');
        }
        assert.deepEqual(s.receiver.forged, []);
      }
    });
  });
}
