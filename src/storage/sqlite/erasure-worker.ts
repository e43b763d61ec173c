/**
 * The erasure thread (erasure-thread.ts): its own connection to the store's file, and the
 * erasure carried out there in one transaction, as SqliteErasureStore does in-thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { giveWayToServing } from '../worker-thread.js';
import { connect } from './connection.js';
import { SqliteErasureStore } from './erasure.js';
import type { FromErasureThread, ToErasureThread } from './erasure-thread.js';

if (parentPort !== null) {
  const port = parentPort;
  // docs/privacy.md "Erasure under load": an erasure sharing a core with requests waits for them.
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
