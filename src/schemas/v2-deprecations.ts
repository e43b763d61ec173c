import Type, { type Static } from 'typebox';

/**
 * GET /api/pub/v2/me/deprecations (docs/v1-migration.md "Your own deprecated calls"): the v1
 * operations a key called in a window of days, from the usage ledger, each with the v2 request
 * that replaces it, and where the key stands with v1 — so the integration that owns a key sees
 * what the operator's report shows of it.
 */

const Time = (description: string) => Type.String({ format: 'date-time', description });

const Successor = Type.Object(
  {
    method: Type.Literal('POST'),
    path: Type.Literal('/api/pub/v2/leads/search'),
    body: Type.Record(Type.String(), Type.Unknown(), {
      description:
        'The v2 search body equal to the operation (for getLastLeadSubTeam the subteam ids are left for you to fill in: the ledger does not keep query values).',
    }),
  },
  { additionalProperties: false },
);

const Call = Type.Object(
  {
    operation: Type.String({ description: 'The v1 operation, as in its path.' }),
    count: Type.Integer({ minimum: 1, description: 'Calls in the window, refused ones too.' }),
    statuses: Type.Record(Type.String({ pattern: '^[0-9]{3}$' }), Type.Integer({ minimum: 1 }), {
      description: 'The calls by HTTP status of their answers (a brownout’s `410` among them).',
    }),
    firstCall: Time('The first call of the window.'),
    lastCall: Time('The last call.'),
    userAgent: Type.Union([Type.String(), Type.Null()], { description: 'The User-Agent of the last call.' }),
    successor: Successor,
  },
  { additionalProperties: false },
);

const Window = Type.Object(
  { startsAt: Type.String({ format: 'date-time' }), endsAt: Type.String({ format: 'date-time' }) },
  { additionalProperties: false },
);

const KeyEntry = Type.Object(
  {
    keyId: Type.Integer(),
    prefix: Type.String({ description: 'The first 12 characters of the key, never the secret.' }),
    label: Type.Union([Type.String(), Type.Null()]),
    memberId: Type.Integer(),
    v1: Type.Union([Type.Literal('served'), Type.Literal('frozen-out'), Type.Literal('sunset')], {
      description:
        '`served`: v1 answers this key (outside brownouts); `frozen-out`: made after v1 closed to new integrations, without a legacy grant; `sunset`: v1 is retired.',
    }),
    brownouts: Type.Array(Window, {
      description:
        'Brownout windows that cover this key and have not ended, by start: v1 answers `410` in them.',
    }),
    calls: Type.Array(Call, {
      description: 'By operation; empty when the key called no v1 operation in the window.',
    }),
  },
  { additionalProperties: false },
);

export const V2Deprecations = Type.Object(
  {
    data: Type.Object(
      {
        since: Type.String({
          format: 'date',
          description: 'The first UTC day counted: the window is `days` days, today included.',
        }),
        days: Type.Integer({ minimum: 1 }),
        sunsetAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
          description: 'When v1 is retired; null while no date is set.',
        }),
        migrationGuide: Type.String({ format: 'uri' }),
        keys: Type.Array(KeyEntry, {
          description: 'The presented key; with `scope=team`, every key of the team.',
        }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type V2DeprecationsBody = Static<typeof V2Deprecations>;
