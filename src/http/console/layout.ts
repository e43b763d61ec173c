import type { Team } from '../../directory/directory.js';
import type { ConsoleSession } from './console-deps.js';
import { type Html, html } from './html.js';

export type View = 'keys' | 'leads' | 'v1' | 'webhooks' | 'privacy' | 'audit' | 'brownouts' | null;

/** `?team=` for links from a view of one team (the operator's), nothing otherwise. */
export function teamQuery(session: ConsoleSession, team: number | null): string {
  return session.subject.kind === 'operator' && team !== null ? `?team=${team}` : '';
}

function nav(session: ConsoleSession, view: View, team: number | null): Html {
  const q = teamQuery(session, team);
  const item = (name: View, href: string, label: string) =>
    html`<li><a href="${href}"${name === view ? html` aria-current="page"` : ''}>${label}</a></li>`;
  const who =
    session.subject.kind === 'operator'
      ? 'operator'
      : `${session.subject.member.email}, team ${session.subject.member.teamId}`;
  return html`<header><nav aria-label="Console"><ul>
${item('keys', `/console/keys${q}`, 'Keys')}${item('leads', `/console/leads${q}`, 'Leads')}${item('v1', `/console/v1${q}`, 'v1 migration')}${item('webhooks', `/console/webhooks${q}`, 'Webhooks')}${item('privacy', `/console/privacy${q}`, 'Privacy')}${item('audit', `/console/audit${q}`, 'Audit log')}${
  session.subject.kind === 'operator' ? item('brownouts', '/console/brownouts', 'Brownouts') : ''
}</ul></nav>
<form method="post" action="/console/sign-out" class="sign-out"><input type="hidden" name="_csrf" value="${session.csrf}">
<span>Signed in as ${who}</span> <button type="submit">Sign out</button></form></header>`;
}

/** A whole console page: its own script and styles only (CSP), a skip link, the navigation. */
export function page(
  title: string,
  body: Html,
  options: { session?: ConsoleSession; view?: View; team?: number | null; chart?: boolean } = {},
): string {
  const { session, view = null, team = null } = options;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} — leadline console</title>
<link rel="stylesheet" href="/assets/leadline.css"><link rel="stylesheet" href="/console/assets/console.css">
${options.chart ? html`<link rel="stylesheet" href="/console/assets/uplot.css"><script src="/console/assets/uplot.js" defer></script>` : ''}
<script src="/console/assets/console.js" defer></script></head>
<body class="console"><a class="skip" href="#main">Skip to content</a>
${session === undefined ? '' : nav(session, view, team)}
<main id="main"><h1>${title}</h1>
${body}</main></body></html>
`.text;
}

/** The operator's team picker (a GET form: the view stays addressable by URL). */
export function teamPicker(
  session: ConsoleSession,
  teams: Team[],
  team: number | null,
  action: string,
): Html {
  if (session.subject.kind !== 'operator') return html``;
  return html`<form method="get" action="${action}" class="team-picker"><label for="team">Team</label>
<select id="team" name="team"><option value="">every team</option>${teams.map(
    (t) => html`<option value="${t.id}"${t.id === team ? html` selected` : ''}>${t.id} ${t.name}</option>`,
  )}</select> <button type="submit">Show</button></form>`;
}
