// Offline after the first visit: a classroom's network fails. One visit installs the service worker (sw.js, which
// precaches the build); then, with the browser offline and the server gone, the home page and a lesson's deep link
// reload and the lesson still responds. A new deploy (a changed sw.js) replaces the old cache.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startStaticServer, launchBrowser, openPage, waitForApp, screenshot, liveWidget, DIST } from './harness.mjs';

const LESSON_PATH = 'lessons/latency-throughput-slos/';
const LESSON_HEADING = { level: 1, name: /Latency, Throughput & SLOs/ };
let browser;
before(async () => { browser = await launchBrowser(); });
after(async () => { await browser?.close(); });

const builtVersion = async () => (await readFile(join(DIST, 'sw.js'), 'utf8')).match(/"version":"([0-9a-f]+)"/)[1];

/** A page at `path` once the service worker controls it, i.e. once the whole build is precached. */
async function visitUntilControlled(server, path = '') {
  const opened = await openPage(browser, server.origin);
  await opened.page.goto(server.url(path));
  await waitForApp(opened.page);
  await opened.page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 30000 });
  return opened;
}

const cacheNames = (page) => page.evaluate(async () => (await caches.keys()).filter((name) => name.startsWith('goodput-')));

test('after one visit, the home page and a lesson deep link load and respond with the network off', async () => {
  const server = await startStaticServer();
  const { page, context, problems } = await visitUntilControlled(server, LESSON_PATH);
  assert.deepEqual(await cacheNames(page), [`goodput-${await builtVersion()}`]);
  // The lab's code is fetched on demand (tools/split-page.mjs): opened once online, it is kept for offline use.
  await liveWidget(page, 'knee-lab');

  await context.setOffline(true);
  server.close();
  await page.goto(server.url(''));
  await waitForApp(page);
  await page.getByRole('link', { name: LESSON_HEADING.name }).waitFor();

  await page.goto(server.url(LESSON_PATH));
  await page.getByRole('heading', LESSON_HEADING).waitFor({ timeout: 15000 });
  assert.ok(await page.locator('article h2').count() >= 5, 'the lesson text is missing offline');
  await waitForApp(page);

  // A predict step still takes a guess, commits it and reveals its outcome (it runs in the cached wasm).
  const predict = page.locator('#step-1-ttft');
  await predict.scrollIntoViewIfNeeded();
  await predict.getByRole('radio', { name: 'Prefill: the single pass over the whole prompt' }).check();
  await predict.getByRole('button', { name: 'Commit my guess', exact: true }).click();
  await predict.getByRole('button', { name: 'Reveal', exact: true }).click();
  await predict.locator('.predict-outcome').waitFor();
  assert.match(await predict.locator('.predict-verdict').innerText(), /^Right/);

  // A recall card still reveals.
  const toggle = page.locator('.lesson-recall .reveal-toggle').first();
  await toggle.click();
  assert.equal(await toggle.getAttribute('aria-expanded'), 'true');

  // The knee lab mounts and simulates offline too.
  const lab = await liveWidget(page, 'knee-lab');
  const slider = lab.locator('input[type="range"]').first();
  const readout = lab.locator('output, [role="status"], [aria-live]');
  const before = await readout.allInnerTexts();
  await slider.focus();
  for (let i = 0; i < 3; i += 1) await page.keyboard.press('ArrowRight');
  await page.waitForFunction(([selector, was]) =>
    JSON.stringify([...document.querySelectorAll(selector)].map((el) => el.innerText)) !== was,
  ['section#knee-lab :is(output, [role="status"], [aria-live])', JSON.stringify(before)], { timeout: 15000 });
  await screenshot(page, 'offline-lesson');
  assert.deepEqual(problems(), []);
});

test('offline, a widget never opened says it needs the connection, and comes to life once back online', async () => {
  const server = await startStaticServer();
  try {
    const { page, context, problems } = await visitUntilControlled(server, LESSON_PATH);
    await context.setOffline(true);
    const island = page.locator('[data-island="widget"][data-widget-name="batch-timeline"]');
    await island.scrollIntoViewIfNeeded();
    const note = island.locator('.island-unavailable');
    await note.waitFor({ timeout: 15000 });
    assert.match(await note.innerText(), /could not be loaded: the connection seems to be off/);
    await screenshot(page, 'offline-widget-unavailable');
    await context.setOffline(false);
    await liveWidget(page, 'batch-timeline');
    assert.equal(await note.count(), 0, 'the note goes once the widget is live');
    // What the failed fetch wrote to the console, and nothing else.
    assert.deepEqual(problems().filter((p) => !/Failed to fetch|ERR_INTERNET_DISCONNECTED/.test(p)), []);
  } finally {
    server.close();
  }
});

test('a new deploy replaces the old cache', async () => {
  const version = await builtVersion();
  let deployed = version;
  // The next deploy, as the browser sees it: a sw.js whose build version changed.
  const server = await startStaticServer({
    transform: (path, body) => (path === 'sw.js'
      ? Buffer.from(body.toString().replace(`"version":"${version}"`, `"version":"${deployed}"`))
      : undefined),
  });
  try {
    const { page, problems } = await visitUntilControlled(server);
    assert.deepEqual(await cacheNames(page), [`goodput-${version}`]);

    deployed = `${version}next`;
    await page.evaluate(async () => (await navigator.serviceWorker.getRegistration()).update());
    const deadline = Date.now() + 30000;
    let names = await cacheNames(page);
    while (names.join() !== `goodput-${deployed}` && Date.now() < deadline) {
      await page.waitForTimeout(200);
      names = await cacheNames(page);
    }
    assert.deepEqual(names, [`goodput-${deployed}`], 'the new build did not replace the old cache');

    // The new cache is complete: the course still loads offline.
    await page.context().setOffline(true);
    server.close();
    await page.goto(server.url(LESSON_PATH));
    await page.getByRole('heading', LESSON_HEADING).waitFor({ timeout: 15000 });
    assert.deepEqual(problems(), []);
  } finally {
    server.close();
  }
});
