// The instructor's room: no text is drawn over a chart's text — presented at 1920×1080 and 1280×720, the lab's
// caption under its two charts clears their x-axis titles and the fleet's charts' text clears itself; on "Your server"
// at 768 and 1280 px, the measured rings' labels clear each other, the curves' value labels and every ring; on the
// lesson page at 390 and 768 px, the fleet's and the batch timeline's charts print no text over text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { siteUnderTest, screenshot, liveWidget } from './harness.mjs';

const LESSON = 'lessons/latency-throughput-slos/';
const FIXTURES = fileURLToPath(new URL('../fixtures/your-server/', import.meta.url));
const RESULTS = ['light-0.3rps.json', 'light-0.8rps.json'].map((name) => FIXTURES + name);
const site = siteUnderTest();

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

/**
 * Records where every canvas writes its text, from its last drawing (a drawing starts by sizing or clearing the
 * canvas, and may copy another canvas onto it): `window.__canvasTextBoxes(canvas)` lists each string with its box in
 * the page's CSS pixels, from the context's transform and the text's measured extent (so rotated and aligned text is
 * boxed where it is drawn).
 * `window.__canvasRings(canvas)` lists the rings it stroked (the measured runs') as boxes the same way, each named
 * "○" for the overlap messages.
 */
export function recordCanvasTextBoxes() {
  const drawn = new WeakMap();
  const rings = new WeakMap();
  const width = Object.getOwnPropertyDescriptor(HTMLCanvasElement.prototype, 'width');
  Object.defineProperty(HTMLCanvasElement.prototype, 'width', {
    ...width,
    set(value) { drawn.set(this, []); rings.set(this, []); width.set.call(this, value); },
  });
  // A circle is a ring when its path is stroked (a filled one is a dot at the current load, or its halo).
  const path = new WeakMap();
  const { arc, beginPath, stroke } = CanvasRenderingContext2D.prototype;
  CanvasRenderingContext2D.prototype.beginPath = function (...rest) {
    path.set(this, []);
    return beginPath.call(this, ...rest);
  };
  CanvasRenderingContext2D.prototype.arc = function (x, y, r, ...rest) {
    const t = this.getTransform();
    const [cx, cy] = [t.a * x + t.c * y + t.e, t.b * x + t.d * y + t.f];
    path.get(this)?.push({ cx, cy, r: r * Math.hypot(t.a, t.b) });
    return arc.call(this, x, y, r, ...rest);
  };
  CanvasRenderingContext2D.prototype.stroke = function (...rest) {
    const half = this.lineWidth / 2;
    for (const { cx, cy, r } of path.get(this) ?? []) {
      rings.get(this.canvas)?.push({ text: '○', left: cx - r - half, right: cx + r + half, top: cy - r - half, bottom: cy + r + half });
    }
    return stroke.call(this, ...rest);
  };
  const fillText = CanvasRenderingContext2D.prototype.fillText;
  CanvasRenderingContext2D.prototype.fillText = function (text, x, y, ...rest) {
    const m = this.measureText(String(text));
    const t = this.getTransform();
    const corners = [
      [x - m.actualBoundingBoxLeft, y - m.actualBoundingBoxAscent],
      [x + m.actualBoundingBoxRight, y - m.actualBoundingBoxAscent],
      [x - m.actualBoundingBoxLeft, y + m.actualBoundingBoxDescent],
      [x + m.actualBoundingBoxRight, y + m.actualBoundingBoxDescent],
    ].map(([px, py]) => [t.a * px + t.c * py + t.e, t.b * px + t.d * py + t.f]);
    drawn.get(this.canvas)?.push({
      text: String(text),
      left: Math.min(...corners.map((c) => c[0])),
      right: Math.max(...corners.map((c) => c[0])),
      top: Math.min(...corners.map((c) => c[1])),
      bottom: Math.max(...corners.map((c) => c[1])),
    });
    return fillText.call(this, text, x, y, ...rest);
  };
  // A chart drawn again at its size is cleared, not sized; a chart against load copies its kept base (a canvas off
  // the page) before it paints its marker: a full clear forgets what a canvas showed, a copy brings the source's.
  const { clearRect, drawImage } = CanvasRenderingContext2D.prototype;
  CanvasRenderingContext2D.prototype.clearRect = function (x, y, w, h) {
    if (x <= 0 && y <= 0 && x + w >= this.canvas.width && y + h >= this.canvas.height) {
      drawn.set(this.canvas, []);
      rings.set(this.canvas, []);
    }
    return clearRect.call(this, x, y, w, h);
  };
  CanvasRenderingContext2D.prototype.drawImage = function (image, ...rest) {
    if (image instanceof HTMLCanvasElement && rest.length === 2) {
      const t = this.getTransform();
      const [dx, dy] = [rest[0] + t.e, rest[1] + t.f];
      const moved = (b) => ({ ...b, left: b.left + dx, right: b.right + dx, top: b.top + dy, bottom: b.bottom + dy });
      for (const boxes of [drawn, rings]) boxes.get(this.canvas)?.push(...(boxes.get(image) ?? []).map(moved));
    }
    return drawImage.call(this, image, ...rest);
  };
  const inPage = (canvas, boxes) => {
    const rect = canvas.getBoundingClientRect();
    const scale = rect.width / canvas.width;
    return (boxes.get(canvas) ?? []).map((b) => ({
      text: b.text,
      left: rect.left + b.left * scale,
      right: rect.left + b.right * scale,
      top: rect.top + b.top * scale,
      bottom: rect.top + b.bottom * scale,
    }));
  };
  window.__canvasTextBoxes = (canvas) => inPage(canvas, drawn);
  window.__canvasRings = (canvas) => inPage(canvas, rings);
}

