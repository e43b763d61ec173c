import Type, { type Static } from 'typebox';

/** The privacy wire contract (docs/privacy.md): the erasure request and its receipt. */

/** How many lead ids one `POST /api/pub/v2/erasures` may name (a request body is at most 64 KiB). */
export const MAX_ERASURE_IDS_OVER_HTTP = 1000;

export const ErasureBody = Type.Object(
  {
    email: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 320,
        description: "The person's e-mail: every lead of the team holding it (compared trimmed, lower case).",
      }),
    ),
    leadIds: Type.Optional(
      Type.Array(Type.String({ format: 'uuid' }), {
        minItems: 1,
        maxItems: MAX_ERASURE_IDS_OVER_HTTP,
        description: 'Leads of the team to erase, by leadId. One of `email` and `leadIds`.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ErasureBody = Static<typeof ErasureBody>;

const Count = Type.Integer({ minimum: 0 });

export const ErasureReceipt = Type.Object(
  {
    erasureId: Type.String({ format: 'uuid' }),
    teamId: Type.Union([Type.Integer(), Type.Null()], {
      description: 'The team erased in; null: every team (an operator erasure).',
    }),
    requestedAt: Type.String({ format: 'date-time' }),
    requestedBy: Type.Union([
      Type.Object(
        { via: Type.Literal('key'), keyId: Type.Integer(), memberId: Type.Integer() },
        { additionalProperties: false },
      ),
      Type.Object({ via: Type.Literal('operator') }, { additionalProperties: false }),
      Type.Object(
        { via: Type.Literal('console'), memberId: Type.Integer() },
        { additionalProperties: false, description: 'A team admin in the console ("Erase a person").' },
      ),
      Type.Object(
        {
          via: Type.Literal('retention'),
          days: Type.Integer({ minimum: 1, description: "The team's retention policy, in days." }),
        },
        {
          additionalProperties: false,
          description:
            "Erased by the team's retention policy ([privacy guide](/docs/privacy#retention)), not at a person's request.",
        },
      ),
    ]),
    emailHash: Type.Union([Type.String({ pattern: '^[0-9a-f]{64}$' }), Type.Null()], {
      description:
        "HMAC-SHA256 (hex) of the normalised e-mail under this store's own key — never the e-mail; null: by lead ids.",
    }),
    leadIds: Type.Integer({ minimum: 0, description: 'How many lead ids the request named.' }),
    counts: Type.Object(
      {
        leads: Count,
        mergedLeads: Count,
        searchRows: Count,
        webhookEvents: Count,
        webhookDeliveries: Count,
        webhookAttempts: Count,
        idempotencyKeys: Count,
      },
      {
        additionalProperties: false,
        description:
          'What was removed, place by place ([privacy guide](/docs/privacy#what-erasure-removes)).',
      },
    ),
  },
  { additionalProperties: false },
);
export type ErasureReceipt = Static<typeof ErasureReceipt>;

/**
 * The body of a subject access request (docs/privacy.md "Subject access"): the person's e-mail,
 * in the body so it is never in a URL (access logs, proxies, browser history keep URLs).
 * Whether it is a plausible address is checked where it is used (src/privacy/person-email.ts).
 */
export const SubjectAccessBody = Type.Object(
  {
    email: Type.String({
      minLength: 1,
      maxLength: 320,
      description:
        'The person’s e-mail address; compared trimmed and in lower case. At most 254 characters once trimmed.',
    }),
  },
  { additionalProperties: false },
);
export type SubjectAccessBody = Static<typeof SubjectAccessBody>;
