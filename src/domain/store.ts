import type { ConsoleStore } from './console-store.js';
import type { Member, Role, Subteam, Team } from './directory.js';
import type { Lead, LeadKind, LeadSource } from './lead.js';
import type { LeadText, TextField } from './lead-text.js';
import type { Brownout } from './retirement.js';
import type { SharedCounters } from './shared-rate-limit.js';
import type { UsageRow, UsageSink } from './usage.js';
import type {
  Endpoint,
  EndpointChanges,
  EndpointOwner,
  NewEndpoint,
  SigningSecrets,
  WebhookEvent,
} from './webhook.js';
import type {
  AttemptOutcome,
  AttemptResult,
  ClaimedDelivery,
  DeliveryRecord,
  FinishedAttempt,
  TeamShare,
} from './webhook-delivery.js';

/**
 * The store interfaces — the domain's ports: the domain and the HTTP layer call them, and
 * src/storage/ implements them once per engine, so the domain imports nothing from storage.
 * Rows stop behind these: callers get domain objects. Every method is async so engines with
 * network round trips fit the same shape.
 */

/** Half-open epoch range `start <= epoch < end`; `end: null` means no upper bound. */
export interface EpochRange {
  start: number;
  end: number | null;
}

/** Whose leads a range covers: a member's own, or a whole team's. */
export interface RangeScope {
  teamId: number;
  memberId?: number;
}

/**
 * Whose leads a v2 read covers: the team's; when `members` or `subteams` is given, only the
 * leads collected by a listed member or by a current member of a listed subteam (the union).
 */
export interface LeadScope {
  teamId: number;
  members?: number[];
  subteams?: number[];
}

/** One v2 `query` clause: any of `fields` matches the already folded `value` (lead-text.ts). */
export interface TextClause {
  fields: TextField[];
  value: string;
  match: 'EXACT' | 'FUZZY';
}

/** A v2 search: every condition holds (clauses AND together). */
export interface LeadFilter {
  scope: LeadScope;
  /** Half-open epoch range; null: unbounded on that side. */
  start: number | null;
  end: number | null;
  sources: LeadSource[] | null;
  hasEmail: boolean | null;
  text: TextClause[];
}

/** A keyset position in (epoch, seq) order: the last lead of the previous page. */
export interface SearchPosition {
  epoch: number;
  seq: number;
}

/** One page of the change feed and where the next one starts (an engine-specific position). */
export interface ChangesPage {
  leads: Lead[];
  /** Position after the last lead returned; the given position when the page is empty. */
  next: string;
}

/** What to remember about a v2 creation's `Idempotency-Key`. */
export interface IdempotencyClaim {
  keyId: number;
  key: string;
  /** Hash of the request body: the same key with another body is a conflict. */
  bodyHash: string;
  at: number;
}

export type CreateResult =
  | { kind: 'created'; lead: Lead }
  | { kind: 'replayed'; lead: Lead }
  | { kind: 'conflict' };

export interface LeadStore {
  lastOfMember(teamId: number, memberId: number): Promise<Lead | null>;
  lastOfTeam(teamId: number): Promise<Lead | null>;
  /**
   * Last lead of the subteam's current members, with what `memberId` may do in the subteam, in
   * one store read (v1 getLastLeadSubTeam checks the access before it answers). `null`: no such
   * subteam on the team.
   */
  lastOfSubteam(teamId: number, subteamId: number, memberId: number): Promise<SubteamLast | null>;
  /**
   * Leads in ascending (epoch, storage order), in batches of at most `batchSize`. Each batch is
   * a separate keyset read, so nothing is held open between batches and other work can run.
   */
  range(scope: RangeScope, range: EpochRange, batchSize: number): AsyncIterable<Lead[]>;
  /**
   * v2 search: up to `limit` leads matching `filter`, in (epoch, seq) order `direction`,
   * strictly after `after` in that order.
   */
  search(
    filter: LeadFilter,
    direction: 'ASC' | 'DESC',
    after: SearchPosition | null,
    limit: number,
  ): Promise<Lead[]>;
  /** The lead with this v2 id, if it is in the scope. */
  byUuid(scope: LeadScope, uuid: string): Promise<Lead | null>;
  /**
   * Leads in the scope in storage order, after `after` (null: from the start). On PostgreSQL a
   * lead only appears once every transaction that could have stored an earlier one has ended,
   * so a reader that follows `next` never skips a lead that commits late.
   */
  changes(scope: LeadScope, after: string | null, limit: number): Promise<ChangesPage>;
  /**
   * Stores one lead now (v2 creation), visible to every read once this resolves. With a claim,
   * the first creation under the key is remembered: the same key and body again return that
   * lead (`replayed`); the same key with another body is a `conflict`.
   */
  create(lead: NewLead, claim: IdempotencyClaim | null): Promise<CreateResult>;
}

