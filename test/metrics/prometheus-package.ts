import { existsSync } from 'node:fs';

/**
 * Debian's prometheus package: `promtool` checks the alert rules and the dashboard's queries,
 * `prometheus` scrapes two instances. `.ci/run` installs it when missing.
 */
export const PROMTOOL = process.env.LEADLINE_PROMTOOL ?? '/usr/bin/promtool';
export const PROMETHEUS = process.env.LEADLINE_PROMETHEUS ?? '/usr/bin/prometheus';

/**
 * Why a test that runs `binary` cannot run, or false. A newcomer's `npm test` on a machine
 * without the package skips it and says why; under CI=true a missing binary fails the run, it
 * is never skipped.
 */
export function prometheusPackageSkip(binary: string, env = process.env): string | false {
  if (existsSync(binary)) return false;
  if (env.CI === 'true')
    throw new Error(`CI=true but ${binary} is missing (apt-get install -y prometheus; .ci/run does)`);
  return `needs ${binary}: apt-get install -y prometheus (required under CI=true)`;
}
