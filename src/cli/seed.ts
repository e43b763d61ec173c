import { Readable } from 'node:stream';
import cliProgress from 'cli-progress';
import { type Command, InvalidArgumentError } from 'commander';
import { type ImportSummary, importRecords } from '../io/import/run-import.js';
import type { Store } from '../store.js';
import type { CommandContext } from './command-context.js';

export interface SeedRequest {
  teams: number;
  membersPerTeam: number;
  leads: number;
  seed: string;
}

/**
 * Generates synthetic data and loads it through the import path, so seeded data obeys exactly
 * the rules imported data does. Ids follow the highest ones in use.
 */
export async function seedStore(
  store: Store,
  req: SeedRequest,
  onLead: (generated: number) => void = () => {},
): Promise<ImportSummary> {
  // Loaded on demand: faker's locale data doubles the start-up time of every other command.
  const { seedRecords } = await import('../demo/seed.js');
  const max = await store.directory.maxIds();
  const lines = seedRecords({
    ...req,
    firstTeamId: max.team + 1,
    firstMemberId: max.member + 1,
    firstSubteamId: max.subteam + 1,
  });
  let leads = 0;
  const text = (function* () {
    for (const line of lines) {
      // Leads come last, after teams, members and subteams (domain/seed.ts).
      if (line.startsWith('{"type":"lead"')) onLead(++leads);
      yield `${line}\n`;
    }
  })();
  return importRecords(store, [{ name: 'seed', open: () => Readable.from(text) }]);
}

function count(name: string, min: number): (value: string) => number {
  return (value) => {
    if (!/^\d+$/.test(value) || Number(value) < min)
      throw new InvalidArgumentError(`${name} must be an integer ≥ ${min}`);
    return Number(value);
  };
}

/** A progress bar of leads generated on stderr, only when stderr is a terminal (as `import` has). */
function progressBar(total: number): { update(n: number): void; stop(): void } | null {
  if (!process.stderr.isTTY || total === 0) return null;
  const bar = new cliProgress.SingleBar(
    {
      stream: process.stderr,
      format: 'seeding [{bar}] {percentage}% | {value}/{total} leads',
      hideCursor: true,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0);
  // Redrawn every 1,000 leads: the bar itself throttles, but the call per lead is not free.
  return {
    update: (n) => (n % 1000 === 0 || n === total ? bar.update(n) : undefined),
    stop: () => bar.stop(),
  };
}

/** `leadline seed [--teams N] [--members N] [--leads N] [--seed S]`. */
export function registerSeedCommand(program: Command, withContext: CommandContext): void {
  program
    .command('seed')
    .description('generate realistic synthetic data, deterministic for a given --seed')
    .option('--teams <n>', 'teams to create', count('--teams', 1), 3)
    .option('--members <n>', 'members per team', count('--members', 1), 10)
    .option('--leads <n>', 'leads in all', count('--leads', 0), 5000)
    .option('--seed <s>', 'seed of the generator', 'leadline')
    .action((opts: { teams: number; members: number; leads: number; seed: string }) =>
      withContext(async ({ store, out }) => {
        const bar = out.json ? null : progressBar(opts.leads);
        let summary: ImportSummary;
        try {
          summary = await seedStore(
            store,
            { teams: opts.teams, membersPerTeam: opts.members, leads: opts.leads, seed: opts.seed },
            (n) => bar?.update(n),
          );
        } finally {
          bar?.stop();
        }
        out.result(
          { seed: opts.seed, ...summary },
          `seeded ${summary.teams} teams, ${summary.members} members, ${summary.subteams} subteams, ${summary.leads} leads (seed ${JSON.stringify(opts.seed)})`,
        );
      }),
    );
}
