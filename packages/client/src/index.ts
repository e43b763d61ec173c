/**
 * @leadline/client: the v2 lead interface and webhook endpoints, typed from leadline's OpenAPI document
 * (src/openapi.ts, generated), on any runtime with `fetch` (Node 20+, Deno, Bun, browsers).
 *
 *   const leadline = createLeadline({ baseUrl: 'http://127.0.0.1:3000', apiKey });
 *   for await (const lead of leadline.leads.search({ filters: { teamId } })) …
 */
import createClient from 'openapi-fetch';
import { errorOf, LeadlineError } from './errors.js';
import type { components, paths } from './openapi.js';
import { backoffMs, type RetryOptions, retryingFetch, sleep } from './retry.js';

export { LeadlineError, type Problem } from './errors.js';
export type { RetryOptions } from './retry.js';
export type Lead = components['schemas']['V2Lead'];
export type SearchBody = components['schemas']['SearchBody'];
export type CreateBody = components['schemas']['CreateBody'];
export type Me = components['schemas']['V2Me']['data'];
/** The v1 operations a key called and where it stands (docs/v1-migration.md "Your own deprecated calls"). */
export type Deprecations = components['schemas']['V2Deprecations']['data'];
export type LeadPatch = components['schemas']['LeadPatch'];
/** An erasure's receipt (docs/privacy.md "Receipts"): never the e-mail, a keyed hash of it. */
export type ErasureReceipt = components['schemas']['ErasureReceipt'];
export type DuplicateGroup =
  paths['/api/pub/v2/leads/duplicates']['post']['responses']['200']['content']['application/json']['data']['groups'][number];
/** What leadline holds about one person (docs/privacy.md "Subject access"). */
export type SubjectAccess =
  paths['/api/pub/v2/subject-access']['post']['responses']['200']['content']['application/json']['data'];
/** A page of the team's audit log (docs/privacy.md "Audit log"), newest first. */
export type AuditPage =
  paths['/api/pub/v2/audit']['get']['responses']['200']['content']['application/json']['data'];
export type AuditRecord = AuditPage['records'][number];
/** What an audit read selects: an action, records since an instant; a page's size and cursor. */
export type AuditQuery = NonNullable<paths['/api/pub/v2/audit']['get']['parameters']['query']>;

/** A page of the event log (docs/v2.md "Events"), in the order the events happened. */
export type EventsPage =
  paths['/api/pub/v2/events']['get']['responses']['200']['content']['application/json']['data'];
/** One event of the log: its id is the `webhook-id` its deliveries carry. */
export type LoggedEvent = EventsPage['events'][number];
/** What an events read selects: `types` (a comma list), a page's size and cursor. */
export type EventsQuery = NonNullable<paths['/api/pub/v2/events']['get']['parameters']['query']>;

/** A lead with its version (`ETag`), to send back as `ifMatch` with a change. */
export interface VersionedLead {
  lead: Lead;
  etag: string;
}

/** Options of a change: `ifMatch` (an ETag) makes it happen only while the lead is at that version. */
export interface ChangeOptions {
  ifMatch?: string;
  signal?: AbortSignal;
}

/** A page of a search and the cursor of the next one (null: the last page). */
export interface SearchPage {
  leads: Lead[];
  nextCursor: string | null;
}

export interface LeadlineOptions {
  /** Where leadline answers, e.g. `https://leads.example.com` (no trailing path). */
  baseUrl: string;
  /** An API key (`leadline keys create`); sent as `Authorization: Bearer <key>`. */
  apiKey: string;
  /** Retries on 429 and 503 (retry.ts); default 3 retries, waits capped at 30 s. */
  retry?: RetryOptions;
  /** A `fetch` to use instead of the global one (a proxy agent, a test's). */
  fetch?: typeof fetch;
}

/** A page of the change feed, and the cursor to persist once its leads are handled. */
/** A merged lead's entry in the change feed: delete `leadId` from a mirror (docs/v2.md). */
export interface MergedEntry {
  leadId: string;
  mergedInto: string;
}

/** An erased lead's entry in the change feed: delete `leadId` from a mirror (docs/privacy.md). */
export interface ErasedEntry {
  leadId: string;
  erased: true;
}