export interface SubteamAccess {
  /** Whether the member asking administers this subteam. */
  memberIsAdmin: boolean;
}

/** A subteam's last lead, as seen by the member asking. */
export interface SubteamLast extends SubteamAccess {
  lead: Lead | null;
}

export interface DirectoryStore {
  /** The subteam as seen from `teamId`: `null` when it does not exist or belongs to another team. */
  subteamAccess(teamId: number, subteamId: number, memberId: number): Promise<SubteamAccess | null>;
  /** A member by numeric id or by e-mail. */
  findMember(ref: number | string): Promise<Member | null>;
  /** Every member, or those of one team, by team then id (`leadline members list`). */
  members(teamId: number | null): Promise<Member[]>;
  team(id: number): Promise<Team | null>;
  /** Every team, by id (`leadline teams list`). */
  teams(): Promise<Team[]>;
  /** Ids of the subteams of `teamId` that the member administers. */
  adminSubteams(teamId: number, memberId: number): Promise<number[]>;
  /** Whether `adminId` administers a subteam that `memberId` is currently a member of. */
  administers(teamId: number, adminId: number, memberId: number): Promise<boolean>;
  /** Whether the store holds no lead at all (`npm start` seeds a demo then). */
  isEmpty(): Promise<boolean>;
  /** Highest team, member and subteam ids in use (0 when none), so generated data can follow them. */
  maxIds(): Promise<{ team: number; member: number; subteam: number }>;
}

export interface ApiKey {
  id: number;
  memberId: number;
  teamId: number;
  display: string;
  label: string | null;
  createdAt: number;
  expiresAt: number | null;
  revokedAt: number | null;
  legacyV1: boolean;
}

/** A stored key with what authentication needs: its hash and its member's role. */
export interface StoredKey extends ApiKey {
  hash: Buffer;
  role: Role;
}

export interface NewApiKey {
  memberId: number;
  display: string;
  hash: Buffer;
  label: string | null;
  createdAt: number;
  expiresAt: number | null;
  legacyV1: boolean;
}

export interface KeyStore {
  create(key: NewApiKey): Promise<ApiKey>;
  list(memberId?: number): Promise<ApiKey[]>;
  /** Grants (or takes back) v1 access after the freeze; false when no such key. */
  setLegacyV1(id: number, granted: boolean): Promise<boolean>;
  /** Marks the key revoked; false when no such key (or already revoked). */
  revoke(id: number, at: number): Promise<boolean>;
  /** Keys whose display prefix matches; the caller compares hashes in constant time. */
  findByDisplay(display: string): Promise<StoredKey[]>;
}

/** What an import needs to know about a lead's collector. */
export interface Collector {
  teamId: number;
  email: string;
  pid: string | null;
  timeZone: string;
}

/** A lead ready to store. Leads are stored in the order they are handed over (storage order). */
export interface NewLead {
  teamId: number;
  memberId: number;
  /** The v1 `id`; null (v2 creation): the store draws a random one (lead-id.ts). */
  id: string | null;
  epoch: number;
  time: string;
  userPid: string;
  kind: LeadKind;
  locationShared: boolean;
  lat: string | null;
  long: string | null;
  fields: string;
  source: LeadSource;
  firstName: string | null;
  lastName: string | null;
  /**
   * Folded searchable text (lead-text.ts); null when `words` are given instead: an import into a
   * store that indexes padded words (ImportWriter `storesPaddedWords`) does not send the folded
   * text, which that store does not read, from the thread that prepares its records.
   */
  text: LeadText | null;
  /**
   * Each searchable field's words padded for trigram search (lead-text.ts `paddedWords`), when
   * computed ahead: an import computes them where it prepares its records, off the writing thread.
   */
  words?: string[];
  /** Whether the folded text holds an e-mail (lead-text.ts `hasEmail`). */
  hasEmail: boolean;
}

/** A record put aside until the records it references have been seen. */
export interface StagedRecord {
  ordinal: number;
  /** Where the record came from, as `file:line`. */
  source: string;
  text: string;
}

/**
 * One atomic import. Everything written through it becomes visible together on commit, or not
 * at all. Implementations hold one transaction for its whole life.
 */
