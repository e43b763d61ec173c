import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import fc from 'fast-check';
import { storeArgs } from '../cli/cli.js';
import { enginesUnderTest } from '../support/engines.js';
import { tamperedKey } from '../support/helpers.js';
import { startServerProcess, stopAll } from '../support/server-process.js';
import { fixtureRecords, type LeadRec } from '../v1/fixtures.js';
import { rawCaseArbitrary, sendRaw } from './fuzz-socket.js';
import { LOG_DIR, report, saveLogs } from './report.js';
import { fixtureAt } from './world.js';

/**
 * R8: server processes at LOG_LEVEL=trace through a mixed run — v1, v2 (creation with e-mails,
 * phone numbers and coordinates included), bad and misplaced keys, personal data in paths,
 * query strings and broken bodies, raw fuzz — then every log line of this run and of the other
 * reliability runs (LOG_DIR) is scanned: no e-mail, phone number, coordinate or key. Named z-…
 * because node --test runs files in name order: this one comes after every other reliability file.
 */
after(stopAll);

const PHONES = ['+4917012345678', '004915199887766', '4930123456', '4915112345678'];
const EMAILS = ['private.person@pii.test', 'someone.else@pii.test'];
const COORDS = ['47.3769', '8.5417', '-22.9068', '-43.1729'];

/** Personal data and keys the run put into the service, written as they could appear in a log line. */
function secretsOf(records: ReturnType<typeof fixtureRecords>, keys: string[]): string[] {
  // Phone numbers also as bare digits: a percent-encoded `+` (%2B) leaves them so in a path.
  const out = new Set<string>([...PHONES, ...PHONES.map((p) => p.replace(/\D/g, '')), ...EMAILS, ...COORDS]);
  for (const r of records) {
    if (r.type === 'member') out.add(r.email);
    if (r.type === 'lead') {
      const l = r as LeadRec;
      for (const f of ['email', 'number', 'lat', 'long'] as const) {
        const v = l[f];
        if (typeof v === 'string' && v.replace(/[^0-9]/g, '').length >= 4) {
          out.add(v);
          // A coordinate as the number v2 writes (52.5200 → 52.52).
          if ((f === 'lat' || f === 'long') && String(Number(v)).replace(/[^0-9]/g, '').length >= 4)
            out.add(String(Number(v)));
        }
      }
      if (typeof l.email === 'string') out.add(l.email);
    }
  }
  for (const k of keys) {
    out.add(k);
    out.add(k.slice(4, 20)); // any long piece of a key's secret part
    out.add(k.slice(-16));
  }
  return [...out];
}

