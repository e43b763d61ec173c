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

/** Why a file could not be read, in a few words (the system's code for anything unusual). */
const READ_REASONS: Record<string, string> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'it is a directory',
  ENOTDIR: 'a part of the path is not a directory',
  ELOOP: 'too many symbolic links',
  EMFILE: 'too many open files',
  EIO: 'input/output error',
};

/** `cannot read the file (no such file)`: the operator sees what to fix. */
export function cannotRead(source: string, err: unknown): ImportError {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const why = code === undefined ? undefined : (READ_REASONS[code] ?? code);
  return new ImportError(
    source,
    why === undefined ? 'cannot read the file' : `cannot read the file (${why})`,
  );
}
