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
      // docs link to each other as `v2.md#x` (readable on GitHub); served pages drop the `.md`.
      const href = token.href.replace(/^(?:\.\/|docs\/)?([a-z0-9-]+)\.md(#.*)?$/, '/docs/$1$2');
      const title = token.title ? ` title="${escapeHtml(token.title)}"` : '';
      return `<a href="${escapeHtml(href)}"${title}>${this.parser.parseInline(token.tokens)}</a>`;
    },
  },
});

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The page around a doc: no inline style or script, as the pages' CSP requires (R17). */
export function renderDocPage(markdown: string): string {
  const title = /^#\s+(.+)$/m.exec(markdown)?.[1] ?? 'leadline';
  const body = marked.parse(markdown, { async: false });
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="/assets/leadline.css">
</head><body>
${body}</body></html>
`;
}
