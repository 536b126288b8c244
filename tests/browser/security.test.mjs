// The release build's security promises: one strict Content-Security-Policy on every page (no 'unsafe-inline', no
// 'unsafe-eval'), Subresource Integrity on every asset that checks out against the files, and a whole lesson used
// by a learner — every disclosure, button, slider and select — without one policy violation or a request that
// leaves the origin.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { siteUnderTest, DIST, screenshot } from './harness.mjs';

const LESSON_PATH = 'lessons/latency-throughput-slos/';
const site = siteUnderTest();

/** index.html and every per-lesson copy, as site paths. */
async function builtPages() {
  const lessons = await readdir(join(DIST, 'lessons'));
  return ['index.html', ...lessons.map((slug) => `lessons/${slug}/index.html`)];
}

function policyOf(html) {
  const meta = html.match(/<meta http-equiv="Content-Security-Policy" content="([^"]+)"/);
  assert.ok(meta, 'no Content-Security-Policy <meta>');
  return new Map(meta[1].split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name, values]));
}

const inlineScripts = (html) => [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)]
  .filter(([, attributes]) => !/\bsrc\s*=/.test(attributes)).map(([, , text]) => text);

test('every page carries the same strict policy, which allows its inline scripts by their hashes only', async () => {
  const index = await readFile(join(DIST, 'index.html'), 'utf8');
  const policy = policyOf(index);
  const all = [...policy.values()].flat();
  assert.ok(!all.includes("'unsafe-inline'") && !all.includes("'unsafe-eval'"), [...policy].join('; '));
  assert.deepEqual(policy.get('default-src'), ["'none'"]);
  assert.deepEqual(policy.get('object-src'), ["'none'"]);
  assert.deepEqual(policy.get('base-uri'), ["'self'"]);
  // blob: for the Ask box's worker, started from a blob: URL so that it runs under this same policy.
  assert.deepEqual(policy.get('worker-src'), ["'self'", 'blob:']);
  // The site itself, and the learner's own model server for the Ask box: loopback over http, anything over https.
  assert.deepEqual(policy.get('connect-src'), ["'self'", 'http://localhost:*', 'http://127.0.0.1:*', 'https:']);
  assert.deepEqual(policy.get('style-src'), ["'self'"]);
  const loaderHashes = inlineScripts(index)
    .map((text) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`);
  // Trunk's loader, and src/lab-start.js (tools/minify-js.mjs), which starts the lab's worker as the head is parsed.
  assert.equal(loaderHashes.length, 2, 'expected two inline scripts, the loader and the lab\'s start');
  assert.deepEqual(policy.get('script-src'), ["'self'", "'wasm-unsafe-eval'", ...loaderHashes]);
  // The policy must come before anything it governs.
  assert.ok(index.indexOf('Content-Security-Policy') < index.search(/<script|<link rel="(stylesheet|modulepreload)/));

  for (const page of await builtPages()) {
    const html = await readFile(join(DIST, page), 'utf8');
    assert.deepEqual(policyOf(html), policy, `${page} has another policy`);
    assert.deepEqual(inlineScripts(html), inlineScripts(index), `${page} has another loader`);
  }
});

test('every asset is loaded with an integrity hash that matches its bytes, the wasm included', async () => {
  const index = await readFile(join(DIST, 'index.html'), 'utf8');
  const checked = new Set();
  for (const [tag] of index.matchAll(/<(link|script)\b[^>]*\b(href|src)="\.\/[^"]+"[^>]*>/g)) {
    const file = tag.match(/\b(?:href|src)="\.\/([^"]+)"/)[1];
    const integrity = tag.match(/\bintegrity="(sha384-[^"]+)"/)?.[1];
    assert.ok(integrity, `no integrity on ${tag}`);
    const digest = createHash('sha384').update(await readFile(join(DIST, file))).digest('base64');
    assert.equal(integrity, `sha384-${digest}`, `${file}: integrity does not match the file`);
    checked.add(file);
  }
  // The page's wasm is preloaded by src/boot.js from this <meta> (not on an address that opens on the knee lab).
  const [, wasm, preloadIntegrity] = index.match(
    /<meta name="goodput-page-wasm" content="\.\/([^"]+\.wasm)" data-integrity="(sha384-[^"]+)"/) ?? [];
  assert.ok(wasm, 'the page does not name its wasm with its integrity');
  const wasmDigest = createHash('sha384').update(await readFile(join(DIST, wasm))).digest('base64');
  assert.equal(preloadIntegrity, `sha384-${wasmDigest}`, `${wasm}: integrity does not match the file`);
  checked.add(wasm);
  assert.ok(inlineScripts(index).some((text) => text.includes(`fetch('./${wasm}', { integrity: '${preloadIntegrity}' })`)),
    'the loader does not fetch the wasm with its integrity');
  // Everything the page loads is covered; sw.js is loaded by the service worker registration, where SRI does not apply,
  // and the on-demand workers (`-worker` in the name) by importScripts inside a worker, which has no integrity check
  // either (they run under the page's policy: see src/components/ask.rs).
  // The page's on-demand modules (`lazy-*.wasm`) are fetched by its split loader, with their integrity.
  const loaderFile = [...checked].find((file) => /^split-[0-9a-f]+\.js$/.test(file));
  assert.ok(loaderFile, 'the split loader is not preloaded with integrity');
  const loader = await readFile(join(DIST, loaderFile), 'utf8');
  for (const file of (await readdir(DIST)).filter((f) => /^lazy-.*\.wasm$/.test(f))) {
    const digest = createHash('sha384').update(await readFile(join(DIST, file))).digest('base64');
    assert.ok(loader.includes(`fetch(new URL("./${file}", import.meta.url), { integrity: "sha384-${digest}" })`),
      `${file} is not fetched with its integrity`);
    checked.add(file);
  }
  const assets = (await readdir(DIST)).filter((file) => /\.(js|wasm|css|woff2)$/.test(file) && file !== 'sw.js'
    && !file.includes('-worker'));
  assert.deepEqual(assets.filter((file) => !checked.has(file)), [], 'assets loaded without integrity');
});

/**
 * The next element matching `selector` that is visible, enabled, not a download, not used yet and, unless `last`,
 * not a reset; it is marked used. An element is known by its kind, its label, the nearest island or section with an
 * id, and its place among its namesakes there, so a button the page draws again after a press (a reset, a toggle)
 * counts as used. Null when there is none.
 */
async function nextUnused(page, selector, { last = false } = {}) {
  const handle = await page.evaluateHandle(([sel, allowReset]) => {
    const used = (window.__usedByTest ??= new Set());
    const seen = new Map();
    for (const el of document.querySelectorAll(sel)) {
      const label = (el.getAttribute('aria-label') ?? el.textContent).trim();
      const name = `${el.tagName} ${label} @${el.closest('[id]')?.id ?? ''}`;
      const nth = (seen.get(name) ?? 0) + 1;
      seen.set(name, nth);
      const key = `${name} #${nth}`;
      if (used.has(key) || !el.checkVisibility() || el.disabled || /download/i.test(label)) continue;
      if (!allowReset && /\breset\b/i.test(label)) continue;
      used.add(key);
      return el;
    }
    return null;
  }, [selector, last]);
  return handle.asElement();
}