export interface ImportWriter {
  /**
   * Whether the store indexes each lead's padded words (NewLead `words`): SQLite's FTS5 table
   * does; PostgreSQL's trigram index reads `search` and needs none, so an import spares the work.
   */
  readonly storesPaddedWords: boolean;
  upsertTeam(team: Team): Promise<void>;
  upsertMember(member: Member): Promise<void>;
  /**
   * What `upsertMember` of each, in order, does — in one statement where the store can, all or
   * nothing: when it throws, none of them is written and the import can go on (the caller then
   * writes them one at a time to learn which one failed).
   */
  upsertMembers(members: Member[]): Promise<void>;
  upsertSubteam(subteam: Subteam): Promise<void>;
  /** The stored teams among `ids`, by id. */
  teams(ids: readonly number[]): Promise<Map<number, Team>>;
  /** The stored members among `ids`, by id. */
  members(ids: readonly number[]): Promise<Map<number, Member>>;
  /** The collector of each member among `memberIds` that is stored with a stored team, by member id. */
  collectors(memberIds: readonly number[]): Promise<Map<number, Collector>>;
  /**
   * Stores leads after every lead handed over before, in order. A lead with the identity of a
   * stored one (member, id, epoch) replaces its values and keeps its place.
   */
  insertLeads(leads: NewLead[]): Promise<void>;
  /** Completes the leads of this import; returns how many were new. */
  finishLeads(): Promise<number>;
  stage(record: StagedRecord): Promise<void>;
  staged(): AsyncIterable<StagedRecord[]>;
}

export interface NewBrownout {
  startsAt: number;
  endsAt: number;
  /** null: every key. */
  keyIds: number[] | null;
  createdAt: number;
}

/** The data behind v1's retirement: brownout windows and the usage ledger. */
export interface RetirementStore extends UsageSink {
  addBrownout(b: NewBrownout): Promise<Brownout>;
  /** Every window, past and future, by start. */
  brownouts(): Promise<Brownout[]>;
  removeBrownout(id: number): Promise<boolean>;
  /** Ledger rows of `sinceDay` (YYYY-MM-DD) and later; null: all. */
  usage(sinceDay: string | null): Promise<UsageRow[]>;
}

/**
 * Webhook endpoints and the outbox (domain/webhook.ts). The outbox is written by the stores'
 * lead writes themselves (v2 creation, import), in the transaction that stores each lead.
 */
export interface WebhookStore {
  /**
   * Stores an endpoint; every lead entering its team from then on gets a `lead.created` event.
   * Throws EndpointLimitReached, storing nothing, when the team has `maxPerTeam` endpoints
   * already — counted and stored at once: two registrations cannot both take the last place.
   */
  addEndpoint(endpoint: NewEndpoint, maxPerTeam?: number): Promise<Endpoint>;
  /** The team's endpoints (null: every team's), oldest first. */
  endpoints(teamId: number | null): Promise<Endpoint[]>;
  /** The endpoint if the owner may see it (another team's is null, as a missing one). */
  endpoint(owner: EndpointOwner, id: string): Promise<Endpoint | null>;
  updateEndpoint(
    owner: EndpointOwner,
    id: string,
    changes: EndpointChanges,
    at: number,
  ): Promise<Endpoint | null>;
  /** Removes the endpoint with everything waiting for it; false when the owner has no such endpoint. */
  removeEndpoint(owner: EndpointOwner, id: string): Promise<boolean>;
  /**
   * Makes `secret` (stored form) the endpoint's signing secret; the one before keeps signing too
   * until `previousUntil`.
   */
  rotateSecret(
    owner: EndpointOwner,
    id: string,
    secret: string,
    previousUntil: number,
    at: number,
  ): Promise<Endpoint | null>;
  /** The endpoint's signing secrets in their stored form (possibly sealed); null when no such endpoint. */
  signingSecrets(id: string): Promise<SigningSecrets | null>;
  /** The team's outbox events after position `afterSeq`, in outbox order, each with its lead as stored now. */
  events(teamId: number, afterSeq: number, limit: number): Promise<WebhookEvent[]>;
}

