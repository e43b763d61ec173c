/**
 * Import records of leads (docs/import-format.md) for tests that load their own: each call makes
 * one with a new id (`<prefix><n>`) and a later capture time, so a test's leads never collide
 * with another suite's on a shared PostgreSQL and keep the order they were made in.
 */
export function leadRecords(prefix: string, firstEpoch: number) {
  let n = 0;
  return (userId: number, more: Record<string, unknown> = {}) => {
    n += 1;
    return { type: 'lead', userId, id: `${prefix}${n}`, epoch: firstEpoch + n, isLead: true, ...more };
  };
}
