import type { Command } from 'commander';
import type { Member } from '../directory/directory.js';
import { KeyCommandError } from '../keys/create-key.js';
import type { Store } from '../store.js';
import type { CommandContext } from './command-context.js';
import { CommandError } from './command-error.js';
import { table } from './table.js';

/** Where to look when a member or team named on the command line is not in the store. */
export const DIRECTORY_HINT =
  '`leadline members list` lists members (`--team N` for one team), `leadline teams list` the teams';

/** The member a `--member` option names (id or e-mail), or an error that says where to find one. */
export async function memberNamed(store: Store, value: string): Promise<Member> {
  const member = await store.directory.findMember(/^[0-9]+$/.test(value) ? Number(value) : value);
  if (member === null) throw new KeyCommandError(`no member ${JSON.stringify(value)}: ${DIRECTORY_HINT}`);
  return member;
}

function describeMember(m: Member) {
  return { id: m.id, teamId: m.teamId, email: m.email, name: m.name, role: m.role };
}

/** `leadline members list [--team N]` and `leadline teams list`: find what `keys create --member` takes. */
export function registerDirectoryCommands(program: Command, withContext: CommandContext): void {
  const members = program.command('members').description('the people of the teams: who a key can act as');
  members
    .command('list')
    .description('list members: id, team, role, e-mail, name')
    .option('--team <id>', 'only this team’s members')
    .action((opts: { team?: string }) =>
      withContext(
        async ({ store, out }) => {
          let teamId: number | null = null;
          if (opts.team !== undefined) {
            if (!/^[0-9]+$/.test(opts.team))
              throw new CommandError(`--team ${JSON.stringify(opts.team)} is not a team id`);
            teamId = Number(opts.team);
            if ((await store.directory.team(teamId)) === null)
              throw new CommandError(`no team ${teamId}: \`leadline teams list\` lists the teams`);
          }
          const list = (await store.directory.members(teamId)).map(describeMember);
          out.result(
            { members: list },
            list.length === 0
              ? 'no members'
              : table(
                  ['ID', 'TEAM', 'ROLE', 'E-MAIL', 'NAME'],
                  list.map((m) => [m.id, m.teamId, m.role, m.email, m.name]),
                ),
          );
        },
        { readOnly: true },
      ),
    );

  const teams = program.command('teams').description('the teams in the store');
  teams
    .command('list')
    .description('list teams: id, name, time zone, members, admins')
    .action(() =>
      withContext(
        async ({ store, out }) => {
          const everyone = await store.directory.members(null);
          const list = (await store.directory.teams()).map((t) => {
            const own = everyone.filter((m) => m.teamId === t.id);
            return {
              id: t.id,
              name: t.name,
              timeZone: t.timeZone,
              members: own.length,
              admins: own.filter((m) => m.role === 'admin').map((m) => m.email),
            };
          });
          out.result(
            { teams: list },
            list.length === 0
              ? 'no teams'
              : table(
                  ['ID', 'NAME', 'TIME ZONE', 'MEMBERS', 'ADMINS'],
                  list.map((t) => [t.id, t.name, t.timeZone, t.members, t.admins.join(', ')]),
                ),
          );
        },
        { readOnly: true },
      ),
    );
}
