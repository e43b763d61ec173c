import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { WebhookVerificationError as LibraryError, Webhook } from 'standardwebhooks';
import { verifyWebhook, WebhookVerificationError } from '../../packages/client/src/webhooks.js';
import { V2_LEAD_EXAMPLE } from '../../src/http/openapi/v2.js';

/**
 * @leadline/client/webhooks (issue 14 §3): a delivery signed as leadline signs it (Standard
 * Webhooks, `webhook-signature` with one `v1,…` per secret that signs, two during a rotation)
 * verifies with either secret, from fetch Headers or a Node headers object; a changed byte, a
 * wrong secret, a replayed old timestamp or a missing header is refused.
 */

const secret = () => `whsec_${randomBytes(24).toString('base64')}`;
const event = { type: 'lead.created', timestamp: '2024-07-01T12:11:02.417Z', data: V2_LEAD_EXAMPLE };

function delivery(secrets: string[], at = new Date(), body = JSON.stringify(event)) {
  const id = `msg_${randomBytes(8).toString('hex')}`;
  const signature = secrets.map((s) => new Webhook(s).sign(id, at, body)).join(' ');
  const headers = {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signature,
  };
  return { body, headers };
}

describe('verifyWebhook', () => {
  it('returns the event of a signed delivery, from a Node headers object or fetch Headers', () => {
    const s = secret();
    const { body, headers } = delivery([s]);
    assert.deepEqual(verifyWebhook(s, body, headers), event);
    assert.deepEqual(verifyWebhook(s, body, new Headers(headers)), event);
  });

  it('during a rotation, the old and the new secret both verify', () => {
    const [old, next] = [secret(), secret()];
    const { body, headers } = delivery([next, old]);
    assert.equal(verifyWebhook(old, body, headers).type, 'lead.created');
    assert.equal(verifyWebhook(next, body, headers).type, 'lead.created');
  });

  it('refuses a changed body, another secret, an old timestamp and missing headers', () => {
    const s = secret();
    const { body, headers } = delivery([s]);
    const refused = (fn: () => unknown, why: string) => assert.throws(fn, WebhookVerificationError, why);
    refused(() => verifyWebhook(s, body.replace('Tobi', 'Toby'), headers), 'a changed byte');
    refused(() => verifyWebhook(secret(), body, headers), 'another secret');
    const old = delivery([s], new Date(Date.now() - 10 * 60_000));
    refused(() => verifyWebhook(s, old.body, old.headers), 'ten minutes old');
    refused(() => verifyWebhook(s, body, { ...headers, 'webhook-signature': undefined }), 'no signature');
    refused(() => verifyWebhook(s, body, { ...headers, 'webhook-id': 'msg_other' }), 'another id');
  });

  it("exports the library's own error class, under the client's declared type (issue 37)", () => {
    assert.equal(WebhookVerificationError, LibraryError);
    const s = secret();
    const { body } = delivery([s]);
    const thrown = (() => {
      try {
        verifyWebhook(s, body, {});
      } catch (err) {
        return err;
      }
    })();
    assert.ok(thrown instanceof WebhookVerificationError && thrown instanceof LibraryError);
    assert.equal(thrown.name, 'WebhookVerificationError');
  });
});
