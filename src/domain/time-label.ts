/**
 * The `time` display label written for a lead that arrives without one (v1-contract C1):
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

export function timeLabel(epoch: number, timeZone: string): string {
  if (epoch < WHOLE_MINUTE_OFFSETS_SINCE) return formatParts(epoch, timeZone, true);
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
