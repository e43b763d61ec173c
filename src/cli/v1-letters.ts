import type { SuccessorRequest } from '../retirement/gates.js';
import type { TeamNotice } from '../retirement/v1-notices.js';

/**
 * `leadline v1 notices` as a person reads it: a short letter per team, ready to paste into an
 * e-mail (no mail server involved), or CSV with one row per key and operation.
 */

/** A notice with what the letter adds: the team's name and its admins' addresses. */
export interface AddressedNotice {
  notice: TeamNotice;
  team: string | null;
  recipients: string[];
}

const iso = (ms: number) => new Date(ms).toISOString();
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const request = (s: SuccessorRequest) => `${s.method} ${s.path} ${JSON.stringify(s.body ?? {})}`;

/** One team's letter. */
export function letter({ notice, team, recipients }: AddressedNotice): string {
  const n = notice.keys.length;
  const when = notice.from === notice.to ? `On ${notice.to}` : `From ${notice.from} to ${notice.to}`;
  const lines = [
    `To: ${recipients.length === 0 ? '(the team has no admin)' : recipients.join(', ')}`,
    `Subject: leadline: ${plural(n, 'API key')} of your team still ${n === 1 ? 'calls' : 'call'} v1, which is being retired`,
    '',
    `Hello ${team ?? 'team'} (team ${notice.teamId}),`,
    '',
    `${when} (UTC), ${n === 1 ? 'this key' : 'these keys'} of your team called leadline's v1 API:`,
  ];
  for (const { key, calls } of notice.keys) {
    lines.push(
      '',
      `  key ${key.id}  ${key.display}…  ${key.label === null ? '(no label)' : JSON.stringify(key.label)}  member ${key.memberId}`,
    );
    for (const c of calls) {
      lines.push(`    ${c.operation}: ${plural(c.count, 'call')}`, `      instead: ${request(c.successor)}`);
    }
  }
  const b = notice.nextBrownout;
  lines.push(
    '',
    b === null
      ? 'No brownout is scheduled for these keys.'
      : `Next brownout: ${iso(b.startsAt)} to ${iso(b.endsAt)} (${b.keyIds === null ? 'every key' : `key ${b.keyIds.join(', ')}`}): v1 answers 410 during it.`,
    notice.sunsetAt === null
      ? 'No sunset date is set yet.'
      : `Sunset: ${iso(notice.sunsetAt)}. From then on every v1 call is answered 410.`,
    `Migration guide: ${notice.migrationGuide}`,
    'Each key lists its own deprecated calls at GET /api/pub/v2/me/deprecations.',
  );
  return lines.join('\n');
}

export const CSV_HEADER = [
  'team_id',
  'team',
  'from',
  'to',
  'key_id',
  'key_prefix',
  'key_label',
  'member_id',
  'operation',
  'count',
  'successor',
  'next_brownout_start',
  'next_brownout_end',
  'sunset',
  'migration_guide',
];

/** RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled. */
function field(value: string | number | null): string {
  const text = value === null ? '' : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Every notice as CSV: the header, then one row per key and operation (CRLF line ends). */
export function csv(notices: AddressedNotice[]): string {
  const rows = [CSV_HEADER.join(',')];
  for (const { notice, team } of notices) {
    const b = notice.nextBrownout;
    for (const { key, calls } of notice.keys) {
      for (const c of calls) {
        const cells = [
          notice.teamId,
          team,
          notice.from,
          notice.to,
          key.id,
          key.display,
          key.label,
          key.memberId,
          c.operation,
          c.count,
          request(c.successor),
          b === null ? null : iso(b.startsAt),
          b === null ? null : iso(b.endsAt),
          notice.sunsetAt === null ? null : iso(notice.sunsetAt),
          notice.migrationGuide,
        ];
        rows.push(cells.map(field).join(','));
      }
    }
  }
  return rows.join('\r\n');
}
