import { type EngineName, type EngineStore, makeEngineStore } from '../support/engines.js';
import { load } from '../support/helpers.js';

/**
 * The console tests' store (over HTTP and in Chromium): a fresh store on `engine` holding two
 * teams, `a` ("Team A") and `b` ("Team B"), and `members` — a team admin confined to their own
 * team is what most of them check.
 */
export async function twoTeams(
  engine: EngineName,
  [a, b]: [number, number],
  members: object[],
): Promise<EngineStore> {
  const made = await makeEngineStore(engine);
  await load(made.store, [
    { type: 'team', id: a, name: 'Team A' },
    { type: 'team', id: b, name: 'Team B' },
    ...members,
  ]);
  return made;
}