for (const engine of enginesUnderTest()) {
  describe(`R8 logs at every level (${engine})`, () => {
    test('a mixed run at LOG_LEVEL=trace', async () => {
      const fx = await fixtureAt(engine);
      try {
        const server = await startServerProcess(storeArgs(fx.location), {
          LOG_LEVEL: 'trace',
          LEADLINE_RATE_LIMIT: '100000',
          LEADLINE_AUTH_FAILURE_LIMIT: '1000000',
        });
        const admin = fx.key(1011);
        const member = fx.key(1013);
        const base = server.url;
        const call = async (path: string, init: RequestInit = {}) => {
          const r = await fetch(`${base}${path}`, init);
          await r.text();
          return r.status;
        };
        const bearer = (k: string) => ({ authorization: `Bearer ${k}` });
        const json = (k: string) => ({ ...bearer(k), 'content-type': 'application/json' });
        const statuses: number[] = [];
        const v1 = '/api/pub/leads';
        for (const k of [admin, member]) {
          statuses.push(await call(`${v1}/getLastLead`, { headers: bearer(k) }));
          statuses.push(await call(`${v1}/getLastLeadTeam`, { headers: bearer(k) }));
          statuses.push(await call(`${v1}/getLastLeadSubTeam?subTeamId=2011`, { headers: bearer(k) }));
          statuses.push(await call(`${v1}/getLeadsTimeRange?start=0`, { headers: bearer(k) }));
          statuses.push(await call(`${v1}/getLeadsTimeRangeForTeam?start=0`, { headers: bearer(k) }));
          statuses.push(await call('/api/pub/v2/leads/changes?limit=1000', { headers: bearer(k) }));
        }
        // v2 creation with personal data, with and without consent to share the location.
        for (const [i, shared] of [true, false].entries())
          statuses.push(
            await call('/api/pub/v2/leads', {
              method: 'POST',
              headers: { ...json(admin), 'idempotency-key': `r8-${i}` },
              body: JSON.stringify({
                leadSource: 'BUSINESS_CARD_SCAN',
                locationShared: shared,
                systemFields: {
                  fullName: 'Private Person',
                  email: EMAILS[i],
                  phone: PHONES[i],
                  location: {
                    label: 'Somewhere',
                    latitude: Number(COORDS[2 * i]),
                    longitude: Number(COORDS[2 * i + 1]),
                  },
                },
              }),
            }),
          );
        // The same idempotency key with another body: 409.
        statuses.push(
          await call('/api/pub/v2/leads', {
            method: 'POST',
            headers: { ...json(admin), 'idempotency-key': 'r8-0' },
            body: JSON.stringify({
              leadSource: 'MANUAL',
              systemFields: { email: EMAILS[1], phone: PHONES[2] },
            }),
          }),
        );
        // Searches whose terms are personal data.
        statuses.push(
          await call('/api/pub/v2/leads/search', {
            method: 'POST',
            headers: json(admin),
            body: JSON.stringify({
              filters: { teamId: 101 },
              query: [{ fields: ['email'], value: 'greta@kunde.test', match: 'EXACT' }],
            }),
          }),
        );
        // Bad, misplaced and broken keys; personal data in paths, query strings and broken bodies.
        const bad: [string, RequestInit][] = [
          [`${v1}/getLastLead`, { headers: bearer(tamperedKey(admin)) }],
          [`${v1}/getLastLead`, { headers: { authorization: admin.slice(4) } }],
          [
            `${v1}/getLastLead`,
            { headers: { authorization: `Basic ${Buffer.from(`u:${admin}`).toString('base64')}` } },
          ],
          [`${v1}/getLastLead?api_key=${admin}`, {}],
          [
            `${v1}/getLeadsTimeRange?start=-1&email=${EMAILS[0]}&phone=${PHONES[3]}`,
            { headers: bearer(member) },
          ],
          [`/api/pub/v2/leads/${EMAILS[1]}`, { headers: bearer(admin) }],
          [`/api/pub/v2/leads/${encodeURIComponent(PHONES[0] as string)}`, { headers: bearer(admin) }],
          [`/api/pub/leads/%ZZ?email=${EMAILS[0]}&api_key=${admin}`, { headers: bearer(admin) }],
          [`/api/pub/v2/leads/${'f'.repeat(200)}?lat=${COORDS[0]}`, { headers: bearer(admin) }],
          [
            '/api/pub/v2/leads',
            {
              method: 'POST',
              headers: json(admin),
              body: `{"leadSource":"MANUAL","systemFields":{"email":"${EMAILS[1]}" "phone":"${PHONES[1]}"}}`,
            },
          ],
          [
            '/api/pub/v2/leads',
            {
              method: 'POST',
              headers: json(admin),
              body: JSON.stringify({
                leadSource: 'MANUAL',
                systemFields: { email: 7, phone: PHONES[1], extra: EMAILS[0] },
              }),
            },
          ],
          [
            '/api/pub/v2/leads/search',
            {
              method: 'POST',
              headers: json(admin),
              body: JSON.stringify({ filters: { teamId: 101 }, cursor: EMAILS[0] }),
            },
          ],
          [
            '/api/pub/v2/leads',
            { method: 'POST', headers: { ...bearer(admin), 'content-type': 'text/plain' }, body: EMAILS[0] },
          ],
          [
            '/api/pub/v2/leads/search',
            { method: 'POST', headers: json(admin), body: `{"q":"${'x'.repeat(70_000)}${EMAILS[0]}"}` },
          ],
          [`/api/pub/v2/leads/changes?cursor=${EMAILS[0]}`, { headers: bearer(admin) }],
          [
            `/api/pub/v2/leads/changes`,
            {
              headers: {
                ...bearer(admin),
                'x-forwarded-for': 'someone.else@pii.test',
                'user-agent': 'crm private.person@pii.test',
              },
            },
          ],
          [`/problems/${EMAILS[0]}`, {}],
          [`/docs/${EMAILS[0]}`, {}],
        ];
        for (const [path, init] of bad) statuses.push(await call(path, init));
        // A slice of R2's raw fuzz, with the admin's key in it.
        const cases = fc.sample(rawCaseArbitrary(admin), { numRuns: 500, seed: 8 });
        const port = Number(new URL(base).port);
        for (const c of cases) await sendRaw(port, c.bytes, 5000, !c.whole);
        const alive = server.child.exitCode === null;
        await server.stop();
        saveLogs(`R8-${engine}`, server.logs);

        // Every log line of this run and of the other runs' server processes.
        const files = existsSync(LOG_DIR) ? readdirSync(LOG_DIR).map((f) => join(LOG_DIR, f)) : [];
        const lines = files.flatMap((f) => readFileSync(f, 'utf8').split('\n').filter(Boolean));
        const secrets = secretsOf(
          fixtureRecords(),
          [...fx.model.members.keys()].map((id) => fx.key(id)),
        );
        const levels: Record<string, number> = {};
        const hits: Record<string, number> = {};
        const examples: string[] = [];
        const errorLines: Record<string, number> = {};
        let notJson = 0;
        for (const line of lines) {
          try {
            const e = JSON.parse(line) as { level?: number; msg?: string; err?: { message?: string } };
            levels[String(e.level)] = (levels[String(e.level)] ?? 0) + 1;
            if ((e.level ?? 0) >= 50) {
              const k = `${e.msg ?? ''}: ${e.err?.message ?? ''}`.slice(0, 120);
              errorLines[k] = (errorLines[k] ?? 0) + 1;
            }
          } catch {
            notJson++;
          }
          // Fastify's own response time (a float such as 11.5123) is not a coordinate.
          const scanned = line.replace(/"responseTime":[0-9.e-]+/g, '');
          const found = [
            ...secrets.filter((s) => scanned.includes(s)),
            ...(scanned.match(/llk_[0-9A-Za-z]{8,}/g) ?? []).map(() => 'a key (llk_…)'),
            ...(scanned.match(/[\w.+-]+@[\w-]+\.[\w.-]+/g) ?? []).map(() => 'an e-mail address'),
          ];
          for (const f of found) {
            hits[f] = (hits[f] ?? 0) + 1;
            if (examples.length < 10) examples.push(line.slice(0, 400));
          }
        }
        report('R8', {
          engine,
          requests: statuses.length + cases.length,
          statuses: statuses.join(','),
          logFiles: files.length,
          linesScanned: lines.length,
          levels,
          notJson,
          secretsLookedFor: secrets.length,
          hits,
          errorLines,
          examples,
        });
        assert.ok(alive);
        assert.ok(lines.length > 1000, 'logs were captured');
        assert.deepEqual(hits, {}, examples.join('\n'));
        assert.equal(notJson, 0);
      } finally {
        await fx.cleanup();
      }
    });
  });
}
