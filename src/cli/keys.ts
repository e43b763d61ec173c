import type { Command } from 'commander';
import { loadV1Times, parseIsoTime } from '../config.js';
import { createKey, KeyCommandError } from '../keys/create-key.js';
import { grantLegacyV1 } from '../keys/grant-legacy-v1.js';
import { revokeKey } from '../keys/revoke-key.js';
import type { CommandContext } from './command-context.js';
import { memberNamed } from './directory.js';
import { keyV1Notice } from './key-notice.js';
import { registerKeyListCommand } from './keys-list.js';

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
        const times = loadV1Times();
        const member = await memberNamed(store, opts.member);
        const created = await createKey(store, {
          member: member.id,
          label: opts.label ?? null,
          legacyV1: opts.legacyV1 === true,
          expiresAt,
        });
        out.result(
          { id: created.id, key: created.key, memberId: created.memberId },
          `key ${created.id} for member ${created.memberId}: ${created.key}\n(shown once: store it now)`,
        );
        // On stderr, so --json's stdout stays the one document: what this key may do on v1.
        const notice = keyV1Notice(times, created, opts.member, Date.now());
        if (notice !== null) process.stderr.write(`${notice}\n`);
      }),
    );

  registerKeyListCommand(keys, withContext);

  keys
    .command('revoke')
    .description('revoke a key; refused from the next request on')
    .argument('<key id>', 'the id shown by keys create / keys list')
    .action((id: string) =>
      withContext(async ({ store, out }) => {
        if (!/^\d+$/.test(id)) throw new KeyCommandError(`key id ${JSON.stringify(id)} is not a number`);
        if (
          !(await revokeKey(store, {
            keyId: Number(id),
            teamId: null,
            now: Date.now(),
            actor: { via: 'operator' },
          }))
        )
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
          if (!(await grantLegacyV1(store, { keyId: Number(id), granted })))
            throw new KeyCommandError(`no key ${id}`);
          out.result(
            { id: Number(id), legacyV1: granted },
            `key ${id}: legacy v1 access ${granted ? 'granted' : 'revoked'}`,
          );
        }),
      );
  }
}
