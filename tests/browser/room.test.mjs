// The instructor's room: no text is drawn over a chart's text — presented at 1920×1080 and 1280×720, the lab's
// caption under its two charts clears their x-axis titles; on "Your server" at 1280 px, the measured rings' labels
// clear each other and the curves' value labels.
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
 * Records where every canvas writes its text, from its last drawing (a drawing starts by sizing the canvas, which
 * clears it): `window.__canvasTextBoxes(canvas)` lists each string with its box in the page's CSS pixels, from the
 * context's transform and the text's measured extent (so rotated and aligned text is boxed where it is drawn).
 */
export function recordCanvasTextBoxes() {
  const drawn = new WeakMap();
  const width = Object.getOwnPropertyDescriptor(HTMLCanvasElement.prototype, 'width');
  Object.defineProperty(HTMLCanvasElement.prototype, 'width', {
    ...width,
    set(value) { drawn.set(this, []); width.set.call(this, value); },
  });
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
  window.__canvasTextBoxes = (canvas) => {
    const rect = canvas.getBoundingClientRect();
    const scale = rect.width / canvas.width;
    return (drawn.get(canvas) ?? []).map((b) => ({
      text: b.text,
      left: rect.left + b.left * scale,
      right: rect.left + b.right * scale,
      top: rect.top + b.top * scale,
      bottom: rect.top + b.bottom * scale,
    }));
  };
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

/** Pairs of strings in `boxes` drawn over each other (by more than a pixel each way). */
function collisions(boxes) {
  const found = [];
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const [w, h] = overlap(boxes[i], boxes[j]);
      if (w > 1 && h > 1) found.push(`"${boxes[i].text}" × "${boxes[j].text}" (${w.toFixed(0)}×${h.toFixed(0)} px)`);
    }
  }
  return found;
}

test('on "Your server" at 1280 px, the measured rings\' labels and the curves\' value labels never print over each other', async () => {
  const { page, context, problems } = await site.open(LESSON, { width: 1280, height: 720 });
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
    const drawn = await canvases.evaluateAll((all) => all.map((canvas) => window.__canvasTextBoxes(canvas)));
    const load = await slider.getAttribute('aria-valuetext');
    await screenshot(page, `room-your-server-${name}-1280`);
    const rings = drawn.flat().filter((b) => /^model /.test(b.text)).length;
    const found = drawn.flatMap(collisions);
    console.log(`at ${load}: ${drawn.flat().length} strings, ${rings} ring labels, overlaps: ${found.join('; ') || 'none'}`);
    assert.deepEqual(found, [], `text over text at ${load}`);
  }
  assert.deepEqual(problems(), []);
});
