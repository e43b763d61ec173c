import type { Command } from 'commander';
import { keyState, lastUsedByKey } from '../keys/key-state.js';
import type { CommandContext } from './command-context.js';
import { memberNamed } from './directory.js';
import { table } from './table.js';

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/** A time in a listing column: to the minute, UTC (`2026-11-25 10:40Z`). */
function shortTime(ms: number | null): string | null {
  return ms === null ? null : `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')}Z`;
}

/**
 * `leadline keys list [--member …]`: never the secret. `lastUsedAt` is the key's last call (v1
 * or v2) in the usage ledger, which instances write every LEADLINE_USAGE_FLUSH_MS.
 */
export function registerKeyListCommand(keys: Command, withContext: CommandContext): void {
  keys
    .command('list')
    .description('list keys (never the secret): prefix, label, member, created, expires, last used, status')
    .option('--member <id or e-mail>', 'only this member’s keys')
    .action((opts: { member?: string }) =>
      withContext(
        async ({ store, out }) => {
          const memberId = opts.member === undefined ? undefined : (await memberNamed(store, opts.member)).id;
          const emails = new Map((await store.directory.members(null)).map((m) => [m.id, m.email]));
          const lastUsed = lastUsedByKey(await store.retirement.usage(null));
          const now = Date.now();
          const keyList = await store.keys.list(memberId);
          const list = keyList.map((key) => ({
            id: key.id,
            memberId: key.memberId,
            memberEmail: emails.get(key.memberId) ?? null,
            teamId: key.teamId,
            prefix: key.display,
            label: key.label,
            status: keyState(key, now),
            legacyV1: key.legacyV1,
            createdAt: iso(key.createdAt),
            expiresAt: iso(key.expiresAt),
            revokedAt: iso(key.revokedAt),
            lastUsedAt: iso(lastUsed.get(key.id) ?? null),
          }));
          const rows = keyList.map((key, i) => {
            const k = list[i]!;
            return [
              k.id,
              `${k.prefix}…`,
              k.status,
              k.legacyV1 ? 'legacy-v1' : null,
              k.memberEmail ?? `member ${k.memberId}`,
              shortTime(key.createdAt),
              shortTime(key.expiresAt),
              shortTime(lastUsed.get(key.id) ?? null),
              k.label,
            ];
          });
          out.result(
            { keys: list },
            list.length === 0
              ? 'no keys'
              : table(
                  ['ID', 'PREFIX', 'STATUS', 'V1', 'MEMBER', 'CREATED', 'EXPIRES', 'LAST USED', 'LABEL'],
                  rows,
                ),
          );
        },
        { readOnly: true },
      ),
    );
}
