import Database from 'better-sqlite3';

/** Every row of every data table, in a stable order: "the store as it was", for before/after checks. */
export function dumpStore(path: string): Record<string, unknown[]> {
  const db = new Database(path, { readonly: true });
  try {
    const order: Record<string, string> = {
      teams: 'id',
      members: 'id',
      subteams: 'id',
      subteam_members: 'subteam_id, member_id',
      leads: 'seq',
      api_keys: 'id',
    };
    const out: Record<string, unknown[]> = {};
    for (const [table, by] of Object.entries(order))
      out[table] = db.prepare(`SELECT * FROM ${table} ORDER BY ${by}`).all();
    return out;
  } finally {
    db.close();
  }
}
