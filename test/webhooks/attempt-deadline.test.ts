import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { Sender } from '../../src/delivery/send.js';
import { unstorableReason } from '../../src/shared/storable-text.js';
import { RECORDED_ANSWER_BYTES } from '../../src/webhooks/delivery.js';
import { type HostileKind, HostileReceiver, within } from './hostile.js';

/**
 * Issue 36 §1 and §2, one attempt against receivers that misbehave: whatever the receiver does,
 * the attempt settles within its deadline as a failure, and what it answered is kept as text
 * every engine stores. (Before: a receiver that sent its headers and then stalled left the
 * attempt unsettled for ever, and a NUL in an answer was kept as it came.)
 */
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const DEADLINE_MS = 800;
const delivery = (url: string) => ({
  id: 1,
  eventId: 'evt',
  endpointId: 'endpoint',
  teamId: 1,
  url,
  payload: '{"type":"webhook.test"}',
  attempt: 1,
  secrets: { current: SECRET, previous: null, previousUntil: null },
  failingSince: null,
});

describe('one attempt ends within its deadline, whatever the receiver does (issue 36)', () => {
  const receivers: HostileReceiver[] = [];
  const sender = new Sender({ allowPrivate: true, ports: null }, 8, undefined, DEADLINE_MS);
  after(async () => {
    sender.close();
    for (const r of receivers) await r.close();
  });

  const cases: [HostileKind, RegExp][] = [
    ['headers-then-silence', /^no answer: status 200, but the answer did not end within 0\.8 s$/],
    ['trickle', /^no answer: status 200, but the answer did not end within 0\.8 s$/],
    ['no-status', /^no answer: none within 0\.8 s$/],
    ['half-open', /^no answer: none within 0\.8 s$/],
  ];
  for (const [kind, words] of cases) {
    it(`${kind}: a failure at the deadline`, async () => {
      const r = await HostileReceiver.start(kind);
      receivers.push(r);
      const started = performance.now();
      const got = await within(sender.send(delivery(r.url), [SECRET]), DEADLINE_MS + 2_000, kind);
      const took = performance.now() - started;
      assert.equal(got.status, null, 'not a success, not a status');
      assert.match(got.answer, words);
      assert.ok(took >= DEADLINE_MS - 50 && took < DEADLINE_MS + 1_000, `took ${took} ms`);
      assert.equal(r.seen, 1);
      // The sender closed its side: an HTTP peer sees it (a half-open one never reads, so cannot).
      if (kind !== 'half-open')
        await within(
          (async () => {
            while (r.open > 0) await new Promise((resolve) => setTimeout(resolve, 10));
          })(),
          2_000,
          'the connection closed',
        );
    });
  }

  it('reset-mid-answer: a failure at once, not a success', async () => {
    const r = await HostileReceiver.start('reset-mid-answer');
    receivers.push(r);
    const got = await within(sender.send(delivery(r.url), [SECRET]), DEADLINE_MS, 'reset');
    assert.equal(got.status, null);
    assert.equal(got.answer, 'no answer: status 200, but the connection closed before the answer ended');
  });

  it('the default deadline is the documented 10 s', async () => {
    const r = await HostileReceiver.start('headers-then-silence');
    receivers.push(r);
    const plain = new Sender({ allowPrivate: true, ports: null }, 1);
    const started = performance.now();
    const got = await within(plain.send(delivery(r.url), [SECRET]), 12_000, 'default deadline');
    const took = performance.now() - started;
    plain.close();
    assert.match(got.answer, /did not end within 10 s$/);
    assert.ok(took >= 9_950 && took < 11_000, `took ${took} ms`);
  });

  it('keeps an answer as storable text, at most RECORDED_ANSWER_BYTES of UTF-8, never half a character', async () => {
    // NUL, bytes that are not UTF-8 (a surrogate's encoding), then two-, three- and four-byte
    // characters past the cap.
    const body = Buffer.concat([
      Buffer.from('a\u0000b'),
      Buffer.from([0xed, 0xa0, 0x80]),
      Buffer.from('é'.repeat(300) + '€'.repeat(100) + '😀'.repeat(100)),
    ]);
    const server = createServer((_req, res) => res.writeHead(500).end(body));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const got = await sender.send(delivery(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`), [
      SECRET,
    ]);
    server.close();
    assert.equal(got.status, 500);
    assert.equal(unstorableReason(got.answer), null, 'no NUL, no lone surrogate');
    assert.ok(got.answer.startsWith('a\uFFFDb\uFFFD'), got.answer.slice(0, 8));
    const bytes = Buffer.byteLength(got.answer);
    assert.ok(bytes <= RECORDED_ANSWER_BYTES && bytes > RECORDED_ANSWER_BYTES - 4, `${bytes} bytes`);
    assert.ok(!got.answer.endsWith('\uFFFD'), 'the cut falls between characters');
  });
});
