import { fileSource, importRecords } from '../../src/io/import/run-import.js';
import { openStore } from '../../src/open-store.js';

/**
 * `node --import tsx import-child.ts <db path> <database url or ''> <file>`: imports the file
 * into the store, printing the bytes read at every progress report, so a test can SIGKILL it
 * in the middle of its transaction.
 */
const [dbPath = '', databaseUrl = '', file = ''] = process.argv.slice(2);
const store = await openStore({ dbPath, databaseUrl: databaseUrl === '' ? null : databaseUrl });
await importRecords(store, [fileSource(file)], {
  onProgress: (bytes) => process.stdout.write(`${bytes}\n`),
});
await store.close();
process.stdout.write('done\n');