/** Everything a learner can do on the page except downloads: scroll, open, press, slide, choose. */
async function useEverything(page) {
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  for (let y = 0; y <= height; y += 600) {
    await page.evaluate((top) => window.scrollTo(0, top), y);
    await page.waitForTimeout(40);
  }
  const used = { disclosures: 0, buttons: 0, ranges: 0, selects: 0, toggles: 0 };
  const kinds = [
    ['disclosures', 'details:not([open]) > summary'],
    ['buttons', 'button, [role="button"]'],
    ['toggles', 'input[type="checkbox"], input[type="radio"]'],
  ];
  // Pressing a button can reveal more (a predict step's next part), so go on until nothing unused is left. Resets
  // come last, so that they do not undo what the rest opened, and their confirmation is pressed too.
  for (const last of [false, true]) {
    for (let progress = true, steps = 0; progress && steps < 300; steps += 1) {
      progress = false;
      for (const [kind, selector] of kinds) {
        const element = await nextUnused(page, selector, { last });
        if (!element) continue;
        await element.click();
        used[kind] += 1;
        progress = true;
      }
    }
  }
  for (let range; (range = await nextUnused(page, 'input[type="range"]'));) {
    await range.focus();
    for (const key of ['End', 'Home', 'ArrowRight', 'ArrowRight', 'PageUp']) await page.keyboard.press(key);
    used.ranges += 1;
  }
  for (let select; (select = await nextUnused(page, 'select'));) {
    for (const value of await select.evaluate((el) => [...el.options].map((option) => option.value))) {
      await select.selectOption(value);
    }
    used.selects += 1;
  }
  await page.waitForTimeout(500);
  return used;
}

test('using the whole lesson raises no policy violation and no request leaves the origin', async () => {
  const { page, problems } = await site.open(LESSON_PATH);
  await page.getByRole('heading', { level: 1, name: /Latency, Throughput & SLOs/ }).waitFor({ timeout: 15000 });
  const used = await useEverything(page);
  console.log(`used: ${JSON.stringify(used)}`);
  assert.ok(used.disclosures > 0 && used.buttons > 0, `too little of the lesson was used: ${JSON.stringify(used)}`);
  // Each widget with buttons had them pressed, not just one button the page keeps drawing again.
  const pressedIn = await page.evaluate(() => [...window.__usedByTest].filter((key) => key.startsWith('BUTTON'))
    .map((key) => key.match(/@(\S*) #\d+$/)[1]));
  for (const island of ['knee-lab', 'littles-law-sizer', 'fleet-widget', 'metrics-reader', 'ask-form']) {
    assert.ok(pressedIn.includes(island), `no button pressed in #${island}: ${[...new Set(pressedIn)]}`);
  }
  await screenshot(page, 'security-lesson-used', { fullPage: false });
  assert.deepEqual(await page.evaluate(() => window.__cspViolations), []);
  assert.deepEqual(problems(), []);

  // The home page too, including the way back.
  await page.goto(site.url());
  await page.locator('header.site-header').waitFor({ timeout: 15000 });
  await useEverything(page);
  assert.deepEqual(await page.evaluate(() => window.__cspViolations), []);
  assert.deepEqual(problems(), []);
});

test('the policy is enforced: an inline style attribute is refused and reported', async () => {
  const { page, problems } = await site.open();
  await page.locator('header.site-header').waitFor({ timeout: 15000 });
  const applied = await page.evaluate(() => {
    const probe = document.createElement('div');
    probe.innerHTML = '<span style="color: rgb(255, 0, 0)">probe</span>';
    document.body.append(probe);
    return getComputedStyle(probe.firstChild).color;
  });
  assert.notEqual(applied, 'rgb(255, 0, 0)', 'the inline style was applied');
  await page.waitForFunction(() => window.__cspViolations.length > 0);
  const [violation] = await page.evaluate(() => window.__cspViolations);
  assert.match(violation, /style-src/);
  assert.ok(problems().some((problem) => problem.includes('CSP violation')), 'the violation was not reported');
});
