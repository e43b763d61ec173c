import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCounts } from '../../bench/scenarios/p1-instructions.js';

/** The full run reads P1 SQLite's counts from bench/instructions.ts's printed lines. */
test('bench/instructions.ts output: each target’s rounds, per request', () => {
  const out = [
    'leadline: 137.4k instructions per getLastLead (rounds 141.5k, 137.4k, 136.3k)',
    'ideal: 118.8k instructions per getLastLead (rounds 118.8k, 118.8k, 118.9k)',
    'ideal-fastify: 130.2k instructions per getLastLead (rounds 127.0k, 132.2k, 130.2k)',
    'sqlite, 10000 requests a round, 15000 to warm up; main thread, user space:',
    'ideal ÷ leadline: 0.86',
  ].join('\n');
  const counts = parseCounts(out);
  assert.deepEqual([...counts.keys()], ['leadline', 'ideal', 'ideal-fastify']);
  assert.deepEqual(counts.get('leadline'), [141_500, 137_400, 136_300]);
  assert.deepEqual(counts.get('ideal-fastify'), [127_000, 132_200, 130_200]);
  assert.equal(parseCounts('leadline: callgrind files kept in /tmp/x (3)').size, 0);
});
