// The web workers are versioned with the build (tools/version-workers.mjs): each worker's files are named after a hash
// of their content, every page names exactly those files, and the service worker lists them. A page of one build so
// never loads the worker of another under the same name, from the site or from the service worker's cache; a page
// whose build's worker is gone from the site says to reload.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { DIST, startStaticServer, launchBrowser, openPage, liveWidget } from './harness.mjs';

const LESSON_PATH = 'lessons/latency-throughput-slos/';
const WORKERS = ['server-worker', 'teacher-worker'];
const PAGES = ['index.html', '404.html', `${LESSON_PATH}index.html`];

let browser;
before(async () => { browser = await launchBrowser(); });
after(async () => { await browser?.close(); });

/** The name this build gives worker `name`'s files, from the page. */
async function builtName(name) {
  const html = await readFile(join(DIST, 'index.html'), 'utf8');
  return html.match(new RegExp(`<meta name="goodput-${name}" content="([^"]+)" />`))?.[1];
}

test('each worker\'s files are named after their content, and the pages and sw.js name exactly those', async () => {
  const files = await readdir(DIST);
  const sw = await readFile(join(DIST, 'sw.js'), 'utf8');
  const { onDemand } = JSON.parse(sw.match(/\/\* BUILD \*\/ (\{.*\});/)[1]);
  for (const name of WORKERS) {
    assert.ok(!files.includes(`${name}.js`) && !files.includes(`${name}_bg.wasm`), `${name} kept Trunk's name`);
    const stem = await builtName(name);
    assert.match(stem ?? '', new RegExp(`^${name}-[0-9a-f]{16}$`));
    const hash = createHash('sha256');
    for (const file of [`${stem}.js`, `${stem}_bg.wasm`]) hash.update(await readFile(join(DIST, file)));
    assert.equal(stem, `${name}-${hash.digest('hex').slice(0, 16)}`, 'the name is not the files\' hash');
    for (const page of PAGES) {
      const html = await readFile(join(DIST, page), 'utf8');
      assert.ok(html.includes(`<meta name="goodput-${name}" content="${stem}" />`), `${page} does not name ${stem}`);
    }
    // Cached when first used, under their versioned names only.
    assert.deepEqual(onDemand.filter((file) => file.includes(name)).sort(), [`./${stem}.js`, `./${stem}_bg.wasm`]);
  }
});

test('a page asks for its own build\'s worker, and says to reload when the site no longer has it', async () => {
  const current = await builtName('server-worker');
  // An open page of an earlier build, as the site now serves it: its worker's name is one the site no longer has.
  const earlier = 'server-worker-0123456789abcdef';
  const server = await startStaticServer({
    transform: (path, body) => (path.endsWith('.html')
      ? Buffer.from(body.toString().replace(`content="${current}"`, `content="${earlier}"`))
      : undefined),
  });
  try {
    const { page, context, problems } = await openPage(browser, server.origin);
    const requested = [];
    context.on('request', (request) => requested.push(request.url()));
    await page.goto(server.url(LESSON_PATH));
    const lab = await liveWidget(page, 'knee-lab');
    const details = lab.locator('details.lab-your-server');
    await details.locator('summary').click();
    await details.getByLabel('Or paste (several: a line of --- between them)', { exact: true }).fill('{"completed": 10}');
    await details.getByRole('button', { name: 'Calibrate' }).click();
    const status = details.locator('[data-yours="status"]');
    await status.filter({ hasText: 'could not load' }).waitFor({ timeout: 20000 });
    assert.match(await status.textContent(), /If the course was updated since this page opened, reload the page\./);
    assert.ok(await details.getByRole('button', { name: 'Calibrate' }).isEnabled());
    assert.ok(requested.some((url) => url.endsWith(`/${earlier}.js`)), requested.join('\n'));
    assert.ok(!requested.some((url) => url.includes(current)), 'the page loaded another build\'s worker');
    // The browser's own line about the missing file is expected; nothing else may go wrong.
    assert.deepEqual(problems().filter((problem) => !/404/.test(problem)), []);
  } finally {
    server.close();
  }
});
