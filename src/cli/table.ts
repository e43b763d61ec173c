/**
 * A listing for people: a header line and one line per row, each column padded to its widest
 * cell, so the columns line up whatever the values (`keys list`, `members list`, `teams list`).
 * An empty value shows as `—`; the last column is not padded.
 */
export function table(
  headers: readonly string[],
  rows: readonly (readonly (string | number | null)[])[],
): string {
  const cells = [headers, ...rows.map((r) => r.map((c) => (c === null || c === '' ? '—' : String(c))))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  return cells
    .map((r) =>
      r
        .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
