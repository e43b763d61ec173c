import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { describeRun, anaLead as lead, leadline, storeArgs } from '../cli/cli.js';
import { enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { parseExposition, sampleSum } from './scrape.js';

/** `leadline import --metrics-file`: the import's figures for node_exporter's textfile collector. */
const dir = mkdtempSync(join(tmpdir(), 'leadline-import-metrics-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const team = { type: 'team', id: 10, name: 'Acme', timeZone: 'Europe/Berlin' };
const ana = { type: 'member', id: 4822, teamId: 10, email: 'ana@acme.test', role: 'admin', pid: '7891' };
const file = (name: string, records: object[], raw: string[] = []) => {
  const path = join(dir, name);
  writeFileSync(path, [...records.map((r) => JSON.stringify(r)), ...raw].join('\n'));
  return path;
};

for (const engine of enginesUnderTest()) {
  describe(`leadline import --metrics-file (${engine})`, () => {
    test('a success writes leads, duration and times; a failure says so and keeps the last success', async (t) => {
      const made = await makeEngineStore(engine);
      t.after(() => made.cleanup());
      const args = storeArgs(made.location);
      const prom = join(dir, `import-${engine}.prom`);
      const t0 = Date.now() / 1000;
      const ok = leadline([
        ...args,
        'import',
        file('a.ndjson', [team, ana, lead('1', 1000), lead('2', 2000), lead('3', 3000)]),
        '--metrics-file',
        prom,
      ]);
      assert.equal(ok.status, 0, describeRun(ok));
      let s = parseExposition(readFileSync(prom, 'utf8'));
      assert.equal(sampleSum(s, 'leadline_import_last_leads', { kind: 'all' }), 3);
      assert.equal(sampleSum(s, 'leadline_import_last_leads', { kind: 'new' }), 3);
      assert.equal(sampleSum(s, 'leadline_import_last_failed'), 0);
      const success = sampleSum(s, 'leadline_import_last_success_timestamp_seconds');
      assert.ok(success >= t0 - 1 && success <= Date.now() / 1000 + 1, `success at ${success}`);
      assert.ok(sampleSum(s, 'leadline_import_last_duration_seconds') > 0);

      const again = leadline([
        ...args,
        'import',
        file('b.ndjson', [lead('3', 3000), lead('4', 4000)]),
        '--metrics-file',
        prom,
      ]);
      assert.equal(again.status, 0, describeRun(again));
      s = parseExposition(readFileSync(prom, 'utf8'));
      assert.equal(sampleSum(s, 'leadline_import_last_leads', { kind: 'all' }), 2);
      assert.equal(sampleSum(s, 'leadline_import_last_leads', { kind: 'new' }), 1);
      const secondSuccess = sampleSum(s, 'leadline_import_last_success_timestamp_seconds');

      const bad = leadline([
        ...args,
        'import',
        file('c.ndjson', [lead('5', 5000)], ['{"type":"lead",']),
        '--metrics-file',
        prom,
      ]);
      assert.equal(bad.status, 1, describeRun(bad));
      assert.match(bad.stderr, /c\.ndjson:2: /);
      s = parseExposition(readFileSync(prom, 'utf8'));
      assert.equal(sampleSum(s, 'leadline_import_last_failed'), 1);
      assert.equal(sampleSum(s, 'leadline_import_last_success_timestamp_seconds'), secondSuccess);
      assert.ok(sampleSum(s, 'leadline_import_last_run_timestamp_seconds') >= secondSuccess);
      assert.equal(
        s.filter((x) => x.name === 'leadline_import_last_leads').length,
        0,
        'no lead counts for a failed import',
      );
      assert.ok(!existsSync(`${prom}.tmp`), 'written through a temporary file, renamed');
    });
  });
}
