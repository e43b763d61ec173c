// The admin console's script (src/http/console/): a file of its own, so the pages' CSP allows no
// inline script. Every page works without it; it adds the copy button, a confirmation before
// removing a brownout, and the v1 chart (uPlot, drawn from the page's JSON data block).
for (const button of document.querySelectorAll('[data-copy]')) {
  button.addEventListener('click', async () => {
    const field = document.getElementById(button.dataset.copy);
    const status = document.querySelector(`[data-copied-for="${button.dataset.copy}"]`);
    field.select();
    try {
      await navigator.clipboard.writeText(field.value);
      if (status) status.textContent = 'Copied.';
    } catch {
      if (status) status.textContent = 'Selected: press Ctrl+C (⌘C) to copy.';
    }
  });
}

for (const form of document.querySelectorAll('form[data-confirm]')) {
  form.addEventListener('submit', (event) => {
    if (!window.confirm(form.dataset.confirm)) event.preventDefault();
  });
}

const COLOURS = ['#1f5fa8', '#b3261e', '#1b7a3a', '#7a4fb0', '#8a5a00'];

function drawChart() {
  const source = document.getElementById('chart-data');
  const target = document.getElementById('chart');
  if (!source || !target || typeof window.uPlot !== 'function') return;
  const { days, series } = JSON.parse(source.textContent);
  const xs = days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000);
  const opts = {
    width: Math.max(280, target.clientWidth),
    height: 260,
    tzDate: (ts) => window.uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
    scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
    // Whole days on the x axis, written as the tables write them (UTC dates).
    axes: [
      {
        incrs: [86400, 2 * 86400, 7 * 86400, 30 * 86400, 365 * 86400],
        values: (_u, ticks) => ticks.map((t) => new Date(t * 1000).toISOString().slice(0, 10)),
      },
      {},
    ],
    series: [
      { label: 'day' },
      ...series.map((s, i) => ({ label: s.operation, stroke: COLOURS[i % COLOURS.length], width: 2 })),
    ],
  };
  target.replaceChildren();
  const plot = new window.uPlot(opts, [xs, ...series.map((s) => s.calls)], target);
  target.dataset.drawn = 'true';
  window.addEventListener('resize', () =>
    plot.setSize({ width: Math.max(280, target.clientWidth), height: 260 }),
  );
}

drawChart();
