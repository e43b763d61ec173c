import type { Command } from 'commander';
import { AUDIT_ACTIONS, type AuditAction } from '../audit/audit.port.js';
import { type AuditQuery, exportAudit, listAudit, MAX_AUDIT_PAGE } from '../audit/list-audit.js';
import { auditToWire } from '../audit/wire.js';
import { parseIsoTime } from '../config.js';
import type { CommandContext } from './command-context.js';
import { CommandError } from './command-error.js';
import { table } from './table.js';

interface Filters {
  team?: string;
  action?: string;
  since?: string;
}

const number = (flag: string, v: string | undefined): number | null => {
  if (v === undefined) return null;
  if (!/^[0-9]{1,15}$/.test(v)) throw new CommandError(`${flag} ${JSON.stringify(v)} is not a number`);
  return Number(v);
};

/** The operator's reader: a team's records (--team), or every record. */
function readerOf(opts: Filters): { operator: { teamId: number | null } } {
  return { operator: { teamId: number('--team', opts.team) } };
}

function queryOf(opts: Filters): AuditQuery {
  const query: AuditQuery = {};
  if (opts.action !== undefined) {
    if (!(AUDIT_ACTIONS as readonly string[]).includes(opts.action))
      throw new CommandError(
        `--action ${JSON.stringify(opts.action)} is not one of ${AUDIT_ACTIONS.join(', ')}`,
      );
    query.action = opts.action as AuditAction;
  }
  if (opts.since !== undefined) {
    const since = parseIsoTime(opts.since);
    if (since === null) throw new CommandError(`--since ${JSON.stringify(opts.since)} is not an ISO date`);
    query.since = since;
  }
  return query;
}

const filterOptions = (c: Command): Command =>
  c
    .option('--team <id>', "only this team's records (without it: every record)")
    .option('--action <action>', `only this action: ${AUDIT_ACTIONS.join(', ')}`)
    .option('--since <ISO time>', 'only records at or after this time');

/**
 * `leadline audit list` and `leadline audit export` (docs/cli.md, docs/privacy.md "Audit log"):
 * the operator reads the audit log through the use case the API and the console use.
 */
export function registerAuditCommands(program: Command, withContext: CommandContext): void {
  const audit = program.command('audit').description('the audit log: who did what, ids and counts only');
  filterOptions(audit.command('list'))
    .description('audit records, newest first (a page: --limit, then --before the last id shown)')
    .option('--limit <n>', `records to show, 1 to ${MAX_AUDIT_PAGE}`, '50')
    .option('--before <id>', 'only records older than this id (the next page)')
    .action((opts: Filters & { limit: string; before?: string }) =>
      withContext(
        async ({ store, out }) => {
          const limit = number('--limit', opts.limit);
          if (limit === null || limit < 1 || limit > MAX_AUDIT_PAGE)
            throw new CommandError(`--limit must be 1 to ${MAX_AUDIT_PAGE}`);
          const by = readerOf(opts);
          const query = queryOf(opts);
          const page = await listAudit(store, by, {
            ...query,
            before: number('--before', opts.before),
            limit,
          });
          const records = page.records.map(auditToWire);
          const rows = records.map((r) => [
            r.id,
            r.at,
            r.teamId,
            r.action,
            r.actor.via === 'key'
              ? `key ${r.actor.keyId}`
              : r.actor.via === 'console'
                ? `console member ${r.actor.memberId}`
                : r.actor.via,
            JSON.stringify(r.details),
          ]);
          out.result(
            { records, more: page.more },
            records.length === 0
              ? 'no audit records'
              : table(['ID', 'AT', 'TEAM', 'ACTION', 'BY', 'DETAILS'], rows),
          );
        },
        { readOnly: true },
      ),
    );
  filterOptions(audit.command('export'))
    .description('every matching audit record as NDJSON on stdout, newest first')
    .action((opts: Filters) =>
      withContext(
        async ({ store }) => {
          const by = readerOf(opts);
          const query = queryOf(opts);
          for await (const record of exportAudit(store, by, query)) {
            const line = `${JSON.stringify(auditToWire(record))}\n`;
            if (!process.stdout.write(line)) await new Promise((r) => process.stdout.once('drain', r));
          }
        },
        { readOnly: true },
      ),
    );
}
