import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import { v1UsageEnvelope } from '../retirement/send-v1-usage.js';
import { NOTICE_DEFAULT_DAYS, NOTICE_MAX_DAYS, noticeWindow, v1NoticesOf } from '../retirement/v1-notices.js';
import type { Store } from '../store.js';
import type { CommandContext } from './command-context.js';
import { CommandError } from './command-error.js';
import { type AddressedNotice, csv, letter } from './v1-letters.js';

/** `--days`/`--team`: a whole number from 1, as typed (no `1e3`, no `+2`). */
function whole(value: string, flag: string, max: number): number {
  const n = /^[0-9]{1,9}$/.test(value) ? Number(value) : Number.NaN;
  if (!(n >= 1 && n <= max))
    throw new CommandError(`${flag} ${JSON.stringify(value)}: a whole number, 1 to ${max}`);
  return n;
}

/** The notices with their teams' names and admins' addresses (for the letter's `To:`). */
async function addressed(
  store: Store,
  days: number,
  teamId: number | undefined,
  now: number,
): Promise<AddressedNotice[]> {
  const config = loadConfig();
  const notices = await v1NoticesOf(store, {
    days,
    now,
    ...(teamId === undefined ? {} : { teamId }),
    times: config.v1,
    brownouts: await store.retirement.brownouts(),
    migrationGuide: `${config.publicUrl}/docs/v1-migration`,
  });
  return Promise.all(
    notices.map(async (notice) => ({
      notice,
      team: (await store.directory.team(notice.teamId))?.name ?? null,
      recipients: (await store.directory.members(notice.teamId))
        .filter((m) => m.role === 'admin')
        .map((m) => m.email),
    })),
  );
}

/**
 * `leadline v1 notices [--days N] [--team N] [--csv]` (docs/cli.md): per team whose keys called v1
 * in the last N whole UTC days (yesterday alone by default — the window of the `v1.usage` event),
 * a letter to paste into an e-mail, or CSV, or --json; for teams without a webhook endpoint.
 */
export function registerV1NoticesCommand(v1: Command, withContext: CommandContext): void {
  v1.command('notices')
    .description(
      'per team whose keys still call v1: a letter to e-mail its admins (or --csv), from the usage ledger',
    )
    .option('--days <N>', 'whole UTC days up to yesterday', String(NOTICE_DEFAULT_DAYS))
    .option('--team <id>', 'only this team')
    .option('--csv', 'CSV: one row per key and operation')
    .action((opts: { days: string; team?: string; csv?: boolean }) =>
      withContext(
        async ({ store, out }) => {
          const days = whole(opts.days, '--days', NOTICE_MAX_DAYS);
          const teamId =
            opts.team === undefined ? undefined : whole(opts.team, '--team', Number.MAX_SAFE_INTEGER);
          if (opts.csv === true && out.json) throw new CommandError('--csv and --json: choose one');
          if (teamId !== undefined && (await store.directory.team(teamId)) === null)
            throw new CommandError(`no team ${teamId}`);
          const now = Date.now();
          const list = await addressed(store, days, teamId, now);
          const { from, to } = noticeWindow(days, now);
          if (opts.csv === true) {
            process.stdout.write(`${csv(list)}\r\n`);
            return;
          }
          const doc = {
            from,
            to,
            teams: list.map(({ notice, team, recipients }) => {
              const { day: _day, ...data } = v1UsageEnvelope(notice, now).data;
              return { teamId: notice.teamId, team, recipients, ...data };
            }),
          };
          const none = `no key called v1 ${from === to ? `on ${to}` : `from ${from} to ${to}`} (UTC)`;
          out.result(doc, list.length === 0 ? none : list.map(letter).join(`\n\n${'-'.repeat(72)}\n\n`));
        },
        { readOnly: true },
      ),
    );
}