/** The boxes of the text in each SVG under `selector` (the fleet's charts), in the page's CSS pixels, per SVG. */
async function svgTextBoxes(page, selector) {
  return page.evaluate((selector) => [...document.querySelectorAll(selector)].map((svg) =>
    [...svg.querySelectorAll('text')].filter((t) => t.textContent.trim()).map((t) => {
      const r = t.getBoundingClientRect();
      return { text: t.textContent.trim(), left: r.left, right: r.right, top: r.top, bottom: r.bottom };
    }).filter((b) => b.right > b.left)), selector);
}

/** How far two boxes overlap, as [width, height] (both > 0 when they do). */
function overlap(a, b) {
  return [Math.min(a.right, b.right) - Math.max(a.left, b.left), Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top)];
}

/** Waits until the screen in `scope` has settled on its type size (the refit is done) and drawn twice. */
async function settledScreen(page, scope) {
  await page.waitForFunction((scope) => {
    const slide = document.querySelector(`${scope} .present-slide`);
    return slide && slide.scrollHeight <= slide.clientHeight + 1 && slide.dataset.fit !== 'scroll';
  }, scope, { timeout: 10000 });
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  await page.waitForTimeout(300);
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
}

for (const [width, height] of [[1920, 1080], [1280, 720]]) {
  test(`presented at ${width}×${height}, the lab's caption clears its charts' x-axis titles`, async () => {
    const { page, context, problems } = await site.open(`${LESSON}?present=1`, { width, height });
    await context.addInitScript(recordCanvasTextBoxes);
    await page.reload();
    await presentScreenWith(page, '.knee-lab-full');
    const scope = '.present-audience';
    await page.locator(`${scope} .knee-lab-full [data-readout="p99"] dd`).filter({ hasText: /\d/ }).waitFor({ timeout: 20000 });
    await page.locator(`${scope} .knee-lab-full .lab-explanation`).filter({ hasText: /Open loop/ }).waitFor({ timeout: 20000 });
    await settledScreen(page, scope);
    const measured = await page.evaluate((scope) => {
      const caption = document.querySelector(`${scope} .knee-lab-full .lab-explanation`);
      const box = (r) => ({ left: r.left, right: r.right, top: r.top, bottom: r.bottom });
      // The caption's text lines, not its box (a block is as wide as its column even where no letter is).
      const range = document.createRange();
      range.selectNodeContents(caption);
      const lines = [...range.getClientRects()].map(box).filter((r) => r.right > r.left);
      const titles = [...document.querySelectorAll(`${scope} .lab-charts-main canvas`)].flatMap((canvas) =>
        window.__canvasTextBoxes(canvas).filter((b) => /offered load/i.test(b.text)));
      const canvases = [...document.querySelectorAll(`${scope} .lab-charts-main canvas`)].map((c) => box(c.getBoundingClientRect()));
      return { text: caption.textContent.slice(0, 40), lines, titles, canvases, captionBox: box(caption.getBoundingClientRect()) };
    }, scope);
    console.log(`${width}×${height}: caption "${measured.text}…" ${JSON.stringify(measured.captionBox)}`);
    console.log(`  x-axis titles: ${measured.titles.map((t) => `"${t.text}" ${Math.round(t.top)}–${Math.round(t.bottom)}`).join(', ')}`);
    console.log(`  canvases: ${measured.canvases.map((c) => `${Math.round(c.top)}–${Math.round(c.bottom)}`).join(', ')}`);
    await screenshot(page, `room-lab-caption-${width}x${height}`);
    assert.equal(measured.titles.length, 2, 'both charts draw their x-axis title');
    for (const title of measured.titles) {
      for (const line of measured.lines) {
        const [w, h] = overlap(title, line);
        assert.ok(w <= 0 || h <= 0, `the caption's line ${JSON.stringify(line)} runs over "${title.text}" ${JSON.stringify(title)}`);
      }
    }
    // Nor does the caption run over the canvases at all: it sits under them.
    for (const canvas of measured.canvases) {
      assert.ok(measured.captionBox.top >= canvas.bottom - 1, `caption top ${measured.captionBox.top}, canvas bottom ${canvas.bottom}`);
    }
    assert.deepEqual(problems(), []);
  });
}

