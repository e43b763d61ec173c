import { type Static, Type } from 'typebox';

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
