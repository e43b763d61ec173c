import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import {
  accessSync,
  constants,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { BIN, type ServerProcess, startServerProcess, stopAll } from '../support/server-process.js';

/**
 * Every shell example in README.md and docs/*.md runs as written against `npm start`'s data.
 *
 * For doc writers: every fenced block marked `sh`, `bash` or `shell` is run, in file order, by
 * one bash per file (so a variable an earlier block sets is there in a later one), with
 * `set -euo pipefail`: any failing command — a curl answered 4xx/5xx included (curl runs with
 * `--fail-with-body`), an unset variable — fails the test with the file:line of that command.
 * The blocks run in an empty directory holding `examples/` (a link to the repository's) against
 * a fresh store served by `leadline serve --demo`, as after `npm install && npm start`:
 * `$KEY` is the demo key it printed (the team admin, member 1 of team 1), `npx leadline` is this
 * checkout's command on the same store, and `http://127.0.0.1:3000` / `localhost:3000` are
 * rewritten to the port the server got. Mark a block that cannot run here — it installs, starts a
 * server, runs for minutes, or needs a machine of its own — ```` ```sh no-run ````; show a
 * command's output in a block marked `text` or `json`. `LEADLINE_DOCS_EXAMPLES=docs/v2.md` runs one
 * file's blocks.
 *
 * Output that must not drift from the demo: mark the block right after the `sh` block
 * ```` ```json demo-output ```` (or `text demo-output`). Its content is what that `sh` block prints
 * against the demo, and the test fails when it differs (issue 37) — for JSON, as values, with the
 * members that differ on every start of the demo (`VARIES`: ids made when it is seeded, times,
 * signed cursors) compared only as present or null; text as written. `npm run docs:examples`
 * (this test with `LEADLINE_DOCS_EXAMPLES_WRITE=1`) rewrites such blocks from what the demo
 * answered (JSON two-space indented), leaving a block that still matches as it is.
 *
 * The examples find only what every machine has (`TOOLS`: node and npm, curl, a shell, coreutils,
 * grep and sed; PostgreSQL's client tools for the blocks about PostgreSQL): a command outside that
 * list — `uuidgen`, `jq` — is "not found", which fails the test even where bash would carry on
 * (a failed `$(…)` inside an argument leaves the argument empty: issue 37 §4).
 */
after(() => stopAll());

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FENCE = /^```(sh|bash|shell)\b(.*)$/;

const OUTPUT_FENCE = /^```(json|text) demo-output\s*$/;

/** A `json demo-output` / `text demo-output` block: what the `sh` block before it prints. */
interface OutputBlock {
  lang: 'json' | 'text';
  /** Line of its first content line in its file (1-based). */
  line: number;
  /** Lines `line` … `line + lines − 1` hold `text`. */
  lines: number;
  text: string;
}

interface Block {
  file: string;
  /** Line of the block's first command in its file (1-based). */
  line: number;
  code: string;
  output?: OutputBlock;
}

export function shellBlocks(file: string, text: string): Block[] {
  const lines = text.split('\n');
  const blocks: Block[] = [];
  const closing = (i: number) => {
    const end = lines.findIndex((l, j) => j > i && l.startsWith('```'));
    assert.ok(end > i, `${file}:${i + 1}: the block is never closed`);
    return end;
  };
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i] as string);
    if (OUTPUT_FENCE.test(lines[i] as string))
      assert.fail(`${file}:${i + 1}: a demo-output block must follow the sh block whose output it is`);
    if (open === null) continue;
    const end = closing(i);
    const block: Block = { file, line: i + 2, code: lines.slice(i + 1, end).join('\n') };
    i = end;
    let next = end + 1;
    while (next < lines.length && (lines[next] as string).trim() === '') next++;
    const out = OUTPUT_FENCE.exec(lines[next] ?? '');
    if (out !== null) {
      const outEnd = closing(next);
      block.output = {
        lang: out[1] as 'json' | 'text',
        line: next + 2,
        lines: outEnd - next - 1,
        text: lines.slice(next + 1, outEnd).join('\n'),
      };
      i = outEnd;
    }
    if (/\bno-run\b/.test(open[2] ?? '')) {
      assert.ok(block.output === undefined, `${file}:${block.line - 1}: a no-run block has no demo output`);
      continue;
    }
    blocks.push(block);
  }
  return blocks;
}

/**
 * Members of the demo's answers that differ on every start (its leads' ids and `createdAt` are
 * made when it is seeded; cursors are signed with a per-store secret): compared as present or
 * null only. The rest of the demo is the same on every start (seed "demo", a fixed "now").
 */
