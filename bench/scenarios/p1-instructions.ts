/**
 * P1 SQLite in instructions (issue 43): leadline's instructions per getLastLead ≤ 1.15× the
 * ideal's work on Fastify, counted by bench/instructions.ts (callgrind, the server's main thread,
 * user space) on the run's MAIN SQLite store, after the rounds: a figure the host's load does not
 * move, with the ideal on node:http beside it. Needs valgrind (Debian's package); a full run
 * counts it unless BENCH_INSTRUCTIONS=0, a smoke run only with BENCH_INSTRUCTIONS=1 (each of the
 * three servers takes ~1 min to start under valgrind).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { type Engine, log, MAIN, SMOKE } from '../harness/config.js';
import { add, f2, med, type Row, samples, sizeName } from '../harness/figures.js';
import type { Served } from '../harness/servers.js';

const SCRIPT = fileURLToPath(new URL('../instructions.ts', import.meta.url));
const TARGETS = ['leadline', 'ideal', 'ideal-fastify'] as const;

export const COUNTED = SMOKE
  ? process.env.BENCH_INSTRUCTIONS === '1'
  : process.env.BENCH_INSTRUCTIONS !== '0';

/**
 * The instructions.ts lines `<target>: 137.4k instructions per getLastLead (rounds 141.5k, …)`
 * as each round's count per request, by target.
 */
export function parseCounts(out: string): Map<string, number[]> {
  const counts = new Map<string, number[]>();
  for (const m of out.matchAll(/^([\w-]+): [\d.]+k instructions per getLastLead \(rounds ([^)]*)\)$/gm)) {
    counts.set(
      m[1]!,
      m[2]!.split(', ').map((r) => Math.round(Number(r.replace(/k$/, '')) * 1000)),
    );
  }
  return counts;
}

/** Counts the three targets on `s`'s store (SQLite, MAIN); fails unless each printed its rounds. */
export async function countInstructions(s: Served): Promise<void> {
  const requests = SMOKE ? '200' : '10000';
  log(`P1 in instructions: ${TARGETS.join(', ')} under callgrind, ${requests} requests a round`);
  const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT, '--db', s.where, requests], {
    env: {
      ...process.env,
      INSTRUCTIONS_START_MS: '1500000',
      ...(SMOKE ? { INSTRUCTIONS_WARMUP: '200' } : {}),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const [code] = await once(child, 'exit');
  if (code !== 0) throw new Error(`bench/instructions.ts exited with ${code}:\n${out}`);
  const counts = parseCounts(out);
  for (const target of TARGETS) {
    const rounds = counts.get(target);
    if (rounds === undefined)
      throw new Error(`bench/instructions.ts printed no count for ${target}:\n${out}`);
    for (const r of rounds) add(`instructions.${target}`, r);
  }
  log(`P1 in instructions: ${out.trim().split('\n').join('; ')}`);
}

const k = (n: number) => (Number.isFinite(n) ? `${(n / 1000).toFixed(1)}k` : 'n/a');
const rounds = (target: string) => (samples.get(`instructions.${target}`) ?? []).map(k).join(', ');

export function rows(engine: Engine): Row[] {
  if (engine !== 'sqlite' || !COUNTED) return [];
  const ours = med('instructions.leadline');
  const fastify = med('instructions.ideal-fastify');
  const ideal = med('instructions.ideal');
  const at = `${sizeName(MAIN)} leads, SQLite`;
  return [
    {
      id: 'P1 (instructions)',
      what: `leadline's instructions per getLastLead ÷ the ideal's work on Fastify (bench/instructions.ts: callgrind, main thread, user space), ${at}`,
      measured: ours / fastify,
      target: 1.15,
      sense: 'le',
      detail: `leadline ${k(ours)} (rounds ${rounds('leadline')}), the ideal on Fastify ${k(fastify)} (${rounds('ideal-fastify')}), the ideal on node:http ${k(ideal)} (${rounds('ideal')}); leadline ÷ node:http ideal ${f2(ours / ideal)}`,
    },
  ];
}
