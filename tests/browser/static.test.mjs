// The pre-rendered pages (src/pages/): a lesson reads completely with JavaScript off, with every predict step's
// answer folded away until the reader opens it; with JavaScript on, the wasm mounts the islands in place — no
// duplicated content, no layout shift worth the name, nothing logged, axe clean.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { siteUnderTest, launchBrowser, startStaticServer, axeViolations, screenshot, waitForApp, liveWidget } from './harness.mjs';

const LESSON_PATH = 'lessons/latency-throughput-slos/';
const SIZES = [{ width: 390, height: 844 }, { width: 1280, height: 720 }, { width: 1920, height: 1080 }];
const site = siteUnderTest();

/**
 * A page with JavaScript off, recording console errors and requests that fail. `blocked`: JavaScript on but every
 * script of the site refused instead — the page renders as with JavaScript off, and axe (injected by the test, not
 * fetched) can still run in it.
 */
async function withoutScripts(path, viewport, { blocked = false } = {}) {
  const server = await startStaticServer();
  const browser = await launchBrowser();
  const context = await browser.newContext({ viewport, javaScriptEnabled: blocked });
  if (blocked) await context.route(/\.(js|wasm)$/, (route) => route.abort());
  const page = await context.newPage();
  const problems = [];
  page.on('console', (message) => { if (message.type() === 'error') problems.push(message.text()); });
  // The wasm's module preload is dropped when scripts are off; anything else that fails (a picture, a stylesheet) counts.
  page.on('requestfailed', (request) => {
    if (!/\.(js|wasm)$/.test(new URL(request.url()).pathname)) problems.push(`failed: ${request.url()}`);
  });
  await page.goto(server.url(path));
  return { page, problems, close: async () => { await browser.close(); server.close(); } };
}