const VARIES = new Set(['leadId', 'createdAt', 'nextCursor', 'pollCursor', 'cursor']);
const VARIED = '<differs on every start of the demo>';

function normalised(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalised);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      VARIES.has(k) && typeof v === 'string' ? VARIED : normalised(v),
    ]),
  );
}

/** Whether `shown` (a demo-output block's text) says what the demo printed (`printed`). */
function sameOutput(lang: 'json' | 'text', shown: string, printed: string): boolean {
  if (lang === 'text') return shown.trim() === printed.trim();
  try {
    assert.deepStrictEqual(normalised(JSON.parse(printed)), normalised(JSON.parse(shown)));
    return true;
  } catch {
    return false;
  }
}

function formatted(lang: 'json' | 'text', printed: string): string {
  return lang === 'json' ? JSON.stringify(JSON.parse(printed), null, 2) : printed.trim();
}

const OUTPUT_MARK = '__demo_output';

/** What each block with a demo-output block printed, by the block's index in `blocks`. */
function printedOutputs(stdout: string): Map<number, string> {
  const found = new Map<number, string>();
  const re = new RegExp(`\\n${OUTPUT_MARK}_begin (\\d+)\\n([\\s\\S]*?)\\n${OUTPUT_MARK}_end \\1\\n`, 'g');
  for (const m of stdout.matchAll(re)) found.set(Number(m[1]), m[2] as string);
  return found;
}

/**
 * Checks each demo-output block of `file` against what its sh block printed; with
 * LEADLINE_DOCS_EXAMPLES_WRITE=1 rewrites the ones that differ instead (the file read again, so
 * each engine's run compares with what the one before wrote).
 */
function checkOutputs(file: string, blocks: Block[], stdout: string, engine: string): void {
  const printed = printedOutputs(stdout);
  const write = process.env.LEADLINE_DOCS_EXAMPLES_WRITE === '1';
  const path = join(ROOT, file);
  const lines = readFileSync(path, 'utf8').split('\n');
  const current = write ? shellBlocks(file, lines.join('\n')) : blocks;
  let changed = false;
  // From the end, so a rewritten block does not move the ones still to do.
  for (let k = current.length - 1; k >= 0; k--) {
    const output = current[k]?.output;
    if (output === undefined) continue;
    const got = printed.get(k);
    assert.ok(
      got !== undefined,
      `${file}:${output.line}: the sh block before this demo output printed nothing`,
    );
    if (sameOutput(output.lang, output.text, got)) continue;
    if (!write)
      assert.fail(
        `${file}:${output.line}: the output shown is not what the demo answers (${engine}); ` +
          '`npm run docs:examples` rewrites it from the demo.\n--- shown:\n' +
          `${output.text}\n--- the demo printed:\n${formatted(output.lang, got)}`,
      );
    lines.splice(output.line - 1, output.lines, ...formatted(output.lang, got).split('\n'));
    changed = true;
  }
  if (changed) writeFileSync(path, lines.join('\n'));
}

const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
/** `LEADLINE_DOCS_EXAMPLES=docs/v2.md` runs one file's examples (while writing it). */
const only = process.env.LEADLINE_DOCS_EXAMPLES;
const byFile = DOCS.filter((f) => only === undefined || only === '' || f === only)
  .map((file) => shellBlocks(file, readFileSync(join(ROOT, file), 'utf8')))
  .filter((b) => b.length > 0);

/** The commands the examples may use: what a Debian or macOS machine with Node.js and curl has. */
const TOOLS = [
  ...['node', 'npm', 'npx', 'curl', 'sh', 'bash'],
  // coreutils
  ...['cat', 'echo', 'printf', 'head', 'tail', 'tr', 'cut', 'sort', 'uniq', 'wc', 'tee', 'env'],
  ...['mkdir', 'rm', 'cp', 'mv', 'ls', 'ln', 'touch', 'test', '[', 'sleep', 'date', 'seq', 'true', 'false'],
  ...['basename', 'dirname', 'mktemp', 'stat', 'du', 'chmod', 'sha256sum', 'grep', 'sed'],
  // the PostgreSQL client, for the blocks about a PostgreSQL store
  ...['psql', 'pg_dump', 'pg_restore', 'createdb', 'dropdb'],
];

