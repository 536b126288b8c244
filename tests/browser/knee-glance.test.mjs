// The knee at a glance: projected, the lab's figures are the largest text on the screen (readable from the back of
// the room); the latency chart has a linear/log switch, linear by default, that a keyboard works and the chart's name
// reports; and at 100% load the figures still show what the finite run measured, marked as growing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { siteUnderTest, axeViolations, screenshot, liveWidget } from './harness.mjs';

const LESSON = 'lessons/latency-throughput-slos/';
const site = siteUnderTest();

/** The figures beside the slider that the room reads (the SLO verdict and goodput included). */
const FIGURES = ['p50', 'p99', 'ratio', 'slo', 'goodput'];

/** Walks the audience window forward from its current screen to the first showing `selector`. */
async function presentScreenWith(page, selector) {
  await page.locator('.present-audience').waitFor({ timeout: 15000 });
  const [from, count] = (await page.locator('.present-position').textContent()).split('/').map(Number);
  for (let n = from; n <= count; n++) {
    await page.locator('.present-position').filter({ hasText: new RegExp(`^${n} / `) }).waitFor({ timeout: 5000 });
    if (await page.locator(`.present-current ${selector}`).count()) return n;
    await page.keyboard.press('ArrowRight');
  }
  throw new Error(`no screen shows ${selector}`);
}

/** Waits until the lab in `scope` has its final numbers and the screen has settled on its type size. */
async function settled(page, scope) {
  await page.locator(`${scope} .knee-lab-full [data-readout="p99"] dd`).filter({ hasText: /\d/ }).waitFor({ timeout: 20000 });
  await page.waitForFunction((scope) => {
    const slide = document.querySelector(`${scope} .present-slide`);
    return slide && slide.scrollHeight <= slide.clientHeight + 1 && slide.dataset.fit !== 'scroll';
  }, scope, { timeout: 10000 });
  // Two frames: the last refit's type is what the room sees.
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
}

/**
 * Computed font sizes in `scope` (a presentation stage): the headline figures' values and labels, and the largest
 * other visible text of the screen.
 */
async function fontSizes(page, scope) {
  return page.evaluate(({ scope, figures }) => {
    const root = document.querySelector(scope);
    const size = (element) => parseFloat(getComputedStyle(element).fontSize);
    const shown = (element) => element.checkVisibility() && element.getBoundingClientRect().height > 0;
    const figure = (key, part) => root.querySelector(`.lab-readouts-headline [data-readout="${key}"] ${part}`);
    const values = figures.map((key) => figure(key, 'dd')).filter((e) => e && shown(e));
    const labels = figures.map((key) => figure(key, 'dt')).filter((e) => e && shown(e));
    let other = { size: 0, text: '' };
    for (const element of root.querySelectorAll('*')) {
      if (!shown(element) || element.closest('.lab-readouts-headline dd')) continue;
      const ownText = [...element.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.textContent.trim());
      if (ownText && size(element) > other.size) other = { size: size(element), text: element.textContent.trim().slice(0, 40) };
    }
    return {
      values: values.map(size),
      labels: labels.map(size),
      shownFigures: values.length,
      other,
    };
  }, { scope, figures: FIGURES });
}

/**
 * Records the text every canvas draws, from its last drawing (a drawing starts by sizing or clearing the canvas,
 * and may copy another canvas onto it): `window.__canvasText(canvas)` lists the CSS pixel size of each string it
 * wrote. A canvas's text has no computed style, so its size is read where it is drawn.
 */
