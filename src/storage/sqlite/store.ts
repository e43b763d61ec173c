import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { ImportWriter } from '../../import/import.port.js';
import type { FeedWaiters } from '../../leads/feed-waiters.js';
import type { MigrationReport, Store } from '../../store.js';
import { MigrationError } from '../../store.js';
import { RangeThread } from '../range-thread.js';
import { SqliteAuditStore } from './audit.js';
import { connect } from './connection.js';
import { SqliteConsoleStore } from './console.js';
import { SqliteDeliveryStore } from './deliveries.js';
import { SqliteDirectoryStore } from './directory.js';
import { SqliteErasureStore } from './erasure.js';
import { ErasureThread } from './erasure-thread.js';
import { sqliteFeedSignal } from './feed-signal.js';
import { SqliteImportWriter } from './import.js';
import { SqliteKeyStore } from './keys.js';
import { SqliteLeadStore } from './leads.js';
import { LATEST_VERSION, migrate } from './migrations.js';
import { SqlitePrivacyStore } from './privacy.js';
import { SqliteRetentionStore } from './retention.js';
import { SqliteRetirementStore } from './retirement.js';
import { SqliteWebhookStore } from './webhooks.js';

/**
 * The embedded store: one SQLite file, WAL so readers never wait for the writer, prepared
 * statements for everything on a request path.
 */
export class SqliteStore implements Store {
  readonly engine = 'sqlite' as const;
  private leadStore?: SqliteLeadStore;
  private directoryStore?: SqliteDirectoryStore;
  private keyStore?: SqliteKeyStore;
  private retirementStore?: SqliteRetirementStore;
  private webhookStore?: SqliteWebhookStore;
  private deliveryStore?: SqliteDeliveryStore;
  private consoleStore?: SqliteConsoleStore;
  private erasureStore?: SqliteErasureStore;
  private retentionStore?: SqliteRetentionStore;
  private erasureThread: ErasureThread | null = null;
  private rangeThread: RangeThread | null = null;
  private privacyStore?: SqlitePrivacyStore;
  private auditStore?: SqliteAuditStore;
  private feedSignal?: FeedWaiters;
  /** Secrets never change once made, so each is read from the file once. */
  private readonly secrets = new Map<string, Buffer>();

  private constructor(private readonly db: Database.Database) {}

  /** Opens (creating if needed, owner-only: file.ts) the file. Call `migrate()` before using the stores. */
  static open(path: string): SqliteStore {
    return new SqliteStore(connect(path));
  }

  /** One instance on the embedded store: it counts in its own memory (MemoryRateLimiter). */
  rateCounters(): null {
    return null;
  }

  replicaState(): null {
    return null;
  }

  async ping(): Promise<void> {
    this.db.prepare('SELECT 1').get();
  }

  async secret(name: string): Promise<Buffer> {
    let value = this.secrets.get(name);
    if (value === undefined) {
      this.ready();
      // OR IGNORE: whoever makes it first wins, every later caller reads that one.
      this.db.prepare('INSERT OR IGNORE INTO secrets (name, value) VALUES (?, ?)').run(name, randomBytes(32));
      value = (this.db.prepare('SELECT value FROM secrets WHERE name = ?').get(name) as { value: Buffer })
        .value;
      this.secrets.set(name, value);
    }
    return value;
  }

  async migrate(): Promise<MigrationReport> {
    const report = migrate(this.db);
    forgetSamples(this.db);
    return report;
  }

  async exists(): Promise<boolean> {
    const row = this.db
      .prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
      .get() as { n: number };
    return row.n > 0;
  }

  private ready(): void {
    const row = this.db
      .prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
      .get() as { n: number };
    const version =
      row.n === 0
        ? 0
        : ((this.db.prepare('SELECT max(version) AS v FROM schema_migrations').get() as { v: number | null })
            .v ?? 0);
    if (version !== LATEST_VERSION) {
      throw new MigrationError(
        `store schema is at version ${version}, expected ${LATEST_VERSION}: run leadline migrate`,
      );
    }
  }

  get leads(): SqliteLeadStore {
    if (this.leadStore === undefined) {
      this.ready();
      // A database in memory has no file another connection could open: its ranges stay here.
      this.rangeThread = this.db.memory ? null : new RangeThread({ engine: 'sqlite', path: this.db.name });
      this.leadStore = new SqliteLeadStore(this.db, this.rangeThread);
    }
    return this.leadStore;
  }

