// The course's central moment on every screen: a learner drags the offered load and watches p99 tear away, so the
// load slider and the latency chart it drives must be on the screen together (with the goodput chart too from 1280 px
// up), on the lesson page and presented. And the lab must survive whatever a learner gives it: clashing settings, a
// presentation link carrying lab settings, a reader who acts before the wasm arrives.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { siteUnderTest, axeViolations, screenshot, liveWidget, waitForApp } from './harness.mjs';

const LESSON_PATH = 'lessons/latency-throughput-slos/';
const site = siteUnderTest();

/** The tallest the latency chart must be: 240 px, or 30% of a screen too short for that. */
const minChartHeight = (viewport) => Math.min(240, 0.3 * viewport.height);

/** Rectangles (viewport coordinates) of what a learner watches while dragging. */
async function layout(page, lab) {
  return lab.evaluate((root) => {
    const rect = (el) => {
      if (!el) return null;
      const r = el.getBoundingClientRect();
      return { top: r.top, bottom: r.bottom, height: r.height, left: r.left, right: r.right };
    };
    const canvases = [...root.querySelectorAll('.lab-charts-main canvas')];
    return {
      slider: rect(root.querySelector('input[type="range"]')),
      strip: rect(root.querySelector('.lab-strip')),
      latency: rect(canvases[0]),
      goodput: rect(canvases[1]),
      height: window.innerHeight,
      width: window.innerWidth,
    };
  });
}

/** Whether `r` is wholly on screen and not under the strip that stays at the top. */
function inView(r, l, coveredTo = 0) {
  return r && r.top >= Math.max(0, coveredTo) - 0.5 && r.bottom <= l.height + 0.5 && r.left >= -0.5 && r.right <= l.width + 0.5;
}

/**
 * Scrolls through the widget a step at a time, as a reader does, and returns the first position at which `fits`
 * holds (with its layout), or the layouts seen.
 */
async function findWatchingPosition(page, lab, fits) {
  const top = await lab.evaluate((el) => el.getBoundingClientRect().top + window.scrollY);
  const height = await lab.evaluate((el) => el.getBoundingClientRect().height);
  const seen = [];
  for (let y = Math.max(0, top - 200); y <= top + height; y += 40) {
    await page.evaluate((to) => window.scrollTo(0, to), y);
    const l = await layout(page, lab);
    if (fits(l)) return { y, layout: l };
    seen.push(l);
  }
  return { y: null, seen };
}

for (const viewport of [
  { width: 390, height: 844 },
  { width: 768, height: 1024 },
  { width: 1280, height: 720 },
  { width: 1440, height: 900 },
  { width: 1920, height: 1080 },
]) {
  const size = `${viewport.width}×${viewport.height}`;
  test(`at ${size} the load slider and the latency chart share the screen, and a drag moves the chart`, async () => {
    const { page, problems } = await site.open(LESSON_PATH, viewport);
    const lab = await liveWidget(page, 'knee-lab');
    await lab.locator('.lab-status[data-state="done"]').waitFor({ timeout: 30000 });
    const wide = viewport.width >= 1280;
    const fits = (l) => {
      const under = l.strip?.bottom ?? 0;
      return inView(l.slider, l) && inView(l.latency, l, under) && l.latency.height >= minChartHeight(viewport)
        && (!wide || inView(l.goodput, l, under));
    };
    const found = await findWatchingPosition(page, lab, fits);
    assert.ok(found.y !== null, `no scroll position shows the slider and the whole latency chart${wide ? ' and the goodput chart' : ''} at ${size}: ${JSON.stringify(found.seen?.slice(0, 3))}`);
    const { latency } = found.layout;
    console.log(`${size}: slider and latency chart (${Math.round(latency.height)} px tall) together at scroll ${found.y}`);

    // Drag, and watch: the chart the learner sees redraws for the new load (its label is its data, in words).
    const canvas = lab.locator('.lab-charts-main canvas').first();
    const before = await canvas.getAttribute('aria-label');
    const slider = lab.getByRole('slider', { name: 'Offered load' });
    const box = await slider.boundingBox();
    await page.mouse.move(box.x + box.width * 0.2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.85, box.y + box.height / 2, { steps: 8 });
    await page.mouse.up();
    await page.waitForFunction((el) => !el.getAttribute('aria-label').startsWith('At 85%'), await canvas.elementHandle());
    assert.notEqual(await canvas.getAttribute('aria-label'), before);
    assert.ok(fits(await layout(page, lab)), 'the drag left slider and chart on the screen');
    assert.match(await canvas.getAttribute('aria-label'), /^At 9\d% load p99 TTFT is/);
    await screenshot(page, `drag-and-watch-${viewport.width}x${viewport.height}`);
    assert.deepEqual(problems(), []);
  });
}

