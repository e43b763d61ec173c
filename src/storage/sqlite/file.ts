import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * The store file holds leads, key hashes and the cursor secret: only its owner may read it.
 * Created here with 0600 before SQLite opens it (SQLite itself would create it 0644 less the
 * umask: readable by everyone on a usual 022). SQLite's unix VFS gives the `-wal` and `-shm`
 * files the main file's permission bits, so they follow. A directory this creates (the default
 * `./data/`) is 0700.
 *
 * An existing file or directory keeps the mode it has (**leadline decision**): an operator may
 * have opened it to a backup group on purpose, and a silent chmod would undo that. docs/scaling.md
 * says how to tighten a store made by an earlier version.
 */
export const STORE_FILE_MODE = 0o600;
export const STORE_DIR_MODE = 0o700;

export function createStoreFile(path: string): void {
  // ':memory:' and '' (a temporary database) are not files of ours.
  if (path === ':memory:' || path === '') return;
  mkdirSync(dirname(path), { recursive: true, mode: STORE_DIR_MODE });
  try {
    // 'wx': create only; an empty file is an empty SQLite database.
    closeSync(openSync(path, 'wx', STORE_FILE_MODE));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}
