import { Compile } from 'typebox/compile';

/**
 * Checks one answer of the app against docs/openapi.json, as a validating proxy (Stoplight
 * Prism) would: the path and method are documented (or the method is refused with the path's
 * documented 405), the status is one of the operation's responses, the media type is one of
 * that response's and a JSON body matches its schema (TypeBox's checker over the document's own
 * JSON Schemas), no body where none is documented, documented headers hold values of their
 * schema, headers the document speaks of are not sent where it does not list them, and the
 * headers every answer of a kind must carry are there. Returns what is wrong, in words.
 */

type Json = Record<string, unknown>;
export interface Doc {
  paths: Record<string, Record<string, Json>>;
  components: Record<string, Record<string, unknown>>;
}
export interface Answer {
  method: string;
  url: string;
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
}

/** Headers the document describes where they are sent: sent anywhere else, they are undocumented. */
const WATCHED = [
  'ratelimit',
  'ratelimit-policy',
  'retry-after',
  'deprecation',
  'sunset',
  'link',
  'etag',
  'location',
  'allow',
  'www-authenticate',
  'idempotent-replayed',
];
/**
 * Headers a response must document and carry: every answer's id; an API 401's challenge (the
 * console's pages take a session cookie, no scheme to name); a 405's Allow; where to go next.
 */
const REQUIRED = (status: number, keyed: boolean): string[] => [
  'x-request-id',
  ...(status === 401 && keyed ? ['www-authenticate'] : []),
  ...(status === 405 ? ['allow'] : []),
  ...(status === 201 || status === 301 || status === 303 ? ['location'] : []),
];
const METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete'];

export class OpenApiAnswers {
  private readonly templates: { template: string; pattern: RegExp; params: number }[];
  private readonly checks = new Map<unknown, ReturnType<typeof Compile>>();
  /** `METHOD template` of every operation an answer was checked against. */
  readonly exercised = new Set<string>();

  constructor(private readonly doc: Doc) {
    this.templates = Object.keys(doc.paths)
      .map((template) => ({
        template,
        pattern: new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{\w+\}/g, '[^/]+')}$`),
        params: (template.match(/\{/g) ?? []).length,
      }))
      // A fixed path before a templated one: /docs before /docs/{page}, /console/v1.csv before none.
      .sort((a, b) => a.params - b.params);
  }

  /** Every documented operation, as `METHOD template`. */
  operations(): string[] {
    return Object.entries(this.doc.paths).flatMap(([template, item]) =>
      METHODS.filter((m) => m in item).map((m) => `${m.toUpperCase()} ${template}`),
    );
  }

  violations(a: Answer): string[] {
    const path = a.url.split('?')[0]!.replace(/\/{2,}/g, '/');
    const where = `${a.method} ${a.url} → ${a.statusCode}`;
    const found = this.templates.find((t) => t.pattern.test(path));
    if (found === undefined) return [`${where}: no documented path`];
    const item = this.doc.paths[found.template]!;
    let op = item[a.method.toLowerCase()] as Json | undefined;
    if (op === undefined) {
      // A method the path does not answer: its 405, as the path's operations document it.
      op = Object.values(item).find((o) => (o.responses as Json | undefined)?.['405'] !== undefined);
      if (op === undefined || a.statusCode !== 405)
        return [`${where}: ${a.method} is not documented on ${found.template}`];
    } else this.exercised.add(`${a.method} ${found.template}`);
    const responses = op.responses as Record<string, Json>;
    const response = responses[String(a.statusCode)] ?? responses[`${String(a.statusCode)[0]}XX`];
    if (response === undefined)
      return [`${where}: status not documented (${Object.keys(responses).join(', ')})`];
    const out: string[] = [];
    const headers = Object.fromEntries(
      Object.entries((response.headers ?? {}) as Record<string, Json>).map(([n, h]) => [
        n.toLowerCase(),
        this.resolve(h) as Json,
      ]),
    );
    const security = (op.security ?? (this.doc as unknown as Json).security) as unknown[];
    for (const name of REQUIRED(a.statusCode, security.length > 0)) {
      if (!(name in headers)) out.push(`${where}: the response does not document ${name}`);
      if (a.headers[name] === undefined) out.push(`${where}: ${name} is missing`);
    }
    for (const name of WATCHED)
      if (a.headers[name] !== undefined && !(name in headers))
        out.push(`${where}: ${name} is sent but not documented`);
    for (const [name, h] of Object.entries(headers)) {
      const value = a.headers[name];
      if (value === undefined || h.schema === undefined) continue;
      const schema = h.schema as Json;
      const text = String(value);
      const typed = schema.type === 'integer' || schema.type === 'number' ? Number(text) : text;
      if (!this.check(schema, typed)) out.push(`${where}: header ${name}: ${text} does not match its schema`);
    }
    const content = response.content as Record<string, Json> | undefined;
    if (a.method === 'HEAD') {
      if (a.body.length > 0) out.push(`${where}: a HEAD answer with a body`);
      return out;
    }
    if (content === undefined) {
      if (a.body.length > 0) out.push(`${where}: a body where none is documented`);
      return out;
    }
    const type = String(a.headers['content-type'] ?? '')
      .split(';')[0]!
      .trim();
    const media = content[type];
    if (media === undefined) {
      out.push(`${where}: content-type ${type || '(none)'} is not one of ${Object.keys(content).join(', ')}`);
      return out;
    }
    if (/ndjson$/.test(type)) {
      // NDJSON: the schema is one line's; every line must match it.
      for (const [i, line] of a.body.split('\n').entries()) {
        if (line === '') continue;
        let value: unknown;
        try {
          value = JSON.parse(line);
        } catch {
          out.push(`${where}: line ${i + 1} is not JSON`);
          continue;
        }
        if (!this.check(media.schema as Json, value))
          out.push(`${where}: line ${i + 1} does not match its schema`);
      }
    } else if (/json$/.test(type)) {
      let value: unknown;
      try {
        value = JSON.parse(a.body);
      } catch {
        out.push(`${where}: the body is not JSON`);
        return out;
      }
      const schema = media.schema as Json;
      if (!this.check(schema, value)) {
        const check = this.compiled(schema);
        const first = [...check.Errors(value)].slice(0, 3).map((e) => JSON.stringify(e));
        out.push(`${where}: the body does not match its schema: ${first.join('; ')}`);
      }
    } else if (!this.check(media.schema as Json, a.body)) out.push(`${where}: the body does not match`);
    return out;
  }

  private check(schema: Json, value: unknown): boolean {
    return this.compiled(schema).Check(value);
  }

  private compiled(schema: Json): ReturnType<typeof Compile> {
    let c = this.checks.get(schema);
    if (c === undefined) {
      c = Compile(this.resolve(schema) as never);
      this.checks.set(schema, c);
    }
    return c;
  }

  /** `value` with every `$ref` to a component replaced by the component (the document has no cycles). */
  private resolve(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((v) => this.resolve(v));
    if (value === null || typeof value !== 'object') return value;
    const ref = (value as { $ref?: unknown }).$ref;
    if (typeof ref === 'string') {
      const [, kind, name] = /^#\/components\/(\w+)\/(\w+)$/.exec(ref) ?? [];
      const target = this.doc.components[kind ?? '']?.[name ?? ''];
      if (target === undefined) throw new Error(`${ref} is not in the document`);
      return this.resolve(target);
    }
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.resolve(v)]));
  }
}
