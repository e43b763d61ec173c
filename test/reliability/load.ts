import { Agent, request } from 'node:http';
import autocannon from 'autocannon';
import { B } from '../v1/fixtures.js';

/** A mixed read load over v1 and v2 for one key (a team admin's: every operation answers 200). */
export function mixedRequests(key: string, teamId: number): autocannon.Request[] {
  const headers = { authorization: `Bearer ${key}` };
  const json = { ...headers, 'content-type': 'application/json' };
  return [
    { method: 'GET', path: '/api/pub/leads/getLastLeadTeam', headers },
    { method: 'GET', path: `/api/pub/leads/getLeadsTimeRangeForTeam?start=${B - 3 * 86_400_000}`, headers },
    {
      method: 'POST',
      path: '/api/pub/v2/leads/search',
      headers: json,
      body: JSON.stringify({ filters: { teamId }, limit: 20 }),
    },
    { method: 'GET', path: '/api/pub/v2/leads/changes?limit=50', headers },
  ];
}

export interface LoadTally {
  responses: number;
  byStatus: Record<string, number>;
  errors: Record<string, number>;
}

/** Starts autocannon in this process; `tally` counts answers and request errors as they come. */
export function startLoad(
  url: string,
  requests: autocannon.Request[],
  opts: { connections: number; duration: number; overallRate?: number },
): { instance: autocannon.Instance; tally: LoadTally; done: Promise<autocannon.Result> } {
  const tally: LoadTally = { responses: 0, byStatus: {}, errors: {} };
  let resolveDone!: (r: autocannon.Result) => void;
  const done = new Promise<autocannon.Result>((r) => {
    resolveDone = r;
  });
  const instance = autocannon(
    {
      url,
      requests,
      connections: opts.connections,
      duration: opts.duration,
      ...(opts.overallRate === undefined ? {} : { overallRate: opts.overallRate }),
    },
    (err, result) => {
      if (err) throw err;
      resolveDone(result);
    },
  );
  instance.on('response', (_client, statusCode) => {
    tally.responses++;
    tally.byStatus[statusCode] = (tally.byStatus[statusCode] ?? 0) + 1;
  });
  instance.on('reqError', (err: Error & { code?: string }) => {
    const code = err.code ?? err.message;
    tally.errors[code] = (tally.errors[code] ?? 0) + 1;
  });
  return { instance, tally, done };
}

export interface ProbeRecord {
  sentAt: number;
  doneAt: number;
  status?: number;
  contentType?: string;
  retryAfter?: string;
  error?: string;
}

/**
 * Keep-alive workers that time every request (autocannon does not say when a failed request was
 * sent): a request counts as in flight at a moment when it was written before it and not yet answered.
 */
export function startProbe(
  url: string,
  path: string,
  key: string,
  workers: number,
): { records: ProbeRecord[]; stop: () => Promise<void> } {
  const records: ProbeRecord[] = [];
  let stopped = false;
  const loops = Array.from({ length: workers }, async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    while (!stopped) {
      const rec: ProbeRecord = { sentAt: Date.now(), doneAt: 0 };
      await new Promise<void>((resolve) => {
        const req = request(
          `${url}${path}`,
          { agent, headers: { authorization: `Bearer ${key}` } },
          (res) => {
            res.resume();
            res.on('end', () => {
              rec.status = res.statusCode ?? 0;
              rec.contentType = String(res.headers['content-type']);
              if (res.headers['retry-after'] !== undefined)
                rec.retryAfter = String(res.headers['retry-after']);
              resolve();
            });
            res.on('error', (err: Error & { code?: string }) => {
              rec.error = err.code ?? err.message;
              resolve();
            });
          },
        );
        req.on('error', (err: Error & { code?: string }) => {
          rec.error = err.code ?? err.message;
          resolve();
        });
        req.end();
      });
      rec.doneAt = Date.now();
      records.push(rec);
      // A refused connection comes back at once: do not spin.
      if (rec.error === 'ECONNREFUSED') await new Promise((r) => setTimeout(r, 20));
    }
    agent.destroy();
  });
  return {
    records,
    stop: async () => {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

/**
 * An open-loop probe: a new request every `everyMs` whatever happened to the earlier ones (on a
 * keep-alive agent without a socket limit), so a hung request never delays the next measurement.
 */
export function startTicker(
  url: string,
  path: string,
  key: string,
  everyMs: number,
): { records: ProbeRecord[]; stop: () => Promise<void> } {
  const records: ProbeRecord[] = [];
  const pending = new Set<Promise<void>>();
  const agent = new Agent({ keepAlive: true });
  const timer = setInterval(() => {
    const rec: ProbeRecord = { sentAt: Date.now(), doneAt: 0 };
    const p = new Promise<void>((resolve) => {
      const req = request(
        `${url}${path}`,
        { agent, headers: { authorization: `Bearer ${key}` }, timeout: 30_000 },
        (res) => {
          res.resume();
          res.on('end', () => {
            rec.status = res.statusCode ?? 0;
            rec.contentType = String(res.headers['content-type']);
            if (res.headers['retry-after'] !== undefined) rec.retryAfter = String(res.headers['retry-after']);
            resolve();
          });
          res.on('error', (err: Error & { code?: string }) => {
            rec.error = err.code ?? err.message;
            resolve();
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error('timeout 30 s')));
      req.on('error', (err: Error & { code?: string }) => {
        rec.error = err.code ?? err.message;
        resolve();
      });
      req.end();
    }).then(() => {
      rec.doneAt = Date.now();
      records.push(rec);
      pending.delete(p);
    });
    pending.add(p);
  }, everyMs);
  return {
    records,
    stop: async () => {
      clearInterval(timer);
      await Promise.all([...pending]);
      agent.destroy();
    },
  };
}
