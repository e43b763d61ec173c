import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderDocPage, slug } from '../../src/http/doc-page.js';

describe('docs pages as HTML', () => {
  it('gives headings GitHub-style ids', () => {
    assert.equal(slug('Search leads'), 'search-leads');
    assert.equal(slug('POST /api/pub/v2/leads/search'), 'post-apipubv2leadssearch');
    assert.equal(slug('v1 → v2: field mapping'), 'v1--v2-field-mapping');
    const html = renderDocPage('# Title\n\n## Search leads\n\ntext');
    assert.match(html, /<h2 id="search-leads">Search leads<\/h2>/);
    assert.match(html, /<title>Title<\/title>/);
  });

  it('turns links between docs into served paths, and escapes what it puts in attributes', () => {
    const html = renderDocPage(
      '[guide](v1-migration.md#last-lead) [ref](./v2.md) [out](https://example.test/a.md)',
    );
    assert.match(html, /href="\/docs\/v1-migration#last-lead"/);
    assert.match(html, /href="\/docs\/v2"/);
    assert.match(html, /href="https:\/\/example.test\/a.md"/);
    assert.match(renderDocPage('# A <b> & "c"'), /<title>A &#60;b&#62; &#38; &#34;c&#34;<\/title>/);
  });
});
