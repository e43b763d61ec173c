import { Marked, type Tokens } from 'marked';

/**
 * A docs page (Markdown in docs/) as HTML a browser shows: the deprecation and migration pages
 * the v1 `Link` headers point to must be readable by the people they are meant for. Headings get
 * GitHub-style ids, so `/docs/v2#search-leads` lands where the same link lands on GitHub.
 */
export function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/<[^>]*>/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .trim()
    .replace(/\s/g, '-');
}

const marked = new Marked({
  gfm: true,
  renderer: {
    heading(
      this: { parser: { parseInline(t: Tokens.Heading['tokens']): string } },
      token: Tokens.Heading,
    ): string {
      const inner = this.parser.parseInline(token.tokens);
      return `<h${token.depth} id="${slug(token.text)}">${inner}</h${token.depth}>\n`;
    },
    link(this: { parser: { parseInline(t: Tokens.Link['tokens']): string } }, token: Tokens.Link): string {
      const text = this.parser.parseInline(token.tokens);
      const href = servedHref(token.href);
      // A file of the repository the server does not serve (a script, a result file): its name,
      // not a link that would answer 404.
      if (href === null) return text;
      const title = token.title ? ` title="${escapeHtml(token.title)}"` : '';
      return `<a href="${escapeHtml(href)}"${title}>${text}</a>`;
    },
  },
});

/**
 * Where a link of the Markdown points on the server: docs link to each other as `v2.md#x`
 * (readable on GitHub), served as `/docs/v2#x`; the README (`../README.md`) is the home page `/`.
 * Absolute URLs, server paths and fragments stay; any other relative link (a source file, a
 * script) names something the server does not serve: null.
 */
export function servedHref(href: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('/') || href.startsWith('#')) return href;
  const doc = /^(?:\.\/|docs\/|\.\.\/docs\/)?([a-z0-9-]+)\.md(#.*)?$/.exec(href);
  if (doc !== null && doc[1] !== 'README') return `/docs/${doc[1]}${doc[2] ?? ''}`;
  const readme = /^(?:\.\.\/)?README\.md(#.*)?$/.exec(href);
  if (readme !== null) return `/${readme[1] ?? ''}`;
  return null;
}

/** The links at the top of every page: the guides, the reference, the console. */
const NAV_LINKS = [
  ['/', 'leadline'],
  ['/docs', 'API reference'],
  ['/docs/v2', 'v2 guide'],
  ['/docs/v1-migration', 'Moving off v1'],
  ['/docs/cli', 'Command line'],
  ['/openapi.json', 'OpenAPI'],
  ['/console/keys', 'Console'],
]
  .map(([href, text]) => `<a href="${href}">${text}</a>`)
  .join('\n');

/** Those links as the pages show them (the reference at /docs shows them too). */
export const SITE_NAV = `<nav class="site">${NAV_LINKS}</nav>`;

/** The page around any content: the stylesheet, the links back, no inline style or script (CSP, R17). */
export function pageShell(title: string, bodyHtml: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="/assets/leadline.css">
</head><body>
${SITE_NAV}
<main>
${bodyHtml}</main>
</body></html>
`;
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A docs page (or the README) as HTML in the site's page. */
export function renderDocPage(markdown: string): string {
  const title = /^#\s+(.+)$/m.exec(markdown)?.[1] ?? 'leadline';
  return pageShell(title, marked.parse(markdown, { async: false }));
}
