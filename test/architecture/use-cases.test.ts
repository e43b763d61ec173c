import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * The transports write through the use cases only (README "Layout"): no file under src/http/ or
 * src/cli/ calls a port's writing method. The ports are the interfaces of src/**\/*.port.ts (with
 * the interfaces they extend); a method is a *write* unless it is named in READS below — so a
 * port method added later is a write until someone says it only reads. A call counts when its
 * receiver is the Store property holding that port (`store.keys.revoke(`, `deps.store.keys.revoke(`,
 * a `keys` taken out of a store), or, for a port no Store property holds (ImportWriter, handed
 * out by `importAtomically`), whatever the receiver.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SRC = join(ROOT, 'src');
const TRANSPORTS = ['src/http', 'src/cli'];

/** Methods that only read, by port. Every other method of a port is a write. */
const READS: Record<string, string[]> = {
  AuditStore: ['list'],
  ConsoleStore: [],
  ErasureStore: ['candidates', 'existing', 'receipt', 'suppressed', 'suppressions'],
  DirectoryStore: [
    'subteamAccess',
    'findMember',
    'members',
    'team',
    'teams',
    'adminSubteams',
    'administers',
    'isEmpty',
    'maxIds',
  ],
  // Waiting on the feed writes nothing; `close` belongs to the store's own close.
  FeedSignal: ['watch', 'shared', 'waiting'],
  FeedWatch: ['next', 'close'],
  ImportWriter: ['teams', 'members', 'collectors', 'staged'],
  KeyStore: ['list', 'findByDisplay'],
  LeadStore: [
    'lastOfMember',
    'lastOfTeam',
    'lastOfSubteam',
    'range',
    'v1Range',
    'search',
    'byUuid',
    'changes',
    'scan',
    'byEmail',
    'record',
  ],
  RetirementStore: ['brownouts', 'usage'],
  RetentionStore: ['policies', 'policy', 'dueCount', 'dueLeads', 'receiptsBefore'],
  V1NoticeStore: ['v1UsageBetween'],
  DeliveryStore: ['deliveries', 'deliveryPage', 'backlog'],
  PrivacyStore: ['leadsByEmail', 'deliveriesOfLeads'],
  WebhookStore: ['endpoints', 'endpoint', 'signingSecrets', 'events', 'log'],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(dir, f));
}

function parse(file: string, text = readFileSync(file, 'utf8')): ts.SourceFile {
  return ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
}

interface InterfaceInfo {
  methods: string[];
  bases: string[];
}

/** Every interface declared in src/, by name: its own members and the names it extends. */
function interfacesOfSrc(): Map<string, InterfaceInfo> {
  const found = new Map<string, InterfaceInfo>();
  for (const file of sourceFiles(SRC)) {
    for (const node of parse(file).statements) {
      if (!ts.isInterfaceDeclaration(node)) continue;
      const methods = node.members
        .filter((m) => ts.isMethodSignature(m) || ts.isPropertySignature(m))
        .filter(
          (m) =>
            ts.isMethodSignature(m) || (m as ts.PropertySignature).type?.kind === ts.SyntaxKind.FunctionType,
        )
        .map((m) => (m.name as ts.Identifier).text);
      const bases = (node.heritageClauses ?? []).flatMap((h) => h.types.map((t) => t.expression.getText()));
      found.set(node.name.text, { methods, bases });
    }
  }
  return found;
}

export interface Port {
  name: string;
  /** The Store property that holds it (src/store.ts); null: none (handed out otherwise). */
  property: string | null;
  writes: string[];
  reads: string[];
}

