/**
 * The closed list of things that can go wrong, without HTTP in them: the transport maps each
 * code to a status and a problem type (src/http/problem.ts).
 */
export type ErrorCode =
  | 'invalid-parameters'
  | 'invalid-request'
  | 'unauthorized'
  | 'forbidden'
  | 'not-found'
  | 'method-not-allowed'
  | 'idempotency-conflict'
  | 'precondition-failed'
  | 'precondition-required'
  | 'lead-merged'
  | 'cursor-expired'
  | 'email-suppressed'
  | 'webhook-endpoint-limit'
  | 'payload-too-large'
  | 'unsupported-media-type'
  | 'rate-limited'
  | 'auth-throttled'
  | 'request-timeout'
  | 'request-header-fields-too-large'
  | 'v1-closed-to-new-integrations'
  | 'v1-brownout'
  | 'v1-sunset'
  | 'store-unavailable'
  | 'internal';

export interface InvalidParam {
  name: string;
  reason: string;
}

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly extensions: Record<string, unknown> = {},
  ) {
    super(detail);
    this.name = 'AppError';
  }
}

/** `detail` defaults to `name: reason` pairs; schema errors pass their sentences (schema-errors.ts). */
export function invalidParams(params: InvalidParam[], detail?: string): AppError {
  const text = detail ?? params.map((p) => `${p.name}: ${p.reason}`).join('; ');
  return new AppError('invalid-parameters', text, { invalid_params: params });
}
