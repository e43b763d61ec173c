import Type, { type Static } from 'typebox';

/**
 * The body of a `v1.usage` delivery (docs/webhooks.md "v1.usage"): once a UTC day, to a team's
 * endpoints that list it, while any of the team's keys still calls v1 — which keys, what they
 * called the day before, the next brownout that covers any of them and the sunset. No personal
 * data: keys by id, prefix and label, members by id.
 */

const Time = (description: string) => Type.String({ format: 'date-time', description });

const Successor = Type.Object(
  {
    method: Type.Literal('POST'),
    path: Type.Literal('/api/pub/v2/leads/search'),
    body: Type.Record(Type.String(), Type.Unknown(), {
      description: 'The v2 search body equal to the operation (subteam ids left for you to fill in).',
    }),
  },
  { additionalProperties: false },
);

const Call = Type.Object(
  {
    operation: Type.String({ description: 'The v1 operation, as in its path.' }),
    count: Type.Integer({ minimum: 1, description: 'Calls on `day`, refused ones (a brownout’s 410) too.' }),
    successor: Successor,
  },
  { additionalProperties: false },
);

const Key = Type.Object(
  {
    keyId: Type.Integer(),
    prefix: Type.String({ description: 'The first 12 characters of the key, never the secret.' }),
    label: Type.Union([Type.String(), Type.Null()]),
    memberId: Type.Integer({ description: 'The member the key belongs to.' }),
    calls: Type.Array(Call, { minItems: 1, description: 'By operation.' }),
  },
  { additionalProperties: false },
);

const Brownout = Type.Object(
  {
    startsAt: Time('v1 answers 410 from here…'),
    endsAt: Time('…to here (exclusive).'),
    keyIds: Type.Union([Type.Array(Type.Integer()), Type.Null()], {
      description: 'Of the keys above, those it covers; null: every key.',
    }),
  },
  { additionalProperties: false },
);

export const V1UsageEvent = Type.Object(
  {
    type: Type.Literal('v1.usage'),
    timestamp: Time('When the notice was written (ISO-8601 UTC).'),
    data: Type.Object(
      {
        day: Type.String({
          format: 'date',
          description:
            'The UTC day whose calls are counted: the day before the notice. No notice follows a day without v1 calls.',
        }),
        keys: Type.Array(Key, { minItems: 1, description: 'The team’s keys that called v1 on `day`.' }),
        nextBrownout: Type.Union([Brownout, Type.Null()], {
          description:
            'The next brownout window (not ended) that covers any of these keys; null: none scheduled.',
        }),
        sunsetAt: Type.Union([Time('When v1 is retired: every v1 call is 410 from then on.'), Type.Null()], {
          description: 'null while no sunset is set.',
        }),
        migrationGuide: Type.String({ format: 'uri' }),
      },
      { additionalProperties: false },
    ),
  },
  {
    additionalProperties: false,
    description: 'A team’s keys still call v1: what they called yesterday, and what is coming.',
  },
);
export type V1UsageEvent = Static<typeof V1UsageEvent>;
