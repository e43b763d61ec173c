import type { RetentionRun } from './retention-run.js';

/**
 * Called once after every retention run that could change something (not a dry run), by the
 * schedule and by `leadline retention run` alike: the one place where the audit log's
 * `retention.run` record (issue 40 item 7: who, when, which teams and receipts — no personal
 * values) is to be written when the audit slice joins. Until then it records nothing.
 */
export async function recordRetentionRun(_run: RetentionRun): Promise<void> {}
