// The batch timeline as a learner and an instructor use it: move the load from 85% to 99% and watch the slots fill
// and the queue form; compare chunked prefill on and off with a small token budget; follow another request by
// keyboard or by a click; see it follow the knee lab; present it. Every figure is read from the accessible text (the
// charts' summaries and data tables, the story and the formula), never from pixels.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { siteUnderTest, axeViolations, screenshot, liveWidget } from './harness.mjs';

const LESSON_PATH = 'lessons/latency-throughput-slos/';
const site = siteUnderTest();

async function openTimeline(query = '', viewport = undefined) {
  const opened = await site.open(`${LESSON_PATH}${query}`, viewport);
  const timeline = await liveWidget(opened.page, 'batch-timeline');
  await timeline.scrollIntoViewIfNeeded();
  return { ...opened, timeline };
}

const mainCanvas = (timeline) => timeline.locator('.timeline-main canvas[role="img"]');
const otherCanvas = (timeline) => timeline.locator('.timeline-other canvas[role="img"]');
const summary = (canvas) => canvas.getAttribute('aria-label');

/** The data table under a chart, opened: its header and rows as text. */
async function table(figure) {
  const details = figure.locator('details.chart-data');
  if (!(await details.evaluate((d) => d.open))) await details.locator('summary').click();
  await details.locator('tbody tr').first().waitFor();
  const header = await details.locator('thead th').allTextContents();
  const rows = await details.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((td) => td.textContent)));
  return { header, rows, column: (name) => rows.map((row) => row[header.indexOf(name)]) };
}

/** What the table says about the slots and the queue. */
function slotsAndQueue({ column }) {
  const busy = column('Busy slots').map((cell) => cell.split(' of ').map(Number));
  return {
    iterations: busy.length,
    fullShare: busy.filter(([n, of]) => n === of).length / busy.length,
    maxWaiting: Math.max(...column('Waiting').map(Number)),
  };
}

async function setLoad(page, timeline, percent) {
  const slider = timeline.getByRole('slider', { name: 'Offered load' });
  await slider.focus();
  await page.keyboard.press('Home');
  for (let p = 85; p < percent; p += 1) await page.keyboard.press('ArrowRight');
  await timeline.locator('.lab-load-value').filter({ hasText: `${percent}%` }).waitFor();
  await mainCanvas(timeline).and(timeline.locator(`[aria-label^="At ${percent}% load"]`)).waitFor();
}

