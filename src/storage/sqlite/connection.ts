import Database from 'better-sqlite3';
import { createStoreFile } from './file.js';

/**
 * A connection to the store's file, as every one of leadline's is set: WAL so readers never wait
 * for the writer, foreign keys, a writer waits up to 5 s for another, and `secure_delete`.
 * SqliteStore.open's connection, and the erasure thread's (erasure-thread.ts).
 */
export function connect(path: string): Database.Database {
  createStoreFile(path);
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  // docs/privacy.md "Physically gone": what a write frees is zeroed, so an erased lead's bytes
  // do not linger in free space (its cost: bench/RESULTS.md "Erasure").
  db.pragma('secure_delete = ON');
  return db;
}
