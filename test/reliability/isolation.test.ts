import { isolationSuite } from './isolation-suite.js';

/** R1, the fast part (npm test, CI): 1,000 generated requests per engine. */
isolationSuite(Number(process.env.RELIABILITY_R1_RUNS ?? 1000), Number(process.env.RELIABILITY_SEED ?? 7));