export interface ChangesPage {
  /**
   * The leads as they are now, in the order of their last change; a merged lead as a
   * `MergedEntry`, an erased one as an `ErasedEntry`.
   */
  leads: (Lead | MergedEntry | ErasedEntry)[];
  cursor: string;
}

/** A page of the change feed as the server sends it (JSON). */
type ChangesWire = NonNullable<
  paths['/api/pub/v2/leads/changes']['get']['responses']['200']['content']['application/json']['data']
>;

export interface ChangesOptions {
  /** Where to resume: a `cursor` persisted from an earlier page; none starts at the beginning. */
  cursor?: string | null;
  /** Leads per page, 1–1000 (default 100). */
  limit?: number;
  /** Keep polling once caught up (default false: stop at the end of the feed). */
  follow?: boolean;
  /** Wait between polls when following (default 5 s); not used with `wait`. */
  pollIntervalMs?: number;
  /**
   * When following: once caught up, ask the server to hold each call up to this many seconds
   * until a new lead is stored (long-poll, `wait=`; at most the server's limit, 30 s by default),
   * so a new lead arrives at once instead of after the next poll interval.
   */
  wait?: number;
  /** Ends the iteration (following or not), rejecting the pending wait or call. */
  signal?: AbortSignal;
}

export interface FollowOptions {
  /** Only these event types (a cursor is bound to them: resume with the same `types`). */
  types?: string[];
  /** Where to start: a cursor given to `onCursor` earlier; none starts at the oldest event kept. */
  cursor?: string | null;
  /** Seconds each call may wait for a new event (long-poll `wait=`; default 25, at most the server's limit). */
  wait?: number;
  /**
   * Called with the resume point once every event read before it was yielded and handled:
   * persist it, and pass it as `cursor` after a restart — nothing missed, nothing repeated.
   */
  onCursor?: (cursor: string) => void;
  /** Back-off after a dropped connection or a 5xx, doubled each time (default 500 ms, capped at `maxDelayMs`, 30 s). */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Ends the iteration, rejecting the pending call. */
  signal?: AbortSignal;
}

/** A webhook endpoint of the key's team (docs/webhooks.md "Endpoints"); `secret` only when created or rotated. */
export type WebhookEndpoint = components['schemas']['WebhookEndpoint'];
/** What registers an endpoint: `eventTypes` (default `["lead.created"]`), `includePrevious`, filters. */
export type WebhookCreateBody = components['schemas']['WebhookCreateBody'];
/** What changes an endpoint; absent members stay. */
export type WebhookUpdateBody = components['schemas']['WebhookUpdateBody'];
/** One delivery of an event to an endpoint, with its attempts (docs/webhooks.md "Delivery history"). */
export type WebhookDelivery = components['schemas']['WebhookDelivery'];
/** A page of an endpoint's deliveries, newest first, and the cursor of the next (null: the last page). */
export type WebhookDeliveryPage =
  paths['/api/pub/v2/webhooks/{endpointId}/deliveries']['get']['responses']['200']['content']['application/json']['data'];
/** Which deliveries a page holds: a state, a page's size and cursor. */
export type WebhookDeliveryQuery = NonNullable<
  paths['/api/pub/v2/webhooks/{endpointId}/deliveries']['get']['parameters']['query']
>;

export type Leadline = ReturnType<typeof createLeadline>;

