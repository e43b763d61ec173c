const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * Wide characters (East Asian Width W and F: CJK ideographs, kana, Hangul, fullwidth forms) and
 * emoji drawn as emoji take two columns of a terminal.
 */
const WIDE =
  /^[\u{1100}-\u{115F}\u{231A}\u{231B}\u{2329}\u{232A}\u{23E9}-\u{23EC}\u{23F0}\u{23F3}\u{25FD}\u{25FE}\u{2614}\u{2615}\u{2648}-\u{2653}\u{267F}\u{2693}\u{26A1}\u{26AA}\u{26AB}\u{26BD}\u{26BE}\u{26C4}\u{26C5}\u{26CE}\u{26D4}\u{26EA}\u{26F2}\u{26F3}\u{26F5}\u{26FA}\u{26FD}\u{2705}\u{270A}\u{270B}\u{2728}\u{274C}\u{274E}\u{2753}-\u{2755}\u{2757}\u{2795}-\u{2797}\u{27B0}\u{27BF}\u{2B1B}\u{2B1C}\u{2B50}\u{2B55}\u{2E80}-\u{303E}\u{3041}-\u{33FF}\u{3400}-\u{4DBF}\u{4E00}-\u{9FFF}\u{A000}-\u{A4CF}\u{A960}-\u{A97F}\u{AC00}-\u{D7A3}\u{F900}-\u{FAFF}\u{FE10}-\u{FE19}\u{FE30}-\u{FE6F}\u{FF00}-\u{FF60}\u{FFE0}-\u{FFE6}\u{1F004}\u{1F0CF}\u{1F18E}\u{1F191}-\u{1F19A}\u{1F1E6}-\u{1F1FF}\u{1F200}-\u{1F2FF}\u{1F300}-\u{1F64F}\u{1F680}-\u{1F6FF}\u{1F900}-\u{1F9FF}\u{1FA70}-\u{1FAFF}\u{20000}-\u{2FFFD}\u{30000}-\u{3FFFD}]/u;
/** Marks and format characters that take no column of their own. */
const ZERO = /^[\p{Mn}\p{Me}\p{Cf}]+$/u;

/** How many terminal columns `text` takes: a grapheme is 2 when wide, 0 when only marks, else 1. */
export function displayWidth(text: string): number {
  let width = 0;
  for (const { segment } of graphemes.segment(text)) {
    if (ZERO.test(segment)) continue;
    width += WIDE.test(segment) || segment.includes('\u{FE0F}') ? 2 : 1;
  }
  return width;
}

const pad = (text: string, width: number): string =>
  text + ' '.repeat(Math.max(0, width - displayWidth(text)));

/**
 * A listing for people: a header line and one line per row, each column padded to its widest
 * cell, so the columns line up whatever the values (`keys list`, `members list`, `teams list`).
 * An empty value shows as `—`; the last column is not padded. Widths are terminal columns, so a
 * name in Chinese, Japanese or Korean (two columns a character) lines up too.
 */
export function table(
  headers: readonly string[],
  rows: readonly (readonly (string | number | null)[])[],
): string {
  const cells = [headers, ...rows.map((r) => r.map((c) => (c === null || c === '' ? '—' : String(c))))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => displayWidth(r[i] ?? ''))));
  return cells
    .map((r) =>
      r
        .map((c, i) => (i === r.length - 1 ? c : pad(c, widths[i] ?? 0)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