test('without JavaScript the lesson reads completely, and no predict answer shows until asked for', async () => {
  const { page, problems, close } = await withoutScripts(LESSON_PATH, SIZES[1]);
  try {
    await page.getByRole('heading', { level: 1, name: 'Latency, Throughput & SLOs' }).waitFor();
    const sections = await page.locator('article.lesson h2[id]').allInnerTexts();
    assert.ok(sections.length >= 8, `sections: ${sections.join(' | ')}`);
    for (const name of ['The knee', 'Goodput', "Little's Law"]) {
      assert.ok(sections.some((s) => s.includes(name)), `no section about ${name}: ${sections.join(' | ')}`);
    }
    // Formulas as MathML, laid out by the browser.
    const math = page.locator('article math');
    assert.ok(await math.count() > 5);
    assert.ok((await math.first().boundingBox()).width > 0);

    // Each predict step: its question is shown, its answer is folded away until "Show the answer" is opened.
    const steps = page.locator('section.lesson-predict');
    const count = await steps.count();
    assert.ok(count >= 5, `${count} predict steps`);
    for (let i = 0; i < count; i += 1) {
      const step = steps.nth(i);
      assert.ok((await step.locator('.predict-question').innerText()).trim().length > 10);
      const answer = step.locator('details.predict-answer');
      assert.equal(await answer.getAttribute('open'), null, 'the answer starts folded');
      assert.equal(await step.locator('.predict-explanation').isVisible(), false, 'the explanation is hidden');
      for (const right of await step.locator('.predict-correct').all()) {
        assert.equal(await right.isVisible(), false, 'the right option is hidden');
      }
    }
    const first = steps.first();
    await first.getByText('Show the answer').click();
    assert.equal(await first.locator('.predict-explanation').isVisible(), true);

    // A chart prediction's folded answer is the simulation's, with its picture.
    const chartStep = page.locator('section.lesson-predict', { has: page.locator('.chart-static') }).first();
    await chartStep.getByText('Show the answer').click();
    assert.match(await chartStep.locator('.predict-numbers').innerText(), /^The simulation puts the .+ at \d+(\.\d)?% load\.$/);
    const picture = chartStep.locator('.chart-static img');
    assert.ok((await picture.getAttribute('alt')).length > 20);
    await picture.scrollIntoViewIfNeeded();
    await picture.evaluate((img) => img.complete || new Promise((done) => img.addEventListener('load', done)));
    assert.ok(await picture.evaluate((img) => img.naturalWidth > 0), 'the picture loads');

    // The knee lab as a picture of its curves, with the chart summary as alt text and its data table.
    const lab = page.locator('section#knee-lab');
    await lab.scrollIntoViewIfNeeded();
    assert.match(await lab.locator('.widget-static-note').innerText(), /needs JavaScript/);
    const pictures = lab.locator('.chart-static img');
    assert.equal(await pictures.count(), 2);
    for (const img of await pictures.all()) {
      assert.match(await img.getAttribute('alt'), /load/);
      await img.scrollIntoViewIfNeeded();
      await img.evaluate((i) => i.complete || new Promise((done) => i.addEventListener('load', done)));
      assert.ok(await img.evaluate((i) => i.naturalWidth > 0), 'the picture loads');
    }
    await lab.locator('details.chart-data summary').first().click();
    assert.equal(await lab.locator('details.chart-data').first().locator('tbody tr').count(), 16);

    // A recall card's answer opens too, and keywords unfold.
    const recall = page.locator('section.lesson-recall').first();
    await recall.getByText('Show answer').click();
    assert.equal(await recall.locator('.reveal-answer-text').isVisible(), true);
    const keyword = page.locator('details.keyword').first();
    await keyword.locator('summary').click();
    assert.equal(await keyword.locator('.keyword-meaning').isVisible(), true);

    // What needs JavaScript is hidden rather than dead.
    assert.equal(await page.locator('.theme-switcher').isVisible(), false);
    assert.equal(await page.locator('.progress-reset').isVisible(), false);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test('without its scripts the lesson has no axe violations, answers folded or open', async () => {
  const { page, close } = await withoutScripts(LESSON_PATH, SIZES[1], { blocked: true });
  try {
    await page.getByRole('heading', { level: 1 }).waitFor();
    assert.equal(await page.locator('html.js').count(), 0, 'the page renders as without JavaScript');
    assert.deepEqual(await axeViolations(page), []);
    for (const summary of await page.locator('details.predict-answer > summary').all()) await summary.click();
    assert.deepEqual(await axeViolations(page), []);
  } finally {
    await close();
  }
});

test('without JavaScript every size reads with nothing cut off; screenshots at phone, laptop and projector size', async () => {
  for (const viewport of SIZES) {
    const { page, problems, close } = await withoutScripts(LESSON_PATH, viewport);
    try {
      await page.getByRole('heading', { level: 1 }).waitFor();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 0, `scrolls sideways by ${overflow}px at ${viewport.width}px`);
      await screenshot(page, `static-nojs-${viewport.width}`);
      await page.locator('section#knee-lab').scrollIntoViewIfNeeded();
      await screenshot(page, `static-nojs-lab-${viewport.width}`);
      assert.deepEqual(problems, []);
    } finally {
      await close();
    }
  }
});

test('the home page and the not-found page read without JavaScript', async () => {
  for (const [path, heading] of [['', /latency, throughput and SLOs/i], ['lessons/nothing-here/', /Page not found/]]) {
    const { page, close } = await withoutScripts(path, SIZES[1]);
    try {
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
      assert.ok(await page.locator('link[rel="stylesheet"]').count() > 0);
      // The stylesheets resolved (a styled header has a border): the page is not bare text.
      assert.notEqual(await page.locator('.site-header').evaluate((h) => getComputedStyle(h).borderBottomStyle), 'none');
    } finally {
      await close();
    }
  }
});

/** Sums the layout shifts of the page since it started (not those right after input, as CLS counts them). */
async function recordShifts(page) {
  await page.addInitScript(() => {
    window.__shifts = [];
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        if (!entry.hadRecentInput) {
          window.__shifts.push({ value: entry.value, nodes: entry.sources?.map((s) => s.node?.className ?? s.node?.nodeName) ?? [] });
        }
      }
    }).observe({ type: 'layout-shift', buffered: true });
  });
}

test('with JavaScript the islands mount in place: nothing duplicated, no layout shift, nothing logged', async () => {
  for (const viewport of SIZES) {
    const { page, problems } = await site.open('', viewport);
    await recordShifts(page);
    await page.goto(site.url(LESSON_PATH));
    await waitForApp(page);
    // Read down the lesson a screen at a time, as a learner does: every island mounts (widgets as they come near).
    await page.evaluate(async () => {
      for (let y = 0; y < document.documentElement.scrollHeight; y += innerHeight) {
        scrollTo(0, y);
        await new Promise((done) => setTimeout(done, 150));
      }
    });
    await page.waitForFunction(() => document.querySelectorAll('[data-island]:not(.island-mounted)').length === 0, null, { timeout: 20000 });
    await page.waitForTimeout(500);
    const shifts = await page.evaluate(() => window.__shifts);
    const total = shifts.reduce((sum, s) => sum + s.value, 0);
    assert.ok(total <= 0.02, `layout shift ${total.toFixed(4)} at ${viewport.width}px: ${JSON.stringify(shifts)}`);
    // In place: each step, heading and widget once.
    const ids = await page.evaluate(() => [...document.querySelectorAll('[id]')].map((e) => e.id));
    const repeated = ids.filter((id, i) => ids.indexOf(id) !== i);
    assert.deepEqual(repeated, [], 'ids appear twice');
    assert.equal(await page.locator('h1').count(), 1);
    assert.equal(await page.locator('.predict-commit').count(), await page.locator('section.lesson-predict').count());
    assert.equal(await page.locator('details.predict-answer').count(), 0, 'the static answers are gone');
    assert.equal(await page.locator('.widget-static-note').count(), 0, 'the static widgets are gone');
    await screenshot(page, `static-js-${viewport.width}`);
    assert.deepEqual(await axeViolations(page), []);
    assert.deepEqual(problems(), []);
  }
});

