import type { FastifyInstance } from 'fastify';
import type { Store } from '../../src/store.js';
import { makeApp } from './helpers.js';

/**
 * The waiting feeds' tests (test/v2/feed-wait, test/v2/events-wait): a request deadline
 * (LEADLINE_REQUEST_TIMEOUT_SECONDS) shorter than the waits and streams — it bounds receiving a
 * request, never how long its answer may take — and a heartbeat each second.
 */
export const WAITING_SETTINGS = {
  LEADLINE_FEED_MAX_WAIT_SECONDS: '30',
  LEADLINE_FEED_HEARTBEAT_SECONDS: '1',
  LEADLINE_REQUEST_TIMEOUT_SECONDS: '1',
  LEADLINE_HEADERS_TIMEOUT_SECONDS: '1',
};

/** An app listening on a free port over `store`. */
export interface Instance {
  store: Store;
  app: FastifyInstance;
  base: string;
}

export async function serve(store: Store): Promise<Instance> {
  const app = await makeApp(store, WAITING_SETTINGS);
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  return { store, app, base };
}