test('the batch timeline\'s load slider and its timeline share the screen at every size', async () => {
  for (const viewport of [{ width: 390, height: 844 }, { width: 768, height: 1024 }, { width: 1280, height: 720 }, { width: 1920, height: 1080 }]) {
    const size = `${viewport.width}×${viewport.height}`;
    const { page, problems } = await site.open(LESSON_PATH, viewport);
    const widget = await liveWidget(page, 'batch-timeline');
    await widget.locator('.timeline-main canvas').waitFor();
    const top = await widget.evaluate((el) => el.getBoundingClientRect().top + window.scrollY);
    let found = null;
    for (let y = Math.max(0, top - 200); y <= top + 2000 && !found; y += 40) {
      await page.evaluate((to) => window.scrollTo(0, to), y);
      const l = await widget.evaluate((root) => {
        const rect = (el) => { const r = el.getBoundingClientRect(); return { top: r.top, bottom: r.bottom, height: r.height, left: r.left, right: r.right }; };
        return {
          slider: rect(root.querySelector('.timeline-strip input[type="range"]')),
          strip: rect(root.querySelector('.timeline-strip')),
          chart: rect(root.querySelector('.timeline-main canvas')),
          height: window.innerHeight,
          width: window.innerWidth,
        };
      });
      if (inView(l.slider, l) && inView(l.chart, l, l.strip.bottom)) found = { y, l };
    }
    assert.ok(found, `${size}: no scroll position shows the timeline's slider and its whole chart`);
    await screenshot(page, `drag-and-watch-timeline-${viewport.width}x${viewport.height}`);
    assert.deepEqual(problems(), []);
  }
});

test('presented at 1024×768 and 1280×720, the lab and a prediction chart fit with room for the plot', async () => {
  for (const viewport of [{ width: 1024, height: 768 }, { width: 1280, height: 720 }]) {
    const size = `${viewport.width}×${viewport.height}`;
    const { page, problems } = await site.open(`${LESSON_PATH}?present=1`, viewport);
    await page.locator('.present-audience').waitFor({ timeout: 15000 });
    const screens = Number((await page.locator('.present-position').textContent()).split('/')[1]);
    let sawLab = false;
    let sawPrediction = false;
    for (let n = 1; n <= screens; n++) {
      await page.locator('.present-position').filter({ hasText: new RegExp(`^${n} / `) }).waitFor({ timeout: 5000 });
      const current = page.locator('.present-current');
      if (!sawLab && await current.locator('.knee-lab-full').count()) {
        sawLab = true;
        const lab = current.locator('.knee-lab-full');
        await lab.locator('canvas').first().waitFor();
        await page.waitForTimeout(300);
        const l = await layout(page, lab);
        assert.ok(inView(l.slider, l), `${size}: the presented lab's slider is on screen`);
        assert.ok(inView(l.latency, l) && l.latency.height >= minChartHeight(viewport),
          `${size}: the presented latency chart is on screen and ${Math.round(l.latency.height)} px tall`);
        await screenshot(page, `drag-and-watch-presented-lab-${viewport.width}x${viewport.height}`);
      }
      const prediction = current.locator('.predict-chart canvas');
      if (!sawPrediction && await prediction.count()) {
        sawPrediction = true;
        await page.waitForTimeout(300);
        const r = await prediction.boundingBox();
        const min = viewport.height >= 720 ? 250 : minChartHeight(viewport);
        assert.ok(r.height >= min, `${size}: the presented prediction chart is ${Math.round(r.height)} px tall (at least ${min})`);
        assert.ok(r.y >= 0 && r.y + r.height <= viewport.height + 0.5, `${size}: the prediction chart is on screen`);
        await screenshot(page, `drag-and-watch-presented-prediction-${viewport.width}x${viewport.height}`);
      }
      if (sawLab && sawPrediction) break;
      await page.keyboard.press('ArrowRight');
    }
    assert.ok(sawLab && sawPrediction, `${size}: the lesson presents the lab and a chart prediction`);
    assert.deepEqual(problems(), []);
  }
});

test('settings that clash are reconciled with a note, never a dead lab or the model\'s words', async () => {
  const { page, problems } = await site.open(`${LESSON_PATH}?max_num_batched_tokens=32#knee-lab`);
  const lab = await liveWidget(page, 'knee-lab');
  await lab.locator('.lab-status[data-state="done"]').waitFor({ timeout: 30000 });
  assert.match((await lab.locator('[data-readout="p99"] dd').textContent()).trim(), /^[\d.]+ (ms|s)$/);
  const notes = lab.locator('.lab-notes');
  assert.match(await notes.innerText(), /token budget \(--max-num-batched-tokens\) raised from 32 to 64/);
  assert.doesNotMatch(await lab.innerText(), /service\.llm|cannot be simulated/);
  assert.equal(await lab.getByLabel('--max-num-batched-tokens', { exact: true }).inputValue(), '64');
  await notes.getByRole('button', { name: 'Dismiss' }).click();

  // The same clash typed into the field.
  const budget = lab.getByLabel('--max-num-batched-tokens', { exact: true });
  await budget.fill('48');
  await budget.press('Enter');
  await notes.waitFor();
  assert.match(await notes.innerText(), /raised from 48 to 64/);
  await page.waitForFunction(() => document.querySelector('[data-widget="knee-lab"] [id$="max-num-batched-tokens"]').value === '64');
  await lab.locator('.lab-status[data-state="done"]').waitFor({ timeout: 30000 });
  assert.doesNotMatch(await lab.innerText(), /service\.llm|cannot be simulated/);
  assert.match(new URL(page.url()).search, /max_num_batched_tokens=64/);
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(problems(), []);
});

