import type { WebhookConfig } from '../config.js';

/**
 * What `leadline serve` warns about at start (issue 36): settings that are valid but leave the
 * service less safe than its defaults mean it to be, each on one line naming the setting.
 */
export function startWarnings(webhooks: WebhookConfig): string[] {
  const lines: string[] = [];
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
