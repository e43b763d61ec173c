import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { backupStoreFile } from '../open-store.js';
import { type GlobalOptions, isExpected, storeLocation } from './command-context.js';
import { CommandError } from './command-error.js';
import { fail, makeOutput } from './output.js';

/** `leadline backup <file>`: an online, consistent copy of a SQLite store (docs/self-hosting.md). */
export function registerBackupCommand(program: Command): void {
  program
    .command('backup <file>')
    .description('copy the SQLite store to a new file, consistently, while serve runs')
    .action(async (file: string) => {
      const global = program.opts<GlobalOptions>();
      const json = global.json === true;
      try {
        const location = storeLocation(global);
        if (location.databaseUrl !== null)
          throw new CommandError('a PostgreSQL store is backed up with pg_dump (docs/self-hosting.md)');
        if (!existsSync(location.dbPath)) throw new CommandError(`no store at ${location.dbPath}`);
        if (existsSync(file)) throw new CommandError(`${file} exists: give a file that does not`);
        const { pages } = await backupStoreFile(location.dbPath, file);
        makeOutput(json).result({ file, pages }, `backed up ${location.dbPath} to ${file} (${pages} pages)`);
      } catch (err) {
        fail(json, isExpected(err) ? err.message : `cannot back up: ${(err as Error).message}`);
      }
    });
}
