/** A command's refusal whose message is meant for the operator as it is (bad flag, unknown id). */
export class CommandError extends Error {
  override name = 'CommandError';
}
