import type { Command } from 'commander';
import { loadRetentionConfig } from '../config.js';
import { clearRetention, retentionPolicies, setRetention } from '../retention/policy.js';
import { runRetention } from '../retention/run.js';
import { policyToWire, runToWire } from '../retention/wire.js';
import { AppError } from '../shared/errors.js';
import { formatInstant } from '../shared/instant.js';
import type { CommandContext } from './command-context.js';
import { CommandError } from './command-error.js';
import { table } from './table.js';

const teamOf = (v: string): number => {
  if (!/^[0-9]{1,15}$/.test(v)) throw new CommandError(`--team ${JSON.stringify(v)} is not a team id`);
  return Number(v);
};

/** A refusal of a use case as the command's message (`--days: …`, `No team 9.`). */
function refused(err: unknown): never {
  if (!(err instanceof AppError)) throw err;
  const params = err.extensions.invalid_params as { name: string; reason: string }[] | undefined;
  throw new CommandError(
    params === undefined ? err.detail : params.map((p) => `--${p.name.slice(1)}: ${p.reason}`).join('; '),
  );
}

/**
 * `leadline retention` (docs/cli.md, docs/privacy.md "Retention"): the teams' retention
 * policies, set and cleared by the operator, and a run by hand — `--dry-run` counts first.
 */
export function registerRetentionCommands(program: Command, withContext: CommandContext): void {
  const retention = program
    .command('retention')
    .description("teams' retention policies: leads not changed for N days are erased, with receipts");
  retention
    .command('set')
    .description(
      "set a team's policy: erase its leads not changed (or, never changed, captured) for --days days",
    )
    .requiredOption('--team <id>', 'the team')
    .requiredOption('--days <n>', 'how many days a lead is kept after its last change')
    .action((opts: { team: string; days: string }) =>
      withContext(async ({ store, out }) => {
        const days = /^[0-9]{1,6}$/.test(opts.days) ? Number(opts.days) : Number.NaN;
        const policy = await setRetention(store, {
          teamId: teamOf(opts.team),
          days,
          now: Date.now(),
          actor: { via: 'operator' },
        }).catch(refused);
        out.result(
          policyToWire(policy),
          `team ${policy.teamId}: leads are kept ${policy.days} days after their last change`,
        );
      }),
    );
  retention
    .command('clear')
    .description("remove a team's policy: its leads are kept")
    .requiredOption('--team <id>', 'the team')
    .action((opts: { team: string }) =>
      withContext(async ({ store, out }) => {
        const teamId = teamOf(opts.team);
        if (
          !(await clearRetention(store, { teamId, now: Date.now(), actor: { via: 'operator' } }).catch(
            refused,
          ))
        )
          throw new CommandError(`--team: team ${teamId} has no retention policy`);
        out.result({ cleared: true, teamId }, `team ${teamId}: retention policy removed`);
      }),
    );
  retention
    .command('list')
    .description('every team’s policy, with its last run')
    .action(() =>
      withContext(
        async ({ store, out }) => {
          const list = (await retentionPolicies(store)).map(policyToWire);
          out.result(
            { policies: list },
            list.length === 0
              ? 'no retention policies'
              : table(
                  ['TEAM', 'DAYS', 'SET', 'LAST RUN', 'ERASED'],
                  list.map((p) => [p.teamId, p.days, p.setAt, p.lastRunAt, p.lastErased]),
                ),
          );
        },
        { readOnly: true },
      ),
    );
  retention
    .command('run')
    .description('run the policies now (the server also runs them on a schedule) and prune old receipts')
    .option('--team <id>', "only this team's policy (receipts are then not pruned)")
    .option('--dry-run', 'count the leads due and the receipts to prune; change nothing')
    .action((opts: { team?: string; dryRun?: boolean }) =>
      withContext(async ({ store, out }) => {
        const { receiptDays } = loadRetentionConfig();
        const teamId = opts.team === undefined ? undefined : teamOf(opts.team);
        if (teamId !== undefined && (await retentionPolicies(store, teamId)).length === 0)
          throw new CommandError(`--team: team ${teamId} has no retention policy`);
        const run = await runRetention(store, {
          ...(teamId === undefined ? {} : { teamId }),
          dryRun: opts.dryRun === true,
          now: Date.now(),
          by: { via: 'operator' },
          receiptDays,
        });
        out.result(runToWire(run), describeRun(run));
      }),
    );
}

function describeRun(run: Awaited<ReturnType<typeof runRetention>>): string {
  const verb = run.dryRun ? 'due' : 'erased';
  const lines = run.teams.map((t) =>
    t.skipped
      ? `team ${t.teamId}: skipped (another run holds it)`
      : `team ${t.teamId} (${t.days} days): ${run.dryRun ? t.due : t.erased} leads ${verb}${
          t.erasureIds.length === 0 ? '' : `, receipts ${t.erasureIds.join(', ')}`
        }`,
  );
  if (run.teams.length === 0) lines.push('no retention policies');
  if (run.receipts !== null)
    lines.push(
      `${run.receipts.pruned} erasure receipts ${run.dryRun ? 'to prune' : 'pruned'} (older than ${formatInstant(run.receipts.before)})`,
    );
  return lines.join('\n');
}
