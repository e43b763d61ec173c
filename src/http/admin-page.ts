/**
 * The admin page: who still calls v1. A static page; its script (src/http/assets/admin.js) fetches
 * /api/admin/v1/report with a team admin's key, which the page keeps in this tab only
 * (sessionStorage) and sends as a Bearer token. No inline script or style: the page's CSP (R17)
 * allows only the service's own files.
 */
export const ADMIN_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>leadline — v1 retirement</title>
<link rel="stylesheet" href="/assets/leadline.css"><script src="/assets/admin.js" defer></script></head><body class="admin">
<h1>Who still calls v1</h1>
<form id="form"><label>Team admin API key <input id="key" type="password" size="48" autocomplete="off"></label>
<label>Days <input id="days" type="number" min="1" max="3660" value="30"></label> <button>Show</button></form>
<p id="error" role="alert"></p>
<h2>v1 calls per day</h2><svg id="chart" width="100%" height="160" role="img" aria-label="v1 calls per day"></svg>
<h2>Keys</h2><table><thead><tr><th>key</th><th>member</th><th>status</th><th>v1 calls</th><th>by operation</th>
<th>v1 last seen</th><th>user agent</th><th>v2 calls</th></tr></thead><tbody id="rows"></tbody></table>
</body></html>
`;
