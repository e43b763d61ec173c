import type { WebhookConfig } from '../config.js';

/**
 * What `leadline serve` warns about at start (docs/webhooks.md "Where webhooks may go", "Secrets"; README "Node.js"): settings that are valid but leave the
 * service less safe than its defaults mean it to be, each on one line naming the setting.
 */
export function startWarnings(
  webhooks: WebhookConfig,
  runtime: { node: string; sqlite: boolean } = { node: process.versions.node, sqlite: false },
): string[] {
  const lines: string[] = [];
  if (runtime.sqlite && abortsSqliteStatements(runtime.node))
    lines.push(
      `Node.js ${runtime.node} aborts the process when it frees a SQLite statement (nodejs/node#65446, from 24.19.0): run leadline on Node 24.18 or earlier, or Node 22 or 20.19+, with a SQLite store — README, "Node.js"`,
    );
  if (webhooks.secretKey === null)
    lines.push(
      'LEADLINE_WEBHOOK_SECRET_KEY is not set: webhook signing secrets are stored unencrypted, and anyone who can read the store can sign as this service (set it to 32 bytes in base64: openssl rand -base64 32)',
    );
  if (webhooks.allowPrivate)
    lines.push(
      'LEADLINE_WEBHOOK_ALLOW_PRIVATE=true: webhook endpoints may use http and private, loopback and link-local addresses — team admins can make this service send requests inside its network',
    );
  return lines;
}

/**
 * Whether this Node aborts addons built on `node::ObjectWrap` when the garbage collector frees one
 * (better-sqlite3 12's statements): 24.19.0 and later 24s, and the lines after 24.
 */
export function abortsSqliteStatements(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major > 24 || (major === 24 && minor >= 19);
}