/** The ports of src/**\/*.port.ts with their writing methods, by the rule above. */
export function ports(): Port[] {
  const interfaces = interfacesOfSrc();
  const methodsOf = (name: string): string[] => {
    const info = interfaces.get(name);
    return info === undefined ? [] : [...info.methods, ...info.bases.flatMap(methodsOf)];
  };
  const held = new Map<string, string>();
  for (const node of parse(join(SRC, 'store.ts')).statements) {
    if (!ts.isInterfaceDeclaration(node) || node.name.text !== 'Store') continue;
    for (const m of node.members) {
      if (ts.isPropertySignature(m) && m.type !== undefined && ts.isTypeReferenceNode(m.type))
        held.set(m.type.typeName.getText(), (m.name as ts.Identifier).text);
    }
  }
  const names = sourceFiles(SRC)
    .filter((f) => f.endsWith('.port.ts'))
    .flatMap((f) => parse(f).statements.filter(ts.isInterfaceDeclaration))
    .map((i) => i.name.text)
    .filter((name) => methodsOf(name).length > 0); // a port has methods; the rest is data
  return names.map((name) => {
    const methods = [...new Set(methodsOf(name))];
    const reads = READS[name] ?? [];
    return {
      name,
      property: held.get(name) ?? null,
      reads,
      writes: methods.filter((m) => !reads.includes(m)),
    };
  });
}

/** `file:line: receiver.method(` for each call of a port's writing method in `text`. */
export function portWrites(file: string, text: string, all: Port[]): string[] {
  const found: string[] = [];
  const source = parse(file, text);
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const method = node.expression.name.text;
      const receiver = node.expression.expression;
      const last = ts.isPropertyAccessExpression(receiver)
        ? receiver.name.text
        : ts.isIdentifier(receiver)
          ? receiver.text
          : null;
      const port = all.find((p) => p.writes.includes(method) && (p.property === null || p.property === last));
      if (port !== undefined) {
        const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
        found.push(
          `${file}:${line}: ${node.expression.getText().replace(/\s+/g, '')}( writes through ${port.name}`,
        );
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('transports write through use cases only (README "Layout")', () => {
  const all = ports();

  it('knows every port and which of its methods read', () => {
    assert.deepEqual(
      all.map((p) => p.name).sort(),
      Object.keys(READS).sort(),
      'a port without a READS entry',
    );
    for (const p of all) {
      const methods = [...p.reads, ...p.writes];
      for (const r of p.reads) assert.ok(methods.includes(r), `${p.name}.${r} in READS is no method of it`);
    }
    // The rule's own anchors: these must be writes, or the check below proves nothing.
    const writes = (name: string) => all.find((p) => p.name === name)?.writes ?? [];
    assert.ok(writes('WebhookStore').includes('addEndpoint'));
    assert.ok(writes('KeyStore').includes('revoke'));
    assert.ok(
      writes('RetirementStore').includes('addUsage'),
      'methods of the interfaces a port extends count',
    );
    assert.ok(writes('ImportWriter').includes('insertLeads'));
  });

  it('fails on a fixture that writes through a port, and not on its reads', () => {
    const fixture = [
      'export async function handler(deps, store) {',
      '  await deps.store.keys.list();',
      '  await deps.store.keys.revoke(1, Date.now());',
      '  const { webhooks } = store;',
      '  await webhooks.addEndpoint(endpoint, 5);',
      '  await store.importAtomically((writer) => writer.insertLeads([]));',
      '  await store.webhooks.endpoints(null);',
      '  Object.create(null);',
      '}',
    ].join('\n');
    assert.deepEqual(
      portWrites('src/http/fixture.ts', fixture, all).map((v) => v.split(': ')[0]),
      ['src/http/fixture.ts:3', 'src/http/fixture.ts:5', 'src/http/fixture.ts:6'],
    );
  });

  it('no file under src/http/ or src/cli/ calls a writing port method', () => {
    const violations = TRANSPORTS.flatMap((dir) =>
      sourceFiles(join(ROOT, dir)).flatMap((file) =>
        portWrites(relative(ROOT, file), readFileSync(file, 'utf8'), all),
      ),
    );
    assert.deepEqual(violations, [], 'call a use case of the slice (src/<slice>/<verb>.ts) instead');
  });
});