/**
 * Pairs of strings in `boxes` drawn over each other (by more than a pixel each way). The same string twice in the same
 * place reads as one: plotters draws each power of ten of a log axis twice, as the last tick of one decade and the
 * first of the next.
 */
function collisions(boxes) {
  const found = [];
  const same = (a, b) => a.text === b.text && Math.abs(a.left - b.left) < 1 && Math.abs(a.top - b.top) < 1;
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      if (same(boxes[i], boxes[j])) continue;
      const [w, h] = overlap(boxes[i], boxes[j]);
      if (w > 1 && h > 1) found.push(`"${boxes[i].text}" × "${boxes[j].text}" (${w.toFixed(0)}×${h.toFixed(0)} px)`);
    }
  }
  return found;
}

/** Text drawn over a measured run's ring (by more than a pixel each way): a label on a ring hides both. */
function onRings(boxes, rings) {
  return boxes.flatMap((b) => rings.map((r) => [r, overlap(b, r)]).filter(([, [w, h]]) => w > 1 && h > 1)
    .map(([r, [w, h]]) => `"${b.text}" on the circle at ${Math.round((r.left + r.right) / 2)},${Math.round((r.top + r.bottom) / 2)} `
      + `(${w.toFixed(0)}×${h.toFixed(0)} px)`));
}

for (const width of [768, 1280]) {
  test(`on "Your server" at ${width} px, the measured rings' labels and the curves' value labels never print over each other nor over a ring`, async () => {
    const { page, context, problems } = await site.open(LESSON, { width, height: 720 });
    await context.addInitScript(recordCanvasTextBoxes);
    await page.reload();
    const lab = await liveWidget(page, 'knee-lab');
    const details = lab.locator('details.lab-your-server');
    await details.locator('summary').click();
    await details.getByLabel('Files', { exact: true }).setInputFiles(RESULTS);
    await details.getByLabel('Your --max-num-seqs', { exact: true }).fill('64');
    await details.getByRole('button', { name: 'Calibrate' }).click();
    await details.locator('[data-yours="status"]').filter({ hasText: /Calibrated in/ }).waitFor({ timeout: 20000 });
    const slider = lab.getByRole('slider', { name: 'Offered load' });
    const canvases = lab.locator('.lab-charts-main canvas');
    // Light load, where the runs were measured and the rings sit among the curves' dots; then a heavier one.
    for (const [key, name] of [['Home', 'light'], ['PageUp', 'light-plus'], ['End', 'full']]) {
      await slider.focus();
      await page.keyboard.press(key);
      await lab.locator('.lab-status[data-state="done"]').waitFor({ timeout: 30000 });
      await canvases.first().scrollIntoViewIfNeeded();
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      await page.waitForTimeout(300);
      const drawn = await canvases.evaluateAll((all) => all.map((canvas) => ({
        text: window.__canvasTextBoxes(canvas), rings: window.__canvasRings(canvas),
      })));
      const load = await slider.getAttribute('aria-valuetext');
      await screenshot(page, `room-your-server-${name}-${width}`);
      const rings = drawn.flatMap((d) => d.text).filter((b) => /^model /.test(b.text)).length;
      const found = drawn.flatMap((d) => collisions(d.text));
      const covered = drawn.flatMap((d) => onRings(d.text, d.rings));
      console.log(`${width} px at ${load}: ${drawn.flatMap((d) => d.text).length} strings, ${rings} ring labels, `
        + `${drawn.flatMap((d) => d.rings).length} rings; overlaps: ${[...found, ...covered].join('; ') || 'none'}`);
      assert.deepEqual(found, [], `text over text at ${load}`);
      assert.deepEqual(covered, [], `text over a ring at ${load}`);
    }
    assert.deepEqual(problems(), []);
  });
}

