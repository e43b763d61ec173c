import type { Sql } from 'postgres';
import type { Role } from '../../directory/directory.js';
import type { ApiKey, KeyStore, NewApiKey, StoredKey } from '../../keys/keys.port.js';
import { KEY_COLUMNS, type KeyRow, toApiKey } from '../rows.js';

/**
 * The channel every change to keys or members' roles is announced on (NOTIFY, delivered when the
 * writing transaction commits): each instance listening drops the keys it remembers.
 */
export const KEYS_CHANNEL = 'leadline_keys';
/** How long a remembered key is trusted without a notification: a lost one delays a revocation at most this long (R7). */
export const KEY_MEMORY_MS = 1000;
const MEMORY_MAX = 10_000;

/**
 * Keys on PostgreSQL. Authentication asks for the keys of a display prefix on every request;
 * each instance remembers the answer for up to KEY_MEMORY_MS, or until a notification on
 * KEYS_CHANNEL says a key, grant or role changed — so a busy key costs no round trip for its
 * lookup, and a revocation made on any instance is seen by every other at once (or, should the
 * notification be lost with a dropped connection, within a second).
 */
export class PostgresKeyStore implements KeyStore {
  private readonly columns;
  private memory = new Map<string, { keys: StoredKey[]; at: number }>();
  /** Moves on every invalidation: a lookup that raced one does not store its answer. */
  private generation = 0;
  /**
   * Lookups under way, by display: the requests that find the memory expired at the same moment
   * (a thousand waiting clients re-asking at once) share one query instead of queueing a
   * thousand for the pool. Dropped with the memory: nothing begun before an invalidation
   * answers a request that came after it.
   */
  private asking = new Map<string, Promise<StoredKey[]>>();
  private listening: Promise<{ unlisten(): Promise<void> } | null> | null = null;

  constructor(
    private readonly sql: Sql,
    private readonly now: () => number = Date.now,
  ) {
    this.columns = sql.unsafe(KEY_COLUMNS);
  }

  /** Drops every remembered key. */
  forget(): void {
    this.memory = new Map();
    this.asking = new Map();
    this.generation++;
  }

  /**
   * Subscribes to KEYS_CHANNEL on a connection of its own (postgres.js reconnects it, and calls
   * back on each (re)connection, when notifications may have been missed: both forget).
   * Without it the memory still expires after KEY_MEMORY_MS.
   */
  listen(): Promise<unknown> {
    this.listening ??= this.sql
      .listen(
        KEYS_CHANNEL,
        () => this.forget(),
        () => this.forget(),
      )
      .catch(() => null); // unreachable now: the memory's expiry bounds staleness meanwhile
    return this.listening;
  }

  async close(): Promise<void> {
    const subscription = await this.listening;
    this.listening = null;
    await subscription?.unlisten().catch(() => undefined);
  }

  /** Announces a change to every instance (and forgets here at once). */
  private async changed(): Promise<void> {
    this.forget();
    await this.sql`SELECT pg_notify(${KEYS_CHANNEL}, '')`;
  }

  async create(key: NewApiKey): Promise<ApiKey> {
    const [row] = await this.sql<KeyRow[]>`WITH k AS (
        INSERT INTO api_keys (member_id, display, hash, label, created_at, expires_at, legacy_v1)
        VALUES (${key.memberId}, ${key.display}, ${key.hash}, ${key.label}, ${key.createdAt}, ${key.expiresAt}, ${key.legacyV1})
        RETURNING *)
      SELECT ${this.columns} FROM k JOIN members m ON m.id = k.member_id`;
    await this.changed();
    return toApiKey(row!);
  }

  async list(memberId?: number): Promise<ApiKey[]> {
    const rows = await this.sql<
      KeyRow[]
    >`SELECT ${this.columns} FROM api_keys k JOIN members m ON m.id = k.member_id
      ${memberId === undefined ? this.sql`` : this.sql`WHERE k.member_id = ${memberId}`}
      ORDER BY k.id`;
    return rows.map(toApiKey);
  }

  async revoke(id: number, at: number): Promise<boolean> {
    const result = await this
      .sql`UPDATE api_keys SET revoked_at = ${at} WHERE id = ${id} AND revoked_at IS NULL`;
    await this.changed();
    return result.count === 1;
  }

  async setLegacyV1(id: number, granted: boolean): Promise<boolean> {
    const result = await this.sql`UPDATE api_keys SET legacy_v1 = ${granted} WHERE id = ${id}`;
    await this.changed();
    return result.count === 1;
  }

  async findByDisplay(display: string): Promise<StoredKey[]> {
    const now = this.now();
    const remembered = this.memory.get(display);
    if (remembered !== undefined && now - remembered.at < KEY_MEMORY_MS) return remembered.keys;
    const under = this.asking.get(display);
    if (under !== undefined) return under;
    const asking = this.asking;
    const lookup = this.lookup(display, now).finally(() => {
      if (asking.get(display) === lookup) asking.delete(display);
    });
    asking.set(display, lookup);
    return lookup;
  }

  private async lookup(display: string, now: number): Promise<StoredKey[]> {
    if (this.listening === null) void this.listen();
    const generation = this.generation;
    const rows = await this.sql<
      (KeyRow & { hash: Buffer; role: Role })[]
    >`SELECT ${this.columns}, k.hash, m.role FROM api_keys k JOIN members m ON m.id = k.member_id WHERE k.display = ${display}`;
    const keys = rows.map((r) => ({ ...toApiKey(r), hash: Buffer.from(r.hash), role: r.role }));
    if (generation === this.generation) {
      if (this.memory.size >= MEMORY_MAX) this.memory = new Map();
      this.memory.set(display, { keys, at: now });
    }
    return keys;
  }
}
