/** A bad record: reported as `file:line: reason`, and the whole import is rolled back. */
export class ImportError extends Error {
  override name = 'ImportError';
  constructor(
    readonly source: string,
    readonly reason: string,
  ) {
    super(`${source}: ${reason}`);
  }
}
