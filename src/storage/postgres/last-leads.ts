import postgres, { type Sql } from 'postgres';
import { type AnswerKey, LastLeadMemory, type Remembered } from '../last-lead-memory.js';
import { FEED_CHANNEL } from './feed-signal.js';
import { KEYS_CHANNEL } from './keys.js';
import type { PostgresOptions } from './options.js';

/**
 * How long a remembered last lead is used without a query: should a notification be lost (a
 * dropped listening connection), an answer is at most this stale on another instance (R7's bound,
 * as the key memory's). docs/v1-reference.md "Repeated getLastLead".
 */
export const LAST_LEAD_MEMORY_MS = 1000;

/**
 * postgres.js's own option for a connection's notifications (read by its parseOptions; its
 * `listen` is built on it), missing from its type declarations.
 */
interface NotifyOption {
  onnotify: (channel: string, payload: string) => void;
}

/**
 * Last-lead answers on PostgreSQL (LastLeadMemory: a member's, the team's, a subteam's with the
 * asker's access to it), kept until something may have changed them:
 * - this instance's own writes forget at once, before the write is answered (`changed`), so on
 *   one instance a lead stored is in the very next answer;
 * - every instance's writes are announced at commit on FEED_CHANNEL (migration 16's triggers on
 *   `leads` and `webhook_events`: the team's id), and directory changes on KEYS_CHANNEL (an import
 *   of members and subteams — the only writer of either: a collector's e-mail or team, a
 *   subteam's members and admins); both forget — the team's answers, or all;
 * - the memory is used only while its listening connection is up: when it closes (the database
 *   stopped or unreachable) everything is forgotten and every call is a query again — so an outage
 *   answers 503 as before from the moment the close is seen (Node reports it in its close phase:
 *   a request of the same turn may still get a remembered answer) — until the LISTENs are in
 *   place on a new connection;
 * - no answer is used once LAST_LEAD_MEMORY_MS old: the bound should a notification be lost
 *   without the connection closing (a network that drops packets silently).
 * The connection is its own (one per instance, opened by the first getLastLead), not the pool's
 * shared listening one, which reconnects without telling anyone it was down. With a read
 * replica the memory is not used at all (store.ts): a replica's answer may lag the notification
 * that would forget it.
 */
export class PostgresLastLeads {
  private readonly memory = new LastLeadMemory(LAST_LEAD_MEMORY_MS);
  private readonly listener: Sql;
  private listening: Promise<void> | null = null;
  /** Moves whenever the listening connection closes: LISTENs begun before it are not in place. */
  private connection = 0;
  private ready = false;
  private closed = false;

  constructor(
    url: string,
    settings: Pick<PostgresOptions, 'connectTimeoutSeconds'>,
    private readonly now: () => number = Date.now,
  ) {
    const options: postgres.Options<Record<string, never>> & NotifyOption = {
      max: 1, // never idle-closed (no idle_timeout); closed by its lifetime now and then: a re-listen
      connect_timeout: settings.connectTimeoutSeconds,
      fetch_types: false,
      onnotice: () => {},
      connection: { application_name: 'leadline' },
      onnotify: (channel, payload) =>
        this.memory.forget(
          channel === FEED_CHANNEL && /^[0-9]+$/.test(payload) ? Number(payload) : undefined,
        ),
      onclose: () => {
        this.connection++;
        this.ready = false;
        this.memory.forget();
        this.listening = null;
      },
    };
    this.listener = postgres(url, options);
  }

  /** The answer under `key` on `teamId` (AnswerKey): remembered, or `query`'s (then remembered). */
  async read<T extends Remembered>(teamId: number, key: AnswerKey, query: () => Promise<T>): Promise<T> {
    if (!this.ready) {
      if (!this.closed) this.listening ??= this.listen();
      return query();
    }
    const now = this.now();
    const known = this.memory.recall<T>(teamId, key, now);
    if (known !== undefined) return known;
    const since = this.memory.since(teamId);
    const answer = await query();
    this.memory.keep(since, teamId, key, answer, now);
    return answer;
  }

  /** A write of this instance committed: `teamId`'s leads (or any team's) may have changed. */
  changed(teamId?: number): void {
    this.memory.forget(teamId);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.ready = false;
    await this.listening;
    await this.listener.end({ timeout: 5 });
  }

  private async listen(): Promise<void> {
    const connection = this.connection;
    try {
      // One connection (max: 1): both LISTENs on it, unless it closed between them (`connection`).
      await this.listener.unsafe(`LISTEN ${FEED_CHANNEL}`);
      await this.listener.unsafe(`LISTEN ${KEYS_CHANNEL}`);
      this.memory.forget();
      this.ready = !this.closed && connection === this.connection;
    } catch {
      // Unreachable now: every call stays a query, and the next one tries again.
    }
    if (!this.ready) this.listening = null;
  }
}
