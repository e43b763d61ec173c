/** One NDJSON line: its text, or only its size when it is over the cap. */
export type ImportLine =
  | { lineNo: number; bytes: number; text: string }
  | { lineNo: number; bytes: number; text: null };

const NEWLINE = 0x0a;
const CR = 0x0d;

/**
 * Splits bytes into NDJSON lines (`\n` or `\r\n` endings), each with its size in bytes without
 * the ending, as the bytes arrive: `push` each chunk, then `end`. A line over `maxBytes` is
 * never held: its bytes are dropped as they come and only counted, so memory stays at
 * `maxBytes` plus one chunk whatever the input holds. (readline and split2 both keep the whole
 * line, and neither counts one it gives up on; the cap needs both.)
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private held = 0;
  private bytes = 0;
  private lastByte = -1;

  /** `lineNo`: how many lines of the input came before the first byte pushed here. */
  constructor(
    private readonly maxBytes: number,
    private lineNo = 0,
  ) {}

  /** Lines completed so far, counting those before (the next line's number minus one). */
  get lines(): number {
    return this.lineNo;
  }

  /** The lines `chunk` completes. */
  push(chunk: Buffer): ImportLine[] {
    const lines: ImportLine[] = [];
    let from = 0;
    for (let at = chunk.indexOf(NEWLINE, from); at !== -1; at = chunk.indexOf(NEWLINE, from)) {
      this.take(chunk.subarray(from, at));
      lines.push(this.line());
      from = at + 1;
    }
    if (from < chunk.length) this.take(chunk.subarray(from));
    return lines;
  }

  /** The last line, when the input does not end with a line ending. */
  end(): ImportLine[] {
    return this.bytes > 0 ? [this.line()] : [];
  }

  private take(chunk: Buffer): void {
    this.bytes += chunk.length;
    if (chunk.length > 0) this.lastByte = chunk[chunk.length - 1] as number;
    if (this.bytes > this.maxBytes + 1) {
      // Over the cap (one byte of slack for a `\r` before the `\n`): stop holding the line.
      this.parts = [];
      this.held = 0;
    } else {
      this.parts.push(chunk);
      this.held += chunk.length;
    }
  }

  private line(): ImportLine {
    const crlf = this.lastByte === CR ? 1 : 0;
    const size = this.bytes - crlf;
    // Most lines lie within one chunk: decode that part in place, without a copy.
    const whole = this.parts.length === 1 ? (this.parts[0] as Buffer) : Buffer.concat(this.parts, this.held);
    const line: ImportLine =
      size > this.maxBytes || this.held < this.bytes
        ? { lineNo: ++this.lineNo, bytes: size, text: null }
        : { lineNo: ++this.lineNo, bytes: size, text: whole.toString('utf8', 0, size) };
    this.parts = [];
    this.held = 0;
    this.bytes = 0;
    this.lastByte = -1;
    return line;
  }
}
