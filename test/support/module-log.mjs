/**
 * A module loader hook that appends the URL of every module it loads to the file named by
 * LEADLINE_MODULE_LOG, one a line: `node --import ./test/support/module-log.mjs …`. Imported on
 * the main thread it registers itself; on the hooks' thread it is the hook.
 */
import { appendFileSync } from 'node:fs';
import { register } from 'node:module';
import { isMainThread } from 'node:worker_threads';

if (isMainThread) register(import.meta.url);

export async function load(url, context, next) {
  const log = process.env.LEADLINE_MODULE_LOG;
  if (log !== undefined) appendFileSync(log, `${url}\n`);
  return next(url, context);
}
