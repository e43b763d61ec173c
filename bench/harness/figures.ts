/**
 * Every measurement of the run, by name, and the shape of a row of the targets table: the
 * scenarios add samples while they run and turn their medians into rows at the end.
 */
import { median } from '../lib.js';
import type { Engine } from './config.js';

/** Every measurement, by name; the figures are medians over rounds. */
export const samples = new Map<string, number[]>();

export const add = (name: string, v: number) => {
  const xs = samples.get(name) ?? [];
  xs.push(v);
  samples.set(name, xs);
};

export const med = (name: string): number => {
  const xs = samples.get(name);
  return xs === undefined || xs.length === 0 ? Number.NaN : median(xs);
};

/** Every round's figure, in round order, rounded: `6,606 / 1,458 / 7,073`. */
export const all = (name: string): string =>
  (samples.get(name) ?? []).map((x) => Math.round(x).toLocaleString('en-US')).join(' / ') || 'n/a';

/**
 * `a` ÷ `b` in each round (the i-th samples of both: every round runs every job once), for a
 * target decided k of n rounds on a noisy host (issue 43).
 */
export const roundRatios = (a: string, b: string): number[] => {
  const xs = samples.get(a) ?? [];
  const ys = samples.get(b) ?? [];
  return xs.slice(0, ys.length).map((x, i) => x / ys[i]!);
};

/** "each round 0.71 / 0.69 / …", and with a target "(4 of 5 ≥ 0.7)". */
export const roundsDetail = (ratios: number[], target: number, sense: 'le' | 'ge'): string => {
  const each = `each round ${ratios.map(f2).join(' / ')}`;
  if (!Number.isFinite(target)) return each;
  const met = ratios.filter((r) => (sense === 'ge' ? r >= target : r <= target)).length;
  return `${each} (${met} of ${ratios.length} ${sense === 'ge' ? '≥' : '≤'} ${target})`;
};

/** One performance target's line in the targets table. */
export interface Row {
  id: string;
  what: string;
  measured: number;
  target: number;
  /** 'le': measured ≤ target meets it; 'ge': measured ≥ target */
  sense: 'le' | 'ge';
  detail: string;
}

export const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : 'n/a');
export const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : 'n/a');
export const f3 = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : 'n/a');
export const int = (x: number) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : 'n/a');

export const sizeName = (n: number) =>
  n >= 1_000_000 ? `${n / 1_000_000}M` : n >= 1000 ? `${n / 1000}k` : String(n);

export const engineName = (engine: Engine) => (engine === 'sqlite' ? 'SQLite' : 'PostgreSQL');
