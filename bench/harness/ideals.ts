/**
 * The ideal data path references of issue 16 (bench/ideal.ts), one pair per store they are
 * measured on: bare node:http (bench/reference-ideal.ts) and a minimal Fastify app doing the same
 * work (bench/reference-ideal-fastify.ts), both pinned to CPU 0 beside leadline, both reading the
 * store leadline serves with the key leadline is asked with.
 */
import type { Target } from '../lib.js';
import type { Engine } from './config.js';
import { referenceServer, type Served } from './servers.js';

export interface Ideal {
  engine: Engine;
  size: number;
  key: string;
  http: Target;
  fastify: Target;
}

const ideals: Ideal[] = [];

/** Starts the pair on each engine's store of each of `sizes` (once per store). */
export async function startIdeals(served: Served[], sizes: number[]): Promise<void> {
  for (const s of served) {
    if (s.variant !== undefined || !sizes.includes(s.size) || idealOf(s.engine, s.size) !== undefined)
      continue;
    const tag = `${s.engine} ${s.size}`;
    const http = await referenceServer(
      `ideal node:http ${tag}`,
      'reference-ideal.ts',
      [s.engine, s.where],
      '/healthz',
    );
    const fastify = await referenceServer(
      `ideal Fastify ${tag}`,
      'reference-ideal-fastify.ts',
      [s.engine, s.where],
      '/healthz',
    );
    ideals.push({ engine: s.engine, size: s.size, key: s.key, http, fastify });
  }
}

export const idealOf = (engine: Engine, size: number): Ideal | undefined =>
  ideals.find((i) => i.engine === engine && i.size === size);
