/**
 * Retries of a call that leadline asked the client to repeat later: `429` (the key's quota or
 * an address throttled) and `503` (the store unreachable, a draining instance). The wait is the
 * answer's `Retry-After` when it has one, else an exponential back-off with full jitter; each
 * wait is capped, and so is the number of retries. Anything else, network errors included, is
 * the caller's to decide: a retried POST is safe only with an idempotency key, which the
 * client's `create` sends.
 */
export interface RetryOptions {
  /** Retries after the first attempt (default 3; 0 turns retrying off). */
  retries?: number;
  /** First back-off without a Retry-After, doubled each retry (default 500 ms). */
  baseDelayMs?: number;
  /** Longest single wait, Retry-After included (default 30 s). */
  maxDelayMs?: number;
}

const RETRIED = new Set([429, 503]);

/** Milliseconds a `Retry-After` value asks for: delta-seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | null {
  if (value === null) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** `fetch` that repeats a request on 429 and 503 as RetryOptions say. */
export function retryingFetch(
  base: typeof fetch,
  options: RetryOptions = {},
): (request: Request) => Promise<Response> {
  const retries = options.retries ?? 3;
  const baseDelay = options.baseDelayMs ?? 500;
  const maxDelay = options.maxDelayMs ?? 30_000;
  return async (request) => {
    for (let attempt = 0; ; attempt++) {
      // Each attempt sends a copy: a body can be read once.
      const response = await base(attempt < retries ? request.clone() : request);
      if (!RETRIED.has(response.status) || attempt >= retries) return response;
      const asked = retryAfterMs(response.headers.get('retry-after'));
      await response.body?.cancel();
      await sleep(Math.min(asked ?? backoffMs(attempt, baseDelay, maxDelay), maxDelay), request.signal);
    }
  };
}

/** Exponential back-off with full jitter: up to `base`·2^attempt ms, capped at `max`. */
export function backoffMs(attempt: number, base: number, max: number): number {
  return Math.min(Math.random() * base * 2 ** attempt, max);
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(done, ms);
    function done(): void {
      signal?.removeEventListener('abort', abort);
      resolve();
    }
    function abort(): void {
      clearTimeout(timer);
      reject(signal?.reason);
    }
    signal?.addEventListener('abort', abort, { once: true });
  });
}