for (const width of [390, 768]) {
  test(`at ${width} px on the lesson page, the fleet's charts and the batch timeline draw no text over text`, async () => {
    const { page, context, problems } = await site.open(LESSON, { width, height: 800 });
    await context.addInitScript(recordCanvasTextBoxes);
    await page.reload();
    const timeline = await liveWidget(page, 'batch-timeline');
    const timelineCanvases = timeline.locator('canvas[role="img"]');
    await timelineCanvases.first().waitFor({ timeout: 20000 });
    await timelineCanvases.first().scrollIntoViewIfNeeded();
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    await page.waitForTimeout(300);
    const timelineText = await timelineCanvases.evaluateAll((all) => all.map((canvas) => window.__canvasTextBoxes(canvas)));
    await screenshot(page, `room-timeline-${width}`);
    const fleet = await liveWidget(page, 'fleet-day');
    await fleet.locator('.fleet-compared:not([aria-busy]) .fleet-compare').waitFor({ timeout: 30000 });
    await fleet.locator('.fleet-charts').scrollIntoViewIfNeeded();
    const fleetText = await svgTextBoxes(page, 'section[data-widget="fleet-day"] .fleet-svg svg');
    await fleet.locator('.fleet-charts').screenshot({ path: `tests/browser/artifacts/room-fleet-${width}.png` });
    const strings = (all) => all.flat().length;
    const found = [...timelineText, ...fleetText].flatMap(collisions);
    console.log(`${width} px: timeline ${strings(timelineText)} strings, fleet ${strings(fleetText)} strings; overlaps: ${found.join('; ') || 'none'}`);
    assert.ok(strings(timelineText) > 0 && fleetText.length === 2 && fleetText.every((svg) => svg.length > 0), 'both widgets drew text');
    assert.deepEqual(found, []);
    assert.deepEqual(problems(), []);
  });
}

/** Sizes and boxes of the presented fleet in `scope`: its figures, its charts' SVG text, and how far it reaches. */
async function fleetLayout(page, scope) {
  return page.evaluate((scope) => {
    const root = document.querySelector(`${scope} [data-widget="fleet-day"]`);
    const size = (e) => parseFloat(getComputedStyle(e).fontSize);
    const figures = [...root.querySelectorAll('.fleet-figures dd')].map(size);
    const svgs = [...root.querySelectorAll('.fleet-svg svg')];
    const charts = svgs.map((svg) => {
      const r = svg.getBoundingClientRect();
      const texts = [...svg.querySelectorAll('text')].map((t) => t.getBoundingClientRect().height).filter((h) => h > 0);
      // An SVG's text is drawn at its font size and scaled with the picture.
      const scale = r.width / (svg.viewBox?.baseVal?.width || svg.width.baseVal.value || r.width);
      const px = [...svg.querySelectorAll('text')].map((t) => parseFloat(t.getAttribute('font-size') ?? getComputedStyle(t).fontSize) * scale);
      return { width: r.width, height: r.height, top: r.top, bottom: r.bottom, smallest: Math.min(...px), count: texts.length };
    });
    const controls = [...root.querySelectorAll('select, input, button')].map(size);
    const nav = document.querySelector('.present-audience .present-nav, .present-audience nav');
    const lowest = Math.max(...[...root.querySelectorAll('*')].filter((e) => e.checkVisibility())
      .map((e) => e.getBoundingClientRect().bottom));
    return { figures, charts, controls: Math.max(...controls), lowest, navTop: nav ? nav.getBoundingClientRect().top : innerHeight, innerHeight };
  }, scope);
}

