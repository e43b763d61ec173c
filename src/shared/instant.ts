/**
 * ISO-8601 instants with an explicit offset, checked strictly: `Date.parse` alone would take
 * "2025-02-30" for March 2nd, and a client asking for a day that does not exist has a bug we
 * should name, not a range we should guess.
 */
const INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|([+-])(\d{2}):(\d{2}))$/;

/** Epoch milliseconds of `text`, or null when it is not a real instant in that form. */
export function parseInstant(text: string): number | null {
  const m = INSTANT.exec(text);
  if (m === null) return null;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6] ?? '0'].map(
    Number,
  ) as [number, number, number, number, number, number];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  if (m[8] !== 'Z' && (Number(m[10]) > 23 || Number(m[11]) > 59)) return null;
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : null;
}

/** `new Date(ms).toISOString()` for years 1970–9999, by arithmetic: several times faster. */
export function formatInstant(ms: number): string {
  if (!(Number.isInteger(ms) && ms >= 0 && ms <= LAST_FOUR_DIGIT_YEAR_MS)) return new Date(ms).toISOString();
  const days = Math.floor(ms / DAY_MS);
  let t = ms - days * DAY_MS;
  // A page of leads spans few days (capture and storage): keep the last two days' text.
  let date: string;
  if (days === recent[0]) date = recentDate[0];
  else if (days === recent[1]) date = recentDate[1];
  else {
    date = civilDate(days);
    recent[1] = recent[0];
    recentDate[1] = recentDate[0];
    recent[0] = days;
    recentDate[0] = date;
  }
  const milli = t % 1000;
  t = (t - milli) / 1000;
  const second = t % 60;
  t = (t - second) / 60;
  const minute = t % 60;
  const hour = (t - minute) / 60;
  return `${date}T${TWO[hour]}:${TWO[minute]}:${TWO[second]}.${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`;
}

/**
 * Why capture time `epoch` is too far ahead of `now`, or null. A collecting device's clock may
 * run ahead by `toleranceMs`; a lead from further ahead would stay the team's newest for ever.
 * Past year 9999 is refused whatever the clock says: `formatInstant` would write `+010000-…`,
 * which ISO_WITH_OFFSET (schemas/v2.ts) refuses — every time the service writes reads back.
 */
export function captureTimeTooLate(epoch: number, now: number, toleranceMs: number): string | null {
  if (epoch <= now + toleranceMs && epoch <= LAST_FOUR_DIGIT_YEAR_MS) return null;
  return `lies more than ${duration(toleranceMs)} in the future (LEADLINE_CAPTURE_TOLERANCE_SECONDS)`;
}

/** `24 h`, `30 min`, `90 s`: the largest unit that divides `ms` evenly. */
function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s > 0 && s % 3600 === 0) return `${s / 3600} h`;
  if (s > 0 && s % 60 === 0) return `${s / 60} min`;
  return `${s} s`;
}

const DAY_MS = 86_400_000;
/** 9999-12-31T23:59:59.999Z, the last instant with a four-digit year. */
export const LAST_FOUR_DIGIT_YEAR_MS = 253_402_300_799_999;
const TWO = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'));
const recent: [number, number] = [-1, -1];
const recentDate: [string, string] = ['', ''];

/** `YYYY-MM-DD` of a day count since 1970-01-01 (H. Hinnant's civil_from_days, for days ≥ 0). */
function civilDate(days: number): string {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  return `${year}-${TWO[month]}-${TWO[day]}`;
}
