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
// Series with the same counts draw on top of each other: each has its own dash, and the first
// ones are wider, so a line under another still shows at its sides and through its gaps.
const DASHES = [[], [10, 5], [3, 4], [14, 4, 3, 4], [6, 3, 1, 3]];
const WIDTHS = [6, 4, 2.5, 2, 1.5];
// Calls are whole numbers: ticks only at whole steps.
const COUNT_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5, 1e6, 1e7];

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
    // The labels drawn are written to the chart's data-x-ticks / data-y-ticks (label and
    // position), which the browser tests read: the canvas has no text to query.
    axes: [
      {
        incrs: [86400, 2 * 86400, 7 * 86400, 14 * 86400, 30 * 86400, 365 * 86400],
        // A date is ~75 px wide: at least that much room per label, so a phone's don't overlap.
        space: 90,
        values: (u, ticks) => record(u, 'x', ticks, (t) => new Date(t * 1000).toISOString().slice(0, 10)),
      },
      {
        incrs: COUNT_STEPS,
        values: (u, ticks) => record(u, 'y', ticks, (t) => String(t)),
      },
    ],
    series: [
      { label: 'day' },
      ...series.map((s, i) => ({
        label: s.operation,
        stroke: COLOURS[i % COLOURS.length],
        width: WIDTHS[i % WIDTHS.length],
        dash: DASHES[i % DASHES.length],
      })),
    ],
  };
  function record(u, axis, ticks, label) {
    const labels = ticks.map(label);
    target.dataset[`${axis}Ticks`] = JSON.stringify(
      ticks.map((t, i) => ({ label: labels[i], at: Math.round(u.valToPos(t, axis)) })),
    );
    return labels;
  }
  target.dataset.series = JSON.stringify(opts.series.slice(1).map((s) => [s.width, s.dash]));
  target.replaceChildren();
  const plot = new window.uPlot(opts, [xs, ...series.map((s) => s.calls)], target);
  target.dataset.drawn = 'true';
  window.addEventListener('resize', () =>
    plot.setSize({ width: Math.max(280, target.clientWidth), height: 260 }),
  );
}

drawChart();
