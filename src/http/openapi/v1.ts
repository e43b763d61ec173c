import type { ErrorCode } from '../../shared/errors.js';
import { COMMON_HEADERS, headerRef, type Json, json, keyedProblems, QUOTA_HEADERS, ref } from './build.js';

/**
 * v1 in the OpenAPI document: the five deprecated operations, each with the v2 request that
 * replaces it, the deprecation headers every v1 answer carries, and every problem it can answer.
 */

const V1_HEADERS = {
  Deprecation: headerRef('Deprecation'),
  Sunset: headerRef('Sunset'),
  Link: headerRef('Link'),
};

const START = {
  name: 'start',
  in: 'query',
  required: true,
  description: 'Epoch milliseconds, inclusive: a decimal integer from 0 to 8640000000000000.',
  schema: { type: 'string', pattern: '^[0-9]+$' },
  example: '1719792000000',
};
const END = {
  ...START,
  name: 'end',
  required: false,
  description:
    'Epoch milliseconds, exclusive (half-open range); at least `start`. Without it: every lead from `start` on.',
  example: '1719878400000',
};
const SUBTEAM = {
  name: 'subTeamId',
  in: 'query',
  required: true,
  description: 'A subteam of the caller’s team: a positive decimal integer, given once.',
  schema: { type: 'string', pattern: '^[1-9][0-9]*$' },
  example: '2011',
};
const IF_NONE_MATCH = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description: 'The ETag of an earlier answer: `304` without a body while the answer is the same.',
  schema: { type: 'string' },
};

interface V1Op {
  name: string;
  summary: string;
  description: string;
  parameters: Json[];
  /** The operations that answer one lead send an ETag and honour If-None-Match. */
  last: boolean;
  errors: ErrorCode[];
  successor: string;
}

const ALWAYS: ErrorCode[] = [
  'unauthorized',
  'v1-closed-to-new-integrations',
  'method-not-allowed',
  'v1-brownout',
  'v1-sunset',
  'rate-limited',
  'auth-throttled',
  'store-unavailable',
];

const OPS: V1Op[] = [
  {
    name: 'getLastLead',
    summary: 'The caller’s most recent lead',
    description:
      '`[]` or `[lead]`: the greatest `epoch` among the key’s member’s leads (equal epochs: the one stored last).',
    parameters: [],
    last: true,
    errors: ALWAYS,
    successor:
      '`filters: {assignedMemberIds: [<your member id>]}`, `sort: {field: "timestamp", direction: "DESC"}`, `limit: 1`',
  },
  {
    name: 'getLastLeadTeam',
    summary: 'The team’s most recent lead (team admins)',
    description: '`[]` or `[lead]` over every lead of the key’s team; other roles get `403`.',
    parameters: [],
    last: true,
    errors: ['forbidden', ...ALWAYS],
    successor:
      '`filters: {teamId: <your team id>}`, `sort: {field: "timestamp", direction: "DESC"}`, `limit: 1`',
  },
  {
    name: 'getLastLeadSubTeam',
    summary: 'A subteam’s most recent lead (team admins, that subteam’s admins)',
    description:
      'Over the leads of the subteam’s current members. A subteam that does not exist or belongs to another team is `404` alike.',
    parameters: [SUBTEAM],
    last: true,
    errors: ['invalid-parameters', 'forbidden', 'not-found', ...ALWAYS],
    successor:
      '`filters: {subteamIds: [<subTeamId>]}`, `sort: {field: "timestamp", direction: "DESC"}`, `limit: 1`',
  },
  {
    name: 'getLeadsTimeRange',
    summary: 'The caller’s leads in a range, oldest first',
    description:
      'Every lead with `start <= epoch < end`, ascending by `epoch` (ties in storage order), streamed whole: no page, no cap.',
    parameters: [START, END],
    last: false,
    errors: ['invalid-parameters', ...ALWAYS],
    successor:
      '`filters: {assignedMemberIds: [<your member id>], startTime, endTime}`, `sort: {field: "timestamp", direction: "ASC"}`, following `nextCursor`',
  },
  {
    name: 'getLeadsTimeRangeForTeam',
    summary: 'The team’s leads in a range, oldest first (team admins)',
    description: 'As getLeadsTimeRange, over every lead of the key’s team.',
    parameters: [START, END],
    last: false,
    errors: ['invalid-parameters', 'forbidden', ...ALWAYS],
    successor:
      '`filters: {teamId: <your team id>, startTime, endTime}`, `sort: {field: "timestamp", direction: "ASC"}`, following `nextCursor`',
  },
];

export const V1_LEAD_EXAMPLE = {
  id: '30008',
  epoch: 1719835800000,
  time: '2024-07-01 14:10:00',
  userId: 1013,
  userEmail: 'mia@example.com',
  userPid: '7013',
  isManual: false,
  isScan: true,
  isRoll: false,
  name: 'Tobi Berg',
  company: 'Spree Leads GmbH',
  email: 'tobi@example.com',
};

export function v1Operations(): Json[] {
  return OPS.map((op) => {
    const ok = {
      description: op.last ? '`[]` or `[lead]`.' : 'The leads, oldest first.',
      headers: {
        ...COMMON_HEADERS,
        ...QUOTA_HEADERS,
        ...V1_HEADERS,
        'Cache-Control': headerRef('CacheControl'),
        ...(op.last ? { ETag: headerRef('ETag') } : {}),
      },
      content: json({ type: 'array', items: ref('V1Lead') }, [V1_LEAD_EXAMPLE]),
    };
    const notModified = {
      description: 'Not modified: the answer is still the one the If-None-Match ETag names.',
      headers: { ...COMMON_HEADERS, ...QUOTA_HEADERS, ...V1_HEADERS, ETag: headerRef('ETag') },
    };
    const refusals = keyedProblems(op.errors, V1_HEADERS);
    const refused = refusals['405'] as Json;
    refused.headers = {
      ...(refused.headers as Json),
      Allow: {
        description: 'The methods a v1 operation answers.',
        schema: { type: 'string', const: 'GET, HEAD' },
      },
    };
    return {
      operationId: op.name,
      tags: ['v1 (deprecated)'],
      deprecated: true,
      summary: op.summary,
      description: `${op.description}\n\n**Deprecated.** Replaced by [Search Leads](#tag/v2/operation/searchLeads): \`POST /api/pub/v2/leads/search\` with ${op.successor} — see the migration guide, /docs/v1-migration. Keys made after the v1 freeze get \`403 v1-closed-to-new-integrations\` without a legacy grant. HEAD answers as GET without a body.`,
      parameters: op.last ? [...op.parameters, IF_NONE_MATCH] : op.parameters,
      responses: {
        '200': ok,
        ...(op.last ? { '304': notModified } : {}),
        ...refusals,
      },
    };
  });
}
