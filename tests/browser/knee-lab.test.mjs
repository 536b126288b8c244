// The knee lab as a learner and an instructor use it: drag the load from 85% to 100% and watch the tail tear away
// and goodput fall; close the loop and watch the tail vanish; share the state in the URL; survive bad URL values.
// Every figure is read from the accessible text (readouts, data tables, aria-labels), never from pixels.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { siteUnderTest, axeViolations, screenshot, liveWidget } from './harness.mjs';

const LESSON_PATH = 'lessons/latency-throughput-slos/';
const site = siteUnderTest();

async function openLab(query = '', viewport) {
  const opened = await site.open(`${LESSON_PATH}${query}`, viewport);
  const lab = await liveWidget(opened.page, 'knee-lab');
  await lab.scrollIntoViewIfNeeded();
  await waitForFinal(lab);
  return { ...opened, lab };
}

/** Waits until the lab's status says its estimate is final. */
async function waitForFinal(lab) {
  await lab.locator('.lab-status[data-state="done"]').waitFor({ timeout: 20000 });
}

/** A readout's text, e.g. readout(lab, 'p99') → "1.5 s". */
async function readout(lab, key) {
  return (await lab.locator(`[data-readout="${key}"] dd`).textContent()).trim();
}

/** Seconds from "69 ms" / "1.5 s". */
function seconds(text) {
  const m = /^([\d.]+) (ms|s)/.exec(text);
  assert.ok(m, `not a duration: ${text}`);
  return Number(m[1]) / (m[2] === 'ms' ? 1000 : 1);
}

/** The goodput share from "21 req/s (93% of throughput)". */
function goodputShare(text) {
  const m = /\(([\d.]+)% of throughput\)/.exec(text);
  assert.ok(m, `no share in: ${text}`);
  return Number(m[1]) / 100;
}

async function slider(lab) {
  return lab.getByRole('slider', { name: 'Offered load' });
}

test('dragging the load from 85% to 100% tears p99 away from p50 and goodput away from throughput', async () => {
  const { page, lab, problems } = await openLab();
  const load = await slider(lab);
  assert.equal(await load.inputValue(), '85');
  await load.focus();
  const seen = [];
  for (let percent = 85; percent <= 100; percent += 1) {
    if (percent > 85) await page.keyboard.press('ArrowRight');
    assert.equal((await lab.locator('.lab-load-value').textContent()).trim(), `${percent}%`);
    if (percent < 100) {
      seen.push({
        percent,
        p50: seconds(await readout(lab, 'p50')),
        p99: seconds(await readout(lab, 'p99')),
        share: goodputShare(await readout(lab, 'goodput')),
      });
    }
  }
  const at = (p) => seen.find((s) => s.percent === p);
  for (const [low, high] of [[85, 90], [90, 95]]) {
    assert.ok(at(high).p99 / at(high).p50 > at(low).p99 / at(low).p50, `p99/p50 should rise from ${low}% to ${high}%`);
  }
  assert.ok(at(99).p99 > 5 * at(85).p99, 'p99 should explode near 100%');
  for (const [low, high] of [[85, 90], [90, 95], [95, 99]]) {
    assert.ok(at(high).share < at(low).share, `goodput/throughput should fall from ${low}% to ${high}%`);
  }
  // At 100% open loop there is no steady state: the page says so, and prints what the finite run measured as a
  // floor that keeps growing (tests/browser/knee-glance.test.mjs reads those figures).
  assert.match(await readout(lab, 'waiting-at-end'), /^\d+ requests$/);
  assert.match(await readout(lab, 'p99'), /^≥ [\d.]+ (ms|s) and growing$/);
  const label = await lab.locator('canvas').first().getAttribute('aria-label');
  assert.match(label, /At 100% load p99 TTFT has no steady value/);
  await screenshot(page, 'knee-lab-100-open');
  assert.deepEqual(problems(), []);
});

test('closing the loop at 99% brings p99 down and shows the users backing off', async () => {
  const { page, lab, problems } = await openLab('?load=0.99');
  const openP99 = seconds(await readout(lab, 'p99'));
  await lab.getByRole('radio', { name: 'Closed loop' }).check();
  await waitForFinal(lab);
  const closedP99 = seconds(await readout(lab, 'p99'));
  assert.ok(closedP99 < openP99 / 2, `closed-loop p99 ${closedP99}s should be far below open-loop ${openP99}s`);
  assert.match(await readout(lab, 'users'), /^\d+$/);
  assert.match(await lab.locator('.lab-explanation').textContent(), /send less/);
  await page.waitForFunction(() => location.search.includes('loop=closed'));
  assert.deepEqual(problems(), []);
});