function recordCanvasText() {
  const drawn = new WeakMap();
  const width = Object.getOwnPropertyDescriptor(HTMLCanvasElement.prototype, 'width');
  Object.defineProperty(HTMLCanvasElement.prototype, 'width', {
    ...width,
    set(value) { drawn.set(this, []); width.set.call(this, value); },
  });
  const fillText = CanvasRenderingContext2D.prototype.fillText;
  CanvasRenderingContext2D.prototype.fillText = function (text, ...rest) {
    const px = parseFloat(/([\d.]+)px/.exec(this.font)?.[1] ?? 'NaN');
    drawn.get(this.canvas)?.push({ text: String(text), px });
    return fillText.call(this, text, ...rest);
  };
  // A chart drawn again at its size is cleared, not sized; a chart against load copies its kept base (a canvas off
  // the page) before it paints its marker.
  const { clearRect, drawImage } = CanvasRenderingContext2D.prototype;
  CanvasRenderingContext2D.prototype.clearRect = function (x, y, w, h) {
    if (x <= 0 && y <= 0 && x + w >= this.canvas.width && y + h >= this.canvas.height) drawn.set(this.canvas, []);
    return clearRect.call(this, x, y, w, h);
  };
  CanvasRenderingContext2D.prototype.drawImage = function (image, ...rest) {
    if (image instanceof HTMLCanvasElement) drawn.get(this.canvas)?.push(...(drawn.get(image) ?? []));
    return drawImage.call(this, image, ...rest);
  };
  window.__canvasText = (canvas) => (drawn.get(canvas) ?? []).map(({ text, px }) => ({
    text, px: px * canvas.getBoundingClientRect().width / canvas.width,
  }));
}

/** The smallest and largest text (CSS px) the canvases under `selector` drew last, with the smallest string. */
async function canvasTextSizes(page, selector) {
  return page.evaluate((selector) => {
    const texts = [...document.querySelectorAll(selector)].flatMap((canvas) => window.__canvasText(canvas));
    const smallest = texts.reduce((a, b) => (b.px < a.px ? b : a), { px: Infinity, text: '' });
    return { count: texts.length, smallest: smallest.px, text: smallest.text };
  }, selector);
}

for (const [width, height, least] of [[1920, 1080, 40], [1280, 720, 28]]) {
  test(`presented at ${width}×${height}, the lab's figures are the largest text of the screen (≥ ${least} px)`, async () => {
    const { page, context, problems } = await site.open(`${LESSON}?present=1`, { width, height });
    await context.addInitScript(recordCanvasText);
    await page.reload();
    await presentScreenWith(page, '.knee-lab-full');
    await settled(page, '.present-audience');
    const audience = await fontSizes(page, '.present-audience .present-stage');
    console.log(`audience ${width}×${height}: figures ${audience.values.join(', ')} px, labels ${audience.labels.join(', ')} px, `
      + `largest other text ${audience.other.size} px ("${audience.other.text}")`);
    assert.equal(audience.shownFigures, FIGURES.length, 'all five figures are on the screen');
    const smallest = Math.min(...audience.values);
    assert.ok(smallest >= least, `figures ${smallest} px, want ≥ ${least}`);
    assert.ok(Math.min(...audience.labels) >= smallest / 2, `labels ${audience.labels} px, want ≥ half of ${smallest}`);
    assert.ok(smallest >= audience.other.size, `"${audience.other.text}" (${audience.other.size} px) is larger than the figures`);
    // The charts' own text (ticks, tags, the values at the current load) at least as large as the figures' labels.
    const charts = await canvasTextSizes(page, '.present-audience .lab-charts-main canvas');
    console.log(`audience ${width}×${height}: chart text ≥ ${charts.smallest.toFixed(1)} px ("${charts.text}", ${charts.count} strings)`);
    assert.ok(charts.count > 0 && charts.smallest >= least / 2, `chart text "${charts.text}" ${charts.smallest} px, want ≥ ${least / 2}`);
    await screenshot(page, `knee-glance-present-${width}x${height}`);

    // The presenter window shows the same screen in a smaller pane: there too the figures are its largest text.
    const presenter = await context.newPage();
    await presenter.goto(site.url(`${LESSON}?present=1&view=presenter`));
    await presenter.locator('.present-presenter').waitFor({ timeout: 15000 });
    await settled(presenter, '.presenter-current');
    const pane = await fontSizes(presenter, '.presenter-current .present-stage');
    console.log(`presenter ${width}×${height}: figures ${pane.values.join(', ')} px, labels ${pane.labels.join(', ')} px, `
      + `largest other text ${pane.other.size} px ("${pane.other.text}")`);
    assert.equal(pane.shownFigures, FIGURES.length, 'presenter: all five figures are on the screen');
    const paneSmallest = Math.min(...pane.values);
    assert.ok(paneSmallest >= least, `presenter: figures ${paneSmallest} px, want ≥ ${least}`);
    assert.ok(Math.min(...pane.labels) >= paneSmallest / 2, `presenter: labels ${pane.labels} px, want ≥ half of ${paneSmallest}`);
    assert.ok(paneSmallest >= pane.other.size, `presenter: "${pane.other.text}" is larger than the figures`);
    await screenshot(presenter, `knee-glance-presenter-${width}x${height}`);
    assert.deepEqual(problems(), []);
  });
}

