// The islands still written twice: as static HTML at build time (src/pages/) and as the live component the wasm
// mounts in its place (src/components/). This compares the two for every such island of the lesson, so they cannot
// drift apart unnoticed: the text both copies show (labels, buttons, captions) must be the same.
// The kinds written once (src/views/: the build renders the component the wasm mounts, or, for a predict step, the
// pre-rendered step and the live one are built from the same heading, hint and tally views) need no comparison;
// their markup is tested natively (tests/islands_html.rs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { siteUnderTest, launchBrowser, startStaticServer, waitForApp } from './harness.mjs';

const LESSON_PATH = 'lessons/latency-throughput-slos/';
const KINDS = ['theme-switcher', 'progress-summary', 'predict', 'reveal', 'tasks', 'widget'];
const WRITTEN_ONCE = new Set(['theme-switcher', 'progress-summary', 'predict', 'reveal', 'tasks']);
const site = siteUnderTest();

/**
 * The text both copies of each island show, in document order: `{ kind, shared }`. What differs by design is left
 * out: the static copy's no-JavaScript hints and folded answers, the live copy's controls and state.
 */
function sharedTexts() {
  const text = (element) => (element?.textContent ?? '').replace(/\s+/g, ' ').trim();
  const all = (root, selector) => [...root.querySelectorAll(selector)].map(text);
  const parts = {
    widget: (island) => ({
      region: island.querySelector('section')?.getAttribute('aria-label'),
      label: text(island.querySelector('.lesson-label')),
      caption: text(island.querySelector('.widget-caption')),
    }),
  };
  return [...document.querySelectorAll('[data-island]')].map((island) => {
    const kind = island.getAttribute('data-island');
    return { kind, shared: parts[kind]?.(island) ?? null };
  });
}

/** The lesson's islands as the build wrote them: JavaScript off. */
async function staticIslands() {
  const server = await startStaticServer();
  const browser = await launchBrowser();
  try {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(server.url(LESSON_PATH));
    return await page.evaluate(sharedTexts);
  } finally {
    await browser.close();
    server.close();
  }
}

test('every island shows the same text pre-rendered and live', async () => {
  const before = await staticIslands();
  const { page, problems } = await site.open(LESSON_PATH);
  await waitForApp(page);
  // Widgets mount as they come near: bring each island near, as a reader scrolling through would.
  const islands = page.locator('[data-island]');
  const count = await islands.count();
  for (let index = 0; index < count; index += 1) await islands.nth(index).scrollIntoViewIfNeeded();
  await page.waitForFunction(
    () => [...document.querySelectorAll('[data-island]')].every((island) => island.classList.contains('island-mounted')),
    null, { timeout: 30000 });
  const after = await page.evaluate(sharedTexts);

  assert.deepEqual(after.map((island) => island.kind), before.map((island) => island.kind), 'the same islands, in order');
  for (const kind of KINDS) assert.ok(before.some((island) => island.kind === kind), `no ${kind} island on the lesson page`);
  before.forEach((island, index) => {
    if (WRITTEN_ONCE.has(island.kind)) return;
    assert.ok(island.shared, `island ${index} is of a kind this test does not know: ${island.kind}`);
    assert.deepEqual(after[index].shared, island.shared, `island ${index} (${island.kind}) differs live from its pre-rendered copy`);
  });
  assert.deepEqual(problems(), []);
});
