import { writeFileSync } from 'node:fs';
import { openApiDocument } from '../src/http/openapi.js';

// Regenerates docs/openapi.json from the route schemas: `npm run openapi`.
writeFileSync(
  new URL('../docs/openapi.json', import.meta.url),
  `${JSON.stringify(openApiDocument(), null, 2)}\n`,
);
