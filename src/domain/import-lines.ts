import type { Readable } from 'node:stream';

/** One NDJSON line: its text, or only its size when it is over the cap. */
export type ImportLine =
  | { lineNo: number; bytes: number; text: string }
  | { lineNo: number; bytes: number; text: null };

const NEWLINE = 0x0a;
const CR = 0x0d;

/**
 * The lines of `input` (`\n` or `\r\n` endings), each with its size in bytes without the ending.
 * A line over `maxBytes` is never held: its bytes are dropped as they come and only counted, so
 * memory stays at `maxBytes` plus one chunk whatever the input holds. (readline and split2 both
 * keep the whole line, and neither counts one it gives up on; the cap needs both.)
 */
export async function* importLines(input: Readable, maxBytes: number): AsyncGenerator<ImportLine> {
  let parts: Buffer[] = [];
  let held = 0;
  let bytes = 0;
  let lastByte = -1;
  let lineNo = 0;
  const take = (chunk: Buffer) => {
    bytes += chunk.length;
    if (chunk.length > 0) lastByte = chunk[chunk.length - 1] as number;
    if (bytes > maxBytes + 1) {
      // Over the cap (one byte of slack for a `\r` before the `\n`): stop holding the line.
      parts = [];
      held = 0;
    } else {
      parts.push(chunk);
      held += chunk.length;
    }
  };
  const end = (): ImportLine => {
    const crlf = lastByte === CR ? 1 : 0;
    const size = bytes - crlf;
    // Most lines lie within one chunk: decode that part in place, without a copy.
    const whole = parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts, held);
    const line: ImportLine =
      size > maxBytes || held < bytes
        ? { lineNo: ++lineNo, bytes: size, text: null }
        : { lineNo: ++lineNo, bytes: size, text: whole.toString('utf8', 0, size) };
    parts = [];
    held = 0;
    bytes = 0;
    lastByte = -1;
    return line;
  };
  for await (const data of input) {
    const chunk = typeof data === 'string' ? Buffer.from(data) : (data as Buffer);
    let from = 0;
    for (let at = chunk.indexOf(NEWLINE, from); at !== -1; at = chunk.indexOf(NEWLINE, from)) {
      take(chunk.subarray(from, at));
      yield end();
      from = at + 1;
    }
    if (from < chunk.length) take(chunk.subarray(from));
  }
  if (bytes > 0) yield end();
}
