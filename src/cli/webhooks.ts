import type { Command } from 'commander';
import { loadWebhookConfig, parseIsoTime } from '../config.js';
import { systemLookup } from '../delivery/destination.js';
import { AppError, type InvalidParam } from '../shared/errors.js';
import { unstorableReason } from '../shared/storable-text.js';
import { registerEndpoint } from '../webhooks/register-endpoint.js';
import { removeEndpoint } from '../webhooks/remove-endpoint.js';
import { replayDelivery } from '../webhooks/replay-delivery.js';
import { replayFailedDeliveries } from '../webhooks/replay-failed-deliveries.js';
import { updateEndpoint } from '../webhooks/update-endpoint.js';
import {
  EndpointLimitReached,
  EVENT_TYPES,
  type EventType,
  PAYLOAD_FORMS,
  type PayloadForm,
} from '../webhooks/webhook.js';
import { creatorText, endpointToWire } from '../webhooks/wire.js';
import type { CommandContext } from './command-context.js';
import { CommandError } from './command-error.js';
import { table } from './table.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ids = (flag: string, text: string | undefined): number[] | null => {
  if (text === undefined) return null;
  const list = text.split(',').map((s) => s.trim());
  if (!list.every((s) => /^\d+$/.test(s)))
    throw new CommandError(`${flag} ${JSON.stringify(text)}: expected ids like 3,7`);
  return list.map(Number);
};
const endpointId = (id: string): string => {
  if (!UUID.test(id)) throw new CommandError(`endpoint id ${JSON.stringify(id)} is not a UUID`);
  return id.toLowerCase();
};
/** The API's body fields as this command's flags: a refusal says the same words under them. */
const FLAGS: Record<string, string> = { url: '--url', memberIds: '--members', subteamIds: '--subteams' };

/** A use case's `invalid-parameters` as one line naming the flags (`--subteams: no subteam 7 in this team`). */
function underFlags(err: unknown, url: string): unknown {
  if (!(err instanceof AppError) || err.code !== 'invalid-parameters') return err;
  const params = err.extensions.invalid_params as InvalidParam[];
  const lines = params.map((p) => {
    const field = p.name.split('/')[1] ?? p.name;
    const flag = FLAGS[field] ?? field;
    return `${flag === '--url' ? `--url ${url}` : flag}: ${p.reason}`;
  });
  return new CommandError(lines.join('; '));
}

