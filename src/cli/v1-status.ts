import type { Command } from 'commander';
import { loadV1Times } from '../config.js';
import type { Brownout, V1Times } from '../retirement/gates.js';
import { type V1Phase, v1Phase } from '../retirement/phase.js';
import { v1Report } from '../retirement/report.js';
import type { CommandContext } from './command-context.js';

export function describeBrownout(b: Brownout, now: number) {
  const state = now < b.startsAt ? 'scheduled' : now < b.endsAt ? 'active' : 'past';
  return {
    id: b.id,
    from: new Date(b.startsAt).toISOString(),
    to: new Date(b.endsAt).toISOString(),
    keys: b.keyIds,
    state,
  };
}

/** What each phase means for a v1 client, in one line (`v1 status`, and `serve` at start). */
export function phaseLine(phase: V1Phase, times: V1Times): string {
  const iso = (ms: number) => new Date(ms).toISOString();
  switch (phase) {
    case 'open':
      return `v1 is open; it will be deprecated at ${iso(times.deprecatedAt)}`;
    case 'deprecated':
      return `v1 is deprecated (since ${iso(times.deprecatedAt)}); it closes to new keys at ${iso(times.frozenAt)}`;
    case 'frozen':
      return `v1 is closed to new integrations (since ${iso(times.frozenAt)}): keys made since need --legacy-v1; ${times.sunsetAt === null ? 'no sunset set' : `sunset at ${iso(times.sunsetAt)}`}`;
    case 'sunset':
      return `v1 is retired (since ${iso(times.sunsetAt ?? 0)}): every v1 call is 410`;
  }
}

const REPORT_DAYS = 30;

/**
 * `leadline v1 status`: where the retirement stands — the phase and its three times, the active
 * and next brownouts, and the keys still on v1 (served v1 calls in the last 30 days, as
 * `v1 report` counts them).
 */
export function registerV1StatusCommand(v1: Command, withContext: CommandContext): void {
  v1.command('status')
    .description(
      'the retirement of v1: phase, deprecation, freeze and sunset times, brownouts, keys still on v1',
    )
    .action(() =>
      withContext(
        async ({ store, out }) => {
          const times = loadV1Times();
          const now = Date.now();
          const phase = v1Phase(times, now);
          const brownouts = (await store.retirement.brownouts()).map((b) => describeBrownout(b, now));
          const active = brownouts.filter((b) => b.state === 'active');
          const next = brownouts.find((b) => b.state === 'scheduled') ?? null;
          const report = v1Report(
            await store.keys.list(),
            await store.retirement.usage(null),
            REPORT_DAYS,
            now,
          );
          const onV1 = report.keys
            .filter((k) => k.status === 'on-v1')
            .map((k) => ({
              keyId: k.keyId,
              memberId: k.memberId,
              v1Served: k.v1Served,
              v1LastSeen: k.v1LastSeen,
            }));
          const refused = report.keys.filter((k) => k.status === 'refused').map((k) => k.keyId);
          const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
          const doc = {
            phase,
            deprecatedAt: iso(times.deprecatedAt),
            frozenAt: iso(times.frozenAt),
            sunsetAt: iso(times.sunsetAt),
            activeBrownouts: active,
            nextBrownout: next,
            windowDays: REPORT_DAYS,
            keysOnV1: onV1,
            keysRefused: refused,
          };
          const window = (b: { id: number; from: string; to: string; keys: number[] | null }) =>
            `${b.id} ${b.from} to ${b.to} (${b.keys === null ? 'every key' : `keys ${b.keys.join(', ')}`})`;
          out.result(
            doc,
            [
              phaseLine(phase, times),
              `deprecated at  ${doc.deprecatedAt}`,
              `frozen at      ${doc.frozenAt}`,
              `sunset at      ${doc.sunsetAt ?? 'none (LEADLINE_V1_SUNSET_AT not set)'}`,
              `brownout now   ${active.length === 0 ? 'none' : active.map(window).join('; ')}`,
              `next brownout  ${next === null ? 'none scheduled' : window(next)}`,
              `keys on v1     ${onV1.length} in the last ${REPORT_DAYS} days${onV1.length === 0 ? '' : `: ${onV1.map((k) => `key ${k.keyId} (member ${k.memberId})`).join(', ')}`}`,
              ...(refused.length === 0 ? [] : [`refused on v1  ${refusedOnV1(refused)}`]),
            ].join('\n'),
          );
        },
        { readOnly: true },
      ),
    );
}

/** `1 key tried v1 and was refused on every call: key 5`, or the plural for more. */
export function refusedOnV1(keyIds: readonly number[]): string {
  const one = keyIds.length === 1;
  return `${keyIds.length} ${one ? 'key' : 'keys'} tried v1 and ${one ? 'was' : 'were'} refused on every call: ${one ? 'key' : 'keys'} ${keyIds.join(', ')}`;
}
