// The admin page's script (src/http/admin-page.ts), a file of its own so the page's
// Content-Security-Policy can forbid inline script (R17). Values are inserted as text, never as HTML.
const $ = (id) => document.getElementById(id);
$('key').value = sessionStorage.getItem('leadline-key') || '';
$('form').addEventListener('submit', async (e) => {
  e.preventDefault();
  sessionStorage.setItem('leadline-key', $('key').value);
  $('error').textContent = '';
  const res = await fetch(`/api/admin/v1/report?days=${encodeURIComponent($('days').value)}`, {
    headers: { authorization: `Bearer ${$('key').value}` },
  });
  const body = await res.json();
  if (!res.ok) {
    $('error').textContent = `${body.title}: ${body.detail}`;
    return;
  }
  showKeys(body.keys);
  showChart(body.v1CallsByDay);
});

function showKeys(keys) {
  const rows = $('rows');
  rows.replaceChildren();
  for (const k of keys) {
    const tr = document.createElement('tr');
    tr.className = k.status;
    const ops = Object.entries(k.v1ByOperation)
      .filter(([, n]) => n > 0)
      .map(([op, n]) => `${op} ${n}`)
      .join(', ');
    for (const v of [
      k.keyId,
      k.memberId,
      k.status,
      k.v1Calls,
      ops,
      k.v1LastSeen ?? '—',
      k.userAgent ?? '—',
      k.v2Calls,
    ]) {
      const td = document.createElement('td');
      td.textContent = String(v);
      tr.append(td);
    }
    rows.append(tr);
  }
}

function showChart(days) {
  const svg = $('chart');
  svg.replaceChildren();
  const max = Math.max(1, ...days.map((d) => d.calls));
  const w = svg.clientWidth || 800;
  const bar = w / days.length;
  const ns = 'http://www.w3.org/2000/svg';
  days.forEach((d, i) => {
    const h = Math.round((d.calls / max) * 130);
    const r = document.createElementNS(ns, 'rect');
    r.setAttribute('x', String(i * bar + 1));
    r.setAttribute('y', String(140 - h));
    r.setAttribute('width', String(Math.max(1, bar - 2)));
    r.setAttribute('height', String(h));
    const t = document.createElementNS(ns, 'title');
    t.textContent = `${d.day}: ${d.calls}`;
    r.append(t);
    svg.append(r);
  });
  const label = document.createElementNS(ns, 'text');
  label.setAttribute('x', '0');
  label.setAttribute('y', '155');
  label.textContent = days.length ? `${days[0].day} … ${days[days.length - 1].day} (max ${max} per day)` : '';
  svg.append(label);
}