for (const [width, height, least] of [[1920, 1080, 40], [1280, 720, 28]]) {
  test(`presented at ${width}×${height}, the fleet reads like the lab: figures ≥ ${least} px, charts alike with text ≥ ${least / 2} px, all on the screen`, async () => {
    const { page, problems } = await site.open(`${LESSON}?present=1`, { width, height });
    await presentScreenWith(page, '[data-widget="fleet-day"]');
    const scope = '.present-audience';
    await page.locator(`${scope} .fleet-summary`).filter({ hasText: /SLO attainment/ }).waitFor({ timeout: 30000 });
    await page.locator(`${scope} .fleet-compare`).waitFor({ timeout: 30000 });
    await settledScreen(page, scope);
    const layout = await fleetLayout(page, scope);
    const text = await svgTextBoxes(page, `${scope} .fleet-svg svg`);
    await screenshot(page, `room-fleet-present-${width}x${height}`);
    console.log(`fleet ${width}×${height}: ${JSON.stringify(layout)}`);
    assert.equal(layout.figures.length, 4, 'four headline figures');
    assert.ok(Math.min(...layout.figures) >= least, `figures ${layout.figures} px`);
    assert.ok(Math.min(...layout.figures) > layout.controls, `figures ${layout.figures} px, controls ${layout.controls} px`);
    assert.equal(layout.charts.length, 2);
    const [a, b] = layout.charts;
    assert.ok(Math.abs(a.width - b.width) <= 2 && Math.abs(a.height - b.height) <= 2, `charts ${a.width}×${a.height} and ${b.width}×${b.height}`);
    for (const chart of layout.charts) assert.ok(chart.smallest >= least / 2, `chart text ${chart.smallest} px`);
    // Every string of both charts clear of every other: tick labels, axis keys, legend and titles.
    assert.equal(text.length, 2);
    assert.deepEqual(text.flatMap(collisions), [], 'text over text in the fleet\'s charts');
    assert.ok(layout.lowest <= layout.navTop + 1, `the widget reaches ${layout.lowest}, the navigation starts at ${layout.navTop}`);
    assert.deepEqual(problems(), []);
  });
}

