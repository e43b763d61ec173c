import { Gauge, type Registry } from 'prom-client';

/** The gauges read from the store at each scrape: pool, reachability, replica, webhook backlog. */

export type ReplicaState = 'fresh' | 'lagging' | 'unreachable';

/** What the store gauges read at each scrape. */
export interface StoreProbe {
  engine: string;
  /** PostgreSQL pool size; null for the embedded store. */
  poolMax: number | null;
  /** Store operations started and not yet settled. */
  inFlight(): number;
  replicaState(): ReplicaState | null;
  replicaLagSeconds(): number | null;
  ping(): Promise<void>;
}

const PING_TIMEOUT_MS = 2_000;

export interface WebhookBacklog {
  undispatched: number;
  pending: number;
  oldestAt: number | null;
}

/** Pool, replica and reachability gauges, read from the store at each scrape. */
export function watchStore(registry: Registry, probe: StoreProbe): void {
  const registers = [registry];
  const engine = probe.engine;
  new Gauge({
    name: 'leadline_store_pool_connections',
    help: 'PostgreSQL pool: connections in use, and store operations waiting beyond the pool size.',
    labelNames: ['engine', 'state'],
    registers,
    collect() {
      if (probe.poolMax === null) return;
      const n = probe.inFlight();
      this.set({ engine, state: 'in_use' }, Math.min(n, probe.poolMax));
      this.set({ engine, state: 'waiting' }, Math.max(0, n - probe.poolMax));
    },
  });
  new Gauge({
    name: 'leadline_store_pool_max',
    help: 'PostgreSQL pool size (LEADLINE_PG_POOL_MAX).',
    labelNames: ['engine'],
    registers,
    collect() {
      if (probe.poolMax !== null) this.set({ engine }, probe.poolMax);
    },
  });
  new Gauge({
    name: 'leadline_store_up',
    help: `1 when the store answered a ping at this scrape (within ${PING_TIMEOUT_MS} ms), else 0.`,
    labelNames: ['engine'],
    registers,
    async collect() {
      this.set({ engine }, (await readOrNull(() => probe.ping())) === null ? 0 : 1);
    },
  });
  const states: ReplicaState[] = ['fresh', 'lagging', 'unreachable'];
  new Gauge({
    name: 'leadline_replica_state',
    help: 'Read replica (DATABASE_READ_URL): 1 for the state it is in, fresh, lagging or unreachable.',
    labelNames: ['state'],
    registers,
    collect() {
      const now = probe.replicaState();
      if (now === null) return;
      for (const s of states) this.set({ state: s }, s === now ? 1 : 0);
    },
  });
  new Gauge({
    name: 'leadline_replica_lag_seconds',
    help: 'How far the read replica is behind the primary, as of its last probe.',
    registers,
    collect() {
      const lag = probe.replicaLagSeconds();
      if (lag !== null) this.set(lag);
    },
  });
}

/** The webhook backlog, read from the store at each scrape (store-wide: use `max` over instances). */
export function watchWebhooks(registry: Registry, read: () => Promise<WebhookBacklog>): void {
  let last: Promise<WebhookBacklog> | null = null;
  // One read per scrape serves both gauges.
  const backlog = () => {
    last ??= read().finally(() => {
      setTimeout(() => {
        last = null;
      }, 1000).unref();
    });
    return last;
  };
  new Gauge({
    name: 'leadline_webhook_outbox_depth',
    help: 'Webhook work waiting: outbox events not yet dispatched (undispatched), deliveries not yet done (pending).',
    labelNames: ['stage'],
    registers: [registry],
    async collect() {
      const b = await readOrNull(backlog);
      if (b === null) return this.reset(); // unknown while the store is away: no series
      this.set({ stage: 'undispatched' }, b.undispatched);
      this.set({ stage: 'pending' }, b.pending);
    },
  });
  new Gauge({
    name: 'leadline_webhook_outbox_oldest_pending_age_seconds',
    help: 'Age of the oldest webhook event or delivery still waiting; 0 when none waits.',
    registers: [registry],
    async collect() {
      const b = await readOrNull(backlog);
      if (b === null) return this.reset();
      this.set(b.oldestAt === null ? 0 : Math.max(0, Date.now() - b.oldestAt) / 1000);
    },
  });
}

/**
 * `read`, or null when the store failed or did not answer within PING_TIMEOUT_MS: a gauge read
 * from the store must never fail (or hang) the scrape, or `leadline_store_up` could not report
 * the outage it exists for.
 */
export async function readOrNull<T>(read: () => Promise<T>): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), PING_TIMEOUT_MS);
  });
  try {
    return await Promise.race([read().catch(() => null), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