/** Deliveries of outbox events to endpoints, and their attempts (domain/webhook-delivery.ts). */
export interface DeliveryStore {
  /**
   * Turns up to `limit` waiting outbox events into one delivery per endpoint that takes each,
   * its body rendered once; returns how many events it took. Instances never take the same event.
   */
  dispatch(limit: number, now: number): Promise<number>;
  /**
   * Leases up to `limit` due deliveries of enabled endpoints to the caller until `now` +
   * CLAIM_LEASE_MS, each counting one attempt; no two callers get the same delivery. Shared
   * between teams by `share` (without it, each team may take up to `limit`); a delivery that has
   * had its MAX_ATTEMPTS is never claimed again (`expire` ends it).
   */
  claim(limit: number, now: number, share?: TeamShare): Promise<ClaimedDelivery[]>;
  /**
   * Records attempts, in the order they finished, in one transaction: every attempt's row, each
   * delivery's next step (not when the delivery was claimed again or replayed since: its attempt
   * count moved on, and that claim decides), and the endpoints' health.
   */
  recordAttempts(batch: readonly FinishedAttempt[]): Promise<void>;
  /** One attempt recorded: `recordAttempts` with a batch of one (kept for callers of the earlier form). */
  record(delivery: ClaimedDelivery, result: AttemptResult, outcome: AttemptOutcome): Promise<void>;
  /**
   * Hands back claimed deliveries that were not attempted (the claimer stops): due at `now`,
   * their claim's attempt uncounted. One claimed again or replayed since is left as it is.
   */
  release(deliveries: readonly ClaimedDelivery[], now: number): Promise<void>;
  /** The endpoint's deliveries, newest first (null when the owner has no such endpoint). */
  deliveries(owner: EndpointOwner, endpointId: string, limit: number): Promise<DeliveryRecord[] | null>;
  /** Sends a delivery again now, with the same webhook-id; false when the owner has no such delivery (or it was dropped). */
  replay(owner: EndpointOwner, deliveryId: number, now: number): Promise<boolean>;
  /** Sends again every failed delivery of the endpoint created since `since`; returns how many. */
  replayFailed(owner: EndpointOwner, endpointId: string, since: number, now: number): Promise<number>;
  /** Queues a `webhook.test` event to the endpoint; its webhook-id, or null when no such endpoint. */
  sendTest(owner: EndpointOwner, endpointId: string, now: number): Promise<string | null>;
  /**
   * Drops the bodies and attempts of deliveries undelivered since before `before` (their rows
   * stay, state `dropped`: the record), and dispatched events older than that; ends as `failed`
   * the deliveries whose last attempt's lease ran out unrecorded; returns how many deliveries
   * were dropped.
   */
  expire(before: number, now: number): Promise<number>;
  /** What waits to be delivered (metrics): events not yet dispatched, deliveries not yet done. */
  backlog(): Promise<WebhookBacklog>;
}

export interface WebhookBacklog {
  /** Outbox events not yet turned into deliveries. */
  undispatched: number;
  /** Deliveries waiting for a successful attempt (retries included). */
  pending: number;
  /** When the oldest of those was made (ms since the epoch); null when none waits. */
  oldestAt: number | null;
}

export interface MigrationReport {
  from: number;
  to: number;
  applied: string[];
}

export interface Store {
  readonly engine: 'sqlite' | 'postgres';
  readonly leads: LeadStore;
  readonly directory: DirectoryStore;
  readonly keys: KeyStore;
  readonly retirement: RetirementStore;
  readonly webhooks: WebhookStore;
  /** The admin console's sign-in links and sessions (issue 15). */
  readonly console: ConsoleStore;
  readonly deliveries: DeliveryStore;
  /**
   * The rate-limit counters every instance on the store shares (PostgreSQL), for windows of
   * `windowSeconds`; null for the embedded store, whose one instance counts in its own memory.
   * `rateLimiterFor` (shared-rate-limit.ts) makes the limiter over them.
   */
  rateCounters(windowSeconds: number): SharedCounters | null;
  /**
   * Where reads go when a read replica is configured: `fresh` (to the replica), `lagging` or
   * `unreachable` (to the primary); null without one.
   */
  replicaState(): 'fresh' | 'lagging' | 'unreachable' | null;
  /**
   * A random 32-byte secret kept in the store under `name`, made on first use: every instance
   * on the store signs and checks with the same one (v2 cursors).
   */
  secret(name: string): Promise<Buffer>;
  /** Cheapest round trip to the store; throws when it cannot be reached. */
  ping(): Promise<void>;
  /** Brings the schema up to date; throws (naming the migration) when one fails. */
  migrate(): Promise<MigrationReport>;
  /** Whether a leadline schema is there (a migration has run): read-only commands need one. */
  exists(): Promise<boolean>;
  /** Runs `work` inside one transaction: commit when it resolves, roll back when it throws. */
  importAtomically<T>(work: (writer: ImportWriter) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
