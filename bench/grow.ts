/**
 * Grows an imported store to `factor` times its leads by copying them in SQL, for the 10M size:
 * importing 10M leads takes ~25 min per engine (6,600–7,300 leads/s); copying takes minutes.
 *
 * Copy k (1 … factor−1) of each lead is the same lead moved k spans back in time, where a span is
 * one more than the store's whole epoch range: every copy is older than every imported lead, so
 * the newest leads — what getLastLead, the team and subteam queries and the first v2 page
 * answer — are the imported ones, now on top of `factor` times the rows, and no copy collides
 * with another in `leads_identity`. Each copy gets its own seq (seq + k × max(seq)) and a uuid
 * whose last 12 hex digits are that seq, so both stay unique.
 *
 * What a copy does not carry, and why it does not matter to the figures measured at 10M
 * (getLastLead, team, subteam, the unfiltered v2 first page):
 * - searchable text: SQLite gets no `lead_text` rows for the copies, PostgreSQL copies get empty
 *   `text_fields` and `search`. Copying it would triple the build or worse (a trial on a
 *   1M-lead store: FTS5 took 3× as long as the leads' own rows per million copies, and the
 *   pg_trgm GIN build as long again as the copies), and none of those reads consults it;
 * - a recomputed `time` label and v1 `fields`: the original's are kept; no query chooses or
 *   orders leads by them, and the answers keep their size.
 *
 * The secondary indexes of `leads` are dropped for the copy and built again after it from their
 * stored definitions: a sorted build is several times faster than 9M random inserts.
 */
import Database from 'better-sqlite3';
import postgres from 'postgres';

/** Columns computed per copy; every other column of `leads` is copied as it is. */
const COMPUTED = new Set(['seq', 'epoch', 'uuid']);
/** Searchable text, left empty in the copies (see above). */
const PG_TEXT: Record<string, string> = { text_fields: "'{}'", search: "''" };

export function growSqlite(file: string, factor: number): void {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -262144'); // 256 MiB for the index builds' sorts
  const { maxSeq, minEpoch, maxEpoch } = db
    .prepare('SELECT max(seq) AS maxSeq, min(epoch) AS minEpoch, max(epoch) AS maxEpoch FROM leads')
    .get() as { maxSeq: number; minEpoch: number; maxEpoch: number };
  const span = maxEpoch - minEpoch + 1;
  const copied = (db.prepare('SELECT name FROM pragma_table_info(?)').all('leads') as { name: string }[])
    .map((c) => c.name)
    .filter((c) => !COMPUTED.has(c));
  // Named indexes only: the uuid UNIQUE constraint's automatic index (sql IS NULL) stays.
  const indexes = db
    .prepare(
      "SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'leads' AND sql IS NOT NULL",
    )
    .all() as { name: string; sql: string }[];
  const copy = db.prepare(`INSERT INTO leads (seq, epoch, uuid, ${copied.join(', ')})
    SELECT seq + @k * @maxSeq, epoch - @k * @span,
      substr(uuid, 1, 24) || printf('%012x', seq + @k * @maxSeq), ${copied.join(', ')}
    FROM leads WHERE seq <= @maxSeq ORDER BY seq`);
  db.transaction(() => {
    for (const i of indexes) db.exec(`DROP INDEX ${i.name}`);
    for (let k = 1; k < factor; k++) copy.run({ k, maxSeq, span });
    for (const i of indexes) db.exec(i.sql);
  })();
  db.close();
}

export async function growPostgres(url: string, factor: number): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [bounds] = await sql<{ maxSeq: string; minEpoch: string; maxEpoch: string }[]>`
      SELECT max(seq)::text AS "maxSeq", min(epoch)::text AS "minEpoch", max(epoch)::text AS "maxEpoch"
      FROM leads`;
    const maxSeq = BigInt(bounds!.maxSeq);
    const span = BigInt(bounds!.maxEpoch) - BigInt(bounds!.minEpoch) + 1n;
    const copied = (
      await sql<{ name: string }[]>`
        SELECT column_name AS name FROM information_schema.columns
        WHERE table_name = 'leads' AND table_schema = current_schema() ORDER BY ordinal_position`
    )
      .map((c) => c.name)
      .filter((c) => !COMPUTED.has(c));
    // Every index but the primary key's (a constraint; the copies append to it in order).
    const indexes = await sql<{ name: string; def: string }[]>`
      SELECT i.indexname AS name, i.indexdef AS def FROM pg_indexes i
      WHERE i.tablename = 'leads' AND i.schemaname = current_schema()
        AND i.indexname NOT IN (SELECT conname FROM pg_constraint WHERE contype = 'p')`;
    // The copies' members are the originals', already checked: skip the 9M foreign-key checks
    // where allowed (superuser). Otherwise they run per statement, not deferred to the commit:
    // CREATE INDEX refuses a table with trigger events pending.
    const unchecked = await sql`SET session_replication_role = replica`.then(
      () => true,
      () => false,
    );
    await sql.begin(async (tx) => {
      if (!unchecked) await tx`SET CONSTRAINTS ALL IMMEDIATE`;
      await tx.unsafe("SET LOCAL maintenance_work_mem = '1GB'");
      for (const i of indexes) await tx.unsafe(`DROP INDEX ${i.name}`);
      for (let k = 1n; k < BigInt(factor); k++) {
        const seq = `seq + ${k * maxSeq}`;
        await tx.unsafe(`INSERT INTO leads (seq, epoch, uuid, ${copied.join(', ')})
          SELECT ${seq}, epoch - ${k * span},
            overlay(uuid::text PLACING lpad(to_hex(${seq}), 12, '0') FROM 25)::uuid,
            ${copied.map((c) => PG_TEXT[c] ?? c).join(', ')}
          FROM leads WHERE seq <= ${maxSeq} ORDER BY seq`);
      }
      for (const i of indexes) await tx.unsafe(i.def);
      await tx`SELECT setval('leads_seq', (SELECT max(seq) FROM leads))`;
    });
    if (unchecked) await sql`SET session_replication_role = origin`;
  } finally {
    await sql.end();
  }
}
