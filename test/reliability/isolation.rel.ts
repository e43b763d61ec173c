import { isolationSuite } from './isolation-suite.js';

/** R1, in full (npm run test:reliability): 10,000 generated requests per engine. */
isolationSuite(
  Number(process.env.RELIABILITY_R1_RUNS ?? 10_000),
  Number(process.env.RELIABILITY_SEED ?? 7001),
);