export function createLeadline(options: LeadlineOptions) {
  const api = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { authorization: `Bearer ${options.apiKey}` },
    fetch: retryingFetch(options.fetch ?? globalThis.fetch, options.retry),
  });

  /** The answer's data, or the LeadlineError its problem describes. */
  async function data<T>(
    call: Promise<{ data?: { data?: T }; error?: unknown; response: Response }>,
  ): Promise<T> {
    const { data: body, error, response } = await call;
    if (!response.ok || body?.data === undefined) throw errorOf(response, error);
    return body.data;
  }

  /** The answer's lead with its ETag. */
  async function versioned(
    call: Promise<{ data?: { data?: Lead }; error?: unknown; response: Response }>,
  ): Promise<VersionedLead> {
    const { data: body, error, response } = await call;
    const etag = response.headers.get('etag');
    if (!response.ok || body?.data === undefined || etag === null) throw errorOf(response, error);
    return { lead: body.data, etag };
  }

  const ifMatch = (opts: ChangeOptions) => (opts.ifMatch === undefined ? {} : { 'If-Match': opts.ifMatch });

  async function* searchPages(body: SearchBody, signal?: AbortSignal): AsyncGenerator<SearchPage> {
    let cursor: string | null | undefined = body.cursor;
    do {
      const page: SearchPage = await data(
        api.POST('/api/pub/v2/leads/search', { body: { ...body, cursor }, signal }),
      );
      yield page;
      cursor = page.nextCursor;
    } while (cursor !== null);
  }

  /** The route also answers NDJSON (`format=ndjson`); a page is its JSON answer. */
  async function auditPage(query: Omit<AuditQuery, 'format'>, signal?: AbortSignal): Promise<AuditPage> {
    const { data: body, error, response } = await api.GET('/api/pub/v2/audit', { params: { query }, signal });
    const page = (body as { data?: AuditPage } | undefined)?.data;
    if (!response.ok || page === undefined) throw errorOf(response, error);
    return page;
  }

  /** One page of the event log, as JSON (the operation also answers text/event-stream, not asked for here). */
  const eventsPage = (query: EventsQuery, signal?: AbortSignal): Promise<EventsPage> =>
    data(
      api.GET('/api/pub/v2/events', { params: { query }, signal }) as Promise<{
        data?: { data?: EventsPage };
        error?: unknown;
        response: Response;
      }>,
    );

  return {
    /** Personal data (docs/privacy.md). */
    privacy: {
      /**
       * Every lead of the person with this e-mail that the key may read, merged ones too, with
       * the webhook deliveries that carried them. The e-mail travels in the body, never the URL.
       */
      subjectAccess: (email: string, signal?: AbortSignal): Promise<SubjectAccess> =>
        data(api.POST('/api/pub/v2/subject-access', { body: { email }, signal })),
      /**
       * For a team admin's key: erases a person from the key's team: every lead holding `email` (then suppressed), or the
       * leads `leadIds` — one transaction; answers the receipt.
       */
      erase: (
        target: { email: string } | { leadIds: string[] },
        signal?: AbortSignal,
      ): Promise<ErasureReceipt> => data(api.POST('/api/pub/v2/erasures', { body: target, signal })),
      /** An erasure's receipt by its `erasureId`. */
      erasure: (erasureId: string, signal?: AbortSignal): Promise<ErasureReceipt> =>
        data(api.GET('/api/pub/v2/erasures/{erasureId}', { params: { path: { erasureId } }, signal })),
    },
    /** The team's audit log (team admins' keys; docs/privacy.md "Audit log"). */
    audit: {
      /** One page, newest first, and the cursor of the next (null: the last page). */
      list: (query: Omit<AuditQuery, 'format'> = {}, signal?: AbortSignal): Promise<AuditPage> =>
        auditPage(query, signal),
      /** Every matching record, newest first, page after page. */
      async *records(
        query: Omit<AuditQuery, 'format' | 'cursor'> = {},
        signal?: AbortSignal,
      ): AsyncGenerator<AuditRecord> {
        let cursor: string | null = null;
        do {
          const page: AuditPage = await auditPage(cursor === null ? query : { ...query, cursor }, signal);
          yield* page.records;
          cursor = page.nextCursor;
        } while (cursor !== null);
      },
    },
    /** The event log (docs/v2.md "Events"): the events the key may see, webhooks' or not. */
    events: {
      /**
       * One page and its cursors: follow `nextCursor` while it is given, then poll from
       * `pollCursor` with the same `types`. A cursor behind the log's retention throws a
       * `cursor-expired` problem (410): resynchronise from scratch.
       */
      list: (query: EventsQuery = {}, signal?: AbortSignal): Promise<EventsPage> => eventsPage(query, signal),
      /**
       * Every event from `cursor` on, then each new one as it is stored (long-poll, `wait=`),
       * without end. A dropped connection, a call that hangs past its wait by 10 s, or a 5xx is
       * retried with back-off from the last cursor (nothing missed or repeated); a `LeadlineError` 410 (`cursor-expired`) means
       * events were pruned: resynchronise from scratch, then follow from no cursor.
       */
      async *follow(opts: FollowOptions = {}): AsyncGenerator<LoggedEvent> {
        let cursor = opts.cursor ?? undefined;
        const types = opts.types?.join(',');
        for (let failures = 0; ; ) {
          let page: EventsPage;
          const wait = opts.wait ?? 25;
          // A call that outlives its wait by 10 s hangs (a half-open connection): given up, retried.
          const call = new AbortController();
          const stop = () => call.abort(opts.signal?.reason);
          opts.signal?.addEventListener('abort', stop, { once: true });
          const timer = setTimeout(() => call.abort(), (wait + 10) * 1000);
          try {
            if (opts.signal?.aborted) stop();
            page = await eventsPage({ types, cursor, wait, limit: 1000 }, call.signal);
            failures = 0;
          } catch (err) {
            // The caller's to decide: a 4xx (410 above all), or the caller stopped.
            if (opts.signal?.aborted || (err instanceof LeadlineError && err.status < 500)) throw err;
            await sleep(
              backoffMs(failures++, opts.baseDelayMs ?? 500, opts.maxDelayMs ?? 30_000),
              opts.signal,
            );
            continue;
          } finally {
            clearTimeout(timer);
            opts.signal?.removeEventListener('abort', stop);
          }
          yield* page.events;
          cursor = page.pollCursor;
          opts.onCursor?.(cursor);
        }
      },
    },
    /** The key's member, team, role and scopes (GET /api/pub/v2/me). */
    me: (signal?: AbortSignal): Promise<Me> => data(api.GET('/api/pub/v2/me', { signal })),
    /**
     * The v1 operations this key called in the last `days` days (default 30), each with its v2
     * successor, and where the key stands with v1; `scope: 'team'` (team admins): every key of the team.
     */
    deprecations: (
      options: { scope?: 'key' | 'team'; days?: number } = {},
      signal?: AbortSignal,
    ): Promise<Deprecations> =>
      data(api.GET('/api/pub/v2/me/deprecations', { params: { query: options }, signal })),
    /** The team's webhook endpoints (team admins' keys; docs/webhooks.md "Endpoints"). */
    webhooks: {
      /** The team's endpoints, oldest first (never their secrets). */
      list: async (signal?: AbortSignal): Promise<WebhookEndpoint[]> =>
        (await data(api.GET('/api/pub/v2/webhooks', { signal }))).endpoints,
      get: (endpointId: string, signal?: AbortSignal): Promise<WebhookEndpoint> =>
        data(api.GET('/api/pub/v2/webhooks/{endpointId}', { params: { path: { endpointId } }, signal })),
      /** Registers an endpoint; the answer's `secret` is shown this once: keep it. */
      create: (body: WebhookCreateBody, signal?: AbortSignal): Promise<WebhookEndpoint> =>
        data(api.POST('/api/pub/v2/webhooks', { body, signal })),
      update: (endpointId: string, body: WebhookUpdateBody, signal?: AbortSignal): Promise<WebhookEndpoint> =>
        data(
          api.PATCH('/api/pub/v2/webhooks/{endpointId}', { params: { path: { endpointId } }, body, signal }),
        ),
      async remove(endpointId: string, signal?: AbortSignal): Promise<void> {
        const { error, response } = await api.DELETE('/api/pub/v2/webhooks/{endpointId}', {
          params: { path: { endpointId } },
          signal,
        });
        if (!response.ok) throw errorOf(response, error);
      },
      /**
       * Sends again every failed delivery of the endpoint of events since `since` (a Date or an
       * RFC 3339 instant, not in the future); how many (docs/webhooks.md "Recovering deliveries
       * through the API").
       */
      recover: async (endpointId: string, since: Date | string, signal?: AbortSignal): Promise<number> =>
        (
          await data(
            api.POST('/api/pub/v2/webhooks/{endpointId}/recover', {
              params: { path: { endpointId } },
              body: { since: typeof since === 'string' ? since : since.toISOString() },
              signal,
            }),
          )
        ).recovered,
      /** One page of the endpoint's deliveries, newest first, each with its attempts. */
      deliveries: (
        endpointId: string,
        query: WebhookDeliveryQuery = {},
        signal?: AbortSignal,
      ): Promise<WebhookDeliveryPage> =>
        data(
          api.GET('/api/pub/v2/webhooks/{endpointId}/deliveries', {
            params: { path: { endpointId }, query },
            signal,
          }),
        ),
    },
    leads: {
      /** Every lead the search matches, page after page (follows `nextCursor` to its end). */
      async *search(body: SearchBody, signal?: AbortSignal): AsyncGenerator<Lead> {
        for await (const page of searchPages(body, signal)) yield* page.leads;
      },
      /** The same search a page at a time, with each page's `nextCursor`. */
      searchPages,
      /** One lead by its `leadId`. */
      get: (leadId: string, signal?: AbortSignal): Promise<Lead> =>
        data(api.GET('/api/pub/v2/leads/{leadId}', { params: { path: { leadId } }, signal })),
      /** One lead and its version (`etag`), for a change with `ifMatch`. */
      getVersioned: (leadId: string, signal?: AbortSignal): Promise<VersionedLead> =>
        versioned(api.GET('/api/pub/v2/leads/{leadId}', { params: { path: { leadId } }, signal })),
      /**
       * Updates a lead with a JSON Merge Patch: a member left out stays, `null` removes a value.
       * With `ifMatch`, only while the lead is at that version (else a 412 LeadlineError).
       */
      update: (leadId: string, patch: LeadPatch, opts: ChangeOptions = {}): Promise<VersionedLead> =>
        versioned(
          api.PATCH('/api/pub/v2/leads/{leadId}', {
            params: { path: { leadId }, header: ifMatch(opts) },
            body: patch,
            headers: { 'content-type': 'application/merge-patch+json' },
            signal: opts.signal,
          }),
        ),
      /** Merges `mergeLeadIds` into the lead `leadId` (the survivor, answered with its new version). */
      merge: (leadId: string, mergeLeadIds: string[], opts: ChangeOptions = {}): Promise<VersionedLead> =>
        versioned(
          api.POST('/api/pub/v2/leads/{leadId}/merge', {
            params: { path: { leadId }, header: ifMatch(opts) },
            body: { mergeLeadIds },
            signal: opts.signal,
          }),
        ),
      /** Groups of the key's leads that share a normalised e-mail or phone, the largest first. */
      duplicates: async (opts: { limit?: number; signal?: AbortSignal } = {}): Promise<DuplicateGroup[]> =>
        (
          await data(
            api.POST('/api/pub/v2/leads/duplicates', {
              body: { limit: opts.limit ?? 20 },
              signal: opts.signal,
            }),
          )
        ).groups,
      /**
       * Creates a lead for the key's member. The Idempotency-Key (yours, or one made here) is
       * the same on every retry, so a retried create stores one lead, never two.
       */
      create: (
        body: CreateBody,
        opts: { idempotencyKey?: string; signal?: AbortSignal } = {},
      ): Promise<Lead> =>
        data(
          api.POST('/api/pub/v2/leads', {
            body,
            params: { header: { 'Idempotency-Key': opts.idempotencyKey ?? crypto.randomUUID() } },
            signal: opts.signal,
          }),
        ),
      /**
       * The change feed: every lead the key may see in storage order, late uploads included.
       * Persist each page's `cursor` after handling its leads; resume from it after a restart.
       */
      async *changes(opts: ChangesOptions = {}): AsyncGenerator<ChangesPage> {
        let cursor: string | undefined = opts.cursor ?? undefined;
        let caughtUp = false;
        const waiting = opts.follow === true && opts.wait !== undefined && opts.wait > 0;
        for (;;) {
          const query = { limit: opts.limit, cursor, wait: waiting && caughtUp ? opts.wait : undefined };
          // The JSON answer (the operation also answers text/event-stream, not asked for here).
          const page: ChangesWire = await data(
            api.GET('/api/pub/v2/leads/changes', { params: { query }, signal: opts.signal }) as Promise<{
              data?: { data?: ChangesWire };
              error?: unknown;
              response: Response;
            }>,
          );
          if (page.leads.length > 0) yield { leads: page.leads, cursor: page.pollCursor };
          cursor = page.pollCursor;
          caughtUp = page.nextCursor === null;
          if (!caughtUp) continue;
          if (opts.follow !== true) return;
          if (!waiting) await sleep(opts.pollIntervalMs ?? 5000, opts.signal);
        }
      },
    },
  };
}
