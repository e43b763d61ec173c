import type { Caller } from './directory.js';
import { AppError } from './errors.js';

/** Team-wide operations need a team admin's key (v1-contract C2). */
export function requireTeamAdmin(caller: Caller): void {
  if (caller.role !== 'admin') {
    throw new AppError(
      'forbidden',
      "This operation reads the whole team's leads and needs a team admin's key.",
    );
  }
}