// The batch timeline and the chart prediction, projected: the text their charts draw reads from the back of the room
// too, at least half the size of the lab's figures on the same screen.
for (const [width, height, least] of [[1920, 1080, 40], [1280, 720, 28]]) {
  test(`presented at ${width}×${height}, the batch timeline's and the prediction chart's text is ≥ ${least / 2} px`, async () => {
    const { page, context, problems } = await site.open(`${LESSON}?present=1`, { width, height });
    await context.addInitScript(recordCanvasText);
    await page.reload();
    const screens = [
      ['#predict-slo-crossing', '.present-audience #predict-slo-crossing canvas', 'prediction'],
      ['[data-widget="batch-timeline"]', '.present-audience .batch-timeline canvas[aria-label^="At "]', 'timeline'],
    ];
    for (const [screen, canvas, name] of screens) {
      await presentScreenWith(page, screen);
      await page.locator(canvas).first().waitFor({ timeout: 20000 });
      await page.waitForFunction(() => {
        const slide = document.querySelector('.present-audience .present-slide');
        return slide.scrollHeight <= slide.clientHeight + 1 && slide.dataset.fit !== 'scroll';
      }, null, { timeout: 10000 });
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      const text = await canvasTextSizes(page, canvas);
      console.log(`${name} at ${width}×${height}: chart text ≥ ${text.smallest.toFixed(1)} px ("${text.text}", ${text.count} strings)`);
      assert.ok(text.count > 0 && text.smallest >= least / 2, `${name}: "${text.text}" ${text.smallest} px, want ≥ ${least / 2}`);
      await screenshot(page, `knee-glance-present-${name}-${width}x${height}`);
    }
    assert.deepEqual(problems(), []);
  });
}

test('the latency axis switch: linear by default, log by keyboard, named in the chart and kept in the URL', async () => {
  const { page, problems } = await site.open(LESSON, { width: 1280, height: 720 });
  const lab = await liveWidget(page, 'knee-lab');
  await lab.locator('.lab-status[data-state="done"]').waitFor({ timeout: 20000 });
  const chart = lab.locator('canvas').first();
  const linear = lab.getByRole('radio', { name: 'Linear' });
  assert.ok(await linear.isChecked(), 'linear is the default');
  assert.match(await chart.getAttribute('aria-label'), /Latency axis: linear\.$/);
  assert.equal(await lab.getByRole('group', { name: 'Latency axis' }).count(), 1, 'the switch is a named group');
  await lab.locator('.lab-charts-main').scrollIntoViewIfNeeded();
  await screenshot(page, 'knee-glance-lab-1280x720-linear');
  assert.deepEqual(await axeViolations(page), [], 'axe, linear');

  await linear.focus();
  await page.keyboard.press('ArrowRight');
  assert.ok(await lab.getByRole('radio', { name: 'Log' }).isChecked(), 'an arrow key moves to Log');
  await lab.locator('canvas[aria-label$="Latency axis: logarithmic."]').first().waitFor({ timeout: 5000 });
  await page.waitForFunction(() => new URLSearchParams(location.search).get('scale') === 'log');
  assert.deepEqual(await axeViolations(page), [], 'axe, log');
  await page.keyboard.press('ArrowLeft');
  await lab.locator('canvas[aria-label$="Latency axis: linear."]').first().waitFor({ timeout: 5000 });
  assert.deepEqual(problems(), []);
});

