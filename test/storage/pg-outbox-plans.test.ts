import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import postgres, { type Sql } from 'postgres';
import { PostgresDeliveryStore } from '../../src/storage/postgres/deliveries.js';
import { int8AsNumber, OUTBOX_SERVER_PARAMS } from '../../src/storage/postgres/store.js';
import type { Store } from '../../src/store.js';
import type { ClaimedDelivery } from '../../src/webhooks/delivery.js';
import { makeEngineStore, testDatabaseUrl } from '../support/engines.js';
import { load } from '../support/helpers.js';
import { endpointFor } from '../webhooks/endpoints.js';

/**
 * Issue 43's P7 on PostgreSQL: the outbox's steps read a batch's worth of rows, whatever the
 * backlog and whatever the planner knows of it. The steps run first while the outbox is nearly
 * empty (where a prepared statement's generic plan used to be made and then kept), then against
 * a backlog of BACKLOG events and deliveries that no ANALYZE has seen (as where autovacuum is
 * off). Each statement's real plan comes from auto_explain (log_analyze, JSON, sent to this client
 * as a notice) on the store's connection, which has the outbox pool's own settings; the rows its
 * scans of the outbox tables returned or filtered out are added up.
 */
const BACKLOG = 12_000;
const OUTBOX_TABLES = new Set(['webhook_events', 'webhook_deliveries']);

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

/** Rows the plan's scans of the outbox tables went through. */
function outboxRowsRead(node: PlanNode): number {
  const own =
    node['Relation Name'] !== undefined &&
    OUTBOX_TABLES.has(node['Relation Name']) &&
    node['Node Type'].includes('Scan')
      ? ((node['Actual Rows'] ?? 0) +
          (node['Rows Removed by Filter'] ?? 0) +
          (node['Rows Removed by Index Recheck'] ?? 0)) *
        (node['Actual Loops'] ?? 1)
      : 0;
  return own + (node.Plans ?? []).reduce((n, p) => n + outboxRowsRead(p), 0);
}

describe('PostgreSQL outbox plans (issue 43 P7)', {
  skip: testDatabaseUrl() === null ? 'needs LEADLINE_TEST_DATABASE_URL (required under CI=true)' : false,
}, () => {
  let store: Store;
  let sql: Sql;
  let deliveries: PostgresDeliveryStore;
  let cleanup: () => Promise<void>;
  /** The plans auto_explain sent since the last `plans()`: statement text and the plan's root. */
  let explained: { text: string; plan: PlanNode }[] = [];
  const plans = () => {
    const got = explained;
    explained = [];
    return got;
  };
  let serial = 0;
  const leads = (n: number) =>
    Array.from({ length: n }, () => {
      serial += 1;
      return { type: 'lead', userId: 11, id: `p-${serial}`, epoch: 1_750_000_000_000 + serial, isLead: true };
    });

  before(async () => {
    const made = await makeEngineStore('postgres');
    store = made.store;
    cleanup = made.cleanup;
    sql = postgres(made.location.databaseUrl!, {
      max: 1,
      types: { int8: int8AsNumber },
      onnotice: (n) => {
        const message = n.message ?? '';
        const at = message.indexOf('{');
        if (!message.startsWith('duration:') || at < 0) return;
        const doc = JSON.parse(message.slice(at)) as { 'Query Text': string; Plan: PlanNode };
        explained.push({ text: doc['Query Text'], plan: doc.Plan });
      },
      connection: {
        ...OUTBOX_SERVER_PARAMS,
        session_preload_libraries: 'auto_explain',
        'auto_explain.log_min_duration': '0',
        'auto_explain.log_analyze': 'on',
        'auto_explain.log_timing': 'off',
        'auto_explain.log_format': 'json',
        'auto_explain.log_level': 'notice',
      },
    });
    deliveries = new PostgresDeliveryStore(sql);
    await load(store, [
      { type: 'team', id: 1, name: 'T' },
      { type: 'member', id: 11, teamId: 1, email: 'm@example.test', role: 'admin', pid: 'p' },
    ]);
    await endpointFor(store, 1, { createdAt: Date.now() - 1000 });
  });
  after(async () => {
    await sql?.end();
    await cleanup?.();
  });

  /** One round of the loop's steps: dispatch, claim, record (delivered). */
  async function round(now: number): Promise<ClaimedDelivery[]> {
    await deliveries.dispatch(deliveries.dispatchBatch, now);
    const claimed = await deliveries.claim(64, now, { perTeam: 32, held: new Map() });
    await deliveries.recordAttempts(
      claimed.map((delivery) => ({
        delivery,
        result: { at: now, status: 200, latencyMs: 1, answer: '' },
        outcome: { kind: 'delivered' as const },
      })),
    );
    return claimed;
  }

  it('dispatch, claim and record read a batch, not the backlog', async () => {
    // Nearly empty: ten rounds, more than the five after which a generic plan is weighed.
    for (let i = 0; i < 10; i++) {
      await load(store, leads(3));
      await round(Date.now());
    }
    await load(store, leads(BACKLOG));
    plans();
    const now = Date.now() + 1000;
    // The first batch with BACKLOG events waiting; then the rest dispatched, unobserved, so that
    // the claim and the record meet BACKLOG pending deliveries.
    await deliveries.dispatch(deliveries.dispatchBatch, now);
    const seen = plans();
    while ((await deliveries.dispatch(deliveries.dispatchBatch, now)) > 0);
    plans();
    const claimed = await round(now);
    assert.equal(claimed.length, 32, 'one team: its share of the claim');
    seen.push(...plans());
    const step = (head: string) => {
      const found = seen.filter((p) => p.text.trimStart().startsWith(head));
      assert.ok(found.length > 0, `no plan for a statement starting ${head}`);
      return Math.max(...found.map((p) => outboxRowsRead(p.plan)));
    };
    const dispatchRead = step('WITH head AS') + step('SELECT x.*');
    const claimRead = step('WITH RECURSIVE teams');
    const recordRead = step('WITH attempts AS');
    // A batch's worth: dispatch looks at 4 × 500 seqs from the oldest waiting event, then reads
    // the batch's rows with their leads; the claim walks one team's index for its share; the record finds each
    // attempt's delivery by key.
    assert.ok(dispatchRead <= 4 * 4 * deliveries.dispatchBatch, `dispatch read ${dispatchRead} rows`);
    assert.ok(claimRead <= 8 * 64, `claim read ${claimRead} rows`);
    assert.ok(recordRead <= 8 * 64, `record read ${recordRead} rows`);
  });
});
