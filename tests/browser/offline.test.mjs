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

/** The page's on-demand modules (tools/split-page.mjs names them `lazy-NAME-HASH.wasm`). */
const ON_DEMAND = /\/lazy-[^/]*\.wasm$/;
/**
 * The widgets' pictures for readers without JavaScript (never precached), which the static copy of a widget whose
 * code did not come shows, as it would without JavaScript.
 */
const PICTURE = /\/pictures\/[^?]*\.svg$/;

/**
 * The page's on-demand modules it asked for, and every request that failed, by path: offline, a module never fetched
 * online cannot come (nor the picture its static copy shows), and that is all that may fail.
 */
function recordFetches(page) {
  const fetched = { modules: new Set(), failed: new Set() };
  const path = (request) => new URL(request.url()).pathname;
  page.on('request', (request) => { if (ON_DEMAND.test(path(request))) fetched.modules.add(path(request)); });
  page.on('requestfailed', (request) => fetched.failed.add(path(request)));
  return fetched;
}

/** What a failed fetch of on-demand code writes to the console: the browser's note and the split loader's error. */
const FAILED_FETCH = /^console error: (Failed to load resource: net::(ERR_FAILED|ERR_INTERNET_DISCONNECTED)|TypeError: Failed to fetch)/;

/** Checks that only on-demand modules failed offline, none of those fetched `online`; the problems but their notes. */
function offlineProblems(problems, fetched, online) {
  const failed = [...fetched.failed];
  assert.deepEqual(failed.filter((path) => !ON_DEMAND.test(path) && !PICTURE.test(path)), [],
    'offline, more than on-demand code and the pictures standing in for it failed');
  assert.deepEqual(failed.filter((path) => online.has(path)), [], 'a module fetched online was not kept for offline use');
  return problems().filter((problem) => !FAILED_FETCH.test(problem));
}

/**
 * Waits until `check`, run in the page, resolves to true, asking every half second (`waitForFunction` would take an
 * async check's pending promise for true at once).
 */
async function untilInPage(page, check, what, timeoutMs = 30000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await page.evaluate(check))) {
    assert.ok(Date.now() < deadline, `not within ${timeoutMs / 1000} s: ${what}`);
    await page.waitForTimeout(500);
  }
}

const cacheNames = (page) => page.evaluate(async () => (await caches.keys()).filter((name) => name.startsWith('goodput-')));

test('after one visit, the home page and a lesson deep link load and respond with the network off', async () => {
  const server = await startStaticServer();
  const { page, context, problems } = await visitUntilControlled(server, LESSON_PATH);
  const fetched = recordFetches(page);
  assert.deepEqual(await cacheNames(page), [`goodput-${await builtVersion()}`]);
  // The lab's code is fetched on demand (tools/split-page.mjs): opened once online, it is kept for offline use.
  await liveWidget(page, 'knee-lab');
  const online = new Set(fetched.modules);
  assert.ok(online.size > 0, 'the lab came without fetching its module');

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
  // Widgets never opened online, near the lesson's top, stay static offline: their fetches fail, and only theirs.
  assert.deepEqual(offlineProblems(problems, fetched, online), []);
});

test('offline, a widget never opened says it needs the connection, and comes to life once back online', async () => {
  const server = await startStaticServer();
  try {
    const { page, context, problems } = await visitUntilControlled(server, LESSON_PATH);
    const fetched = recordFetches(page);
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
    // What the failed fetches wrote to the console, and nothing else.
    assert.deepEqual(offlineProblems(problems, fetched, new Set()), []);
  } finally {
    server.close();
  }
});

test('presenting once online keeps what every screen needs: offline, the whole lesson presents live', async () => {
  const server = await startStaticServer();
  // The rehearsal: a fresh profile presents the lesson; presenting fetches every module the screens need.
  const { page, context, problems } = await visitUntilControlled(server, `${LESSON_PATH}?present=1`);
  const fetched = recordFetches(page);
  await page.locator('.present-audience').waitFor({ timeout: 15000 });
  // They came before the service worker controlled this first visit: it is told, and keeps them.
  await untilInPage(page, async () => {
    const loaded = performance.getEntriesByType('resource').map((entry) => entry.name)
      .filter((name) => /\/lazy-[^/]*\.wasm$/.test(name));
    const cache = await caches.open((await caches.keys()).find((name) => name.startsWith('goodput-')));
    const kept = new Set((await cache.keys()).map((request) => request.url));
    // …and the fleet's worker, started before that too: its script and wasm (src/offline.rs names them).
    const fleetWorker = [...kept].filter((url) => /\/fleet-worker-[^/]*(\.js|_bg\.wasm)$/.test(url));
    return loaded.length > 0 && loaded.every((name) => kept.has(name)) && fleetWorker.length === 2;
  }, 'every module the rehearsal loaded, and the fleet\'s worker, kept for offline use');

  await context.setOffline(true);
  server.close();
  await page.reload();
  await page.locator('.present-audience').waitFor({ timeout: 15000 });
  const screens = Number((await page.locator('.present-position').textContent()).split('/')[1]);
  const live = new Set();
  for (let n = 1; n <= screens; n++) {
    await page.locator('.present-position').filter({ hasText: new RegExp(`^${n} / `) }).waitFor({ timeout: 5000 });
    const current = page.locator('.present-current');
    for (const island of await current.locator('[data-island="widget"], [data-answer="chart-prediction"]').all()) {
      await island.and(page.locator('.island-mounted')).waitFor({ state: 'attached', timeout: 5000 });
      live.add(await island.getAttribute('data-widget-name') ?? await island.getAttribute('data-step-id'));
    }
    assert.equal(await current.locator('.island-unavailable').count(), 0, `screen ${n} has an island without its code`);
    await page.keyboard.press('ArrowRight');
  }
  assert.ok(live.size >= 7, `the presented widgets and chart predictions live offline: ${[...live]}`);
  // The static copies' pictures (never precached) may be asked for before an island mounts; nothing else may fail.
  assert.deepEqual([...fetched.failed].filter((path) => !PICTURE.test(path)), [], 'offline, a fetch failed');
  // The console has the browser's note of each of those, and nothing else.
  assert.deepEqual(problems().filter((problem) => !FAILED_FETCH.test(problem)), []);
  await context.close();
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
