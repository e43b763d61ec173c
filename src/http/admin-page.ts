/**
 * The admin page: who still calls v1. A static page; the data comes from
 * /api/admin/v1/report with a team admin's key, which the page keeps in this tab only
 * (sessionStorage) and sends as a Bearer token. Values are inserted as text, never as HTML.
 */
export const ADMIN_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>leadline — v1 retirement</title>
<style>body{font:15px/1.45 system-ui,sans-serif;max-width:64rem;margin:2rem auto;padding:0 1rem}
table{border-collapse:collapse;width:100%}td,th{border:1px solid #ccc;padding:.25rem .5rem;text-align:left}
.on-v1{background:#fde2e2}.migrated{background:#e2f5e2}#chart rect{fill:#b33}#chart text{font-size:10px}
#error{color:#b00}</style></head><body>
<h1>Who still calls v1</h1>
<form id="form"><label>Team admin API key <input id="key" type="password" size="48" autocomplete="off"></label>
<label>Days <input id="days" type="number" min="1" max="3660" value="30"></label> <button>Show</button></form>
<p id="error" role="alert"></p>
<h2>v1 calls per day</h2><svg id="chart" width="100%" height="160" role="img" aria-label="v1 calls per day"></svg>
<h2>Keys</h2><table><thead><tr><th>key</th><th>member</th><th>status</th><th>v1 calls</th><th>by operation</th>
<th>v1 last seen</th><th>user agent</th><th>v2 calls</th></tr></thead><tbody id="rows"></tbody></table>
<script>
const $ = (id) => document.getElementById(id);
$('key').value = sessionStorage.getItem('leadline-key') || '';
$('form').addEventListener('submit', async (e) => {
  e.preventDefault();
  sessionStorage.setItem('leadline-key', $('key').value);
  $('error').textContent = '';
  const res = await fetch('/api/admin/v1/report?days=' + encodeURIComponent($('days').value),
    { headers: { authorization: 'Bearer ' + $('key').value } });
  const body = await res.json();
  if (!res.ok) { $('error').textContent = body.title + ': ' + body.detail; return; }
  const rows = $('rows'); rows.replaceChildren();
  for (const k of body.keys) {
    const tr = document.createElement('tr'); tr.className = k.status;
    const ops = Object.entries(k.v1ByOperation).filter(([, n]) => n > 0).map(([op, n]) => op + ' ' + n).join(', ');
    for (const v of [k.keyId, k.memberId, k.status, k.v1Calls, ops, k.v1LastSeen ?? '—', k.userAgent ?? '—', k.v2Calls]) {
      const td = document.createElement('td'); td.textContent = String(v); tr.append(td);
    }
    rows.append(tr);
  }
  const svg = $('chart'); svg.replaceChildren();
  const days = body.v1CallsByDay, max = Math.max(1, ...days.map((d) => d.calls));
  const w = svg.clientWidth || 800, bar = w / days.length, ns = 'http://www.w3.org/2000/svg';
  days.forEach((d, i) => {
    const h = Math.round((d.calls / max) * 130);
    const r = document.createElementNS(ns, 'rect');
    r.setAttribute('x', String(i * bar + 1)); r.setAttribute('y', String(140 - h));
    r.setAttribute('width', String(Math.max(1, bar - 2))); r.setAttribute('height', String(h));
    const t = document.createElementNS(ns, 'title'); t.textContent = d.day + ': ' + d.calls; r.append(t);
    svg.append(r);
  });
  const label = document.createElementNS(ns, 'text');
  label.setAttribute('x', '0'); label.setAttribute('y', '155');
  label.textContent = days.length ? days[0].day + ' … ' + days[days.length - 1].day + ' (max ' + max + ' per day)' : '';
  svg.append(label);
});
</script></body></html>
`;
