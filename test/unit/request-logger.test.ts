import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { requestLogger } from '../../src/http/request-logger.js';
import { createLogger } from '../../src/logger.js';

/** A leadline logger at `level` whose lines (parsed, without their time) are collected. */
function captured(level: 'info' | 'warn') {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
        const { time: _time, ...rest } = JSON.parse(line) as Record<string, unknown>;
        lines.push(rest);
      }
      done();
    },
  });
  return { logger: createLogger(level, sink), lines };
}

describe('request logger (made on first use)', () => {
  it("writes the same lines as pino's own child, bindings, serializers and redaction included", () => {
    const lazy = captured('info');
    const eager = captured('info');
    const entries: [string, unknown, string][] = [
      ['info', { req: { id: 'r1', method: 'GET', routeOptions: { url: '/x' } } }, 'incoming request'],
      ['warn', { authorization: 'Bearer llk_secret' }, 'odd header'],
      ['error', { err: new Error('boom') }, 'unhandled error'],
    ];
    const a = requestLogger.call(null, lazy.logger, { reqId: 'r1' }, {});
    const b = eager.logger.child({ reqId: 'r1' }, {});
    for (const [level, obj, msg] of entries) {
      (a as unknown as Record<string, (o: unknown, m: string) => void>)[level]!(obj, msg);
      (b as unknown as Record<string, (o: unknown, m: string) => void>)[level]!(obj, msg);
    }
    assert.equal(lazy.lines.length, 3);
    assert.deepEqual(lazy.lines, eager.lines);
    assert.equal(lazy.lines[0]?.reqId, 'r1');
    assert.deepEqual(lazy.lines[0]?.req, { id: 'r1', method: 'GET', route: '/x' });
    assert.equal(lazy.lines[1]?.authorization, '[redacted]');
  });

  it("writes nothing below the parent's level, and what is at or above it", () => {
    const { logger, lines } = captured('warn');
    const log = requestLogger.call(null, logger, { reqId: 'r2' }, {});
    log.info('not written');
    log.debug('not written');
    assert.equal(lines.length, 0);
    assert.equal(log.level, 'warn');
    log.warn('written');
    log.error({ code: 7 }, 'also written');
    assert.deepEqual(
      lines.map((l) => [l.msg, l.reqId, l.code]),
      [
        ['written', 'r2', undefined],
        ['also written', 'r2', 7],
      ],
    );
  });

  it('a child of the request logger carries both bindings', () => {
    const { logger, lines } = captured('info');
    requestLogger.call(null, logger, { reqId: 'r3' }, {}).child({ part: 'inner' }).info('hello');
    assert.equal(lines[0]?.reqId, 'r3');
    assert.equal(lines[0]?.part, 'inner');
  });
});
