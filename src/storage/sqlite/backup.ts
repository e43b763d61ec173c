import { chmodSync } from 'node:fs';
import Database from 'better-sqlite3';

/**
 * An online copy of a SQLite store (`leadline backup`): SQLite's backup API copies the pages of
 * one consistent snapshot while `serve` goes on reading and writing (a write during the copy
 * restarts it on the next step). The copy is owner-only like the store itself: it holds key
 * hashes and the cursor secret (docs/scaling.md).
 */
export async function backupSqlite(dbPath: string, destination: string): Promise<{ pages: number }> {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    const { totalPages } = await db.backup(destination);
    chmodSync(destination, 0o600);
    return { pages: totalPages };
  } finally {
    db.close();
  }
}
