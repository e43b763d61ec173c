/** A schema migration that cannot apply, or a store newer than this leadline: the operator must act. */
export class MigrationError extends Error {
  override name = 'MigrationError';
}
