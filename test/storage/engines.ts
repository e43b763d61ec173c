import type { Store } from '../../src/storage/store.js';
import { makeStore } from '../helpers.js';

export interface EngineUnderTest {
  name: string;
  make(): Promise<{ store: Store; cleanup: () => Promise<void> }>;
}

const ENGINES: Record<string, EngineUnderTest> = {
  sqlite: { name: 'sqlite', make: makeStore },
};

/**
 * The engines a suite runs on: all known ones, or those named in LEADLINE_TEST_ENGINES
 * (comma-separated). Naming an engine this build does not have is an error, never a skip.
 */
export function enginesUnderTest(env = process.env): EngineUnderTest[] {
  const wanted =
    env.LEADLINE_TEST_ENGINES?.split(',')
      .map((s) => s.trim())
      .filter(Boolean) ?? Object.keys(ENGINES);
  return wanted.map((name) => {
    const engine = ENGINES[name];
    if (engine === undefined)
      throw new Error(`LEADLINE_TEST_ENGINES names unknown engine ${JSON.stringify(name)}`);
    return engine;
  });
}
