import { after, before } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { EngineName } from '../support/engines.js';
import { makeApp } from '../support/helpers.js';
import { buildFixture, type Fixture, type Rec } from './fixtures.js';

/** A v1 fixture (store, model, a key per member) and the app over its store. */
export interface V1Harness {
  fx: Fixture;
  app: FastifyInstance;
}

/**
 * The setup every v1 suite shares, registered in the calling `describe`: before its tests, a
 * fixture of `records` (default: the full fixture) on `engine` and an app over it, handed to
 * `use`, which keeps them for the tests; after them, the app closed and the store removed.
 */
export function v1Harness(engine: EngineName, use: (h: V1Harness) => void, records?: Rec[]): void {
  let h: V1Harness;
  before(async () => {
    const fx = await buildFixture(engine, records);
    h = { fx, app: await makeApp(fx.store) };
    use(h);
  });
  after(async () => {
    await h.app.close();
    await h.fx.cleanup();
  });
}

/**
 * A fixture and app of the test's own, for a test that changes the data (a second import) and
 * must not change what the suite's other tests see; closed and removed when `use` ends.
 */
export async function withOwnFixture(
  engine: EngineName,
  use: (own: Fixture, ownApp: FastifyInstance) => Promise<void>,
  records?: Rec[],
): Promise<void> {
  const own = await buildFixture(engine, records);
  const ownApp = await makeApp(own.store);
  try {
    await use(own, ownApp);
  } finally {
    await ownApp.close();
    await own.cleanup();
  }
}
