import { writeFileSync } from 'node:fs';
import { generatedDocument } from './openapi-document.js';

// Regenerates docs/openapi.json from the registered routes' schemas: `npm run openapi`.
writeFileSync(
  new URL('../docs/openapi.json', import.meta.url),
  `${JSON.stringify(await generatedDocument(), null, 2)}\n`,
);
