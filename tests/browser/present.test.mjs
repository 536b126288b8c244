// Presentation mode: an instructor projects lesson 32 from an audience window and drives it from a presenter
// window. The two stay in sync both ways over BroadcastChannel, a reopened window catches up, every screen fits the
// three projector sizes with nothing cut off, the keys work (and stay quiet while typing), and the themes pass axe.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { siteUnderTest, axeViolations, screenshot, waitForApp } from './harness.mjs';

const LESSON = 'lessons/latency-throughput-slos/';
const site = siteUnderTest();

/** Records console errors and uncaught exceptions of a page opened in an existing context. */
function recordProblems(page) {
  const problems = [];
  page.on('console', (msg) => { if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`); });
  page.on('pageerror', (err) => problems.push(`uncaught: ${err.message}`));
  return () => problems;
}

async function waitForPresentation(page, view = 'audience') {
  await page.locator(`.present-${view}`).waitFor({ timeout: 15000 });
}

/** "n / m" of the audience bar, as numbers. */
async function audiencePosition(page) {
  const [n, m] = (await page.locator('.present-position').textContent()).split('/').map((s) => Number(s.trim()));
  return { n, m };
}

/** "Screen n of m" of the presenter window, as numbers. */
async function presenterPosition(page) {
  const [, n, m] = (await page.locator('.presenter-position').textContent()).match(/Screen (\d+) of (\d+)/);
  return { n: Number(n), m: Number(m) };
}

async function expectAudienceAt(page, n) {
  await page.locator('.present-position').filter({ hasText: new RegExp(`^${n} / `) }).waitFor({ timeout: 5000 });
}

async function expectPresenterAt(page, n) {
  await page.locator('.presenter-position').filter({ hasText: new RegExp(`^Screen ${n} of`) }).waitFor({ timeout: 5000 });
}

/** Opens the audience and the presenter window of lesson 32 in one browser context, as an instructor would. */
async function openBoth(viewport = { width: 1920, height: 1080 }, audienceQuery = '?present=1') {
  const audience = await site.open(LESSON + audienceQuery, viewport);
  await waitForPresentation(audience.page);
  const presenterPage = await audience.context.newPage();
  const presenterProblems = recordProblems(presenterPage);
  await presenterPage.goto(site.url(LESSON + '?present=1&view=presenter'));
  await waitForPresentation(presenterPage, 'presenter');
  return { audience, presenter: { page: presenterPage, problems: presenterProblems } };
}

/** The screen (counted from 1) whose accessible name matches `pattern`, read by walking the audience window. */
async function findScreen(page, pattern) {
  const { m } = await audiencePosition(page);
  await page.keyboard.press('Home');
  for (let n = 1; n <= m; n++) {
    await expectAudienceAt(page, n);
    const label = await page.locator('.present-audience .present-stage').getAttribute('aria-label');
    if (pattern.test(label)) return n;
    await page.keyboard.press('ArrowRight');
  }
  throw new Error(`no screen matches ${pattern}`);
}

/** The first screen (counted from 1) showing an element that matches `selector`. */
async function findScreenWith(page, selector) {
  const { m } = await audiencePosition(page);
  await page.keyboard.press('Home');
  for (let n = 1; n <= m; n++) {
    await expectAudienceAt(page, n);
    if (await page.locator(`.present-current ${selector}`).count()) return n;
    await page.keyboard.press('ArrowRight');
  }
  throw new Error(`no screen shows ${selector}`);
}

test('the lesson page has a Present button that opens presentation mode', async () => {
  const { page, problems } = await site.open(LESSON);
  await page.getByRole('link', { name: 'Present this lesson' }).click();
  await waitForPresentation(page);
  assert.equal(new URL(page.url()).searchParams.get('present'), '1');
  assert.deepEqual(await audiencePosition(page).then((p) => p.n), 1);
  assert.match(await page.locator('.present-audience h1').textContent(), /Latency, Throughput & SLOs/);
  assert.equal(await page.locator('.site-header').isVisible(), false, 'the site header is out of the way');
  await page.getByRole('link', { name: 'Exit' }).click();
  await page.locator('article.lesson').waitFor();
  assert.deepEqual(problems(), []);
});

test('the keys walk through every screen, and the URL keeps the place across a reload', async () => {
  const { page, problems } = await site.open(LESSON + '?present=1');
  await waitForPresentation(page);
  const { m } = await audiencePosition(page);
  assert.ok(m >= 30, `lesson 32 is a long lesson: ${m} screens`);
  const titles = new Set();
  for (let n = 1; n <= m; n++) {
    await expectAudienceAt(page, n);
    titles.add(await page.locator('.present-audience .present-stage').getAttribute('aria-label'));
    // Clickers send Page Down, keyboards arrows and Space: use all three.
    await page.keyboard.press(['ArrowRight', 'PageDown', ' '][n % 3]);
  }
  assert.equal(titles.size, m, 'every screen has its own name');
  await expectAudienceAt(page, m);
  await page.keyboard.press('ArrowLeft');
  await expectAudienceAt(page, m - 1);
  await page.keyboard.press('PageUp');
  await page.keyboard.press('Shift+Space');
  await expectAudienceAt(page, m - 3);
  await page.keyboard.press('Home');
  await expectAudienceAt(page, 1);
  await page.keyboard.press('ArrowLeft');
  await expectAudienceAt(page, 1);
  await page.keyboard.press('End');
  await expectAudienceAt(page, m);
  await page.keyboard.press('Home');
  for (let i = 0; i < 6; i++) await page.keyboard.press('ArrowRight');
  await expectAudienceAt(page, 7);
  assert.equal(new URL(page.url()).searchParams.get('screen'), '7');
  await page.reload();
  await waitForPresentation(page);
  await expectAudienceAt(page, 7);
  // Keys with Control, Alt or Meta belong to the browser.
  await page.keyboard.press('Control+ArrowRight');
  await page.keyboard.press('Alt+ArrowLeft');
  await page.waitForTimeout(200);
  await expectAudienceAt(page, 7);
  assert.deepEqual(problems(), []);
});

test('a bad screen number in the URL is clamped, with a note that says so', async () => {
  const { page, problems } = await site.open(LESSON + '?present=1&screen=999');
  await waitForPresentation(page);
  const { n, m } = await audiencePosition(page);
  assert.equal(n, m, 'shows the last screen');
  const note = page.locator('.present-note');
  assert.match(await note.textContent(), new RegExp(`has ${m} screens, not 999`));
  assert.equal(new URL(page.url()).searchParams.get('screen'), String(m), 'the URL is corrected');
  await note.getByRole('button', { name: 'Dismiss' }).click();
  assert.equal(await note.count(), 0);

  await page.goto(site.url(LESSON + '?present=1&screen=two&view=speaker'));
  await waitForPresentation(page);
  await expectAudienceAt(page, 1);
  assert.match(await page.locator('.present-note').textContent(), /“two” is not a screen number.*|There is no “speaker” view/);
  assert.deepEqual(problems(), []);
});

test('keys stay quiet while typing, and help, blank and contrast work from the keyboard', async () => {
  const { page, problems } = await site.open(LESSON + '?present=1');
  await waitForPresentation(page);
  const estimate = await findScreen(page, /Step 5: sizing it/);
  const field = page.locator('.present-current').getByRole('textbox');
  await field.click();
  await page.keyboard.type('5');
  for (const key of ['ArrowRight', 'PageDown', 'b', 'c', '?', 'Home', 'End']) await page.keyboard.press(key);
  await page.waitForTimeout(200);
  await expectAudienceAt(page, estimate);
  assert.equal(await field.inputValue(), '5bc?', 'the field got the typing, letters and all');
  assert.equal(await page.locator('.present-blank').isVisible(), false);
  assert.equal(await page.locator('.present-help').isVisible(), false);

  await page.locator('.present-position').click(); // focus leaves the field
  await page.keyboard.press('?');
  const help = page.getByRole('dialog', { name: 'Presentation keys' });
  await help.waitFor();
  assert.match(await help.textContent(), /Next screen.*Previous screen.*Reveal.*Blank.*High contrast.*Full screen.*presenter/s);
  await page.keyboard.press('Escape');
  await help.waitFor({ state: 'hidden' });

  await page.keyboard.press('b');
  await page.locator('.present-blank').waitFor();
  await page.keyboard.press('Escape');
  await page.locator('.present-blank').waitFor({ state: 'hidden' });
  await page.keyboard.press('.');
  await page.locator('.present-blank').waitFor();
  await page.keyboard.press('.');
  await page.locator('.present-blank').waitFor({ state: 'hidden' });

  await page.keyboard.press('f');
  await page.waitForFunction(() => document.fullscreenElement === document.documentElement);
  await page.keyboard.press('f');
  await page.waitForFunction(() => document.fullscreenElement === null);

  const theme = () => page.evaluate(() => document.documentElement.dataset.theme);
  const before = await theme();
  await page.keyboard.press('c');
  assert.equal(await theme(), 'high-contrast');
  await page.keyboard.press('c');
  assert.equal(await theme(), before);

  // P opens the presenter window at the same screen, and it joins the presentation.
  const [presenter] = await Promise.all([page.context().waitForEvent('page'), page.keyboard.press('p')]);
  await waitForPresentation(presenter, 'presenter');
  await expectPresenterAt(presenter, estimate);
  await presenter.keyboard.press('ArrowRight');
  await expectAudienceAt(page, estimate + 1);
  assert.deepEqual(problems(), []);
});

test('the presenter drives the audience and the audience drives the presenter', async () => {
  const { audience, presenter } = await openBoth();
  const { m } = await presenterPosition(presenter.page);
  await presenter.page.getByRole('button', { name: 'Next', exact: true }).click();
  await expectAudienceAt(audience.page, 2);
  await presenter.page.keyboard.press('End');
  await expectAudienceAt(audience.page, m);
  await audience.page.keyboard.press('Home');
  await expectPresenterAt(presenter.page, 1);

  // The presenter sees the next screen and this part's speaker notes.
  assert.match(await presenter.page.locator('#presenter-next-title').textContent(), /^Next: Two clocks/);
  assert.match(await presenter.page.locator('.presenter-notes').textContent(), /how they know a replica is full/);
  await audience.page.keyboard.press('ArrowRight');
  await expectPresenterAt(presenter.page, 2);

  // The knee lab's load slider moved on the presenter moves on the projector, and the other way round.
  const lab = await findScreen(audience.page, /Interactive: Try it: push the load past the knee/);
  await expectPresenterAt(presenter.page, lab);
  assert.match(await presenter.page.locator('.presenter-notes').textContent(), /Let the room drive the knee lab/);
  const audienceLoad = audience.page.locator('.present-current .lab-load-value');
  const presenterLoad = presenter.page.locator('.present-current .lab-load-value');
  assert.equal(await audienceLoad.textContent(), '85%');
  await presenter.page.locator('.present-current').getByRole('slider', { name: /load/i }).focus();
  for (let i = 0; i < 3; i++) await presenter.page.keyboard.press('ArrowRight');
  const moved = await presenterLoad.textContent();
  assert.notEqual(moved, '85%', 'the presenter moved the slider');
  await audienceLoad.filter({ hasText: new RegExp(`^${moved}$`) }).waitFor({ timeout: 5000 });
  await audience.page.locator('.present-current').getByRole('slider', { name: /load/i }).focus();
  await audience.page.keyboard.press('Home');
  const back = await audienceLoad.textContent();
  assert.notEqual(back, moved, 'the audience moved the slider');
  await presenterLoad.filter({ hasText: new RegExp(`^${back}$`) }).waitFor({ timeout: 5000 });
  await audience.page.locator('.present-position').click();

  // A reveal pressed with R on the presenter opens on the projector.
  const recall = await findScreen(audience.page, /Recall: what is the knee/);
  await expectPresenterAt(presenter.page, recall);
  assert.equal(await audience.page.locator('.present-current .predict-outcome').count(), 0);
  await presenter.page.locator('.presenter-position').click();
  await presenter.page.keyboard.press('r');
  await audience.page.locator('.present-current .predict-outcome').waitFor({ state: 'visible' });

  // A keyword unfolded on the projector unfolds on the presenter, and folds back from there.
  const keywords = await findScreenWith(audience.page, 'details.keyword');
  await expectPresenterAt(presenter.page, keywords);
  const term = audience.page.locator('.present-current details.keyword').first();
  const presenterTerm = presenter.page.locator('.present-current details.keyword').first();
  assert.equal(await presenterTerm.evaluate((d) => d.open), false);
  await term.locator('summary').click();
  await presenter.page.waitForFunction(() => document.querySelector('.present-current details.keyword').open);
  await presenterTerm.locator('summary').click();
  await audience.page.waitForFunction(() => !document.querySelector('.present-current details.keyword').open);

  // Blanking from the presenter blacks out the projector only.
  await presenter.page.getByRole('button', { name: 'Blank audience (B)' }).click();
  await audience.page.locator('.present-blank').waitFor();
  assert.match(await presenter.page.locator('.presenter-blanked').textContent(), /audience screen is blank/);
  await audience.page.keyboard.press('b');
  await presenter.page.waitForFunction(() => document.querySelector('.presenter-blanked').textContent === '');

  // The theme picked on the presenter reaches the audience.
  const themePicker = presenter.page.locator('.presenter-controls').getByLabel('Theme');
  await themePicker.selectOption('dark');
  await audience.page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
  // C on the presenter switches both windows to high contrast, and the picker says so.
  await presenter.page.locator('.presenter-position').click();
  await presenter.page.keyboard.press('c');
  await audience.page.waitForFunction(() => document.documentElement.dataset.theme === 'high-contrast');
  assert.equal(await themePicker.inputValue(), 'high-contrast');
  await presenter.page.keyboard.press('c');
  await audience.page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
  assert.equal(await themePicker.inputValue(), 'dark');

  assert.deepEqual(audience.problems(), []);
  assert.deepEqual(presenter.problems(), []);
});

test('closing and reopening either window resynchronises it', async () => {
  const { audience, presenter } = await openBoth();
  const recall = await findScreen(audience.page, /Interactive: Try it: push the load past the knee/);
  await expectPresenterAt(presenter.page, recall);
  await presenter.page.locator('.present-current').getByRole('slider', { name: /load/i }).focus();
  for (let i = 0; i < 3; i++) await presenter.page.keyboard.press('ArrowRight');
  const load = await presenter.page.locator('.present-current .lab-load-value').textContent();
  assert.notEqual(load, '85%', 'the presenter moved the slider');
  await presenter.page.locator('.presenter-position').click();
  await audience.page.close();

  // The presenter moves on while the projector window is closed, then reopens it from an old URL.
  await presenter.page.keyboard.press('ArrowRight');
  await presenter.page.keyboard.press('ArrowRight');
  const reopened = await presenter.page.context().newPage();
  const reopenedProblems = recordProblems(reopened);
  await reopened.goto(site.url(LESSON + '?present=1&screen=3'));
  await waitForPresentation(reopened);
  await expectAudienceAt(reopened, recall + 2);
  assert.equal(new URL(reopened.url()).searchParams.get('screen'), String(recall + 2));
  // Going back shows the knee lab's load as the presenter left it.
  await reopened.keyboard.press('ArrowLeft');
  await reopened.keyboard.press('ArrowLeft');
  await expectPresenterAt(presenter.page, recall);
  await reopened.locator('.present-current .lab-load-value').filter({ hasText: new RegExp(`^${load}$`) }).waitFor({ timeout: 5000 });

  // A reloaded presenter takes the audience's place.
  await reopened.keyboard.press('End');
  await presenter.page.reload();
  await waitForPresentation(presenter.page, 'presenter');
  const { m } = await presenterPosition(presenter.page);
  await expectPresenterAt(presenter.page, m);
  assert.deepEqual(reopenedProblems(), []);
  assert.deepEqual(presenter.problems(), []);
});

/**
 * How the audience's screen fits, read as the room is shown it: in a new resize observer's first call, which comes in
 * the next rendering update after the page's own observers have refitted the screen, and before the paint. Read at
 * any other moment it can catch content that has just grown (the lab's first numbers) before the refit.
 */
async function paintedFit(page) {
  return page.evaluate(() => new Promise((resolve) => {
    const slide = document.querySelector('.present-audience .present-slide');
    const measure = () => {
      const outside = [];
      for (const element of document.querySelectorAll('.present-audience *')) {
        if (!element.checkVisibility() || element.closest('.visually-hidden, [hidden]')) continue;
        const box = element.getBoundingClientRect();
        if (box.width === 0 && box.height === 0) continue;
        if (box.left < -1 || box.top < -1 || box.right > innerWidth + 1 || box.bottom > innerHeight + 1) {
          outside.push(`${element.tagName.toLowerCase()}.${element.className} ${Math.round(box.left)},${Math.round(box.top)}–${Math.round(box.right)},${Math.round(box.bottom)}`);
        }
      }
      return {
        fit: slide.dataset.fit,
        overflow: slide.scrollHeight - slide.clientHeight,
        pageScrolls: document.documentElement.scrollHeight > innerHeight || document.documentElement.scrollWidth > innerWidth,
        outside: outside.slice(0, 3),
      };
    };
    const observer = new ResizeObserver(() => {
      observer.disconnect();
      resolve(measure());
    });
    observer.observe(slide);
  }));
}

test('every screen fits 1920×1080, 1280×720 and 1024×768 with nothing cut off', async () => {
  const report = [];
  for (const viewport of [{ width: 1920, height: 1080 }, { width: 1280, height: 720 }, { width: 1024, height: 768 }]) {
    const { page, problems } = await site.open(LESSON + '?present=1', viewport);
    await waitForPresentation(page);
    const { m } = await audiencePosition(page);
    const fits = [];
    for (let n = 1; n <= m; n++) {
      await expectAudienceAt(page, n);
      const result = await paintedFit(page);
      const where = `screen ${n} at ${viewport.width}×${viewport.height}`;
      assert.notEqual(result.fit, 'scroll', `${where} needs a scroll bar`);
      assert.ok(result.overflow <= 1, `${where} overflows by ${result.overflow}px`);
      assert.equal(result.pageScrolls, false, `${where}: the page scrolls`);
      assert.deepEqual(result.outside, [], `${where}: elements outside the window`);
      fits.push(Number(result.fit));
      await page.keyboard.press('ArrowRight');
    }
    report.push(`${viewport.width}×${viewport.height}: ${m} screens, type steps down on ${fits.filter((f) => f > 0).length} (at most ${Math.max(...fits)})`);
    assert.deepEqual(problems(), []);
  }
  console.log(report.join('\n'));
});

test('a revealed predict step still fits its screen', async () => {
  const { page, problems } = await site.open(LESSON + '?present=1', { width: 1280, height: 720 });
  await waitForPresentation(page);
  for (const step of [/Step 3: the knee/, /Step 4: what actually counts/]) {
    await findScreen(page, step);
    // Step 3 asks for a marker on a chart, step 4 for choices: guess, commit, then reveal with R.
    const choice = page.locator('.present-current .predict-choice').first();
    if (await choice.count()) await choice.click();
    else {
      await page.locator('.present-current').getByRole('slider').first().focus();
      await page.keyboard.press('ArrowRight');
    }
    await page.locator('.present-current .predict-commit').click();
    await page.locator('.present-position').click();
    await page.keyboard.press('r');
    await page.locator('.present-current .predict-outcome').waitFor();
    await page.waitForFunction(() => {
      const slide = document.querySelector('.present-audience .present-slide');
      return slide.scrollHeight <= slide.clientHeight + 1 && slide.dataset.fit !== 'scroll';
    }, null, { timeout: 5000 });
    const fit = await page.locator('.present-audience .present-slide').getAttribute('data-fit');
    console.log(`${step.source} revealed at 1280×720: type ${fit} step(s) smaller`);
  }
  assert.deepEqual(problems(), []);
});

test('axe finds nothing in the light, dark and high-contrast themes; screenshots at 1920×1080', async () => {
  const { audience, presenter } = await openBoth();
  await findScreen(audience.page, /Step 1: which phase sets TTFT/);
  for (const theme of ['light', 'dark', 'high-contrast']) {
    await presenter.page.locator('.presenter-controls').getByLabel('Theme').selectOption(theme);
    await audience.page.waitForFunction((t) => document.documentElement.dataset.theme === t, theme);
    assert.deepEqual(await axeViolations(audience.page), [], `axe, audience, ${theme}`);
    assert.deepEqual(await axeViolations(presenter.page), [], `axe, presenter, ${theme}`);
    await screenshot(audience.page, `present-audience-1920x1080-${theme}`);
    await screenshot(presenter.page, `present-presenter-1920x1080-${theme}`);
  }
  await audience.page.keyboard.press('?');
  await audience.page.getByRole('dialog').waitFor();
  assert.deepEqual(await axeViolations(audience.page), [], 'axe, help open');
  await screenshot(audience.page, 'present-audience-help');
  assert.deepEqual(audience.problems(), []);
  assert.deepEqual(presenter.problems(), []);
});

test('the theme is set before the lesson is parsed, and the page\'s start-up leaves it alone', async () => {
  // A theme set once the lesson is laid out changes the root's color-scheme, so every element is styled again.
  for (const colorScheme of ['light', 'dark']) {
    const { page, context, problems } = await site.open(LESSON, undefined, {
      before: async (opening) => {
        await opening.emulateMedia({ colorScheme });
        await opening.addInitScript(() => {
          window.__themeChanges = [];
          new MutationObserver((records) => {
            for (const record of records.filter((r) => r.target === document.documentElement)) {
              window.__themeChanges.push(`${record.oldValue} -> ${document.documentElement.dataset.theme}`
                + ` (${document.body ? 'body started' : 'in the head'})`);
            }
          }).observe(document, { subtree: true, attributeFilter: ['data-theme'], attributeOldValue: true });
        });
      },
    });
    await waitForApp(page);
    assert.deepEqual(await page.evaluate(() => window.__themeChanges), [`null -> ${colorScheme} (in the head)`]);
    await context.close();
    assert.deepEqual(problems(), []);
  }
});

test('the theme is picked in the header, remembered, and follows the system until then', async () => {
  const { page, context, problems } = await site.open(LESSON);
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.reload();
  // The page's theme follows the system once the wasm runs (the header's theme switcher is an island).
  await waitForApp(page);
  const theme = () => page.evaluate(() => document.documentElement.dataset.theme);
  assert.equal(await theme(), 'dark', 'System follows prefers-color-scheme');
  await page.emulateMedia({ colorScheme: 'light' });
  await page.waitForFunction(() => document.documentElement.dataset.theme === 'light');
  await page.getByLabel('Theme').selectOption('high-contrast');
  assert.equal(await theme(), 'high-contrast');
  const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  assert.equal(background, 'rgb(255, 255, 255)');
  await page.reload();
  await waitForApp(page);
  assert.equal(await theme(), 'high-contrast', 'remembered across a reload');
  assert.equal(await page.getByLabel('Theme').inputValue(), 'high-contrast');
  assert.deepEqual(await axeViolations(page), [], 'axe, lesson page, high contrast');
  await page.getByLabel('Theme').selectOption('dark');
  assert.equal(await page.evaluate(() => getComputedStyle(document.body).backgroundColor), 'rgb(18, 22, 28)');
  assert.deepEqual(await axeViolations(page), [], 'axe, lesson page, dark');
  // Storage that refuses writes (a private window, a full quota) loses only the memory of the choice.
  await page.evaluate(() => { Storage.prototype.setItem = () => { throw new DOMException('full', 'QuotaExceededError'); }; });
  await page.getByLabel('Theme').selectOption('light');
  assert.equal(await theme(), 'light');
  await context.close();
  assert.deepEqual(problems(), []);
});
