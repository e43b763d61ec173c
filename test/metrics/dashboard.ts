import { readFileSync } from 'node:fs';

interface Panel {
  type: string;
  title: string;
  description?: string;
  targets?: { expr: string }[];
}

/** The dashboard's panels, and each query with Grafana's variables filled as Prometheus would get them. */
export function dashboardQueries(): { panels: Panel[]; queries: { title: string; expr: string }[] } {
  const dash = JSON.parse(
    readFileSync(new URL('../../ops/grafana/leadline.json', import.meta.url), 'utf8'),
  ) as {
    panels: Panel[];
  };
  const queries = dash.panels.flatMap((p) =>
    (p.targets ?? []).map((t) => ({
      title: p.title,
      expr: t.expr.replaceAll('$__rate_interval', '1m').replaceAll('$instance', '.*'),
    })),
  );
  return { panels: dash.panels, queries };
}
