/** How a command reports: one JSON document on stdout with --json, else lines for a person. */
export interface Output {
  json: boolean;
  result(doc: unknown, human: string): void;
}

export function makeOutput(json: boolean): Output {
  return {
    json,
    result(doc, human) {
      process.stdout.write(json ? `${JSON.stringify(doc)}\n` : `${human}\n`);
    },
  };
}

/**
 * Failure: one human line on stderr — for a bad import record exactly `file:line: reason`
 * (import-format.md), so no prefix — and with --json also an error document on stdout.
 */
export function fail(json: boolean, message: string): never {
  const line = message.replace(/\s*\n\s*/g, ' ');
  process.stderr.write(`${line}\n`);
  if (json) process.stdout.write(`${JSON.stringify({ error: { message: line } })}\n`);
  process.exit(1);
}
