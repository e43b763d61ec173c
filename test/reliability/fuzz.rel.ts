import { fuzzSuite } from './fuzz-suite.js';

/**
 * R2 in full (npm run test:reliability): 90,000 requests in process and 10,000 raw ones —
 * 100,000 in all — with the slow-client limits timed for real (`RELIABILITY_R2_STRICT=0`
 * tolerates the Fastify answers of older builds, see fuzz-suite.ts).
 */
fuzzSuite({
  inject: Number(process.env.RELIABILITY_R2_INJECT ?? 90_000),
  text: Number(process.env.RELIABILITY_R12_TEXT ?? 10_000),
  socket: Number(process.env.RELIABILITY_R2_SOCKET ?? 10_000),
  seed: Number(process.env.RELIABILITY_SEED ?? 1001),
  strict: process.env.RELIABILITY_R2_STRICT !== '0',
  slow: true,
});