/** A directory holding a link to each of `TOOLS` found on this PATH, and nothing else. */
function toolsPath(dir: string): string {
  mkdirSync(dir);
  for (const tool of TOOLS) {
    for (const d of (process.env.PATH ?? '').split(delimiter)) {
      try {
        accessSync(join(d, tool), constants.X_OK);
      } catch {
        continue;
      }
      symlinkSync(join(d, tool), join(dir, tool));
      break;
    }
  }
  return dir;
}

/** The bash script of one file's blocks and, for each of its lines, the doc line it came from. */
function script(blocks: Block[], base: string): { text: string; origin: (string | null)[] } {
  const prelude = [
    'set -eEuo pipefail',
    // In a function (npx below) LINENO is the function's line; the caller's is in BASH_LINENO.
    `trap 'echo "__failed_at_line $LINENO \${BASH_LINENO[*]} (exit $?)" >&2' ERR`,
    'shopt -s expand_aliases',
    'npx() { if [ "$1" = leadline ]; then shift; node "$LEADLINE_BIN" "$@"; else command npx "$@"; fi; }',
    "alias curl='curl --fail-with-body -sS --max-time 30'",
  ];
  const origin: (string | null)[] = prelude.map(() => null);
  const lines = [...prelude];
  blocks.forEach((b, index) => {
    const code = b.code.replace(/http:\/\/(127\.0\.0\.1|localhost):3000/g, base);
    // Marks around the output of a block with a demo-output block (the output may end mid-line).
    const mark = (which: string) => {
      lines.push(`printf '\\n${OUTPUT_MARK}_${which} ${index}\\n'`);
      origin.push(null);
    };
    if (b.output !== undefined) mark('begin');
    code.split('\n').forEach((l, k) => {
      lines.push(l);
      origin.push(`${b.file}:${b.line + k}`);
    });
    if (b.output !== undefined) mark('end');
  });
  return { text: `${lines.join('\n')}\n`, origin };
}

/** Runs `text` with bash in `cwd`; killed after 4 minutes. */
function run(
  text: string,
  cwd: string,
  env: Record<string, string>,
): Promise<{ status: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', text], {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
    child.once('error', reject);
    child.once('close', (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, stdout, stderr });
    });
  });
}

async function demoKey(server: ServerProcess): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const m = /Bearer (llk_\w+)/.exec(server.stderr());
    if (m !== null) return m[1] as string;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no demo key printed: ${server.stderr()}`);
}

for (const engine of enginesUnderTest()) {
  describe(`the docs' shell examples run as written (${engine})`, () => {
    for (const blocks of byFile) {
      const file = (blocks[0] as Block).file;
      test(`${file}: ${blocks.length} block(s)`, async (t) => {
        const cwd = mkdtempSync(join(tmpdir(), 'leadline-docs-'));
        t.after(() => rmSync(cwd, { recursive: true, force: true }));
        symlinkSync(join(ROOT, 'examples'), join(cwd, 'examples'));
        // SQLite: the default store of the directory the examples run in; PostgreSQL: a schema.
        const made = engine === 'postgres' ? await makeEngineStore('postgres') : null;
        if (made !== null) t.after(() => made.cleanup());
        const databaseUrl = made?.location.databaseUrl ?? '';
        const storeArgs =
          made === null ? ['--db', join(cwd, 'data', 'leadline.db')] : ['--database-url', databaseUrl];
        const server = await startServerProcess(storeArgs, { LOG_LEVEL: 'info' }, ['--demo']);
        const key = await demoKey(server);
        const { text, origin } = script(blocks, server.url);
        // Not spawnSync: the server's output pipes must keep draining while the examples run.
        const r = await run(text, cwd, {
          PATH: toolsPath(join(cwd, '.tools')),
          KEY: key,
          LEADLINE_BIN: BIN,
          DATABASE_URL: databaseUrl,
          LEADLINE_DB: '',
        });
        await server.stop();
        const missing = /^.*: command not found$/m.exec(r.stderr);
        if (r.status === 0 && missing !== null)
          assert.fail(`${file}: an example runs a command this machine may not have: ${missing[0]}`);
        if (r.status !== 0) {
          const at = /__failed_at_line ([\d ]+)/.exec(r.stderr ?? '');
          const lines = (at?.[1] ?? '').trim().split(' ').map(Number);
          const where =
            lines.map((n) => origin[n - 1]).find((o) => typeof o === 'string') ??
            `${file} (ended by ${r.signal ?? `exit ${r.status}`})`;
          assert.fail(
            `${where}: this example failed\n--- stderr:\n${r.stderr}\n--- stdout (end):\n${(r.stdout ?? '').slice(-2000)}`,
          );
        }
        checkOutputs(file, blocks, r.stdout, engine);
      });
    }
  });
}
