import assert from 'node:assert/strict';

/**
 * A Server-Sent Events reader for tests of the waiting feeds (`/leads/changes`, `/events`):
 * blocks as the stream sends them, each with a deadline (a hung stream fails, never hangs).
 */

/** One Server-Sent Events block: fields, or a comment. */
export interface Block {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
  retry?: string;
}

/** Reads an event stream block by block (blank-line separated), with a deadline per block. */
export class SseReader {
  private buffer = '';
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();

  constructor(body: ReadableStream<Uint8Array>) {
    this.reader = body.getReader();
  }

  async next(ms = 30_000): Promise<Block> {
    const deadline = Date.now() + ms;
    for (;;) {
      const end = this.buffer.indexOf('\n\n');
      if (end >= 0) {
        const text = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 2);
        const block: Block = {};
        for (const line of text.split('\n')) {
          if (line.startsWith(':')) block.comment = line.slice(1).trim();
          else {
            const at = line.indexOf(':');
            const field = line.slice(0, at) as 'id' | 'event' | 'data' | 'retry';
            const value = line.slice(at + 1).replace(/^ /, '');
            block[field] = block[field] === undefined ? value : `${block[field]}\n${value}`;
          }
        }
        return block;
      }
      const left = deadline - Date.now();
      assert.ok(left > 0, 'no event in time');
      let timer: ReturnType<typeof setTimeout> | undefined;
      const chunk = await Promise.race([
        this.reader.read(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('no event in time')), left);
        }),
      ]).finally(() => clearTimeout(timer));
      assert.ok(!chunk.done, 'the stream ended');
      this.buffer += this.decoder.decode(chunk.value, { stream: true });
    }
  }
}