test('the lab on a phone draws the knee on the linear axis', async () => {
  const { page, problems } = await site.open(LESSON + '?load=0.97', { width: 390, height: 844 });
  const lab = await liveWidget(page, 'knee-lab');
  await lab.locator('.lab-status[data-state="done"]').waitFor({ timeout: 20000 });
  assert.match(await lab.locator('canvas').first().getAttribute('aria-label'), /^At 97% load .*Latency axis: linear\.$/);
  await lab.locator('.lab-charts-main canvas').first().scrollIntoViewIfNeeded();
  await screenshot(page, 'knee-glance-lab-390-linear');
  assert.deepEqual(problems(), []);
});

test('a bad scale in the URL is replaced by linear with a visible note', async () => {
  const { page, problems } = await site.open(LESSON + '?scale=cubic');
  const lab = await liveWidget(page, 'knee-lab');
  await lab.locator('.lab-notes').getByText('scale="cubic" is not one of linear, log; using linear').waitFor();
  assert.ok(await lab.getByRole('radio', { name: 'Linear' }).isChecked());
  assert.deepEqual(problems(), []);
});

test('at 100% the figures show what the finite run measured, marked as growing, beside the queue growth', async () => {
  const { page, problems } = await site.open(LESSON + '?load=1');
  const lab = await liveWidget(page, 'knee-lab');
  await lab.locator('.lab-status[data-state="done"]').waitFor({ timeout: 20000 });
  const readout = async (key) => (await lab.locator(`.lab-readouts-headline [data-readout="${key}"] dd`).textContent()).trim();
  const p50 = await readout('p50');
  const p99 = await readout('p99');
  assert.match(p50, /^≥ [\d.]+ (ms|s) and growing$/);
  assert.match(p99, /^≥ [\d.]+ (ms|s) and growing$/);
  assert.match(await readout('ratio'), /^[\d.]+× so far$/);
  assert.match(await readout('slo'), /^missed \(≥ [\d.]+ (ms|s) and growing\)$/);
  assert.match(await readout('goodput'), /^[\d.]+ req\/s and falling$/);
  assert.match(await readout('growth'), /req\/s, without bound$/);
  assert.match(await readout('waiting-at-end'), /^\d+ requests$/);
  const seconds = (text) => {
    const [, value, unit] = /([\d.]+) (ms|s)/.exec(text);
    return Number(value) / (unit === 'ms' ? 1000 : 1);
  };
  assert.ok(seconds(p99) > seconds(p50), `p99 ${p99} above p50 ${p50}`);
  assert.ok(seconds(p99) > 0.5, `p99 ${p99} is past the 500 ms SLO at 100%`);
  // The distribution shows the same finished requests, not "no requests yet": its p99 is the figure's, as a floor.
  const distribution = await lab.locator('canvas').evaluateAll((canvases) => canvases.map((c) => c.getAttribute('aria-label')));
  const grown = distribution.find((label) => /finished so far/.test(label));
  assert.ok(grown, `a distribution of the finished requests: ${distribution.join(' | ')}`);
  assert.match(grown, /^At 100% load, where the queue grows without bound, the \d+ requests the run finished so far/);
  assert.ok(grown.includes(`p99 at ${p99.replace(' and growing', '')}, and growing`), `${grown} vs the figure ${p99}`);
  await screenshot(page, 'knee-glance-lab-100');
  const histogram = lab.locator('.lab-charts-more canvas').last();
  await histogram.scrollIntoViewIfNeeded();
  await page.waitForTimeout(300);
  await histogram.screenshot({ path: 'tests/browser/artifacts/knee-glance-distribution-100.png' });
  assert.deepEqual(problems(), []);
});
