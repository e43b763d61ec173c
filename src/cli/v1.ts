import type { Command } from 'commander';
import { parseIsoTime } from '../config.js';
import { removeBrownout } from '../retirement/remove-brownout.js';
import { MAX_REPORT_DAYS, parseReportDays, V1_OPERATION_NAMES, v1Report } from '../retirement/report.js';
import { BrownoutRefused, scheduleBrownout } from '../retirement/schedule-brownout.js';
import type { CommandContext } from './command-context.js';
import { CommandError } from './command-error.js';
import { table } from './table.js';
import { registerV1NoticesCommand } from './v1-notices.js';
import { describeBrownout, registerV1StatusCommand } from './v1-status.js';

/** A date-time without `Z` or `±hh:mm`: which instant it means depends on a time zone nobody named. */
const NO_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/;

function time(value: string, flag: string): number {
  if (NO_OFFSET.test(value)) {
    throw new CommandError(
      `${flag} ${JSON.stringify(value)} has no offset: add Z for UTC or the offset of the time zone meant, e.g. ${value}Z or ${value}+02:00`,
    );
  }
  const ms = parseIsoTime(value);
  if (ms === null)
    throw new CommandError(
      `${flag} ${JSON.stringify(value)} is not an ISO-8601 time: give a date-time with an offset, e.g. 2026-12-01T09:00:00Z, or a date (UTC midnight)`,
    );
  return ms;
}

function keyIds(values: string[]): number[] {
  return values.map((v) => {
    if (!/^[0-9]+$/.test(v)) throw new CommandError(`--key ${JSON.stringify(v)} is not a key id`);
    return Number(v);
  });
}

/** `leadline v1 brownout add|list|remove` and `leadline v1 report` (docs/cli.md, docs/v1-deprecation-policy.md). */
export function registerV1Commands(program: Command, withContext: CommandContext): void {
  const v1 = program
    .command('v1')
    .description('retire v1: its status, brownouts, the usage report and notices to the teams still on it');
  const brownout = v1.command('brownout').description('windows during which v1 answers 410');

  brownout
    .command('add')
    .description('schedule a brownout for every key, or for the keys named with --key')
    .requiredOption('--from <ISO>', 'start (inclusive)')
    .requiredOption('--to <ISO>', 'end (exclusive)')
    .option(
      '--key <key id>',
      'a key the brownout is for (repeatable)',
      (v: string, all: string[]) => [...all, v],
      [],
    )
    .action((opts: { from: string; to: string; key: string[] }) =>
      withContext(async ({ store, out }) => {
        const startsAt = time(opts.from, '--from');
        const endsAt = time(opts.to, '--to');
        const now = Date.now();
        const ids = opts.key.length === 0 ? null : keyIds(opts.key);
        const { brownout: b, sameAs: twins } = await scheduleBrownout(store, {
          startsAt,
          endsAt,
          keyIds: ids,
          now,
          actor: { via: 'operator' },
        }).catch((err: unknown) => {
          if (!(err instanceof BrownoutRefused)) throw err;
          const r = err.refusal;
          throw new CommandError(
            r.kind === 'ends-before-start'
              ? '--to must be after --from'
              : r.kind === 'already-ended'
                ? `the window ${new Date(startsAt).toISOString()} to ${new Date(endsAt).toISOString()} is entirely in the past (now ${new Date(now).toISOString()}): it would switch nothing off`
                : `no key ${r.keyIds.join(', ')}`,
          );
        });
        const d = describeBrownout(b, Date.now());
        if (twins.length > 0) {
          process.stderr.write(
            `warning: brownout ${twins.join(', ')} already covers this window for the same keys; \`leadline v1 brownout remove ${b.id}\` removes the new one\n`,
          );
        }
        out.result(
          twins.length === 0 ? d : { ...d, sameAs: twins },
          `brownout ${d.id}: ${d.from} to ${d.to}, ${ids === null ? 'every key' : `keys ${ids.join(', ')}`}`,
        );
      }),
    );

  brownout
    .command('list')
    .description('list brownouts, past and scheduled')
    .action(() =>
      withContext(
        async ({ store, out }) => {
          const now = Date.now();
          const list = (await store.retirement.brownouts()).map((b) => describeBrownout(b, now));
          out.result(
            { brownouts: list },
            list.length === 0
              ? 'no brownouts'
              : table(
                  ['id', 'from', 'to', 'state', 'keys'],
                  list.map((b) => [
                    b.id,
                    b.from,
                    b.to,
                    b.state,
                    b.keys === null ? 'every key' : b.keys.join(', '),
                  ]),
                ),
          );
        },
        { readOnly: true },
      ),
    );

  brownout
    .command('remove')
    .description('remove a brownout')
    .argument('<id>', 'the id shown by brownout add / list')
    .action((id: string) =>
      withContext(async ({ store, out }) => {
        if (!/^[0-9]+$/.test(id)) throw new CommandError(`brownout id ${JSON.stringify(id)} is not a number`);
        if (!(await removeBrownout(store, { id: Number(id), actor: { via: 'operator' }, now: Date.now() })))
          throw new CommandError(`no brownout ${id}`);
        out.result({ id: Number(id), removed: true }, `brownout ${id} removed`);
      }),
    );

  registerV1StatusCommand(v1, withContext);
  registerV1NoticesCommand(v1, withContext);

  v1.command('report')
    .description('who still calls v1: per key, v1 calls by operation, last seen, user agent, v2 calls')
    .option('--days <N>', 'the window, in days up to today', '30')
    .action((opts: { days: string }) =>
      withContext(
        async ({ store, out }) => {
          const days = parseReportDays(opts.days);
          if (days === null) {
            throw new CommandError(
              `--days ${JSON.stringify(opts.days)}: a whole number of days, 1 to ${MAX_REPORT_DAYS}`,
            );
          }
          const report = v1Report(
            await store.keys.list(),
            await store.retirement.usage(null),
            days,
            Date.now(),
          );
          const rows = report.keys.map((k) => {
            const ops = V1_OPERATION_NAMES.filter((op) => (k.v1ByOperation[op] ?? 0) > 0)
              .map((op) => `${op} ${k.v1ByOperation[op]}`)
              .join(', ');
            return [
              k.keyId,
              k.memberId,
              k.status,
              k.v1Calls,
              k.v1Served,
              k.v1Refused,
              k.v1LastSeen,
              k.v2Calls,
              k.userAgent,
              ops,
            ];
          });
          const onV1 = report.keys.filter((k) => k.status === 'on-v1').length;
          const refused = report.keys.filter((k) => k.status === 'refused').length;
          const summary = `last ${days} days: ${onV1} of ${report.keys.length} keys still call v1${refused > 0 ? `; ${refused} more tried and ${refused === 1 ? 'was' : 'were'} refused on every call` : ''}`;
          const listing = table(
            [
              'key',
              'member',
              'status',
              'v1',
              'served',
              'refused',
              'last v1',
              'v2',
              'user agent',
              'v1 by operation',
            ],
            rows,
          );
          out.result(report, rows.length === 0 ? summary : `${summary}\n\n${listing}`);
        },
        { readOnly: true },
      ),
    );
}
