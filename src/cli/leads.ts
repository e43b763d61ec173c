import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { leadToV2 } from '../leads/v2-wire.js';
import { AppError } from '../shared/errors.js';
import type { CommandContext } from './command-context.js';
import { CommandError } from './command-error.js';

/** A refusal of a use case as the command's message (the store is untouched). */
function refused(err: unknown): never {
  if (err instanceof AppError) throw new CommandError(err.detail);
  throw err;
}

/** `--set field=value` → a merge patch of systemFields; `field=` (empty) removes the value. */
function patchOf(sets: string[], file: string | undefined): unknown {
  if (file !== undefined) {
    try {
      return JSON.parse(readFileSync(file, 'utf8'));
    } catch (err) {
      throw new CommandError(`${file}: not a JSON merge patch (${(err as Error).message})`);
    }
  }
  if (sets.length === 0)
    throw new CommandError('nothing to change: give --set field=value or --patch <file>');
  const systemFields: Record<string, string | null> = {};
  for (const s of sets) {
    const eq = s.indexOf('=');
    if (eq < 1) throw new CommandError(`--set ${JSON.stringify(s)} is not field=value`);
    const value = s.slice(eq + 1);
    systemFields[s.slice(0, eq)] = value === '' ? null : value;
  }
  return { systemFields };
}

const team = (v: string): number => {
  if (!/^[0-9]+$/.test(v)) throw new CommandError(`--team ${JSON.stringify(v)} is not a team id`);
  return Number(v);
};

/**
 * `leadline leads update|merge` (docs/cli.md): the operator's corrections, through the API's use
 * cases. Those are imported when the command runs: they check patches with TypeBox's compiler,
 * whose ~700 modules would otherwise load on every `leadline` start (docs/cli.md "Start-up").
 */
export function registerLeadCommands(program: Command, withContext: CommandContext): void {
  const leads = program.command('leads').description("correct and merge a team's leads (source: cli)");
  leads
    .command('update <leadId>')
    .description('change a lead: --set field=value (systemFields; empty value removes it) or --patch <file>')
    .requiredOption('--team <id>', "the lead's team")
    .option(
      '--set <field=value>',
      'a systemFields member (repeatable)',
      (v: string, all: string[]) => [...all, v],
      [],
    )
    .option('--patch <file>', 'a JSON merge patch (RFC 7396) of the lead')
    .option('--if-version <n>', 'only if the lead is still at this version')
    .action((leadId: string, opts: { team: string; set: string[]; patch?: string; ifVersion?: string }) =>
      withContext(async ({ store, out }) => {
        const { updateLead } = await import('../leads/update-lead.js');
        const { lead, changed } = await updateLead(store, {
          by: { operator: { teamId: team(opts.team) } },
          leadId,
          patch: patchOf(opts.set, opts.patch),
          ifMatch: opts.ifVersion === undefined ? null : Number(opts.ifVersion),
          source: 'cli',
          now: Date.now(),
        }).catch(refused);
        out.result(
          { version: lead.version, changed, lead: leadToV2(lead) },
          changed ? `lead ${lead.uuid} updated (version ${lead.version})` : `lead ${lead.uuid} unchanged`,
        );
      }),
    );
  leads
    .command('merge <survivorId> <mergedId...>')
    .description('merge leads into the survivor, which keeps its id and takes the values it lacks')
    .requiredOption('--team <id>', "the leads' team")
    .action((survivorId: string, mergedIds: string[], opts: { team: string }) =>
      withContext(async ({ store, out }) => {
        const { mergeLeads } = await import('../leads/merge-leads.js');
        const lead = await mergeLeads(store, {
          by: { operator: { teamId: team(opts.team) } },
          leadId: survivorId,
          mergeLeadIds: mergedIds,
          source: 'cli',
          now: Date.now(),
        }).catch(refused);
        out.result(
          { version: lead.version, merged: mergedIds, lead: leadToV2(lead) },
          `merged ${mergedIds.length} lead${mergedIds.length === 1 ? '' : 's'} into ${lead.uuid} (version ${lead.version})`,
        );
      }),
    );
}