test('without idle callbacks (Safari) the islands still all mount, the far ones on a timer', async () => {
  const { page, problems } = await site.open('');
  await page.addInitScript(() => {
    delete window.requestIdleCallback;
    delete window.cancelIdleCallback;
  });
  await page.goto(site.url(LESSON_PATH));
  assert.equal(await page.evaluate(() => 'requestIdleCallback' in window), false);
  await waitForApp(page);
  // The last predict step is screens below the first: it mounted from the idle queue, not by coming near.
  const last = page.locator('section.lesson-predict').last();
  assert.equal(await last.locator('.predict-commit').count(), 1, 'the last predict step is live');
  // All but those whose code is fetched as they come near: the widgets and the chart predictions.
  assert.equal(await page.locator('[data-island]:not([data-island="widget"]):not([data-answer="chart-prediction"]):not(.island-mounted)').count(), 0);
  assert.deepEqual(problems(), []);
});

test('the lab holds room for its story: nothing below it moves while the estimate arrives in view', async () => {
  // The lab's explanation and status line grow with the estimate; on a phone they take several lines. Here the story
  // is brought into view the moment the lab mounts, before any estimate, so every line it adds while simulating is
  // counted (reading down the lesson on a fast machine, the lab usually finishes off screen and the shift is missed).
  for (const viewport of SIZES) {
    const { page, problems } = await site.open('', viewport);
    await recordShifts(page);
    await page.goto(site.url(LESSON_PATH));
    await waitForApp(page);
    await page.evaluate(() => {
      const watch = new MutationObserver(() => {
        const story = document.querySelector('#knee-lab .lab-story');
        if (story) {
          watch.disconnect();
          story.scrollIntoView({ block: 'center' });
        }
      });
      watch.observe(document.body, { childList: true, subtree: true });
      document.querySelector('[data-widget-name="knee-lab"]').scrollIntoView();
    });
    const lab = page.locator('#knee-lab');
    await lab.locator('.lab-status[data-state="done"]').waitFor({ timeout: 30000 });
    const story = await lab.locator('.lab-story').evaluate((e) => e.getBoundingClientRect());
    assert.ok(story.top < viewport.height && story.bottom > 0, `the story is in view at ${viewport.width}px`);
    const shifts = await page.evaluate(() => window.__shifts);
    const total = shifts.reduce((sum, s) => sum + s.value, 0);
    assert.ok(total <= 0.02, `layout shift ${total.toFixed(4)} at ${viewport.width}px: ${JSON.stringify(shifts)}`);
    assert.deepEqual(problems(), []);
  }
});

test('a chart prediction keeps its height when it mounts, at every width', async () => {
  // Each mounts as it comes near; if it mounted in view on a slow machine, any change of height would move the prose
  // below it (a 0.043 shift at 1280 px before the room was measured). A phone's step wraps its own texts differently
  // from the placeholder's, hence the looser bound there.
  for (const viewport of [...SIZES, { width: 768, height: 1024 }]) {
    const { page, problems } = await site.open('', viewport);
    await page.goto(site.url(LESSON_PATH));
    await waitForApp(page);
    const steps = page.locator('[data-answer="chart-prediction"]');
    const before = await steps.evaluateAll((all) => all.map((e) => e.getBoundingClientRect().height));
    assert.ok(before.length >= 3, `${before.length} chart predictions`);
    for (let i = 0; i < before.length; i++) {
      await steps.nth(i).scrollIntoViewIfNeeded();
      await page.waitForFunction((n) => document.querySelectorAll('[data-answer="chart-prediction"]')[n].classList.contains('island-mounted'), i);
    }
    await page.locator('[data-answer="chart-prediction"] canvas').first().waitFor();
    const after = await steps.evaluateAll((all) => all.map((e) => e.getBoundingClientRect().height));
    const bound = viewport.width <= 480 ? 32 : 2;
    for (let i = 0; i < before.length; i++) {
      assert.ok(Math.abs(after[i] - before[i]) <= bound, `chart prediction ${i + 1} at ${viewport.width}px: ${before[i]} px before mounting, ${after[i]} after`);
    }
    assert.deepEqual(problems(), []);
  }
});

