/**
 * P3a: a v1 time range of RANGE_LEADS (100k) leads, timed to its last byte, against the raw
 * driver reading the same rows as objects in one go and JSON.stringify()ing them, in process.
 */
import Database from 'better-sqlite3';
import postgres from 'postgres';
import { LEAD_COLUMNS } from '../../src/storage/rows.js';
import { type Engine, log, MAIN, RANGE_LEADS } from '../harness/config.js';
import { add, all, engineName, f1, int, med, type Row } from '../harness/figures.js';
import type { Job } from '../harness/jobs.js';
import { type Served, v1 } from '../harness/servers.js';
import { readAll } from '../load.js';

export interface Bounds {
  end: number;
  count: number;
}

/** The epoch bound below which the team has (about) RANGE_LEADS leads, and the exact count. */
export async function rangeBound(s: Served): Promise<Bounds> {
  if (s.engine === 'sqlite') {
    const db = new Database(s.where, { readonly: true });
    const row = db
      .prepare('SELECT epoch FROM leads WHERE team_id = 1 ORDER BY epoch, seq LIMIT 1 OFFSET ?')
      .get(RANGE_LEADS) as { epoch: number };
    const c = db
      .prepare('SELECT count(*) AS c FROM leads WHERE team_id = 1 AND epoch < ?')
      .get(row.epoch) as {
      c: number;
    };
    db.close();
    return { end: row.epoch, count: c.c };
  }
  const sql = postgres(s.where, { max: 1, onnotice: () => {} });
  const [row] =
    await sql`SELECT epoch::float8 AS epoch FROM leads WHERE team_id = 1 ORDER BY epoch, seq LIMIT 1 OFFSET ${RANGE_LEADS}`;
  const [c] = await sql`SELECT count(*)::int AS c FROM leads WHERE team_id = 1 AND epoch < ${row!.epoch}`;
  await sql.end();
  return { end: row!.epoch as number, count: c!.c as number };
}

const RANGE_SQL = `SELECT ${LEAD_COLUMNS} FROM leads l JOIN members m ON m.id = l.member_id
  WHERE l.team_id = 1 AND l.epoch >= 0 AND l.epoch < `;

/** Reads the range's rows in one go as objects and JSON.stringify()s them; ms and bytes. */
async function rawReadStringify(s: Served, end: number): Promise<{ ms: number; bytes: number }> {
  const q = `${RANGE_SQL}${end} ORDER BY l.epoch, l.seq`;
  if (s.engine === 'sqlite') {
    const db = new Database(s.where, { readonly: true });
    const t0 = performance.now();
    const text = JSON.stringify(db.prepare(q).all());
    const ms = performance.now() - t0;
    db.close();
    return { ms, bytes: Buffer.byteLength(text) };
  }
  const sql = postgres(s.where, { max: 1, onnotice: () => {} });
  const t0 = performance.now();
  const text = JSON.stringify(await sql.unsafe(q));
  const ms = performance.now() - t0;
  await sql.end();
  return { ms, bytes: Buffer.byteLength(text) };
}

// Each side reads the range twice in a row; the target compares the second reads. The first
// reads are kept and reported too: after bulk writes (the 10M builds) part of the store has
// left the page cache, and whichever side reads first fetches it back from disk for both
// (bench/range-reads.ts shows it with fincore; bench/misses.md).
export function rangeJobs(s: Served, bounds: Bounds): Job[] {
  const tag = `${s.engine}.${s.size}`;
  return [
    {
      name: `range.${tag}`,
      run: async () => {
        for (const which of ['first', 'second'] as const) {
          const r = await readAll(v1(s, 'getLeadsTimeRangeForTeam', `?start=0&end=${bounds.end}`));
          if (r.status !== 200) throw new Error(`range: ${r.status}`);
          add(which === 'first' ? `range.first.ms.${tag}` : `range.ms.${tag}`, r.ms);
          log(`P3a ${tag} ${which} read: ${Math.round(r.ms)} ms`);
          add(`range.mb.${tag}`, r.bytes / 1048576);
        }
      },
    },
    {
      name: `rawrange.${tag}`,
      run: async () => {
        for (const which of ['first', 'second'] as const) {
          const r = await rawReadStringify(s, bounds.end);
          add(which === 'first' ? `rawrange.first.ms.${tag}` : `rawrange.ms.${tag}`, r.ms);
          log(`P3a reference ${tag} ${which} read: ${Math.round(r.ms)} ms`);
          add(`rawrange.mb.${tag}`, r.bytes / 1048576);
        }
      },
    },
  ];
}

export function rows(engine: Engine): Row[] {
  const tm = `${engine}.${MAIN}`;
  return [
    {
      id: 'P3a',
      what: `${int(med(`range.mb.${tm}`) > 0 ? RANGE_LEADS : Number.NaN)}-lead range, time to last byte ÷ raw read + JSON.stringify, ${engineName(engine)}`,
      measured: med(`range.ms.${tm}`) / med(`rawrange.ms.${tm}`),
      target: 1.5,
      sense: 'le',
      detail: `${int(med(`range.ms.${tm}`))} ms (${f1(med(`range.mb.${tm}`))} MB) vs ${int(med(`rawrange.ms.${tm}`))} ms (${f1(med(`rawrange.mb.${tm}`))} MB), second of two reads in a row`,
    },
    {
      id: 'P3a (first reads, no target)',
      what: `the same, first read of each pair, ${engineName(engine)}`,
      measured: med(`range.first.ms.${tm}`) / med(`rawrange.first.ms.${tm}`),
      target: Number.NaN,
      sense: 'le',
      detail: `${int(med(`range.first.ms.${tm}`))} vs ${int(med(`rawrange.first.ms.${tm}`))} ms; each round: ${all(`range.first.ms.${tm}`)} vs ${all(`rawrange.first.ms.${tm}`)} ms`,
    },
  ];
}
