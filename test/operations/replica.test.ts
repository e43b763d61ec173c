import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import postgres from 'postgres';
import { KEY_MEMORY_MS } from '../../src/storage/postgres/keys.js';
import { METRICS_TOKEN, parseExposition, sampleSum } from '../metrics/scrape.js';
import { type EngineStore, makeEngineStore, testDatabaseUrl } from '../support/engines.js';
import { auth, eventually, keyFor, load } from '../support/helpers.js';
import { replicationSkip, type Standby, startStandby } from '../support/pg-standby.js';
import { type ServerProcess, startServerProcess } from '../support/server-process.js';

/**
 * Issue 3 §6: DATABASE_READ_URL sends reads to a real streaming-replication standby while it
 * keeps up, and to the primary when it lags — so a lead just written is never served stale for
 * more than a second, and a revoked key is refused at once (keys are always read from the primary).
 */
const url = testDatabaseUrl();
const lead = (id: string, epoch: number) => ({ type: 'lead', userId: 1, id, epoch, isLead: true });

describe('read replica', {
  skip: url === null ? 'needs LEADLINE_TEST_DATABASE_URL (required under CI=true)' : replicationSkip(url),
}, () => {
  let made: EngineStore;
  let standby: Standby;
  let server: ServerProcess;
  let replicaSql: postgres.Sql;
  let key: string;

  before(async () => {
    made = await makeEngineStore('postgres');
    await load(made.store, [
      { type: 'team', id: 1, name: 'T' },
      { type: 'member', id: 1, teamId: 1, email: 'a@t.test', role: 'admin', pid: '1' },
      lead('first', 1000),
    ]);
    key = await keyFor(made.store, { member: 1, legacyV1: true });
    const primary = new URL(made.location.databaseUrl!);
    standby = await startStandby(primary.hostname, Number(primary.port || 5432));
    const readUrl = standby.urlFor(made.location.databaseUrl!);
    replicaSql = postgres(readUrl, { max: 1, onnotice: () => {} });
    server = await startServerProcess(['--database-url', made.location.databaseUrl!], {
      DATABASE_READ_URL: readUrl,
      LEADLINE_METRICS_TOKEN: METRICS_TOKEN,
    });
  });

  after(async () => {
    await server?.stop();
    await replicaSql?.end();
    standby?.stop();
    await made?.cleanup();
  });

  const ready = () => fetch(`${server.url}/readyz`).then((r) => r.json() as Promise<{ replica?: string }>);
  const lastLeadId = async () => {
    const r = await fetch(`${server.url}/api/pub/leads/getLastLead`, { headers: auth(key) });
    assert.equal(r.status, 200);
    return ((await r.json()) as { id: string }[])[0]?.id;
  };
  async function until(what: () => Promise<boolean>, ms: number): Promise<number> {
    const t0 = Date.now();
    while (!(await what())) {
      if (Date.now() - t0 > ms) assert.fail(`not within ${ms} ms`);
      await new Promise((r) => setTimeout(r, 20));
    }
    return Date.now() - t0;
  }

  test('reads go to the replica while it keeps up', async () => {
    await until(async () => (await ready()).replica === 'fresh', 10_000);
    assert.equal(await lastLeadId(), 'first');
    const [row] = await replicaSql<{ n: number }[]>`SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE application_name = 'leadline' AND backend_type = 'client backend'`;
    assert.ok((row?.n ?? 0) > 0, 'the service holds connections to the standby');
  });

  test('metrics (issue 17): the replica state and lag follow the standby', async () => {
    const scrape = async () => {
      const r = await fetch(`${server.url}/metrics`, {
        headers: { authorization: `Bearer ${METRICS_TOKEN}` },
      });
      assert.equal(r.status, 200);
      return parseExposition(await r.text());
    };
    // /readyz and the gauge are read at different moments; on a loaded host the standby may lag
    // for a moment in between, so wait for the gauge itself to say fresh.
    let s = await scrape();
    await until(async () => {
      s = await scrape();
      return sampleSum(s, 'leadline_replica_state', { state: 'fresh' }) === 1;
    }, 10_000);
    assert.equal(sampleSum(s, 'leadline_replica_state', { state: 'fresh' }), 1);
    assert.equal(sampleSum(s, 'leadline_replica_state', { state: 'lagging' }), 0);
    assert.ok(sampleSum(s, 'leadline_replica_lag_seconds') < 0.5);
    await replicaSql`SELECT pg_wal_replay_pause()`;
    try {
      await load(made.store, [lead('metrics', 1500)]);
      await until(
        async () => sampleSum(await scrape(), 'leadline_replica_state', { state: 'lagging' }) === 1,
        5_000,
      );
      await new Promise((r) => setTimeout(r, 1000));
      s = await scrape();
      assert.equal(sampleSum(s, 'leadline_replica_state', { state: 'fresh' }), 0);
      assert.ok(sampleSum(s, 'leadline_replica_lag_seconds') >= 1, 'the lag grows while replay is paused');
    } finally {
      await replicaSql`SELECT pg_wal_replay_resume()`;
    }
    await until(
      async () => sampleSum(await scrape(), 'leadline_replica_state', { state: 'fresh' }) === 1,
      10_000,
    );
  });

  test('a lagging replica is bypassed: a lead just written is served within a second', async () => {
    await replicaSql`SELECT pg_wal_replay_pause()`;
    try {
      await load(made.store, [lead('second', 2000)]);
      const written = Date.now();
      const elapsed = await until(async () => (await lastLeadId()) === 'second', 1000);
      assert.ok(elapsed <= 1000, `stale for ${elapsed} ms`);
      assert.equal((await ready()).replica, 'lagging');
      assert.ok(Date.now() - written < 5000);
    } finally {
      await replicaSql`SELECT pg_wal_replay_resume()`;
    }
    await until(async () => (await ready()).replica === 'fresh', 10_000);
    assert.equal(await lastLeadId(), 'second', 'the caught-up replica serves the new lead too');
  });

  /**
   * Issue 20 §4. Right after the pause the router still counts the standby fresh (it learns of
   * the lag within 500 ms), so reads go to a standby that cannot have the lead: a search then
   * misses it, and get-by-id must ask the primary. A try where the router already moved reads to
   * the primary proves nothing about that, so it is repeated until one did not.
   */
  test('get-by-id serves a lead the standby has not replayed; search and feed catch up within 500 ms', async () => {
    const v2 = (path: string, init: RequestInit = {}) =>
      fetch(`${server.url}${path}`, {
        ...init,
        headers: { ...auth(key), 'content-type': 'application/json', ...init.headers },
      });
    const inSearch = async (id: string) => {
      const body = { filters: { teamId: 1 }, sort: { field: 'timestamp', direction: 'DESC' }, limit: 100 };
      const r = await v2('/api/pub/v2/leads/search', { method: 'POST', body: JSON.stringify(body) });
      assert.equal(r.status, 200);
      return ((await r.json()) as { data: { leads: { leadId: string }[] } }).data.leads.some(
        (l) => l.leadId === id,
      );
    };
    const inFeed = async (id: string) => {
      const r = await v2('/api/pub/v2/leads/changes?limit=1000');
      assert.equal(r.status, 200);
      return ((await r.json()) as { data: { leads: { leadId: string }[] } }).data.leads.some(
        (l) => l.leadId === id,
      );
    };
    const created: string[] = [];
    for (let attempt = 0; attempt < 5; attempt++) {
      await until(async () => (await ready()).replica === 'fresh', 10_000);
      await replicaSql`SELECT pg_wal_replay_pause()`;
      let missedBySearch: boolean;
      try {
        const body = {
          leadSource: 'MANUAL',
          captureDatetime: new Date(3_000 + attempt).toISOString(),
          systemFields: { firstName: 'Read', lastName: `Own Writes ${attempt}` },
        };
        const res = await v2('/api/pub/v2/leads', { method: 'POST', body: JSON.stringify(body) });
        assert.equal(res.status, 201);
        const id = ((await res.json()) as { data: { leadId: string } }).data.leadId;
        created.push(id);
        const got = await v2(res.headers.get('location')!);
        assert.equal(got.status, 200, 'the Location of a 201 is readable at once');
        assert.equal(((await got.json()) as { data: { leadId: string } }).data.leadId, id);
        missedBySearch = !(await inSearch(id));
        const onStandby = await replicaSql`SELECT 1 FROM leads WHERE uuid = ${id}::uuid`;
        assert.equal(onStandby.length, 0, 'the paused standby has not replayed the lead');
      } finally {
        await replicaSql`SELECT pg_wal_replay_resume()`;
      }
      const id = created.at(-1)!;
      const searchLag = await until(() => inSearch(id), 500);
      // The feed also waits for every older transaction on the server (docs/v2.md): measure the
      // replica's share from when the primary's own feed shows the lead.
      await until(
        async () =>
          (await made.store.leads.changes({ teamId: 1 }, null, 1000)).leads.some((l) => l.uuid === id),
        10_000,
      );
      const feedLag = await until(() => inFeed(id), 500);
      assert.ok(searchLag <= 500, `search ${searchLag} ms behind after replay resumed`);
      assert.ok(feedLag <= 500, `feed ${feedLag} ms behind the primary's after replay resumed`);
      if (missedBySearch) return;
    }
    assert.fail('in 5 tries, reads never went to the paused standby: get-by-id’s fallback went untested');
  });

  test('a key revoked while the replica lags is refused at once', async () => {
    await replicaSql`SELECT pg_wal_replay_pause()`;
    try {
      const { createKey } = await import('../../src/keys/create-key.js');
      const created = await createKey(made.store, { member: 1, legacyV1: true });
      const status = () =>
        fetch(`${server.url}/api/pub/leads/getLastLead`, { headers: auth(created.key) }).then(
          (r) => r.status,
        );
      assert.equal(await status(), 200, 'a key created while the replica lags works at once');
      await made.store.keys.revoke(created.id, Date.now());
      // Announced to the server's instance (NOTIFY) and read from the primary: a key read from
      // the paused replica would stay valid however long this waited.
      await eventually(async () => assert.equal(await status(), 401), KEY_MEMORY_MS);
    } finally {
      await replicaSql`SELECT pg_wal_replay_resume()`;
    }
  });
});
