import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import { ConsoleSignInError, createSignInLink } from '../console/sign-in.js';
import type { CommandContext } from './command-context.js';
import { CommandError } from './command-error.js';

/**
 * `leadline console link --member <id or e-mail>` / `--operator` (docs/console.md): prints a
 * single-use sign-in link to the admin console, good for 15 minutes. The link is built on
 * LEADLINE_PUBLIC_URL, the address people reach the service at.
 */
export function registerConsoleCommands(program: Command, withContext: CommandContext): void {
  const console = program.command('console').description('the admin console in the browser');
  console
    .command('link')
    .description('print a single-use sign-in link (15 minutes) for a team admin or the operator')
    .option('--member <id or e-mail>', 'the team admin the link signs in')
    .option('--operator', 'sign in the operator: every team and the brownouts')
    .action((opts: { member?: string; operator?: boolean }) =>
      withContext(async ({ store, out }) => {
        if ((opts.member === undefined) === (opts.operator !== true))
          throw new CommandError('give exactly one of --member <id or e-mail> and --operator');
        const publicUrl = loadConfig().publicUrl;
        const ref =
          opts.member === undefined ? null : /^[0-9]+$/.test(opts.member) ? Number(opts.member) : opts.member;
        let link: Awaited<ReturnType<typeof createSignInLink>>;
        try {
          link = await createSignInLink(store, ref, Date.now());
        } catch (err) {
          if (err instanceof ConsoleSignInError)
            throw new CommandError(`${err.message} (\`leadline members list\` lists members and roles)`);
          throw err;
        }
        const url = `${publicUrl}/console/sign-in/${link.token}`;
        const who =
          link.subject.kind === 'operator'
            ? 'the operator'
            : `${link.subject.member.email} (team ${link.subject.member.teamId})`;
        const expiresAt = new Date(link.expiresAt).toISOString();
        out.result(
          {
            url,
            expiresAt,
            subject:
              link.subject.kind === 'operator'
                ? 'operator'
                : { memberId: link.subject.member.id, teamId: link.subject.member.teamId },
          },
          `${url}\nsigns in ${who} once, until ${expiresAt}`,
        );
      }),
    );
}
