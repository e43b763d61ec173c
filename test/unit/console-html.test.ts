import assert from 'node:assert/strict';
import { test } from 'node:test';
import { html } from '../../src/http/console/html.js';
import { csvCell } from '../../src/http/console/v1-csv.js';

test('console templates escape every value that is not already HTML', () => {
  const label = `<script>alert("x")</script>' onmouseover='x`;
  assert.equal(
    html`<td title="${label}">${label}</td>`.text,
    '<td title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onmouseover=&#39;x">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onmouseover=&#39;x</td>',
  );
  assert.equal(html`<ul>${['a&b', html`<li>kept</li>`]}</ul>`.text, '<ul>a&amp;b<li>kept</li></ul>');
  assert.equal(html`${null}${undefined}${false}${0}`.text, '0');
});

test('CSV cells are quoted (RFC 4180) and never read as formulas', () => {
  assert.equal(csvCell('curl/8.5.0'), 'curl/8.5.0');
  assert.equal(csvCell('a,"b"'), '"a,""b"""');
  assert.equal(csvCell('=HYPERLINK("http://x")'), `"'=HYPERLINK(""http://x"")"`);
  assert.equal(csvCell('@SUM(A1)'), "'@SUM(A1)");
  assert.equal(csvCell(null), '');
  assert.equal(csvCell(42), '42');
});
