import { subjectAccess as answerSubjectAccess } from '../../privacy/subject-access.js';
import { subjectAccessToWire } from '../../privacy/wire.js';
import { SubjectAccessBody } from '../../schemas/privacy.js';
import { validBody } from '../route-schema.js';
import type { V2Handler } from './handler.js';

/**
 * POST /api/pub/v2/subject-access (docs/privacy.md "Subject access"): every lead of the person
 * with this e-mail that the key may read, with the webhook deliveries that carried them. The
 * e-mail is in the body only; any other method on the path is a 405.
 */
export const subjectAccess: V2Handler = async ({ caller, store, now }, request) => {
  const body = validBody(request, SubjectAccessBody);
  const answer = await answerSubjectAccess(store, { caller, email: body.email, now });
  return { data: subjectAccessToWire(answer) };
};