/** A use case's `not-found` in this command's words. */
function notFoundAs(err: unknown, words: string): unknown {
  return err instanceof AppError && err.code === 'not-found' ? new CommandError(words) : err;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/**
 * `leadline webhooks list|add|update|remove|deliveries|replay` (docs/webhooks.md): the operator's side
 * of the same endpoints and deliveries the API manages, every team's; `--json` everywhere.
 */
export function registerWebhookCommands(program: Command, withContext: CommandContext): void {
  const eventTypes = (text: string): EventType[] => {
    const types = text.split(',').map((t) => t.trim());
    for (const t of types)
      if (!(EVENT_TYPES as readonly string[]).includes(t))
        throw new CommandError(`--events: ${JSON.stringify(t)} is not one of ${EVENT_TYPES.join(', ')}`);
    return types as EventType[];
  };
  const payloadForm = (text: string): PayloadForm => {
    if (!(PAYLOAD_FORMS as readonly string[]).includes(text))
      throw new CommandError(`--payload: ${JSON.stringify(text)} is not one of ${PAYLOAD_FORMS.join(', ')}`);
    return text as PayloadForm;
  };
  const webhooks = program.command('webhooks').description('manage webhook endpoints and their deliveries');

  webhooks
    .command('list')
    .description('list endpoints (never their secrets)')
    .option('--team <id>', 'only this team’s')
    .action((opts: { team?: string }) =>
      withContext(async ({ store, out }) => {
        const team = ids('--team', opts.team)?.[0] ?? null;
        const emails = new Map((await store.directory.members(team)).map((m) => [m.id, m.email]));
        const list = (await store.webhooks.endpoints(team)).map((e) => ({
          teamId: e.teamId,
          ...endpointToWire(e),
        }));
        out.result(
          list,
          table(
            ['id', 'team', 'url', 'enabled', 'disabled because', 'created by'],
            list.map((e) => [
              e.id,
              e.teamId,
              e.url,
              e.enabled ? 'yes' : 'no',
              e.disabledReason,
              creatorText(e.createdBy, emails),
            ]),
          ),
        );
      }),
    );

  webhooks
    .command('add')
    .description('register an endpoint for a team; prints its signing secret once')
    .requiredOption('--team <id>', 'the team whose leads it receives')
    .requiredOption('--url <url>', 'https URL on a public address (see LEADLINE_WEBHOOK_ALLOW_PRIVATE)')
    .option('--description <text>', 'a note for people')
    .option('--members <ids>', 'only leads of these members, e.g. 3,7')
    .option('--subteams <ids>', 'only leads of current members of these subteams')
    .option(
      '--events <types>',
      'event types, e.g. lead.created,lead.updated,lead.merged (default lead.created,webhook.endpoint.disabled)',
    )
    .option('--include-previous', 'lead.updated bodies carry the changed fields’ previous values')
    .option('--payload <form>', 'full (the lead, default) or thin (type, time and ids only)')
    .action(
      (opts: {
        team: string;
        url: string;
        description?: string;
        members?: string;
        subteams?: string;
        events?: string;
        includePrevious?: boolean;
        payload?: string;
      }) =>
        withContext(async ({ store, out }) => {
          const config = loadWebhookConfig();
          for (const [flag, text] of [
            ['--url', opts.url],
            ['--description', opts.description ?? ''],
          ] as const) {
            const why = unstorableReason(text);
            if (why !== null) throw new CommandError(`${flag} ${why}`);
          }
          const teamId = ids('--team', opts.team)![0]!;
          const { endpoint, secret } = await registerEndpoint(
            store,
            config,
            {
              teamId,
              by: { via: 'cli', memberId: null, keyId: null },
              url: opts.url,
              description: opts.description ?? null,
              members: ids('--members', opts.members),
              subteams: ids('--subteams', opts.subteams),
              ...(opts.events === undefined ? {} : { eventTypes: eventTypes(opts.events) }),
              includePrevious: opts.includePrevious === true,
              ...(opts.payload === undefined ? {} : { payload: payloadForm(opts.payload) }),
              now: Date.now(),
              actor: { via: 'operator' },
            },
            systemLookup,
          ).catch((err: unknown) => {
            if (err instanceof EndpointLimitReached) throw new CommandError(`team ${teamId}: ${err.detail}`);
            if (err instanceof AppError && err.code === 'not-found')
              throw new CommandError(`no team ${teamId}`);
            throw underFlags(err, opts.url);
          });
          out.result(
            { teamId, ...endpointToWire(endpoint, secret) },
            `endpoint ${endpoint.id} for team ${teamId}: signing secret ${secret}\n(shown once: give it to the receiver now)`,
          );
        }),
    );

  webhooks
    .command('update')
    .description("change an endpoint's event types or payload form; the rest stays")
    .argument('<endpoint id>')
    .option('--events <types>', 'event types, e.g. lead.created,lead.updated')
    .option('--payload <form>', 'full (the lead) or thin (type, time and ids only)')
    .action((id: string, opts: { events?: string; payload?: string }) =>
      withContext(async ({ store, out }) => {
        if (opts.events === undefined && opts.payload === undefined)
          throw new CommandError('give --events or --payload');
        const changes = {
          ...(opts.events === undefined ? {} : { eventTypes: eventTypes(opts.events) }),
          ...(opts.payload === undefined ? {} : { payload: payloadForm(opts.payload) }),
        };
        const found = await store.webhooks.endpoint('operator', endpointId(id));
        if (found === null) throw new CommandError(`no endpoint ${id}`);
        const endpoint = await updateEndpoint(
          store,
          loadWebhookConfig(),
          {
            teamId: found.teamId,
            memberId: null,
            id: found.id,
            changes,
            now: Date.now(),
            actor: { via: 'operator' },
          },
          systemLookup,
        );
        out.result(
          { teamId: endpoint.teamId, ...endpointToWire(endpoint) },
          `endpoint ${endpoint.id}: events ${endpoint.eventTypes.join(',')}, payload ${endpoint.payload}`,
        );
      }),
    );

  webhooks
    .command('remove')
    .description('remove an endpoint and everything waiting for it')
    .argument('<endpoint id>')
    .action((id: string) =>
      withContext(async ({ store, out }) => {
        await removeEndpoint(store, {
          owner: 'operator',
          id: endpointId(id),
          actor: { via: 'operator' },
          now: Date.now(),
        }).catch((err: unknown) => {
          throw notFoundAs(err, `no endpoint ${id}`);
        });
        out.result({ id, removed: true }, `endpoint ${id} removed`);
      }),
    );

  webhooks
    .command('deliveries')
    .description("an endpoint's deliveries, newest first, with every attempt")
    .argument('<endpoint id>')
    .option('--limit <n>', 'how many', '50')
    .action((id: string, opts: { limit: string }) =>
      withContext(async ({ store, out }) => {
        const limit = ids('--limit', opts.limit)![0]!;
        const list = await store.deliveries.deliveries('operator', endpointId(id), limit);
        if (list === null) throw new CommandError(`no endpoint ${id}`);
        const doc = list.map((d) => ({
          ...d,
          createdAt: iso(d.createdAt),
          nextAttemptAt: iso(d.nextAttemptAt),
          finishedAt: iso(d.finishedAt),
          attempts: d.attempts.map((a) => ({ ...a, at: iso(a.at) })),
        }));
        const last = (d: (typeof doc)[number]) => d.attempts.at(-1);
        const deliveries = table(
          ['delivery', 'webhook-id', 'type', 'state', 'attempts', 'last status', 'last attempt'],
          doc.map((d) => [
            d.id,
            d.eventId,
            d.type,
            d.state,
            d.attempts.length,
            last(d)?.status ?? null,
            last(d)?.at ?? null,
          ]),
        );
        // Every attempt with its answer or why there was none, one line each (the answer's own
        // line breaks as spaces, cut at 80 characters; --json has it whole).
        const oneLine = (text: string) => {
          const flat = text.replace(/\s+/g, ' ').trim();
          return flat.length > 80 ? `${flat.slice(0, 79)}…` : flat;
        };
        const attempts = doc.flatMap((d) =>
          d.attempts.map((a, i) => [d.id, i + 1, a.at, a.status, `${a.latencyMs} ms`, oneLine(a.answer)]),
        );
        out.result(
          { deliveries: doc },
          doc.length === 0
            ? `no deliveries for endpoint ${id}`
            : attempts.length === 0
              ? deliveries
              : `${deliveries}\n\n${table(['delivery', 'attempt', 'at', 'status', 'time', 'answer or reason'], attempts)}`,
        );
      }),
    );

  webhooks
    .command('replay')
    .description('send a delivery again (same webhook-id), or every failed one of an endpoint since a time')
    .argument('[delivery id]')
    .option('--endpoint <id>', 'with --since: the endpoint whose failed deliveries to send again')
    .option('--since <ISO time>', 'failed deliveries created at or after this time')
    .action((delivery: string | undefined, opts: { endpoint?: string; since?: string }) =>
      withContext(async ({ store, out }) => {
        const now = Date.now();
        if (delivery !== undefined) {
          const id = ids('delivery id', delivery)![0]!;
          await replayDelivery(store, { owner: 'operator', deliveryId: id, now }).catch((err: unknown) => {
            throw notFoundAs(err, `no delivery ${id} to replay (or it was dropped)`);
          });
          out.result({ replayed: [id] }, `delivery ${id} queued again`);
          return;
        }
        if (opts.endpoint === undefined || opts.since === undefined)
          throw new CommandError('give a delivery id, or --endpoint and --since');
        const since = parseIsoTime(opts.since);
        if (since === null)
          throw new CommandError(`--since ${JSON.stringify(opts.since)} is not an ISO time`);
        const n = await replayFailedDeliveries(store, {
          owner: 'operator',
          endpointId: endpointId(opts.endpoint),
          since,
          now,
        });
        out.result({ replayed: n }, `${n} failed deliveries queued again`);
      }),
    );
}