test('the URL carries the lab state both ways, and a bad value is clamped with a visible note', async () => {
  const { page, lab, problems } = await openLab('?load=0.97&loop=closed&metric=tpot');
  assert.equal(await (await slider(lab)).inputValue(), '97');
  assert.ok(await lab.getByRole('radio', { name: 'Closed loop' }).isChecked());
  assert.match(await lab.locator('canvas').first().getAttribute('aria-label'), /TPOT/);
  await (await slider(lab)).focus();
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction(() => location.search.includes('load=0.96'));
  await page.reload();
  const again = await liveWidget(page, 'knee-lab');
  assert.equal(await again.getByRole('slider', { name: 'Offered load' }).inputValue(), '96');

  const bad = await openLab('?load=150&replicas=abc&preset=gpu');
  const note = bad.lab.getByRole('status').filter({ hasText: 'Some settings were adjusted' });
  await note.waitFor();
  const text = await note.textContent();
  assert.match(text, /load=150 is above 100% \(past 100% needs a queue_cap\); using 100%/);
  assert.match(text, /replicas="abc" is not a number/);
  assert.match(text, /preset="gpu" is not one of/);
  assert.equal(await (await slider(bad.lab)).inputValue(), '100');
  await note.getByRole('button', { name: 'Dismiss' }).click();
  assert.equal(await bad.lab.locator('.lab-notes').count(), 0);
  assert.deepEqual(problems(), []);
  assert.deepEqual(bad.problems(), []);
});

test('with the queue cap on at 110% the lab turns the excess away and keeps p99 TTFT bounded', async () => {
  const { page, lab, problems } = await openLab();
  const cap = lab.getByLabel('Queue cap');
  await cap.selectOption('2');
  await waitForFinal(lab);
  assert.match(await lab.locator('.lab-queue-cap .lab-field-hint').textContent(), /^--max-num-queued-reqs 128: load to 120%$/);
  // The slider now reaches past saturation: End goes to 120%, ten steps back is 110%.
  const load = await slider(lab);
  await load.focus();
  await page.keyboard.press('End');
  assert.equal(await load.inputValue(), '120');
  for (let i = 0; i < 10; i += 1) await page.keyboard.press('ArrowLeft');
  assert.equal((await lab.locator('.lab-load-value').textContent()).trim(), '110%');
  await page.waitForFunction(() => location.search.includes('queue_cap=2') && location.search.includes('load=1.10'));
  // Turned away: the excess over saturation, about a tenth of the arrivals.
  const away = /^([\d.]+)% of arrivals \(([\d.]+) req\/s\)$/.exec(await readout(lab, 'turned-away'));
  assert.ok(away, 'the turned-away readout gives a share and a rate');
  assert.ok(Number(away[1]) > 5 && Number(away[1]) < 20, `turned away ${away[1]}%`);
  // A steady state past saturation: p99 TTFT is a bounded number, and no queue grows without bound.
  const p99 = seconds(await readout(lab, 'p99'));
  assert.ok(p99 > 0.5 && p99 < 5, `p99 TTFT ${p99} s`);
  assert.equal(await lab.locator('[data-readout="growth"]').count(), 0);
  assert.match(await lab.locator('.lab-explanation').textContent(), /turns away [\d.]+% of arrivals/);
  // Chart 2 draws the turned-away series and says so in words and in its table.
  const chart = lab.locator('canvas[role="img"]').nth(1);
  assert.match(await chart.getAttribute('aria-label'), /At 110% load .* req\/s are turned away/);
  const table = lab.locator('details.chart-data').nth(1);
  await table.locator('summary').click();
  await table.locator('thead th').first().waitFor();
  assert.match(await table.locator('thead').textContent(), /Turned away \(req\/s\)/);
  assert.equal(await table.locator('tbody tr').count(), 36);
  await chart.scrollIntoViewIfNeeded();
  await screenshot(page, 'knee-lab-queue-cap-110');
  // Off again: the load comes back to 100%, where the queue never drains.
  await cap.selectOption('off');
  await waitForFinal(lab);
  assert.equal(await load.inputValue(), '100');
  assert.match(await readout(lab, 'waiting-at-end'), /^\d+ requests$/);
  assert.equal(await lab.locator('[data-readout="turned-away"]').count(), 0);
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(problems(), []);
});

