// One writer of the mirror bar (mirror.rel.ts), a process of its own: `ops` random changes to
// team MIRROR_TEAM through the use cases — creates (v2 creation), updates, merges and
// re-imports with new values — then exits. Prints `done <n>` every 50 operations.
import { Readable } from 'node:stream';
import { importRecords } from '../../src/io/import/run-import.js';
import { createLead } from '../../src/leads/create-lead.js';
import { mergeLeads } from '../../src/leads/merge-leads.js';
import { updateLead } from '../../src/leads/update-lead.js';
import { openStore } from '../../src/open-store.js';
import { AppError } from '../../src/shared/errors.js';

export const MIRROR_TEAM = 4701;
export const MIRROR_ADMIN = 47011;

const [location, writer, ops] = [
  JSON.parse(process.argv[2]!),
  Number(process.argv[3]),
  Number(process.argv[4]),
];
const store = await openStore(location);
await store.migrate(); // up to date already: this only lets the store serve
const caller = {
  keyId: 0,
  memberId: MIRROR_ADMIN,
  teamId: MIRROR_TEAM,
  role: 'admin' as const,
  keyCreatedAt: 0,
  legacyV1: false,
};
const by = { caller };
let uuids: string[] = [];
const imported: Record<string, unknown>[] = [];
let n = 0;
let last = '';
const refresh = async () => {
  uuids = [];
  for await (const b of store.leads.scan({ teamId: MIRROR_TEAM }, 1000)) uuids.push(...b.map((l) => l.uuid));
};
const pick = () => uuids[Math.floor(Math.random() * uuids.length)];
const load = (records: object[]) => {
  const text = records.map((r) => JSON.stringify(r)).join('\n');
  return importRecords(store, [
    { name: `w${writer}.ndjson`, size: Buffer.byteLength(text), open: () => Readable.from([text]) },
  ]);
};

for (let i = 0; i < ops; i++) {
  if (i % 25 === 0) await refresh();
  const op = Math.random();
  const now = Date.now();
  try {
    if (op < 0.2 || uuids.length < 4) {
      await createLead(
        store,
        { captureToleranceMs: 86_400_000 },
        {
          caller,
          body: {
            leadSource: 'MANUAL',
            systemFields: { fullName: `W${writer} ${i}`, email: `p${i % 50}@mirror.test` },
          },
          idempotencyKey: null,
          now,
        },
      );
    } else if (op < 0.35) {
      // A re-import: a lead this writer imported before, with new values; or a new one.
      const again =
        imported.length > 0 && Math.random() < 0.6
          ? imported[Math.floor(Math.random() * imported.length)]!
          : null;
      const record = again ?? {
        type: 'lead',
        userId: MIRROR_ADMIN,
        id: `w${writer}-${i}`,
        epoch: 1_700_000_000_000 + i,
        isLead: true,
        name: `I${writer} ${i}`,
      };
      record.note = `import ${writer}-${i}`;
      if (again === null) imported.push(record);
      await load([record]);
    } else if (op < 0.9) {
      const patch =
        Math.random() < 0.5
          ? { systemFields: { note: `w${writer}-${i}`, phone: Math.random() < 0.3 ? null : `+49 ${i}` } }
          : {
              locationShared: Math.random() < 0.5,
              systemFields: { location: { label: `L${i}`, latitude: 1, longitude: 2 } },
            };
      last = pick()!;
      await updateLead(store, { by, leadId: last, patch, source: 'api', now });
    } else {
      const [a, b] = [pick()!, pick()!];
      if (a !== b) await mergeLeads(store, { by, leadId: a, mergeLeadIds: [b], source: 'api', now });
    }
  } catch (err) {
    if (err instanceof AppError && err.code === 'invalid-parameters' && process.env.MIRROR_DEBUG)
      process.stderr.write(
        `${last} ${JSON.stringify(await store.leads.byUuid({ teamId: MIRROR_TEAM }, last))}\n`,
      );
    // Another writer merged the lead meanwhile, or won the race: a refusal, not a failure.
    if (!(err instanceof AppError && ['lead-merged', 'precondition-failed', 'not-found'].includes(err.code)))
      throw err;
  }
  n++;
  if (n % 50 === 0) process.stdout.write(`done ${n}\n`);
}
await store.close();
process.stdout.write(`done ${n}\n`);