test('from 85% to 99% load the slots fill, a queue forms and the followed request waits for a slot', async () => {
  const { page, timeline, problems } = await openTimeline('', { width: 1280, height: 720 });
  const main = timeline.locator('.timeline-main');
  const seen = {};
  for (const percent of [85, 99]) {
    await setLoad(page, timeline, percent);
    const label = await summary(mainCanvas(timeline));
    assert.match(label, new RegExp(`^At ${percent}% load, chunked prefill on, `));
    const numbers = slotsAndQueue(await table(main));
    assert.match(label, new RegExp(`\\(${numbers.iterations} iterations\\)`), 'the summary and the table count the same iterations');
    seen[percent] = { label, ...numbers, story: await timeline.locator('.timeline-story').textContent() };
  }
  assert.ok(seen[99].fullShare > seen[85].fullShare + 0.3, `slots full in ${seen[85].fullShare} → ${seen[99].fullShare} of iterations`);
  assert.ok(seen[99].fullShare >= 0.9);
  assert.ok(seen[99].maxWaiting > seen[85].maxWaiting + 5, `queue ${seen[85].maxWaiting} → ${seen[99].maxWaiting}`);
  assert.match(seen[99].label, /every slot is busy in (all \d+ iterations|\d+% of iterations); request #\d+ waited [\d.]+ (ms|s) for a slot, then prefilled/);
  assert.match(seen[99].story, /^Request #\d+ \(from the slow tail\) waited/);
  const wait = (story) => { const [, v, unit] = /waited ([\d.]+) (ms|s)/.exec(story); return Number(v) / (unit === 'ms' ? 1000 : 1); };
  assert.ok(wait(seen[99].story) > 2 * wait(seen[85].story), 'the tail request waits much longer at 99%');
  await mainCanvas(timeline).scrollIntoViewIfNeeded();
  await screenshot(page, 'batch-timeline-1280');
  assert.deepEqual(problems(), []);
});

// Each load's figures are two runs of the model (10-26 ms on a slow laptop); computed as the slider moved, they made
// its tasks run over 50 ms. Once the timeline is on screen it computes the slider's other loads in tasks of their
// own, so a drag only redraws.
test('once the timeline has settled, the whole load slider is ready: moving it computes nothing more', async () => {
  const { page, timeline, problems } = await openTimeline();
  const computes = () => page.evaluate(() => performance.getEntriesByName('timeline:compute', 'measure').length);
  // 85% to 100%: sixteen loads, each computed once.
  await page.waitForFunction(() => performance.getEntriesByName('timeline:compute', 'measure').length >= 16,
    undefined, { timeout: 20000 });
  await page.waitForTimeout(300);
  const settled = await computes();
  assert.equal(settled, 16, 'a load computed twice, or one more than the slider has');
  await setLoad(page, timeline, 97);
  await setLoad(page, timeline, 100);
  assert.equal(await computes(), settled, 'the slider waited for figures it should have had');
  assert.deepEqual(problems(), []);
});

test('a reader checks an iteration by hand: the formula beside the timeline gives its length from its row', async () => {
  const { timeline, problems } = await openTimeline();
  const formula = await timeline.locator('.timeline-formula-terms').textContent();
  assert.equal(formula.replace(/\s+/g, ' ').trim(),
    'step time = 5.5 ms + 12 µs × prefill tokens + 30 µs × decoding sequences + 30 ns × context tokens');
  const { column } = await table(timeline.locator('.timeline-main'));
  const [lengths, prefill, decoding, context] = ['Length (ms)', 'Prefill tokens', 'Decoding', 'Context tokens'].map((c) => column(c).map(Number));
  for (let i = 0; i < lengths.length; i += 1) {
    const byHand = 5.5 + 0.012 * prefill[i] + 0.030 * decoding[i] + 0.000030 * context[i];
    assert.ok(Math.abs(byHand - lengths[i]) <= 0.06, `row ${i}: ${byHand.toFixed(2)} ms by hand, ${lengths[i]} ms in the table`);
  }
  // The worked example is the longest row.
  const example = await timeline.locator('.timeline-formula-example').textContent();
  const longest = Math.max(...lengths);
  assert.match(example, new RegExp(`= ${Math.round(longest)} ms, the length the simulation gave it`));
  assert.deepEqual(problems(), []);
});

test('with a 2048-token budget chunking caps every iteration, and off a whole prompt rides over it', async () => {
  const { page, timeline, problems } = await openTimeline('', { width: 1920, height: 1080 });
  const budget = timeline.getByLabel('--max-num-batched-tokens');
  assert.equal(await budget.inputValue(), '8192', "the course box's own budget");
  await budget.fill('2048');
  await budget.press('Enter');
  const compare = timeline.getByLabel('Compare with');
  assert.equal(await compare.inputValue(), 'chunking', 'the lesson compares chunking');
  await otherCanvas(timeline).waitFor();
  await page.waitForFunction(() => document.querySelector('.timeline-comparison')?.textContent.startsWith('With chunked prefill off'));
  assert.match(await summary(mainCanvas(timeline)), /^At 90% load, chunked prefill on/);
  assert.match(await summary(otherCanvas(timeline)), /^At 90% load, chunked prefill off/);
  assert.equal(await timeline.locator('.timeline-other figcaption').textContent(), 'The same requests with chunked prefill off');
  const tokens = ({ column }) => {
    const [prefill, decoding] = [column('Prefill tokens'), column('Decoding')];
    return prefill.map((p, i) => Number(p) + Number(decoding[i]));
  };
  const on = tokens(await table(timeline.locator('.timeline-main')));
  const off = tokens(await table(timeline.locator('.timeline-other')));
  assert.ok(Math.max(...on) <= 2048, `chunked, an iteration holds ${Math.max(...on)} tokens`);
  assert.ok(Math.max(...off) > 2048, 'unchunked, a whole long prompt rides over the budget');
  const sentence = await timeline.locator('.timeline-comparison').textContent();
  const [, other, here] = /the longest iteration takes ([\d.]+) ms \(here ([\d.]+) ms\)/.exec(sentence);
  assert.ok(Number(other) > Number(here), `the stall chunking removes: ${sentence}`);
  await otherCanvas(timeline).scrollIntoViewIfNeeded();
  await screenshot(page, 'batch-timeline-1920-budget-2048');
  // Switching chunking here switches the comparison too.
  await timeline.getByRole('checkbox', { name: 'Chunked prefill' }).uncheck();
  await mainCanvas(timeline).and(timeline.locator('[aria-label*="chunked prefill off"]')).waitFor();
  await timeline.locator('.timeline-other figcaption').filter({ hasText: 'with chunked prefill on' }).waitFor();
  // A budget the model refuses is named beside the field, and the timeline keeps its last good one.
  await budget.fill('8');
  await budget.press('Enter');
  assert.match(await timeline.locator('.lab-field-error').textContent(), /Enter a number from 16 to 65536/);
  assert.deepEqual(problems(), []);
});

test('another request is followed from the picker or by a click on its cells, and a new setting goes back to the tail', async () => {
  const { page, timeline, problems } = await openTimeline();
  const picker = timeline.getByLabel('Follow request');
  const tail = await picker.inputValue();
  const options = await picker.locator('option').evaluateAll((os) => os.map((o) => o.value));
  assert.ok(options.length > 20, `${options.length} requests in the window`);
  assert.match(await picker.locator(`option[value="${tail}"]`).textContent(), /the slow-tail pick/);
  const other = options.find((o) => o !== tail);
  await picker.selectOption(other);
  await timeline.locator('.timeline-story').filter({ hasText: new RegExp(`^Request #${other} waited`) }).waitFor();
  assert.match(await summary(mainCanvas(timeline)), new RegExp(`; request #${other} `));
  assert.equal((await table(timeline.locator('.timeline-main'))).header.at(-1), `Request #${other}`);
  // A click on the slots picks the request drawn there.
  const canvas = mainCanvas(timeline);
  const box = await canvas.boundingBox();
  let clicked;
  for (const [fx, fy] of [[0.5, 0.55], [0.3, 0.5], [0.7, 0.6], [0.4, 0.45], [0.6, 0.5]]) {
    await canvas.click({ position: { x: box.width * fx, y: box.height * fy } });
    const value = await picker.inputValue();
    if (value !== other) { clicked = value; break; }
  }
  assert.ok(clicked, 'a click on a busy slot follows its request');
  await timeline.locator('.timeline-story').filter({ hasText: new RegExp(`^Request #${clicked} `) }).waitFor();
  // Another load is another run: the slow-tail pick of that run.
  await setLoad(page, timeline, 95);
  await timeline.locator('.timeline-story').filter({ hasText: '(from the slow tail)' }).waitFor();
  assert.deepEqual(problems(), []);
});

test('the timeline follows the knee lab, preemptions included on the KV-bound preset', async () => {
  const { page, problems } = await site.open(`${LESSON_PATH}?preset=distserve&gpu_memory_utilization=0.8&load=0.99`);
  await liveWidget(page, 'knee-lab');
  const timeline = await liveWidget(page, 'batch-timeline');
  await mainCanvas(timeline).and(timeline.locator('[aria-label^="At 99% load"]')).waitFor({ timeout: 15000 });
  const label = await summary(mainCanvas(timeline));
  assert.match(label, /\d+ sequences are preempted/);
  assert.equal(await timeline.getByLabel('Scenario').inputValue(), 'distserve');
  const { header, column } = await table(timeline.locator('.timeline-main'));
  assert.ok(header.includes('Preempted') && header.includes('KV cache in use'));
  assert.ok(column('Preempted').some((n) => Number(n) > 0));
  assert.match(await timeline.locator('.timeline-formula-terms').textContent(), /19\.9 ms.*97\.9 µs.*39 µs.*630 ns/s);
  assert.match(await timeline.locator('.timeline-formula-source').textContent(), /DistServe/);
  // Moving the lab moves the timeline.
  const lab = page.locator('section.lesson-widget[data-widget="knee-lab"]');
  await lab.getByRole('slider', { name: 'Offered load' }).focus();
  await page.keyboard.press('Home');
  await mainCanvas(timeline).and(timeline.locator('[aria-label^="At 85% load"]')).waitFor({ timeout: 15000 });
  assert.deepEqual(problems(), []);
});

test('keyboard, screen reader and downloads: a labelled chart, its table, PNG and SVG, and nothing for axe', async () => {
  const { page, timeline, problems } = await openTimeline('', { width: 1920, height: 1080 });
  const canvas = mainCanvas(timeline);
  assert.ok((await summary(canvas)).length > 80);
  const { w, cw, dpr } = await canvas.evaluate((c) => ({ w: c.width, cw: c.clientWidth, dpr: devicePixelRatio }));
  assert.ok(Math.abs(w - Math.round(cw * dpr)) <= 2, 'the backing store follows CSS size × DPR');
  // The table is a keyboard press away.
  const summaryOfTable = timeline.locator('.timeline-main details.chart-data summary');
  await summaryOfTable.focus();
  await page.keyboard.press('Enter');
  await timeline.locator('.timeline-main details.chart-data tbody tr').first().waitFor();
  for (const [button, file] of [['Download SVG', 'batch-timeline.svg'], ['Download PNG', 'batch-timeline.png']]) {
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      timeline.locator('.timeline-main').getByRole('button', { name: button }).click(),
    ]);
    assert.equal(download.suggestedFilename(), file);
  }
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(problems(), []);
});

