import { readlinkSync } from 'node:fs';
import { constants, setPriority } from 'node:os';
import { type ResourceLimits, Worker } from 'node:worker_threads';

/**
 * A worker thread running the module `name` beside the caller's (`base`: its `import.meta.url`):
 * compiled, `<name>.js`; run from the sources (the tests, through tsx), `<name>.ts` behind tsx's
 * loader — a worker does not inherit the loader hooks of the thread that starts it (Node 20).
 */
export function startModuleWorker(
  base: string,
  name: string,
  workerData: unknown,
  resourceLimits: ResourceLimits = {},
): Worker {
  if (!base.endsWith('.ts')) return new Worker(new URL(`./${name}.js`, base), { workerData, resourceLimits });
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const entry = JSON.stringify(new URL(`./${name}.ts`, base).href);
  return new Worker(`import(${tsx}).then((tsx) => { tsx.register(); return import(${entry}); })`, {
    eval: true,
    workerData,
    resourceLimits,
  });
}

/**
 * Called on a worker thread: the thread gives way to the serving thread. On Linux a thread's
 * nice value is its own, so at the lowest priority (19) work sharing a core with the request
 * thread gets what that thread leaves, instead of half of the core by turns while requests wait.
 * It still takes all of an idle core. Elsewhere (no /proc/thread-self), or where it is refused,
 * it runs at the process's priority.
 */
export function giveWayToServing(): void {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, constants.priority.PRIORITY_LOW);
  } catch {
    // Not Linux, or not allowed: the thread keeps the process's priority.
  }
}
