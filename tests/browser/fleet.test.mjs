// The fleet widget: reached by keyboard on a phone and on a laptop, a new scaling signal changes the day (read through
// the charts' names and the summary line, which its worker writes) and the comparison of every choice marks it, the
// scrubber and Play move through the day, and the page stays axe-clean with no console error. The wasm time of a day
// is printed for the benchmarks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { siteUnderTest, axeViolations, screenshot, liveWidget } from './harness.mjs';

const LESSON = 'lessons/latency-throughput-slos/';
const site = siteUnderTest();

const label = (page, panel) => page.locator(`.fleet-${panel} [role="img"]`).getAttribute('aria-label');

/** Waits until the widget shows a day whose summary line is not `before`; returns it. */
async function summaryOtherThan(page, before) {
  const line = page.locator('.fleet-summary');
  await line.filter({ hasText: /SLO attainment/ }).waitFor({ timeout: 30000 });
  await page.waitForFunction((before) => {
    const text = document.querySelector('.fleet-summary')?.textContent ?? '';
    return text.includes('SLO attainment') && text !== before;
  }, before, { timeout: 30000 });
  return line.textContent();
}

for (const [width, height] of [[390, 844], [1280, 720]]) {
  test(`at ${width}×${height}: by keyboard, a new signal redraws the day, and the scrubber moves through it`, async () => {
    const { page, problems } = await site.open(LESSON, { width, height });
    // The controls, the day's summary and its charts come in together: a summary filled in after the controls
    // would push the scrubber down the page (a layout shift CI once caught at 390 px).
    await page.addInitScript(() => {
      window.__controlsBeforeDay = 0;
      new MutationObserver(() => {
        const widget = document.querySelector('section[data-widget="fleet-day"]');
        const summary = widget?.querySelector('.fleet-summary')?.textContent ?? '';
        if (widget?.querySelector('.fleet-controls') && summary === '') window.__controlsBeforeDay += 1;
      }).observe(document, { childList: true, subtree: true, characterData: true });
    });
    await page.reload();
    const widget = await liveWidget(page, 'fleet-day');
    const first = await summaryOtherThan(page, '');
    assert.equal(await page.evaluate(() => window.__controlsBeforeDay), 0, 'the controls showed before the day');
    // The day's four figures, each a term and its value.
    assert.match(first, /^SLO attainment\d+(\.\d+)?%Replica-hours[\d.]+Longest SLO breach(none|[\d a-z]+)Scale events\d+$/);
    assert.match(await label(page, 'load'), /^At 15:00, [\d.]+ req\/s are offered/);
    assert.match(await label(page, 'service'), /^At 15:00, .*SLO; goodput is [\d.]+ of [\d.]+ req\/s finished\.$/);
    assert.equal(await widget.locator('.fleet-charts svg').count(), 2);
    assert.equal(await widget.locator('.fleet-charts table').count(), 2);
    // Under the charts, the same day under every choice, the one shown marked, within the widget's width.
    // It comes after the charts (every other choice's day is simulated first), and is then no longer marked busy.
    const compare = widget.locator('.fleet-compared:not([aria-busy]) table.fleet-compare');
    await compare.waitFor({ timeout: 30000 });
    assert.equal(await compare.locator('tbody tr').count(), await widget.locator('select[name="policy"] option').count());
    assert.equal(await compare.locator('tr[aria-current="true"] th').textContent(), 'requests waiting');
    assert.ok(await compare.getByRole('rowheader', { name: 'request rate, start-up headroom' }).isVisible());
    const overflow = await compare.evaluate((table) => table.getBoundingClientRect().right - table.closest('section').getBoundingClientRect().right);
    assert.ok(overflow <= 1, `the comparison overflows the widget by ${overflow}px`);

    // From the last control before the widget, Tab reaches its first setting: the signal the autoscaler reads.
    await page.evaluate(() => {
      const focusable = [...document.querySelectorAll('a[href], button, select, input, textarea, summary, [tabindex="0"]')]
        .filter((e) => e.checkVisibility() && !e.disabled);
      const first = document.querySelector('section[data-widget="fleet-day"] select');
      focusable[focusable.indexOf(first) - 1].focus();
    });
    await page.keyboard.press('Tab');
    const signal = widget.getByLabel('Autoscaler scales on');
    const focused = await page.evaluate(() => document.activeElement?.outerHTML.slice(0, 120));
    assert.equal(await signal.evaluate((select) => select === document.activeElement), true, focused);
    await page.keyboard.press('ArrowUp');
    assert.equal(await signal.inputValue(), '0', 'GPU utilisation');
    const busy = await summaryOtherThan(page, first);
    assert.notEqual(busy, first);
    await page.waitForFunction(() => document.querySelector('.fleet-compare tr[aria-current="true"] th')?.textContent === 'GPU utilisation', null, { timeout: 30000 });
    const drawn = await widget.locator('.fleet-took').textContent();
    const ms = Number(/took (\d+) ms/.exec(drawn)?.[1]);
    assert.ok(ms > 0, drawn);
    console.log(`# fleet day in wasm at ${width}px: ${ms} ms`);

    // The scrubber, by keyboard: to the end of the day, where the names read 30:00.
    const time = widget.getByLabel('Time of day');
    await time.focus();
    await page.keyboard.press('End');
    await page.waitForFunction(() => /^At 30:00/.test(document.querySelector('.fleet-load [role="img"]')?.getAttribute('aria-label') ?? ''), null, { timeout: 10000 });
    assert.equal(await time.getAttribute('aria-valuetext'), '30:00');
    assert.equal(await page.locator('.fleet-summary').textContent(), busy, 'scrubbing keeps the day');

    // Play starts again from the beginning and moves on; Pause stops it.
    const play = widget.getByRole('button', { name: 'Play' });
    await play.press('Enter');
    await page.waitForFunction(() => {
      const at = document.querySelector('.fleet-load [role="img"]')?.getAttribute('aria-label') ?? '';
      return /^At 0:[1-5]\d/.test(at) || /^At [1-9]:/.test(at);
    }, null, { timeout: 10000 });
    await widget.getByRole('button', { name: 'Pause' }).press('Enter');
    const paused = await label(page, 'load');
    await page.waitForTimeout(600);
    assert.equal(await label(page, 'load'), paused, 'paused');

    await screenshot(page, `fleet-${width}`, { fullPage: false });
    await widget.screenshot({ path: `tests/browser/artifacts/fleet-widget-${width}.png` });
    assert.deepEqual(await axeViolations(page), []);
    assert.deepEqual(problems(), []);
  });
}
