import { randomBytes } from 'node:crypto';
import postgres, { type Sql } from 'postgres';
import type { ImportWriter } from '../../import/import.port.js';
import { FUZZY_THRESHOLD } from '../../leads/text.js';
import type { SharedCounters } from '../../rate-limit/shared-counters.js';
import type { MigrationReport, Store } from '../../store.js';
import { RangeThread } from '../range-thread.js';
import { PostgresAuditStore } from './audit.js';
import { PostgresConsoleStore } from './console.js';
import { PostgresDeliveryStore } from './deliveries.js';
import { PostgresDirectoryStore } from './directory.js';
import { PostgresErasureStore } from './erasure.js';
import { PostgresFeedSignal } from './feed-signal.js';
import { PostgresImportWriter } from './import.js';
import { KEYS_CHANNEL, PostgresKeyStore } from './keys.js';
import { PostgresLastLeads } from './last-leads.js';
import { PostgresLeadStore } from './leads.js';
import { migrate } from './migrations.js';
import { DEFAULT_POSTGRES_OPTIONS, type PostgresOptions } from './options.js';
import { PostgresPrivacyStore } from './privacy.js';
import { PostgresRateCounters } from './rate-limit.js';
import { ReplicaRouter, type ReplicaState } from './replica.js';
import { PostgresRetentionStore } from './retention.js';
import { PostgresRetirementStore } from './retirement.js';
import { TrigramSchema } from './trigram.js';
import { PostgresWebhookStore } from './webhooks.js';

export { DEFAULT_POSTGRES_OPTIONS, type PostgresOptions };

/** Identifiers and counts are BIGINT; every value we store fits a JS number exactly. */
export const int8AsNumber = {
  to: 20,
  from: [20],
  serialize: (x: number) => String(x),
  parse: (x: string) => Number(x),
};

function pool(url: string, options: PostgresOptions): Sql {
  return postgres(url, {
    max: options.poolMax,
    connect_timeout: options.connectTimeoutSeconds,
    idle_timeout: 60,
    // At most 0.5 s between reconnection attempts (postgres.js's default grows to 20 s): while
    // the database is down queries fail fast (503 + Retry-After), and it is used again within
    // half a second of its return (R4).
    backoff: (retries: number) => Math.min(0.05 * 2 ** retries, 0.5),
    onnotice: () => {},
    types: { int8: int8AsNumber },
    connection: {
      application_name: 'leadline',
      statement_timeout: options.statementTimeoutMs,
      // The threshold of pg_trgm's `<%`, the operator v2 FUZZY search finds candidates with.
      'pg_trgm.word_similarity_threshold': String(FUZZY_THRESHOLD),
      ...options.serverParams,
    },
  });
}

/**
 * Connections of the range thread's own pool (range-thread.ts): a range holds one while a page
 * is read, so two ranges read at once; more wait their turn for a page, not for a whole range.
 */
const RANGE_POOL_MAX = 2;

/** Connections of the outbox's own pool, beside the `poolMax` of the serving one. */
const OUTBOX_POOL_MAX = 2;
/** The outbox pool's server settings, beside the serving pool's (`outboxPool`). */
export const OUTBOX_SERVER_PARAMS = { plan_cache_mode: 'force_custom_plan' };

/**
 * The webhook outbox's statements (deliveries.ts) on a pool of their own, planned at every run
 * (`plan_cache_mode`): the outbox swings between empty and a backlog of 100,000s, and a prepared
 * statement's generic plan is made once, after its fifth run, and kept until the table's
 * statistics change. Made while the outbox was nearly empty, it scanned the whole table later
 * (a sequential scan per batch of attempts, a sort of every waiting event per dispatch), and
 * where autovacuum is off nothing ever replaces it (bench/RESULTS.md "Webhook delivery at the
 * defaults"). Serving statements keep their generic plans: their tables do not swing so.
 */
function outboxPool(url: string, options: PostgresOptions): Sql {
  return pool(url, {
    ...options,
    poolMax: OUTBOX_POOL_MAX,
    serverParams: { ...options.serverParams, ...OUTBOX_SERVER_PARAMS },
  });
}

export class PostgresStore implements Store {
  readonly engine = 'postgres' as const;
  readonly leads: PostgresLeadStore;
  readonly directory: PostgresDirectoryStore;
  readonly keys: PostgresKeyStore;
  readonly retirement: PostgresRetirementStore;
  readonly webhooks: PostgresWebhookStore;
  readonly deliveries: PostgresDeliveryStore;
  readonly console: PostgresConsoleStore;
  /** On the primary: an erasure reads what it erases, and a suppression must never be read stale. */
  readonly erasures: PostgresErasureStore;
  readonly privacy: PostgresPrivacyStore;
  /** On the primary: a lease read stale would let two instances erase one team at once. */
  readonly retention: PostgresRetentionStore;
  readonly audit: PostgresAuditStore;
  /** Always on the primary: it is what announces a commit (migration 16's triggers). */
  readonly feed: PostgresFeedSignal;
  private readonly lastLeads: PostgresLastLeads | null;
  private readonly rangeThread: RangeThread | null;

