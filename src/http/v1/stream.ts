import { Readable } from 'node:stream';
import type { V1Piece } from '../../leads/v1-wire.js';

/**
 * The JSON array of a range, streamed: its pieces as they come (the first opens the array:
 * V1Piece), then `]`; `[]` when there is none. The first piece is read before anything is sent,
 * so a store failure at the start is still a proper problem response; memory stays at a few
 * pieces however long the answer (the store reads ahead only as far as the answer has written).
 */
export async function v1ArrayStream(pieces: AsyncIterable<V1Piece>): Promise<Readable> {
  const iterator = pieces[Symbol.asyncIterator]();
  const first = await iterator.next();
  async function* chunks(): AsyncGenerator<string> {
    if (first.done === true) {
      yield '[]';
      return;
    }
    let next: IteratorResult<V1Piece> = first;
    try {
      while (next.done !== true) {
        yield next.value.text;
        next = await iterator.next();
      }
    } finally {
      await iterator.return?.();
    }
    yield ']';
  }
  return Readable.from(chunks(), { objectMode: false });
}
