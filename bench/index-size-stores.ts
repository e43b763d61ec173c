/**
 * bench/index-size.ts's stores: the code of a git revision or of this tree, seeding through the
 * import path as `leadline seed` does, and a store file's size and where its pages go.
 */
import { execSync } from 'node:child_process';
import { mkdirSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Store } from '../src/store.js';

/** The tree of `rev`: its src/ and package.json, resolving packages through this tree's node_modules. */
export function checkout(rev: string, here: string, root: string): string {
  mkdirSync(root);
  execSync(`git archive ${rev} src package.json | tar -x -C ${root}`, { cwd: here });
  symlinkSync(join(here, 'node_modules'), join(root, 'node_modules'));
  return root;
}

export interface Code {
  open: (path: string) => Store;
  seed: (store: Store) => Promise<unknown>;
}

export async function code(
  root: string,
  seed: { teams: number; membersPerTeam: number; leads: number },
): Promise<Code> {
  const { SqliteStore } = await import(join(root, 'src/storage/sqlite/store.ts'));
  const { seedStore } = await import(join(root, 'src/cli/seed.ts'));
  return {
    open: (path) => SqliteStore.open(path),
    seed: (store) => seedStore(store, { ...seed, seed: 'leadline' }),
  };
}

export const MB = (bytes: number): string => (bytes / 1e6).toFixed(1);

/** File size after a checkpoint, then after VACUUM, and where the pages went (dbstat). */
export interface Sizes {
  checkpointed: number;
  vacuumed: number;
  parts: Record<string, number>;
}

export function sizes(path: string): Sizes {
  const db = new Database(path);
  db.pragma('wal_checkpoint(TRUNCATE)');
  const checkpointed = statSync(path).size;
  db.exec('VACUUM');
  db.pragma('wal_checkpoint(TRUNCATE)');
  const vacuumed = statSync(path).size;
  const rows = db
    .prepare(`SELECT CASE WHEN name LIKE 'lead_text%' THEN 'lead_text (FTS5)'
        WHEN name = 'leads' OR name LIKE 'leads_%' OR name LIKE 'sqlite_autoindex_leads%' THEN 'leads + indexes'
        ELSE 'other' END AS part, sum(pgsize) AS bytes FROM dbstat GROUP BY part`)
    .all() as { part: string; bytes: number }[];
  db.close();
  return { checkpointed, vacuumed, parts: Object.fromEntries(rows.map((r) => [r.part, r.bytes])) };
}