test('a presentation link with lab settings opens with them and keeps them from screen to screen', async () => {
  const { page, problems } = await site.open(`${LESSON_PATH}?present=1&load=0.97`, { width: 1280, height: 720 });
  await page.locator('.present-audience').waitFor({ timeout: 15000 });
  const params = () => new URL(page.url()).searchParams;
  await page.waitForFunction(() => new URL(location.href).searchParams.get('screen') === '1');
  assert.equal(params().get('load'), '0.97', 'opening the presentation keeps the lab settings');
  // Walk to the lab's screen and back: the settings stay in the address, and the lab shows them.
  const screens = Number((await page.locator('.present-position').textContent()).split('/')[1]);
  let labScreen = null;
  for (let n = 1; n <= screens; n++) {
    await page.locator('.present-position').filter({ hasText: new RegExp(`^${n} / `) }).waitFor({ timeout: 5000 });
    assert.equal(params().get('load'), '0.97', `screen ${n} keeps load=0.97`);
    if (await page.locator('.present-current .knee-lab-full').count()) {
      labScreen = n;
      break;
    }
    await page.keyboard.press('ArrowRight');
  }
  assert.ok(labScreen, 'the lesson presents the knee lab');
  const slider = page.locator('.present-current .knee-lab-full').getByRole('slider', { name: 'Offered load' });
  assert.equal(await slider.inputValue(), '97');
  await page.keyboard.press('ArrowLeft');
  await page.locator('.present-position').filter({ hasText: new RegExp(`^${labScreen - 1} / `) }).waitFor();
  await page.keyboard.press('ArrowRight');
  await page.locator('.present-position').filter({ hasText: new RegExp(`^${labScreen} / `) }).waitFor();
  assert.equal(params().get('load'), '0.97');
  assert.equal(params().get('screen'), String(labScreen));
  assert.equal(await slider.inputValue(), '97');
  await page.reload();
  await page.locator('.present-position').filter({ hasText: new RegExp(`^${labScreen} / `) }).waitFor({ timeout: 15000 });
  assert.equal(await page.locator('.present-current .knee-lab-full').getByRole('slider', { name: 'Offered load' }).inputValue(), '97');
  assert.deepEqual(problems(), []);
});

test('an answer opened before the wasm arrives stays open, with focus kept, once the step comes to life', async () => {
  const { page, context, problems } = await site.open('', { width: 1280, height: 720 });
  // Hold the wasm back, as a slow link does, until the reader has acted on the pre-rendered page.
  let release;
  const held = new Promise((resolve) => { release = resolve; });
  await context.route('**/*.wasm', async (route) => { await held; await route.continue(); });
  await page.goto(site.url(LESSON_PATH));
  const step = page.locator('.island-predict').first();
  const id = await step.getAttribute('data-step-id');
  const summary = step.locator('details.predict-answer summary');
  await summary.scrollIntoViewIfNeeded();
  await summary.focus();
  await page.keyboard.press('Enter');
  assert.equal(await step.locator('details.predict-answer').evaluate((d) => d.open), true);
  const anchorTop = await summary.evaluate((el) => el.getBoundingClientRect().top);
  release();
  await waitForApp(page);
  const live = page.locator(`section.lesson-predict#${id}`);
  await live.locator('.predict-outcome').waitFor();
  assert.match(await live.locator('.predict-verdict').innerText(), /Shown without a guess/);
  assert.equal(await page.evaluate(() => document.activeElement?.classList.contains('predict-outcome')), true,
    `focus moved to the live answer, not ${await page.evaluate(() => document.activeElement?.outerHTML.slice(0, 80))}`);
  // The live answer stands where the reader was looking: where the "Show the answer" they pressed was.
  const moved = Math.abs((await live.locator('.predict-outcome').evaluate((el) => el.getBoundingClientRect().top)) - anchorTop);
  assert.ok(moved <= 2, `the answer stayed where the reader was looking (moved ${moved}px)`);
  // Recorded as shown before guessing, as "Show me anyway" is.
  await page.waitForFunction((stepId) => {
    const saved = JSON.parse(localStorage.getItem('goodput.progress.v1') ?? '{}');
    return JSON.stringify(saved).includes(stepId) && JSON.stringify(saved).includes('"shown_anyway":true');
  }, id);
  assert.deepEqual(problems(), []);
});
