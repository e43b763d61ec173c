/**
 * The `time` display label written for a lead that arrives without one (docs/v1-reference.md C1):
 * `YYYY-MM-DD HH:mm:ss` in the collector's team time zone.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The canonical spelling of an IANA time zone name (`europe/berlin` → `Europe/Berlin`), or null. */
export function canonicalTimeZone(timeZone: string): string | null {
  try {
    return formatterFor(timeZone).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/** `YYYY-MM-DD HH:mm` per zone and minute: leads come in bursts, and Intl is the slow part. */
const minutes = new Map<string, string>();

/** 1973-01-01: since then every zone's UTC offset is a whole number of minutes (Monrovia was last, in 1972). */
const WHOLE_MINUTE_OFFSETS_SINCE = 94_694_400_000;

/**
 * UTC offset per zone and UTC hour, when it is the same at the hour's first and last minute (no
 * change of offset within the hour); null when it changes. One Intl call per hour instead of one
 * per minute: an import labels leads spread over months, where a minute is rarely seen twice.
 */
const hours = new Map<string, number | null>();

function offsetAt(minuteStart: number, timeZone: string): number {
  const p: Record<string, string> = {};
  for (const x of formatterFor(timeZone).formatToParts(new Date(minuteStart))) p[x.type] = x.value;
  const local = Date.UTC(
    Number(p.year),
    Number(p.month) - 1,
    Number(p.day),
    Number(p.hour),
    Number(p.minute),
  );
  return local - minuteStart;
}

const two = (n: number) => (n < 10 ? `0${n}` : String(n));

export function timeLabel(epoch: number, timeZone: string): string {
  if (epoch < WHOLE_MINUTE_OFFSETS_SINCE) return formatParts(epoch, timeZone, true);
  const hour = Math.floor(epoch / 3_600_000);
  const hourKey = `${timeZone} ${hour}`;
  let offset = hours.get(hourKey);
  if (offset === undefined) {
    const first = offsetAt(hour * 3_600_000, timeZone);
    offset = first === offsetAt(hour * 3_600_000 + 59 * 60_000, timeZone) ? first : null;
    if (hours.size >= 10_000) hours.clear();
    hours.set(hourKey, offset);
  }
  if (offset !== null) {
    const d = new Date(epoch + offset);
    return `${String(d.getUTCFullYear()).padStart(4, '0')}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`;
  }
  // The hour the offset changes in: formatted per minute.
  const minute = Math.floor(epoch / 60_000);
  const key = `${timeZone} ${minute}`;
  let prefix = minutes.get(key);
  if (prefix === undefined) {
    prefix = formatParts(minute * 60_000, timeZone, false);
    if (minutes.size >= 10_000) minutes.clear();
    minutes.set(key, prefix);
  }
  const seconds = Math.floor((epoch - minute * 60_000) / 1000);
  return `${prefix}:${String(seconds).padStart(2, '0')}`;
}

function formatParts(epoch: number, timeZone: string, withSeconds: boolean): string {
  const parts: Record<string, string> = {};
  for (const p of formatterFor(timeZone).formatToParts(new Date(epoch))) parts[p.type] = p.value;
  const label = `${(parts.year ?? '').padStart(4, '0')}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}`;
  return withSeconds ? `${label}:${parts.second}` : label;
}
