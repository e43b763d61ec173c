/** An RFC 9457 problem: the body of every leadline error. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  /** The request id, as in the `X-Request-Id` header and the server's logs. */
  instance: string;
  invalid_params?: { name: string; reason: string }[];
  [member: string]: unknown;
}

/** A call that leadline answered with an error (after the client's own retries, if any). */
export class LeadlineError extends Error {
  override readonly name = 'LeadlineError';

  constructor(
    /** The HTTP status. */
    readonly status: number,
    /** The problem body, or null when the answer had none (a proxy's page, an empty body). */
    readonly problem: Problem | null,
    /** `X-Request-Id` of the answer: quote it when you report a problem. */
    readonly requestId: string | null,
  ) {
    super(
      problem === null
        ? `leadline answered ${status}${requestId === null ? '' : ` (request ${requestId})`}`
        : `${problem.title}: ${problem.detail} (${status}, request ${problem.instance})`,
    );
  }
}

/** The error of a non-2xx answer whose body was read already (`body`: parsed JSON or text). */
export function errorOf(response: Response, body: unknown): LeadlineError {
  const problem = typeof body === 'object' && body !== null && 'type' in body ? (body as Problem) : null;
  return new LeadlineError(response.status, problem, response.headers.get('x-request-id'));
}
