import Type from 'typebox';

/**
 * The v1 lead as it travels on the wire (docs/v1-reference.md, docs/v1-reference.md C1).
 * Frozen: v1 never gains a field. Used to validate imported leads and, in tests, every lead the
 * service returns.
 */
export const NUMERIC_TEXT_PATTERN = '^(-?[0-9]+(\\.[0-9]+)?)?$';
export const DEGREES_PATTERN = '^-?[0-9]{1,3}(\\.[0-9]+)?$';
const NumericText = Type.String({ pattern: NUMERIC_TEXT_PATTERN, description: 'numeric text' });
const Degrees = Type.String({ pattern: DEGREES_PATTERN, description: 'decimal degrees' });

export const V1_STRING_FIELDS = [
  'name',
  'company',
  'jobTitle',
  'email',
  'number',
  'address',
  'website',
  'linkedIn',
  'image',
  'card',
  'note',
  'bio',
  'location',
  'url',
  'hash',
  'isLoggedIn',
] as const;
export const V1_NUMERIC_TEXT_FIELDS = ['views', 'pops', 'pro', 'mode', 'v'] as const;
export const V1_FLAG_FIELDS = ['isManual', 'isLead', 'apptoapp', 'isScan', 'isRoll', 'noService'] as const;

const optionalStrings = Object.fromEntries(V1_STRING_FIELDS.map((f) => [f, Type.Optional(Type.String())]));
const optionalNumericTexts = Object.fromEntries(
  V1_NUMERIC_TEXT_FIELDS.map((f) => [f, Type.Optional(NumericText)]),
);
const optionalFlags = Object.fromEntries(V1_FLAG_FIELDS.map((f) => [f, Type.Optional(Type.Boolean())]));

/** Members every lead may carry besides identity and collector. */
export const V1LeadOptionalMembers = {
  ...optionalStrings,
  ...optionalNumericTexts,
  ...optionalFlags,
  lat: Type.Optional(Degrees),
  long: Type.Optional(Degrees),
  fullContact: Type.Optional(
    Type.Object(
      { twitter: Type.Optional(Type.String()), linkedin: Type.Optional(Type.String()) },
      { additionalProperties: false },
    ),
  ),
  attachments: Type.Optional(Type.Array(Type.Unknown())),
  crm: Type.Optional(Type.Object({}, { additionalProperties: true })),
};

/** A lead as v1 returns it. */
export const V1Lead = Type.Object(
  {
    id: Type.String(),
    epoch: Type.Integer(),
    time: Type.String(),
    userId: Type.Integer(),
    userEmail: Type.String(),
    userPid: Type.String(),
    isManual: Type.Boolean(),
    ...V1LeadOptionalMembers,
  },
  { additionalProperties: false },
);
