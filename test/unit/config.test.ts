import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig, loadRetentionConfig } from '../../src/config.js';

describe('configuration (issue 2 §7)', () => {
  test('defaults', () => {
    const c = loadConfig({});
    assert.equal(c.port, 3000);
    assert.equal(c.host, '127.0.0.1');
    assert.equal(c.dbPath, './data/leadline.db');
    assert.equal(c.databaseUrl, null);
    assert.equal(c.v1.deprecatedAt, Date.parse('2026-01-01T00:00:00Z'));
    assert.equal(c.v1.frozenAt, c.v1.deprecatedAt);
    assert.equal(c.v1.sunsetAt, null);
    assert.deepEqual(c.rateLimit, { limit: 600, windowSeconds: 60, syncMs: 250 });
    assert.equal(c.consoleSessionMaxMs, 12 * 3_600_000);
  });

  test('the default public URL names the host it listens on, never `localhost` for 127.0.0.1 (issue 37 §2)', () => {
    assert.equal(loadConfig({}).publicUrl, 'http://127.0.0.1:3000');
    assert.equal(loadConfig({ HOST: 'localhost', PORT: '4000' }).publicUrl, 'http://localhost:4000');
    assert.equal(loadConfig({ HOST: '0.0.0.0' }).publicUrl, 'http://127.0.0.1:3000');
    assert.equal(loadConfig({ HOST: '::' }).publicUrl, 'http://127.0.0.1:3000');
    assert.equal(loadConfig({ HOST: '::1' }).publicUrl, 'http://[::1]:3000');
    assert.equal(loadConfig({}, { host: '10.0.0.5' }).publicUrl, 'http://10.0.0.5:3000');
    assert.equal(
      loadConfig({ LEADLINE_PUBLIC_URL: 'https://leads.example.test/' }).publicUrl,
      'https://leads.example.test',
    );
  });

  test('retention: hourly runs, receipts kept three years; 0 turns the schedule off (issue 40 §6)', () => {
    assert.deepEqual(loadConfig({}).retention, { intervalMs: 3_600_000, receiptDays: 1095 });
    assert.deepEqual(
      loadRetentionConfig({ LEADLINE_RETENTION_INTERVAL_SECONDS: '0', LEADLINE_ERASURE_RECEIPT_DAYS: '30' }),
      { intervalMs: 0, receiptDays: 30 },
    );
    for (const [name, bad] of [
      ['LEADLINE_RETENTION_INTERVAL_SECONDS', '604801'],
      ['LEADLINE_RETENTION_INTERVAL_SECONDS', 'hourly'],
      ['LEADLINE_ERASURE_RECEIPT_DAYS', '0'],
      ['LEADLINE_ERASURE_RECEIPT_DAYS', '36501'],
    ] as const) {
      assert.throws(() => loadConfig({ [name]: bad }), new RegExp(name), `${name}=${bad}`);
      assert.throws(() => loadRetentionConfig({ [name]: bad }), new RegExp(name), `${name}=${bad}`);
    }
  });

  test('LEADLINE_CONSOLE_SESSION_MAX_HOURS: hours, 1 to 8760 (issue 36)', () => {
    assert.equal(loadConfig({ LEADLINE_CONSOLE_SESSION_MAX_HOURS: '1' }).consoleSessionMaxMs, 3_600_000);
    for (const bad of ['0', '8761', '1.5', 'day']) {
      assert.throws(
        () => loadConfig({ LEADLINE_CONSOLE_SESSION_MAX_HOURS: bad }),
        (err: unknown) =>
          err instanceof ConfigError &&
          err.problems.some((p) => p.startsWith('LEADLINE_CONSOLE_SESSION_MAX_HOURS')),
        bad,
      );
    }
  });

  test('flags win over the environment', () => {
    const c = loadConfig({ PORT: '4000', HOST: '0.0.0.0' }, { port: 5000, dbPath: 'x.db' });
    assert.equal(c.port, 5000);
    assert.equal(c.host, '0.0.0.0');
    assert.equal(c.dbPath, 'x.db');
  });

  test('--db (databaseUrl: null) wins over DATABASE_URL, which is then neither used nor checked', () => {
    const c = loadConfig({ DATABASE_URL: 'mysql://x' }, { dbPath: 'x.db', databaseUrl: null });
    assert.equal(c.databaseUrl, null);
    assert.equal(loadConfig({ DATABASE_URL: 'postgres://h/db' }).databaseUrl, 'postgres://h/db');
  });

  test('every bad variable is listed at once', () => {
    try {
      loadConfig({
        PORT: '70000',
        LOG_LEVEL: 'chatty',
        DATABASE_URL: 'mysql://x',
        LEADLINE_RATE_LIMIT: '0',
        LEADLINE_V1_DEPRECATED_AT: '01/01/2026',
        LEADLINE_V1_SUNSET_AT: 'soon',
      });
      assert.fail('expected a ConfigError');
    } catch (err) {
      assert.ok(err instanceof ConfigError);
      const named = err.problems.map((p) => p.split(/[=:]/)[0]);
      assert.deepEqual(named.sort(), [
        'DATABASE_URL',
        'LEADLINE_RATE_LIMIT',
        'LEADLINE_V1_DEPRECATED_AT',
        'LEADLINE_V1_SUNSET_AT',
        'LOG_LEVEL',
        'PORT',
      ]);
    }
  });

  test('sunset not before deprecation; times need an offset', () => {
    assert.throws(
      () =>
        loadConfig({
          LEADLINE_V1_DEPRECATED_AT: '2026-06-01T00:00:00Z',
          LEADLINE_V1_SUNSET_AT: '2026-05-01T00:00:00Z',
        }),
      /sunset cannot come before/,
    );
    assert.throws(
      () => loadConfig({ LEADLINE_V1_SUNSET_AT: '2027-01-01T00:00:00' }),
      /LEADLINE_V1_SUNSET_AT/,
    );
    const c = loadConfig({ LEADLINE_V1_SUNSET_AT: '2027-01-01T00:00:00+02:00' });
    assert.equal(c.v1.sunsetAt, Date.parse('2026-12-31T22:00:00Z'));
  });

  test('LEADLINE_TRUST_PROXY: off, a hop count, or addresses and CIDR ranges; never "true"', () => {
    assert.equal(loadConfig({}).trustProxy, false);
    assert.equal(loadConfig({ LEADLINE_TRUST_PROXY: 'off' }).trustProxy, false);
    assert.equal(loadConfig({ LEADLINE_TRUST_PROXY: '2' }).trustProxy, 2);
    assert.deepEqual(loadConfig({ LEADLINE_TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,::1' }).trustProxy, [
      '10.0.0.0/8',
      '127.0.0.1',
      '::1',
    ]);
    for (const bad of ['true', '0', '10.0.0.0/33', 'balancer.internal', '10.0.0.1/8/1']) {
      assert.throws(() => loadConfig({ LEADLINE_TRUST_PROXY: bad }), /LEADLINE_TRUST_PROXY/, bad);
    }
  });

  test('LEADLINE_CORS_ORIGINS: origins only', () => {
    assert.deepEqual(loadConfig({}).corsOrigins, []);
    assert.deepEqual(
      loadConfig({ LEADLINE_CORS_ORIGINS: 'https://crm.example.test, http://localhost:5173' }).corsOrigins,
      ['https://crm.example.test', 'http://localhost:5173'],
    );
    for (const bad of ['*', 'https://crm.example.test/', 'https://x.test/app', 'ftp://x.test']) {
      assert.throws(() => loadConfig({ LEADLINE_CORS_ORIGINS: bad }), /LEADLINE_CORS_ORIGINS/, bad);
    }
  });

  test('LEADLINE_WEBHOOK_PORTS: a comma list of ports, any port when unset', () => {
    assert.equal(loadConfig({}).webhooks.ports, null);
    assert.deepEqual(loadConfig({ LEADLINE_WEBHOOK_PORTS: '443, 8443' }).webhooks.ports, [443, 8443]);
    for (const bad of ['0', '65536', 'https', '443;8443', '443,', '-1']) {
      assert.throws(() => loadConfig({ LEADLINE_WEBHOOK_PORTS: bad }), /LEADLINE_WEBHOOK_PORTS/, bad);
    }
  });
});
