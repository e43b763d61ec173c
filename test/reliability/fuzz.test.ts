import { fuzzSuite } from './fuzz-suite.js';

/**
 * R2, the fast part (npm test, CI), on every engine under test: 9,000 requests in process and
 * 1,000 raw ones, 10,000 in all; and R12's 1,000 valid-key requests with control characters.
 */
fuzzSuite({
  inject: Number(process.env.RELIABILITY_R2_INJECT ?? 9_000),
  text: Number(process.env.RELIABILITY_R12_TEXT ?? 1_000),
  socket: Number(process.env.RELIABILITY_R2_SOCKET ?? 1_000),
  seed: Number(process.env.RELIABILITY_SEED ?? 11),
  strict: true,
  slow: false,
});