test('on the KV-bound DistServe preset the lab shows the KV cache filling and sequences preempted', async () => {
  const { page, lab, problems } = await openLab('?preset=distserve&load=0.97');
  assert.match(await readout(lab, 'kv-cache'), /^[\d.]+% on average, 100% at peak$/);
  const preempted = (text) => Number(/^(\d+) \(/.exec(text)?.[1] ?? 'NaN');
  const atDefault = preempted(await readout(lab, 'preemptions'));
  assert.ok(atDefault > 0, `preemptions at 97%: ${atDefault}`);
  assert.match(await lab.locator('.lab-explanation').textContent(), /KV cache filled up too: \d+ running sequences were preempted/);
  // Chart 3 says it in words and in its data table.
  const queue = lab.locator('canvas[role="img"]').nth(2);
  assert.match(await queue.getAttribute('aria-label'), /The KV cache is [\d.]+% full on average, 100% at peak; \d+ sequences were preempted\./);
  const table = lab.locator('details.chart-data').nth(2);
  await table.locator('summary').click();
  await table.locator('thead th').first().waitFor();
  assert.match(await table.locator('thead').textContent(), /KV cache in use.*Preemptions so far/);
  await screenshot(page, 'knee-lab-distserve-kv');
  // Less memory for the cache: more preemptions, and the setting goes into the URL.
  const memory = lab.getByLabel('--gpu-memory-utilization');
  await memory.fill('0.8');
  await memory.press('Enter');
  await lab.locator('.lab-status[data-state="running"]').waitFor({ timeout: 5000 }).catch(() => {});
  await waitForFinal(lab);
  await page.waitForFunction(() => location.search.includes('gpu_memory_utilization=0.8'));
  assert.ok(preempted(await readout(lab, 'preemptions')) > atDefault, 'a smaller cache preempts more');
  // The course box, at the same load, never runs out of KV cache.
  const course = await openLab('?load=0.97');
  assert.equal(await readout(course.lab, 'preemptions'), 'none');
  assert.deepEqual(problems(), []);
  assert.deepEqual(course.problems(), []);
});

test('charts have labels, keyboard-reachable data tables, and crisp backing stores', async () => {
  const { page, lab, problems } = await openLab('', { width: 1920, height: 1080 });
  const canvases = lab.locator('canvas[role="img"]');
  assert.equal(await canvases.count(), 4);
  for (let i = 0; i < 4; i += 1) {
    const canvas = canvases.nth(i);
    assert.ok((await canvas.getAttribute('aria-label')).length > 20);
    const { w, h, cw, ch, dpr } = await canvas.evaluate((c) => ({
      w: c.width, h: c.height, cw: c.clientWidth, ch: c.clientHeight, dpr: devicePixelRatio,
    }));
    assert.ok(Math.abs(w - Math.round(cw * dpr)) <= 2 && Math.abs(h - Math.round(ch * dpr)) <= 2, 'backing store follows CSS size × DPR');
  }
  // The latency table is one Tab press and an Enter away from the download buttons.
  const summary = lab.locator('details.chart-data summary').first();
  await summary.focus();
  await page.keyboard.press('Enter');
  const rows = lab.locator('details.chart-data').first().locator('tbody tr');
  await rows.first().waitFor();
  assert.equal(await rows.count(), 16);
  assert.match(await rows.first().textContent(), /85%/);
  await screenshot(page, 'knee-lab-1920');
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(problems(), []);
});

/** Each lab canvas's CSS size and backing store, once the store is the CSS size × `ratio` (or after 5 s); scrolled
 *  into view first, since charts out of view are not drawn. */
async function backingStores(page, lab, ratio) {
  const canvases = lab.locator('canvas[role="img"]');
  const stores = [];
  for (let i = 0; i < await canvases.count(); i += 1) {
    const canvas = canvases.nth(i);
    await canvas.scrollIntoViewIfNeeded();
    const follows = ([c, r]) => Math.abs(c.width - c.getBoundingClientRect().width * r) <= 2
      && Math.abs(c.height - c.getBoundingClientRect().height * r) <= 2;
    await page.waitForFunction(follows, [await canvas.elementHandle(), ratio], { timeout: 5000 }).catch(() => {});
    stores.push(await canvas.evaluate((c) => ({
      css: `${c.clientWidth}×${c.clientHeight}`, w: c.width, h: c.height, cw: c.clientWidth, ch: c.clientHeight,
    })));
  }
  return stores;
}

test('a change of devicePixelRatio (zoom, another screen) redraws every chart at the new ratio', async () => {
  // Without Playwright's viewport emulation, so the window's ratio can change as a real one does.
  const { page, lab, problems } = await openLab('', null);
  const cdp = await page.context().newCDPSession(page);
  // Headless Chromium re-evaluates media queries (and so reports a new ratio to the page) only when the window's size
  // changes too, so each step also narrows the window a little. The lab is at its widest (84rem) on a window this
  // wide, so its charts keep their CSS size: what redraws them is the new ratio alone, as on a move to another screen.
  let width = 2000;
  const emulate = (deviceScaleFactor) => {
    width -= 40;
    return cdp.send('Emulation.setDeviceMetricsOverride', { width, height: 1000, deviceScaleFactor, mobile: false });
  };
  await emulate(1);
  const before = await backingStores(page, lab, 1);
  for (const ratio of [2, 1.5]) {
    await emulate(ratio);
    assert.equal(await page.evaluate(() => devicePixelRatio), ratio);
    const after = await backingStores(page, lab, ratio);
    assert.deepEqual(after.map((s) => s.css), before.map((s) => s.css), 'the charts keep their CSS size');
    for (const { w, h, cw, ch } of after) {
      assert.ok(Math.abs(w - cw * ratio) <= 2 && Math.abs(h - ch * ratio) <= 2,
        `a ${cw}×${ch} chart at devicePixelRatio ${ratio} has a ${w}×${h} backing store`);
    }
  }
  await screenshot(page, 'knee-lab-dpr-1.5');
  assert.deepEqual(problems(), []);
});

test('a chart the load slider moved to a load is, pixel for pixel, the chart opened at that load', async () => {
  // The charts against load keep their curves while the slider moves and paint only the marker and its values
  // again: no old marker may stay behind, and a change of scenario must bring new curves.
  const moved = await openLab('?load=0.85');
  for (const loop of [/^closed loop$/i, /^open loop$/i]) {
    await moved.lab.getByRole('radio', { name: loop }).check();
    await waitForFinal(moved.lab);
  }
  await (await slider(moved.lab)).focus();
  for (let i = 0; i < 12; i += 1) await moved.page.keyboard.press('ArrowRight');
  await waitForFinal(moved.lab);
  const fresh = await openLab('?load=0.97');
  const [after, opened] = [await chartPictures(moved.lab), await chartPictures(fresh.lab)];
  assert.equal(after.length, 2);
  for (const [i, picture] of after.entries()) {
    assert.match(picture.label, /97% load/);
    assert.equal(picture.label, opened[i].label);
    assert.ok(picture.pixels === opened[i].pixels, `chart ${i + 1} moved to 97% differs from the one opened there`);
  }
  assert.deepEqual(moved.problems(), []);
  assert.deepEqual(fresh.problems(), []);
});

/** The lab's two charts against load (latency, then throughput) as their aria-labels and their pixels, each
 *  scrolled into view (charts out of view are not drawn) and read once its label names the slider's load. */
async function chartPictures(lab) {
  const load = await (await slider(lab)).inputValue();
  const pictures = [];
  for (const name of ['Latency against offered load', 'Throughput and goodput against offered load']) {
    const canvas = lab.locator('figure.chart').filter({ hasText: name }).locator('canvas').first();
    await canvas.scrollIntoViewIfNeeded();
    await canvas.page().waitForFunction(([c, percent]) => c.getAttribute('aria-label')?.includes(`${percent}% load`)
      && c.width > 0, [await canvas.elementHandle(), load], { timeout: 5000 });
    // Two frames, so a draw the scroll asked for has happened.
    await canvas.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
    pictures.push(await canvas.evaluate((c) => ({ label: c.getAttribute('aria-label'), pixels: c.toDataURL() })));
  }
  return pictures;
}

test('the lab reads right at 1280×720, on a phone, and in textbook mode with Erlang C', async () => {
  const { page, lab, problems } = await openLab('?preset=textbook&replicas=4&metric=e2e&load=0.95');
  await screenshot(page, 'knee-lab-1280');
  const table = lab.locator('details.chart-data').first();
  await table.locator('summary').click();
  await table.locator('thead th').first().waitFor();
  assert.match(await table.locator('thead').textContent(), /exact \(Erlang C\)/);
  const phone = await openLab('', { width: 390, height: 844 });
  const overflow = await phone.page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
  assert.ok(overflow <= 0, `page scrolls sideways by ${overflow}px on a phone`);
  await screenshot(phone.page, 'knee-lab-phone');
  assert.deepEqual(problems(), []);
  assert.deepEqual(phone.problems(), []);
});

test('at 100% open loop the lab still shares its /metrics (past the knee) but no latency to size with', async () => {
  const { page, problems } = await openLab('?load=1');
  const reader = await liveWidget(page, 'metrics-reader');
  const useMetrics = reader.getByRole('button', { name: "Use the knee lab's /metrics" });
  await page.waitForFunction(() => [...document.querySelectorAll('button')]
    .some((b) => b.textContent.includes("Use the knee lab's /metrics") && !b.disabled), null, { timeout: 30000 });
  await useMetrics.click();
  const verdict = reader.locator('.reader-verdict').first();
  await verdict.waitFor();
  assert.match(await verdict.textContent(), /past the knee/i);
  const sizer = await liveWidget(page, 'littles-law-sizer');
  const useLatency = sizer.getByRole('button', { name: "Use the knee lab's latency" });
  assert.equal(await useLatency.isDisabled(), true);
  const reason = await page.locator(`[id="${await useLatency.getAttribute('aria-describedby')}"]`).textContent();
  assert.match(reason, /At 100% open-loop load the knee lab's queue grows without bound/);
  assert.deepEqual(problems(), []);
});
