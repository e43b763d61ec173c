import assert from 'node:assert/strict';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { createSignInLink } from '../../src/console/sign-in.js';
import type { Store } from '../../src/store.js';

/** A signed-in console session for app.inject(): its cookie and CSRF token. */
export interface Signed {
  cookie: string;
  csrf: string;
}

/** Signs in (team admin by id, or the operator for null) through the link's POST, as a browser does. */
export async function signIn(
  app: FastifyInstance,
  store: Store,
  member: number | null,
  now: number,
): Promise<Signed> {
  const link = await createSignInLink(store, member, now);
  const res = await app.inject({
    method: 'POST',
    url: '/console/sign-in',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: `link=${link.token}`,
  });
  assert.equal(res.statusCode, 303, res.body);
  const cookie = String(res.headers['set-cookie']).split(';')[0]!;
  const page = await app.inject({ url: '/console/keys', headers: { cookie } });
  assert.equal(page.statusCode, 200, page.body);
  return { cookie, csrf: csrfOf(page.body) };
}

export function csrfOf(body: string): string {
  const m = /name="_csrf" value="([0-9a-f]+)"/.exec(body);
  assert.ok(m, 'the page carries a CSRF token');
  return m[1]!;
}

/** A form POST as a browser sends it. */
export function form(
  app: FastifyInstance,
  s: Signed,
  url: string,
  fields: Record<string, string>,
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url,
    headers: { cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(fields).toString(),
  });
}
