import type { AuditStore } from './audit/audit.port.js';
import type { ConsoleStore } from './console/console.port.js';
import type { DirectoryStore } from './directory/directory.port.js';
import type { ImportWriter } from './import/import.port.js';
import type { KeyStore } from './keys/keys.port.js';
import type { FeedSignal } from './leads/feed.port.js';
import type { LeadStore } from './leads/leads.port.js';
import type { ErasureStore } from './privacy/erasure.port.js';
import type { PrivacyStore } from './privacy/privacy.port.js';
import type { SharedCounters } from './rate-limit/shared-counters.js';
import type { RetentionStore } from './retention/retention.port.js';
import type { RetirementStore } from './retirement/retirement.port.js';
import type { DeliveryStore } from './webhooks/deliveries.port.js';
import type { WebhookStore } from './webhooks/webhooks.port.js';

/**
 * The store interfaces — the domain's ports: the domain and the HTTP layer call them, and
 * src/storage/ implements them once per engine, so the domain imports nothing from storage.
 * Rows stop behind these: callers get domain objects. Every method is async so engines with
 * network round trips fit the same shape.
 */

export interface MigrationReport {
  from: number;
  to: number;
  applied: string[];
}

export interface Store {
  readonly engine: 'sqlite' | 'postgres';
  readonly leads: LeadStore;
  readonly directory: DirectoryStore;
  readonly keys: KeyStore;
  readonly retirement: RetirementStore;
  readonly webhooks: WebhookStore;
  /** The admin console's sign-in links and sessions (docs/console.md). */
  readonly console: ConsoleStore;
  readonly deliveries: DeliveryStore;
  /** Erasure receipts and suppressions (docs/privacy.md). */
  readonly erasures: ErasureStore;
  /** A person's data across the store (docs/privacy.md). */
  readonly privacy: PrivacyStore;
  /** Retention policies, their runs' leases, receipt pruning (docs/privacy.md "Retention"). */
  readonly retention: RetentionStore;
  /** The append-only audit log (docs/privacy.md "Audit log"). */
  readonly audit: AuditStore;
  /**
   * "Something new was stored" for waiting feed requests (docs/v2.md "Waiting for changes"):
   * a polled marker on SQLite, LISTEN/NOTIFY on PostgreSQL; started by the first waiter,
   * ended by `close()`.
   */
  readonly feed: FeedSignal;
  /**
   * The rate-limit counters every instance on the store shares (PostgreSQL), for windows of
   * `windowSeconds`; null for the embedded store, whose one instance counts in its own memory.
   * `rateLimiterFor` (shared-rate-limit.ts) makes the limiter over them.
   */
  rateCounters(windowSeconds: number): SharedCounters | null;
  /**
   * Where reads go when a read replica is configured: `fresh` (to the replica), `lagging` or
   * `unreachable` (to the primary); null without one.
   */
  replicaState(): 'fresh' | 'lagging' | 'unreachable' | null;
  /**
   * A random 32-byte secret kept in the store under `name`, made on first use: every instance
   * on the store signs and checks with the same one (v2 cursors).
   */
  secret(name: string): Promise<Buffer>;
  /** Cheapest round trip to the store; throws when it cannot be reached. */
  ping(): Promise<void>;
  /** Brings the schema up to date; throws (naming the migration) when one fails. */
  migrate(): Promise<MigrationReport>;
  /** Whether a leadline schema is there (a migration has run): read-only commands need one. */
  exists(): Promise<boolean>;
  /** Runs `work` inside one transaction: commit when it resolves, roll back when it throws. */
  importAtomically<T>(work: (writer: ImportWriter) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** A schema migration that cannot apply, or a store newer than this leadline: the operator must act. */
export class MigrationError extends Error {
  override name = 'MigrationError';
}
