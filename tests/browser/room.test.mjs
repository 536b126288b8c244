// The instructor's room: presented at 1920×1080 and 1280×720, no text is drawn over a chart's text — the lab's
// caption under its two charts clears their x-axis titles.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { siteUnderTest, screenshot } from './harness.mjs';

const LESSON = 'lessons/latency-throughput-slos/';
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