/** The presentation screen showing the timeline, walked to from the first. */
async function timelineScreen(page) {
  await page.locator('.present-audience').waitFor({ timeout: 15000 });
  const [, m] = (await page.locator('.present-position').textContent()).split('/').map((s) => Number(s.trim()));
  for (let n = 1; n <= m; n += 1) {
    if (await page.locator('.present-current [data-widget="batch-timeline"]').count()) return;
    await page.keyboard.press('ArrowRight');
    await page.locator('.present-position').filter({ hasText: new RegExp(`^${n + 1} / `) }).waitFor();
  }
  throw new Error('no screen shows the batch timeline');
}

test('presented, the timeline fits the screen, reads from the back and stays in sync between windows', async () => {
  for (const viewport of [{ width: 1920, height: 1080 }, { width: 1280, height: 720 }]) {
    const { page, context, problems } = await site.open(`${LESSON_PATH}?present=1`, viewport);
    await timelineScreen(page);
    const current = page.locator('.present-current');
    await current.locator('.timeline-other canvas').waitFor();
    await page.waitForFunction(() => {
      const slide = document.querySelector('.present-audience .present-slide');
      return slide.dataset.fit !== 'scroll' && slide.scrollHeight <= slide.clientHeight + 1;
    }, null, { timeout: 5000 });
    const fit = Number(await page.locator('.present-audience .present-slide').getAttribute('data-fit'));
    assert.ok(fit <= 2, `type steps down ${fit} times at ${viewport.width}×${viewport.height}`);
    await screenshot(page, `batch-timeline-present-${viewport.width}`);
    if (viewport.width === 1920) {
      // The presenter window moves the load; the projector follows.
      const presenter = await context.newPage();
      await presenter.goto(site.url(`${LESSON_PATH}?present=1&view=presenter`));
      await presenter.locator('.present-presenter').waitFor({ timeout: 15000 });
      const slider = presenter.locator('.present-current').getByRole('slider', { name: 'Offered load' });
      await slider.focus();
      await presenter.keyboard.press('End');
      await current.locator('.lab-load-value').filter({ hasText: '100%' }).waitFor({ timeout: 5000 });
      await current.locator('.timeline-main canvas[aria-label^="At 100% load"]').waitFor({ timeout: 5000 });
      await presenter.close();
    }
    assert.deepEqual(problems(), []);
  }
});