  private constructor(
    private readonly sql: Sql,
    private readonly outbox: Sql,
    private readonly replica: { sql: Sql; router: ReplicaRouter } | null,
    lastLeads: PostgresLastLeads | null,
    rangeThread: RangeThread | null,
  ) {
    const reads = replica === null ? () => sql : () => replica.router.reads();
    this.lastLeads = lastLeads;
    this.rangeThread = rangeThread;
    this.leads = new PostgresLeadStore(sql, reads, new TrigramSchema(sql), this.lastLeads, rangeThread);
    this.directory = new PostgresDirectoryStore(sql, reads);
    // Keys always come from the primary: a revocation must never be read stale.
    this.keys = new PostgresKeyStore(sql);
    // Brownouts and the ledger on the primary too: a brownout must never be read stale.
    this.retirement = new PostgresRetirementStore(sql);
    this.webhooks = new PostgresWebhookStore(sql);
    this.deliveries = new PostgresDeliveryStore(outbox);
    this.console = new PostgresConsoleStore(sql);
    this.erasures = new PostgresErasureStore(sql, this.lastLeads);
    this.privacy = new PostgresPrivacyStore(sql);
    this.retention = new PostgresRetentionStore(sql);
    this.audit = new PostgresAuditStore(sql);
    this.feed = new PostgresFeedSignal(sql);
  }

  /**
   * Creates the pool (and one for the read replica when `readUrl` is given); connections open
   * on first use. Call `migrate()` before using the stores.
   */
  static open(
    url: string,
    options: PostgresOptions = DEFAULT_POSTGRES_OPTIONS,
    readUrl: string | null = null,
  ): PostgresStore {
    const sql = pool(url, options);
    const outbox = outboxPool(url, options);
    // Members' last leads remembered, and v1 ranges read on a thread of their own
    // (range-thread.ts), only when every read is the primary's.
    if (readUrl === null) {
      const thread = new RangeThread({
        engine: 'postgres',
        url,
        options: { ...options, poolMax: RANGE_POOL_MAX },
      });
      return new PostgresStore(sql, outbox, null, new PostgresLastLeads(url, options), thread);
    }
    const replicaSql = pool(readUrl, options);
    const router = new ReplicaRouter(sql, replicaSql);
    router.start();
    return new PostgresStore(sql, outbox, { sql: replicaSql, router }, null, null);
  }

  /** Where reads go: `fresh` (the replica), `lagging` or `unreachable` (the primary); null without a replica. */
  replicaState(): ReplicaState | null {
    return this.replica?.router.state() ?? null;
  }

  /** How far the read replica is behind (metrics); null without one or while it is unreachable. */
  replicaLagSeconds(): number | null {
    return this.replica?.router.lagSeconds() ?? null;
  }

  /** Counters in the database, so a per-key limit holds across every instance (rate-limit.ts). */
  rateCounters(windowSeconds: number): SharedCounters {
    return new PostgresRateCounters(this.sql, windowSeconds);
  }

  /** Made by whichever instance asks first; the others (and later ones) read that one. */
  async secret(name: string): Promise<Buffer> {
    await this
      .sql`INSERT INTO secrets (name, value) VALUES (${name}, ${randomBytes(32)}) ON CONFLICT DO NOTHING`;
    const [row] = await this.sql<{ value: Buffer }[]>`SELECT value FROM secrets WHERE name = ${name}`;
    return Buffer.from(row!.value);
  }

  async ping(): Promise<void> {
    await this.sql`SELECT 1`;
  }

  async migrate(): Promise<MigrationReport> {
    return migrate(this.sql);
  }

  /** On the URL's search_path, as every other statement. */
  async exists(): Promise<boolean> {
    const [row] = await this.sql<
      { found: boolean }[]
    >`SELECT to_regclass('schema_migrations') IS NOT NULL AS found`;
    return row?.found ?? false;
  }

  async importAtomically<T>(work: (writer: ImportWriter) => Promise<T>): Promise<T> {
    const result = (await this.sql.begin(async (tx) => {
      // Imports write members and their roles: every instance forgets its keys on commit.
      await tx`SELECT pg_notify(${KEYS_CHANNEL}, '')`;
      return work(await PostgresImportWriter.start(tx));
    })) as T;
    // This instance at once, not when its own notification comes back: a caller that imports
    // and then asks (a test, the console) must not meet the role it just changed, or the last
    // lead it replaced.
    this.keys.forget();
    this.lastLeads?.changed();
    return result;
  }

  async close(): Promise<void> {
    await this.erasures.settle();
    await this.feed.close();
    await this.keys.close();
    await this.lastLeads?.close();
    await this.rangeThread?.close();
    if (this.replica !== null) {
      await this.replica.router.stop();
      await this.replica.sql.end({ timeout: 5 });
    }
    await this.outbox.end({ timeout: 5 });
    await this.sql.end({ timeout: 5 });
  }
}
