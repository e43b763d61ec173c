import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { EVENTS_PAGE, eventsPage } from '../../scripts/events-page.js';
import { generatedDocument } from '../../scripts/openapi-document.js';
import { LOGGED_EVENT_TYPES } from '../../src/webhooks/webhook.js';

/** Issue 41 §5: the event catalog is complete and is what the schemas make. */
describe('event catalog', () => {
  test('the OpenAPI webhooks section has every logged type, each with a component schema and an example', async () => {
    const doc = await generatedDocument();
    const webhooks = doc.webhooks as Record<
      string,
      { post: { requestBody: { content: Record<string, { schema: { $ref?: string }; example?: unknown }> } } }
    >;
    // `lead.thin` is no type of its own: the body any lead event has for a thin endpoint.
    assert.deepEqual(Object.keys(webhooks).sort(), [...LOGGED_EVENT_TYPES, 'lead.thin'].sort());
    for (const [type, w] of Object.entries(webhooks)) {
      const body = w.post.requestBody.content['application/json']!;
      assert.match(
        String(body.schema.$ref),
        /^#\/components\/schemas\/\w+Event$/,
        `${type}: a schema of src/schemas`,
      );
      const example = (body.example as { type: string }).type;
      if (type === 'lead.thin') assert.match(example, /^lead\.(created|updated|merged|erased)$/);
      else assert.equal(example, type, `${type}: an example of its own type`);
    }
  });

  test('docs/events.md is the generated page (npm run events-page)', async () => {
    const page = eventsPage(await generatedDocument());
    assert.equal(
      readFileSync(EVENTS_PAGE, 'utf8'),
      page,
      'run npm run events-page and commit docs/events.md',
    );
  });
});