  get directory(): SqliteDirectoryStore {
    if (this.directoryStore === undefined) {
      this.ready();
      this.directoryStore = new SqliteDirectoryStore(this.db);
    }
    return this.directoryStore;
  }

  get keys(): SqliteKeyStore {
    if (this.keyStore === undefined) {
      this.ready();
      this.keyStore = new SqliteKeyStore(this.db);
    }
    return this.keyStore;
  }

  get retirement(): SqliteRetirementStore {
    if (this.retirementStore === undefined) {
      this.ready();
      this.retirementStore = new SqliteRetirementStore(this.db, () => this.erasureThread?.erasing() ?? null);
    }
    return this.retirementStore;
  }

  get webhooks(): SqliteWebhookStore {
    if (this.webhookStore === undefined) {
      this.ready();
      this.webhookStore = new SqliteWebhookStore(this.db);
    }
    return this.webhookStore;
  }

  get console(): SqliteConsoleStore {
    if (this.consoleStore === undefined) {
      this.ready();
      this.consoleStore = new SqliteConsoleStore(this.db);
    }
    return this.consoleStore;
  }

  get deliveries(): SqliteDeliveryStore {
    if (this.deliveryStore === undefined) {
      this.ready();
      this.deliveryStore = new SqliteDeliveryStore(this.db, () => this.erasureThread?.erasing() ?? null);
    }
    return this.deliveryStore;
  }

  get erasures(): SqliteErasureStore {
    if (this.erasureStore === undefined) {
      this.ready();
      // A database in memory has no file another connection could open: erasures stay here.
      this.erasureThread = this.db.memory ? null : new ErasureThread(this.db.name);
      this.erasureStore = new SqliteErasureStore(this.db, this.erasureThread);
    }
    return this.erasureStore;
  }

  get retention(): SqliteRetentionStore {
    if (this.retentionStore === undefined) {
      this.ready();
      this.retentionStore = new SqliteRetentionStore(this.db);
    }
    return this.retentionStore;
  }

  get privacy(): SqlitePrivacyStore {
    if (this.privacyStore === undefined) {
      this.ready();
      this.privacyStore = new SqlitePrivacyStore(this.db);
    }
    return this.privacyStore;
  }

  get audit(): SqliteAuditStore {
    if (this.auditStore === undefined) {
      this.ready();
      this.auditStore = new SqliteAuditStore(this.db);
    }
    return this.auditStore;
  }

  get feed(): FeedWaiters {
    if (this.feedSignal === undefined) {
      this.ready();
      this.feedSignal = sqliteFeedSignal(this.db);
    }
    return this.feedSignal;
  }

  async importAtomically<T>(work: (writer: ImportWriter) => Promise<T>): Promise<T> {
    this.ready();
    // IMMEDIATE takes the write lock up front: one import writes at a time, in file order.
    this.db.exec('BEGIN IMMEDIATE');
    // 64 MB of page cache while importing (default 2 MB), so index maintenance stays in memory;
    // back to the default after, so serving keeps a small footprint.
    const cacheSize = this.db.pragma('cache_size', { simple: true }) as number;
    this.db.pragma('cache_size = -65536');
    try {
      const result = await work(new SqliteImportWriter(this.db));
      this.db.exec('COMMIT');
      return result;
    } catch (err) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      throw err;
    } finally {
      this.db.pragma(`cache_size = ${cacheSize}`);
    }
  }

  async close(): Promise<void> {
    await this.feedSignal?.close();
    await this.erasureThread?.close();
    await this.rangeThread?.close();
    if (this.db.open) this.db.close();
  }
}

/**
 * ANALYZE in this SQLite build (STAT4) also keeps samples of index values, and with them SQLite
 * re-plans a prepared statement whenever its bound values change: every getLastLead did, 8 → 50 µs
 * in process on a 100k-lead store. leadline's queries walk fixed indexes (the plan test checks
 * them with and without statistics), so the samples only cost; sqlite_stat1 is kept.
 */
function forgetSamples(db: Database.Database): void {
  const has = db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'sqlite_stat4'").get();
  if (has === undefined) return;
  db.exec('DELETE FROM sqlite_stat4; ANALYZE sqlite_schema');
}