test('the fleet presented: the presenter drives its settings, time and Play by keyboard, the room drives them back, and a late window catches up', async () => {
  const audience = await site.open(`${LESSON}?present=1`, { width: 1280, height: 720 });
  await presentScreenWith(audience.page, '[data-widget="fleet-day"]');
  const presenterPage = await audience.context.newPage();
  await presenterPage.goto(site.url(`${LESSON}?present=1&view=presenter`));
  const inAudience = audience.page.locator('.present-audience [data-widget="fleet-day"]');
  const inPresenter = presenterPage.locator('.presenter-current [data-widget="fleet-day"]');
  for (const widget of [inAudience, inPresenter]) {
    await widget.locator('.fleet-summary').filter({ hasText: /SLO attainment/ }).waitFor({ timeout: 30000 });
  }
  const clock = (widget) => widget.locator('.fleet-clock');
  const shown = async (widget, text) => widget.locator('.fleet-clock').filter({ hasText: new RegExp(`^${text}$`) }).waitFor({ timeout: 5000 });

  // The presenter picks another signal with the arrow keys: the room's day follows, its comparison marking it.
  await inPresenter.getByLabel('Autoscaler scales on').focus();
  await presenterPage.keyboard.press('ArrowUp');
  assert.equal(await inPresenter.getByLabel('Autoscaler scales on').inputValue(), '0');
  await audience.page.waitForFunction(() => document.querySelector('.present-audience [data-widget="fleet-day"] select[name="policy"]')?.value === '0', null, { timeout: 5000 });
  await inAudience.locator('.fleet-compare tr[aria-current="true"] th').filter({ hasText: 'GPU utilisation' }).waitFor({ timeout: 30000 });

  // The scrubber, by keyboard in the presenter window: the room's clock and charts' names follow.
  await inPresenter.getByLabel('Time of day').focus();
  await presenterPage.keyboard.press('End');
  await shown(inAudience, '30:00');
  await audience.page.waitForFunction(() => /^At 30:00/.test(document.querySelector('.present-audience .fleet-load [role="img"]')?.getAttribute('aria-label') ?? ''), null, { timeout: 10000 });

  // Play by Enter in the presenter window: the room's day moves and its button offers Pause; the room's Pause stops
  // it in both windows.
  await inPresenter.getByRole('button', { name: 'Play' }).press('Enter');
  await inAudience.getByRole('button', { name: 'Pause' }).waitFor({ timeout: 5000 });
  await audience.page.waitForFunction(() => {
    const at = document.querySelector('.present-audience .fleet-clock')?.textContent ?? '';
    return /^[0-9]:\d\d$/.test(at) && at !== '0:00';
  }, null, { timeout: 10000 });
  await inAudience.getByRole('button', { name: 'Pause' }).press('Enter');
  await inPresenter.getByRole('button', { name: 'Play' }).waitFor({ timeout: 5000 });
  const stopped = await clock(inPresenter).textContent();
  await audience.page.waitForTimeout(600);
  assert.equal(await clock(inPresenter).textContent(), stopped, 'paused in the presenter window');
  await shown(inAudience, stopped);

  // The room changes the traffic: the presenter's follows.
  await inAudience.getByLabel('Traffic').focus();
  await audience.page.keyboard.press('ArrowDown');
  const traffic = await inAudience.getByLabel('Traffic').inputValue();
  await presenterPage.waitForFunction((v) => document.querySelector('.presenter-current [data-widget="fleet-day"] select[name="shape"]')?.value === v, traffic, { timeout: 5000 });

  // A window opened late shows the same day at the same time.
  const late = await audience.context.newPage();
  await late.goto(site.url(`${LESSON}?present=1`));
  const inLate = late.locator('.present-audience [data-widget="fleet-day"]');
  await inLate.locator('.fleet-summary').filter({ hasText: /SLO attainment/ }).waitFor({ timeout: 30000 });
  await shown(inLate, stopped);
  assert.equal(await inLate.getByLabel('Autoscaler scales on').inputValue(), '0');
  assert.equal(await inLate.getByLabel('Traffic').inputValue(), traffic);
  assert.equal(await inLate.locator('.fleet-summary').textContent(), await inAudience.locator('.fleet-summary').textContent());
  await screenshot(presenterPage, 'room-fleet-presenter-1280x720');
  // The presenter's pane holds both charts side by side, their text clear of itself there too.
  const pane = await svgTextBoxes(presenterPage, '.presenter-current .fleet-svg svg');
  assert.equal(pane.length, 2);
  assert.deepEqual(pane.flatMap(collisions), [], 'text over text in the presenter\'s charts');
  assert.deepEqual(audience.problems(), []);
});

for (const width of [390, 768, 1024, 1280]) {
  test(`at ${width} px, the lesson holds the fleet's room at about its real height while its worker starts`, async () => {
    const { page, context, problems } = await site.open(LESSON, { width, height: 800 });
    // The worker's code held back a moment, as on a slow network: the widget is mounted and waits for it.
    await context.route('**/fleet-worker*', async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await route.continue();
    });
    await page.reload();
    const widget = await liveWidget(page, 'fleet-day');
    const height = () => widget.evaluate((section) => Math.round(section.getBoundingClientRect().height));
    await page.waitForTimeout(300);
    assert.equal(await widget.locator('.fleet-svg').count(), 0, 'the worker has not answered yet');
    const held = await height();
    await widget.locator('.fleet-compared:not([aria-busy]) .fleet-compare').waitFor({ timeout: 30000 });
    const real = await height();
    console.log(`fleet at ${width} px: held ${held} px while the worker starts, ${real} px once it has drawn`);
    assert.ok(held <= real + 1 && held >= real - 120, `held ${held} px, real ${real} px`);
    assert.deepEqual(problems(), []);
  });
}
