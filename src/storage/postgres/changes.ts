import type { Sql, TransactionSql } from 'postgres';
import type { StoredLead } from '../../leads/lead.js';
import { sameValues } from '../../leads/lead-change.js';
import type { LeadMerge, LeadUpdate, WriteResult } from '../../leads/leads.port.js';
import { uuid7 } from '../../shared/uuid7.js';
import type { EventType } from '../../webhooks/webhook.js';
import { eventData } from '../endpoint-rows.js';
import { STORED_COLUMNS, type StoredRow, toStoredLead } from '../rows.js';
import { searchText } from './text.js';

/** This transaction's id, as leads.txid holds it: a changed lead's new place in the feed. */
const THIS_TXID = 'pg_current_xact_id()::text::bigint';

/** Stale: a lead was not at its version, merged, or gone — the transaction is rolled back. */
class Stale extends Error {}

/**
 * Lead updates and merges on PostgreSQL, each one transaction with its outbox events. A change
 * is a conditional UPDATE (`version = $expected AND merged_into IS NULL AND erased_at IS NULL`): of two writers on one
 * version the second waits for the first's row lock, then finds the row at another version and
 * writes nothing (READ COMMITTED re-checks the condition on the row as committed).
 */
export class PostgresLeadChanges {
  constructor(private readonly sql: Sql) {}

  async update(change: LeadUpdate): Promise<WriteResult> {
    return this.stale(async (tx) => {
      await write(tx, change);
      return read(tx, change.teamId, change.uuid);
    });
  }

  async merge(m: LeadMerge): Promise<WriteResult> {
    const { survivor } = m;
    return this.stale(async (tx) => {
      // Locked in one order (seq), so two merges over the same leads cannot deadlock.
      const uuids = [survivor.uuid, ...m.merged.map((x) => x.uuid)];
      await tx`SELECT seq FROM leads WHERE team_id = ${survivor.teamId} AND uuid = ANY(${tx.array(uuids)}::uuid[])
        ORDER BY seq FOR UPDATE`;
      for (const merged of m.merged) {
        const data = eventData({
          source: survivor.source,
          mergedInto: survivor.uuid,
          version: merged.version + 1,
        });
        const rows =
          await tx`WITH m AS (UPDATE leads SET merged_into = ${survivor.uuid}, txid = ${tx.unsafe(THIS_TXID)},
            version = version + 1, changed_via = ${survivor.source}, changed_at = ${survivor.at}
          WHERE team_id = ${survivor.teamId} AND uuid = ${merged.uuid} AND version = ${merged.version}
            AND merged_into IS NULL AND erased_at IS NULL RETURNING team_id, seq)
          ${event(tx, 'lead.merged', survivor.at, data)}`;
        if (rows.length === 0) throw new Stale();
      }
      if (sameValues(survivor.before, survivor.values)) {
        const [at] =
          await tx`SELECT 1 FROM leads WHERE team_id = ${survivor.teamId} AND uuid = ${survivor.uuid}
          AND version = ${survivor.version} AND merged_into IS NULL AND erased_at IS NULL`;
        if (at === undefined) throw new Stale();
      } else await write(tx, survivor);
      return read(tx, survivor.teamId, survivor.uuid);
    });
  }

  private async stale(work: (tx: TransactionSql) => Promise<StoredLead>): Promise<WriteResult> {
    try {
      return { kind: 'written', lead: (await this.sql.begin(work)) as StoredLead };
    } catch (err) {
      if (err instanceof Stale) return { kind: 'stale' };
      throw err;
    }
  }
}

/**
 * Inserts the event of the lead(s) the CTE `m` returned (team_id, seq) into the event log;
 * returns one row per lead of `m`, so an empty result means none was written.
 */
function event(tx: TransactionSql, type: EventType, at: number, data: string) {
  return tx`, e AS (INSERT INTO webhook_events (id, team_id, type, lead_seq, created_at, data)
      SELECT ${uuid7(at)}, m.team_id, ${type}, m.seq, ${at}, ${data} FROM m)
    SELECT seq FROM m`;
}

/** The new values, the searchable text, this transaction's place in the feed and the event. */
async function write(tx: TransactionSql, c: LeadUpdate): Promise<void> {
  const v = c.values;
  const data = eventData({ source: c.source, before: c.before, after: c.values, version: c.version + 1 });
  const rows =
    await tx`WITH m AS (UPDATE leads SET time = ${v.time}, user_pid = ${v.userPid}, kind = ${v.kind},
      location_shared = ${v.locationShared}, lat = ${v.lat}, long = ${v.long}, fields = ${v.fields},
      source = ${v.source}, has_email = ${c.hasEmail}, first_name = ${v.firstName}, last_name = ${v.lastName},
      text_fields = ${tx.array(c.text)}::text[], search = ${searchText(c.text)},
      txid = ${tx.unsafe(THIS_TXID)}, version = version + 1, changed_via = ${c.source}, changed_at = ${c.at}
    WHERE team_id = ${c.teamId} AND uuid = ${c.uuid} AND version = ${c.version} AND merged_into IS NULL AND erased_at IS NULL
    RETURNING team_id, seq)
    ${event(tx, 'lead.updated', c.at, data)}`;
  if (rows.length === 0) throw new Stale();
}

async function read(tx: TransactionSql, teamId: number, uuid: string): Promise<StoredLead> {
  const [row] = (await tx
    .unsafe(
      `SELECT ${STORED_COLUMNS} FROM leads l JOIN members m ON m.id = l.member_id
        WHERE l.team_id = $1 AND l.uuid = $2`,
      [teamId, uuid],
    )
    .values()) as unknown as StoredRow[];
  return toStoredLead(row!);
}
