/**
 * The client side of the HTTP reliability bars (mirror-http.rel.ts, event-mirror.rel.ts): a
 * seeded PRNG, and a client that sends each request to whichever `leadline serve` process is
 * current, sending it again after a connection error (the server was SIGKILLed under it).
 */

// biome-ignore lint/suspicious/noExplicitAny: wire bodies of many shapes, checked by the tests
export type Json = any;

/** mulberry32: a small seeded PRNG, so a run's choices follow from its seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** JSON with members sorted, so two renderings of one lead compare equal whatever their order. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
}

export interface Answer {
  status: number;
  body: Json;
  etag: string | null;
}

/**
 * The client side of the server process that is current now: every request goes to `url` as it
 * is when sent, and one that fails on the connection (the server was killed under it, or is not
 * up yet) is sent again — for up to 60 s — to whatever server is current then.
 */
export class Client {
  url = '';
  /** Requests sent again after a connection error. */
  resent = 0;

  async send(
    method: string,
    path: string,
    key: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) {
    const deadline = Date.now() + 60_000;
    for (;;) {
      let answer: { status: number; text: string; etag: string | null };
      try {
        const res = await fetch(`${this.url}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${key}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            ...headers,
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(30_000),
        });
        answer = { status: res.status, text: await res.text(), etag: res.headers.get('etag') };
      } catch (err) {
        // fetch's connection failures (refused, reset, closed mid-answer) are TypeErrors.
        if (!(err instanceof TypeError) || Date.now() > deadline) throw err;
        this.resent++;
        await sleep(50);
        continue;
      }
      return {
        status: answer.status,
        body: answer.text === '' ? null : JSON.parse(answer.text),
        etag: answer.etag,
      } satisfies Answer;
    }
  }
}