test('each widget\'s room holds it when it mounts, at every width: it grows little and hardly shrinks', async () => {
  // A widget mounts as it comes near; on a slow machine it can mount in view, and whatever it adds to its room moves
  // the prose below it (the sizer grew 718 px at 1280 px and 1099 px at 390 px, the lab 107 to 700 px, before the
  // rooms were measured: tools/widget-rooms.mjs). A room taller than the widget would move the page up instead.
  for (const viewport of [...SIZES, { width: 768, height: 1024 }]) {
    const { page, problems } = await site.open('', viewport);
    await page.goto(site.url(LESSON_PATH));
    await waitForApp(page);
    const islands = page.locator('[data-widget-name]');
    const before = await islands.evaluateAll((all) => all.map((e) => ({
      name: e.dataset.widgetName, mounted: e.classList.contains('island-mounted'), height: e.getBoundingClientRect().height,
    })));
    assert.ok(before.filter((b) => !b.mounted).length >= 5, JSON.stringify(before));
    for (let i = 0; i < before.length; i++) {
      await islands.nth(i).scrollIntoViewIfNeeded();
      await page.waitForFunction((n) => document.querySelectorAll('[data-widget-name]')[n].classList.contains('island-mounted'), i);
    }
    await page.locator('[data-widget-name="knee-lab"] .lab-status[data-state="done"]').waitFor({ timeout: 30000 });
    await page.waitForTimeout(1500);
    const after = await islands.evaluateAll((all) => all.map((e) => e.getBoundingClientRect().height));
    for (let i = 0; i < before.length; i++) {
      if (before[i].mounted) continue;
      const growth = after[i] - before[i].height;
      // The room is up to 24 px and one wrapped line under the widget; at a width between two measured ones a text can
      // wrap shorter than measured, so a little less than nothing is allowed too.
      assert.ok(growth >= -12 && growth <= 128,
        `${before[i].name} at ${viewport.width} px: ${before[i].height} px before mounting, ${after[i]} after`);
    }
    assert.deepEqual(problems(), []);
  }
});

test('a deep link to the lab lands on it and the lab mounts there without moving the page', async () => {
  const { page, problems } = await site.open('', SIZES[1]);
  await recordShifts(page);
  await page.goto(site.url(`${LESSON_PATH}?load=0.97#knee-lab`));
  const lab = await liveWidget(page, 'knee-lab');
  await lab.locator('.lab-status[data-state="done"]').waitFor({ timeout: 30000 });
  const top = await lab.evaluate((section) => section.getBoundingClientRect().top);
  assert.ok(top >= -2 && top < 120, `the lab's top is at ${top}px`);
  assert.equal(await lab.getByRole('slider', { name: 'Offered load' }).inputValue(), '97');
  const shifts = await page.evaluate(() => window.__shifts);
  const total = shifts.reduce((sum, s) => sum + s.value, 0);
  assert.ok(total <= 0.02, `layout shift ${total.toFixed(4)}: ${JSON.stringify(shifts)}`);
  await screenshot(page, 'static-js-deep-link-lab');
  assert.deepEqual(problems(), []);
});

test('a reader already reading the lab when its code arrives keeps their place', async () => {
  // The live lab is taller than its static copy, and the anchor scroll anchoring kept was inside the copy it replaces:
  // the top the reader is at stays where it is, whether the link left it a fraction of a pixel above the window or
  // they had read a few lines in.
  for (const into of [0, 40]) {
    let release;
    const held = new Promise((resolve) => { release = resolve; });
    // A first visit: a service worker's fetches would not pass through the page's routes.
    const { page, problems } = await site.open(`${LESSON_PATH}#knee-lab`, SIZES[1], {
      before: (opening) => opening.route(/lazy-split-knee-lab/, async (route) => {
        await held;
        await route.continue();
      }),
    });
    await page.waitForFunction(() => document.querySelector('[data-widget-name="knee-lab"].island-loading'));
    const lab = page.locator('section.lesson-widget[data-widget="knee-lab"]');
    if (into > 0) {
      // By the wheel, as a reader scrolls: a script's scroll would not end the browser's keeping the link's target
      // in view.
      await page.mouse.move(640, 360);
      await page.mouse.wheel(0, into);
      await page.waitForFunction((by) => document.getElementById('knee-lab').getBoundingClientRect().top <= 1 - by, into);
    }
    const before = await lab.evaluate((section) => section.getBoundingClientRect().top);
    release();
    await lab.locator('.lab-status[data-state="done"]').waitFor({ timeout: 30000 });
    const after = await lab.evaluate((section) => section.getBoundingClientRect().top);
    assert.ok(Math.abs(after - before) <= 1, `${into} px into the lab: its top was at ${before}px, and at ${after}px once live`);
    assert.deepEqual(problems(), []);
  }
});
