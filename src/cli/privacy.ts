import type { Command } from 'commander';
import { eraseData, reclaimAfterErasure } from '../privacy/erase.js';
import { liftSuppression, listSuppressions } from '../privacy/suppression.js';
import { receiptToWire } from '../privacy/wire.js';
import { AppError } from '../shared/errors.js';
import { formatInstant } from '../shared/instant.js';
import type { CommandContext } from './command-context.js';
import { CommandError } from './command-error.js';

/** A refusal of a use case as the command's message; a 400's words name the input at fault. */
function refused(err: unknown): never {
  if (err instanceof AppError) {
    const params = err.extensions.invalid_params as { name: string; reason: string }[] | undefined;
    const option = (name: string) =>
      name
        .replace(/^\/email$/, '--email')
        .replace(/^\/leadIds\/(\d+)$/, (_m, i) => `--lead-id #${Number(i) + 1}`);
    throw new CommandError(
      params === undefined ? err.detail : params.map((p) => `${option(p.name)}: ${p.reason}`).join('; '),
    );
  }
  throw err;
}

const teamOf = (v: string | undefined): number | null => {
  if (v === undefined) return null;
  if (!/^[0-9]+$/.test(v)) throw new CommandError(`--team ${JSON.stringify(v)} is not a team id`);
  return Number(v);
};

const repeat = (v: string, all: string[]) => [...all, v];

/**
 * `leadline erase` and `leadline suppression` (docs/cli.md, docs/privacy.md): the operator's
 * erasure — of one team, or every team without `--team` — through the API's use case; the
 * freed space is reclaimed (WAL truncated / VACUUM) before the receipt is printed.
 */
export function registerPrivacyCommands(program: Command, withContext: CommandContext): void {
  program
    .command('erase')
    .description(
      "erase a person: every lead holding --email (of --team, or of every team), or --lead-id's leads of --team; prints the receipt",
    )
    .option('--email <address>', "the person's e-mail (compared trimmed, lower case); then suppressed")
    .option('--lead-id <leadId>', 'a lead to erase (repeatable; needs --team)', repeat, [])
    .option('--team <id>', 'the team (without it, --email erases in every team)')
    .action((opts: { email?: string; leadId: string[]; team?: string }) =>
      withContext(async ({ store, out }) => {
        const teamId = teamOf(opts.team);
        const byIds = opts.leadId.length > 0;
        if ((opts.email !== undefined) === byIds)
          throw new CommandError('give either --email or --lead-id (not both, not neither)');
        if (byIds && teamId === null) throw new CommandError('--lead-id needs --team: the leads’ team');
        const receipt = await eraseData(store, {
          by: { operator: { teamId } },
          ...(byIds ? { leadIds: opts.leadId } : { email: opts.email! }),
          now: Date.now(),
        }).catch(refused);
        await reclaimAfterErasure(store);
        const wire = receiptToWire(receipt);
        out.result(wire, JSON.stringify(wire, null, 2));
      }),
    );
  const suppression = program
    .command('suppression')
    .description('erased e-mails that leads may not carry again (hashes only)');
  suppression
    .command('list')
    .description("the suppressions: a team's (and the global ones), or all; hashes and dates only")
    .option('--team <id>', 'only those that hold for this team')
    .action((opts: { team?: string }) =>
      withContext(async ({ store, out }) => {
        const list = (await listSuppressions(store, teamOf(opts.team))).map((s) => ({
          teamId: s.teamId,
          emailHash: s.emailHash,
          createdAt: formatInstant(s.createdAt),
          erasureId: s.erasureId,
        }));
        out.result(
          { suppressions: list },
          list.length === 0
            ? 'no suppressions'
            : list.map((s) => `${s.createdAt}  ${s.teamId ?? 'all teams'}  ${s.emailHash}`).join('\n'),
        );
      }),
    );
  suppression
    .command('remove')
    .description('lift the suppression of an e-mail: of --team, or the global one without it')
    .requiredOption('--email <address>', 'the e-mail to accept again')
    .option('--team <id>', "the team's suppression (without it: the one for every team)")
    .action((opts: { email: string; team?: string }) =>
      withContext(async ({ store, out }) => {
        const teamId = teamOf(opts.team);
        const removed = await liftSuppression(store, teamId, opts.email).catch(refused);
        if (!removed)
          throw new CommandError(
            `--email: not suppressed ${teamId === null ? 'for every team' : `for team ${teamId}`}`,
          );
        out.result(
          { removed: true, teamId },
          `suppression lifted ${teamId === null ? 'for every team' : `for team ${teamId}`}`,
        );
      }),
    );
}
