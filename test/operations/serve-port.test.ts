import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { storeArgs } from '../cli/cli.js';
import { type EngineStore, enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { type ServerProcess, startServerProcess, stopAll } from '../support/server-process.js';

/**
 * Issue 20 §5: `leadline serve --port 0` writes its links — problem `type`s, v1 `Link` headers,
 * the demo's curl lines — with the port it got, not `:0`; LEADLINE_PUBLIC_URL still wins.
 */
async function links(server: ServerProcess): Promise<{ type: string; link: string }> {
  const missing = await fetch(`${server.url}/api/pub/v2/nothing-here`);
  assert.equal(missing.status, 404);
  const { type } = (await missing.json()) as { type: string };
  // v1 without a key: a 401 that carries the deprecation signals all the same (C6).
  const v1 = await fetch(`${server.url}/api/pub/leads/getLastLead`);
  await v1.arrayBuffer();
  return { type, link: v1.headers.get('link') ?? '' };
}

/** The demo banner follows the listening log line; it may take a moment to arrive. */
async function bannerOf(server: ServerProcess): Promise<string> {
  for (let waited = 0; !server.stderr().includes('curl') && waited < 30_000; waited += 100) await sleep(100);
  return server.stderr();
}

for (const engine of enginesUnderTest()) {
  describe(`serve --port 0: links name the port it got [${engine}]`, () => {
    let made: EngineStore;
    before(async () => {
      made = await makeEngineStore(engine);
    });
    after(async () => {
      await stopAll();
      await made?.cleanup();
    });

    test('without LEADLINE_PUBLIC_URL: http://<the address it listens on>:<the port it got> (issue 37 §2)', async () => {
      const server = await startServerProcess(storeArgs(made.location), { LEADLINE_PUBLIC_URL: '' });
      try {
        const port = new URL(server.url).port;
        assert.match(port, /^[1-9]\d*$/);
        // The host it listens on, not `localhost`: another origin to a browser (issue 37 §2).
        const base = `http://127.0.0.1:${port}`;
        assert.equal(new URL(server.url).origin, base);
        const { type, link } = await links(server);
        assert.equal(type, `${base}/problems/not-found`);
        assert.match(link, new RegExp(`<${base}/docs/v1-migration>; rel="deprecation"`));
        assert.doesNotMatch(link, /localhost|:0\//);
        assert.ok(
          server.logs.some((line) => line.includes(`links point at ${base}`)),
          'the start log names the public URL',
        );
      } finally {
        assert.equal(await server.stop(), 0);
      }
    });

    test('with LEADLINE_PUBLIC_URL: that URL, in the links and in the demo curl lines', async () => {
      const base = 'https://leads.example.test:8443';
      const server = await startServerProcess(storeArgs(made.location), { LEADLINE_PUBLIC_URL: base }, [
        '--demo',
      ]);
      try {
        const { type, link } = await links(server);
        assert.equal(type, `${base}/problems/not-found`);
        assert.match(link, new RegExp(`<${base}/docs/v1-migration>; rel="deprecation"`));
        assert.doesNotMatch(link, /localhost/);
        const banner = await bannerOf(server);
        assert.match(banner, /seeded a demo data set/);
        const curls = banner.split('\n').filter((l) => l.includes('curl '));
        assert.equal(curls.length, 2, banner);
        for (const line of curls) assert.ok(line.includes(` ${base}/api/pub/`), line);
      } finally {
        assert.equal(await server.stop(), 0);
      }
    });
  });
}
