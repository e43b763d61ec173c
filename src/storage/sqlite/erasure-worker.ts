/**
 * The erasure thread (erasure-thread.ts): its own connection to the store's file, and the
 * erasure carried out there in one transaction, as SqliteErasureStore does in-thread.
 */
import { readlinkSync } from 'node:fs';
import { constants, setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { connect } from './connection.js';
import { SqliteErasureStore } from './erasure.js';
import type { FromErasureThread, ToErasureThread } from './erasure-thread.js';

/**
 * The thread gives way to the serving thread (docs/privacy.md "Erasure under load"): on Linux a
 * thread's nice value is its own, so at the lowest priority (19) an erasure sharing a core with
 * the request thread gets what that thread leaves, instead of half of the core by turns while
 * requests wait. It still takes all of an idle core. Elsewhere (no /proc/thread-self), or where
 * it is refused, it runs at the process's priority.
 */
function giveWayToServing(): void {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, constants.priority.PRIORITY_LOW);
  } catch {
    // Not Linux, or not allowed: the thread keeps the process's priority.
  }
}

if (parentPort !== null) {
  const port = parentPort;
  giveWayToServing();
  const store = new SqliteErasureStore(connect(workerData as string));
  port.on('message', (m: ToErasureThread) => {
    let answer: FromErasureThread;
    try {
      const result =
        'candidates' in m
          ? store.candidatesHere(m.candidates.teamId, m.candidates.foldedEmail)
          : 'existing' in m
            ? store.existingHere(m.existing.teamId, m.existing.uuids)
            : 'erase' in m
              ? store.eraseHere(m.erase)
              : store.reclaimHere();
      answer = { id: m.id, result };
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      answer = { id: m.id, error: (err as Error).message, code: typeof code === 'string' ? code : null };
    }
    port.postMessage(answer);
  });
}
