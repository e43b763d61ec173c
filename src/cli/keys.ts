import type { Command } from 'commander';
import { parseIsoTime } from '../config.js';
import { createKey, KeyCommandError } from '../domain/keys.js';
import type { ApiKey } from '../domain/store.js';
import type { CommandContext } from './context.js';

function memberRef(value: string): number | string {
  return /^\d+$/.test(value) ? Number(value) : value;
}

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

function status(key: ApiKey, now: number): 'active' | 'revoked' | 'expired' {
  if (key.revokedAt !== null) return 'revoked';
  if (key.expiresAt !== null && key.expiresAt <= now) return 'expired';
  return 'active';
}

function describeKey(key: ApiKey, now: number) {
  return {
    id: key.id,
    memberId: key.memberId,
    teamId: key.teamId,
    prefix: key.display,
    label: key.label,
    status: status(key, now),
    legacyV1: key.legacyV1,
    createdAt: iso(key.createdAt),
    expiresAt: iso(key.expiresAt),
    revokedAt: iso(key.revokedAt),
  };
}

/** `leadline keys create|list|revoke` (import-format.md). The secret is printed once, at creation. */
export function registerKeyCommands(program: Command, withContext: CommandContext): void {
  const keys = program.command('keys').description('manage API keys');

  keys
    .command('create')
    .description('create an API key for a member; prints the key once')
    .requiredOption('--member <id or e-mail>', 'the member the key acts as')
    .option('--label <label>', 'a note for people: what the key is for')
    .option('--legacy-v1', 'allow this key to call v1 after the freeze')
    .option('--expires <ISO date>', 'expiry, e.g. 2027-06-30 or 2027-06-30T12:00:00Z')
    .action((opts: { member: string; label?: string; legacyV1?: boolean; expires?: string }) =>
      withContext(async ({ store, out }) => {
        let expiresAt: number | null = null;
        if (opts.expires !== undefined) {
          expiresAt = parseIsoTime(opts.expires);
          if (expiresAt === null)
            throw new KeyCommandError(`--expires ${JSON.stringify(opts.expires)} is not an ISO date`);
        }
        const created = await createKey(store, {
          member: memberRef(opts.member),
          label: opts.label ?? null,
          legacyV1: opts.legacyV1 === true,
          expiresAt,
        });
        out.result(
          { id: created.id, key: created.key, memberId: created.memberId },
          `key ${created.id} for member ${created.memberId}: ${created.key}\n(shown once: store it now)`,
        );
      }),
    );

  keys
    .command('list')
    .description('list keys (never the secret)')
    .option('--member <id or e-mail>', 'only this member’s keys')
    .action((opts: { member?: string }) =>
      withContext(async ({ store, out }) => {
        let memberId: number | undefined;
        if (opts.member !== undefined) {
          const member = await store.directory.findMember(memberRef(opts.member));
          if (member === null) throw new KeyCommandError(`no member ${JSON.stringify(opts.member)}`);
          memberId = member.id;
        }
        const now = Date.now();
        const list = (await store.keys.list(memberId)).map((k) => describeKey(k, now));
        const lines = list.map(
          (k) =>
            `${k.id}\t${k.prefix}…\tmember ${k.memberId}\t${k.status}${k.legacyV1 ? '\tlegacy-v1' : ''}\t${k.label ?? ''}`,
        );
        out.result({ keys: list }, lines.length === 0 ? 'no keys' : lines.join('\n'));
      }),
    );

  keys
    .command('revoke')
    .description('revoke a key; refused from the next request on')
    .argument('<key id>', 'the id shown by keys create / keys list')
    .action((id: string) =>
      withContext(async ({ store, out }) => {
        if (!/^\d+$/.test(id)) throw new KeyCommandError(`key id ${JSON.stringify(id)} is not a number`);
        if (!(await store.keys.revoke(Number(id), Date.now())))
          throw new KeyCommandError(`no active key ${id}`);
        out.result({ id: Number(id), revoked: true }, `key ${id} revoked`);
      }),
    );

  for (const [name, granted] of [
    ['grant-legacy-v1', true],
    ['revoke-legacy-v1', false],
  ] as const) {
    keys
      .command(name)
      .description(granted ? 'let this key call v1 after the freeze' : 'take back a legacy v1 grant')
      .argument('<key id>', 'the id shown by keys create / keys list')
      .action((id: string) =>
        withContext(async ({ store, out }) => {
          if (!/^\d+$/.test(id)) throw new KeyCommandError(`key id ${JSON.stringify(id)} is not a number`);
          if (!(await store.keys.setLegacyV1(Number(id), granted))) throw new KeyCommandError(`no key ${id}`);
          out.result(
            { id: Number(id), legacyV1: granted },
            `key ${id}: legacy v1 access ${granted ? 'granted' : 'revoked'}`,
          );
        }),
      );
  }
}
