// Predict-then-reveal steps of lesson 32 as a learner (and an instructor) meets them: Reveal locked until a guess is
// committed, wrong guesses explained and remembered across a reload, chart predictions computed by the queue model
// and compared in words, storage that is damaged or refuses to work, the class tally, and all of it by keyboard.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { siteUnderTest, axeViolations, screenshot, liveWidget, waitForApp } from './harness.mjs';

const LESSON_PATH = 'lessons/latency-throughput-slos/';
const STORAGE_KEY = 'goodput.progress.v1';
const site = siteUnderTest();

async function openLesson(viewport) {
  const opened = await site.open(LESSON_PATH, viewport);
  await waitForLesson(opened.page);
  return opened;
}

/** The lesson with its islands live: the static page already has the heading (and an empty progress note). */
async function waitForLesson(page) {
  await page.getByRole('heading', { level: 1, name: /Latency, Throughput & SLOs/ }).waitFor({ timeout: 15000 });
  await waitForApp(page);
}

const button = (scope, name) => scope.getByRole('button', { name, exact: true });

/** Reads "Your marker: 88% load. The real curve gets there at 89.6% load: your marker is 1.6 points early, …". */
function parseDistance(text) {
  const match = text.match(/Your marker: ([\d.]+)% load\. The real curve gets there at ([\d.]+)% load: your marker is (right on it|([\d.]+) points (early|late)), (within|outside) the ([\d.]+)-point tolerance/);
  assert.ok(match, `no distance sentence in: ${text}`);
  const [, guess, actual, , off, direction, within, tolerance] = match;
  return {
    guess: Number(guess), actual: Number(actual), off: off === undefined ? 0 : Number(off) * (direction === 'early' ? -1 : 1),
    within: within === 'within', tolerance: Number(tolerance),
  };
}

/** Presses Tab until `predicate(document.activeElement)` holds, as a keyboard user would; fails after `limit` presses. */
async function tabUntil(page, predicate, arg, limit = 250) {
  for (let i = 0; i < limit; i += 1) {
    if (await page.evaluate(predicate, arg)) return;
    await page.keyboard.press('Tab');
  }
  assert.fail(`focus never reached the target after ${limit} Tab presses`);
}

test('Reveal stays disabled until a guess is committed; "Show me anyway" is allowed and recorded', async () => {
  const { page, problems } = await openLesson();
  const step = page.locator('#step-1-ttft');
  const reveal = button(step, 'Reveal');
  const commit = button(step, 'Commit my guess');
  assert.equal(await reveal.isDisabled(), true, 'Reveal before any guess');
  assert.equal(await commit.isDisabled(), true, 'nothing to commit yet');
  assert.match(await step.locator('.predict-hint').innerText(), /Reveal unlocks once you commit a guess/);
  await step.getByRole('radio', { name: 'Decode: the token-by-token loop' }).check();
  assert.equal(await reveal.isDisabled(), true, 'a picked but uncommitted option does not unlock Reveal');
  await commit.click();
  assert.equal(await reveal.isDisabled(), false, 'Reveal after commit');
  assert.equal(await step.getByRole('radio', { name: 'Prefill: the single pass over the whole prompt' }).isDisabled(), true, 'a committed guess is locked');

  const tpot = page.locator('#step-2-tpot');
  await button(tpot, 'Show me anyway').click();
  const outcome = tpot.locator('.predict-outcome');
  await outcome.waitFor();
  assert.match(await outcome.locator('.predict-verdict').innerText(), /Shown without a guess/);
  assert.match(await outcome.innerText(), /Right answer/);
  assert.match(await tpot.locator('.predict-announce').innerText(), /Answer shown without a guess/);
  assert.match(await page.locator('.progress-count').innerText(), /^1 of \d+ steps answered, 0 right; 1 shown without a guess\.$/);
  assert.deepEqual(problems(), []);
});

test('a committed wrong guess shows its explanation and is still there after a reload', async () => {
  const { page, problems } = await openLesson();
  const step = page.locator('#step-2-tpot');
  await step.getByRole('radio', { name: 'Prefill of the prompt' }).check();
  await button(step, 'Commit my guess').click();
  await button(step, 'Reveal').click();
  const outcome = step.locator('.predict-outcome');
  await outcome.waitFor();
  assert.equal(await outcome.locator('.predict-verdict').innerText(), 'Not right');
  assert.match(await outcome.innerText(), /Your pick · wrong\s+Prefill of the prompt\s+Prefill is already done by the time tokens stream\./);
  assert.match(await outcome.innerText(), /Right answer\s+The decode step time of the batch the request is in/);
  assert.match(await step.locator('.predict-announce').innerText(), /Not right this time/);
  assert.match(await page.locator('.progress-count').innerText(), /^1 of \d+ steps answered, 0 right\.$/);
  const stored = JSON.parse(await page.evaluate((key) => localStorage.getItem(key), STORAGE_KEY));
  assert.deepEqual(stored.lessons['latency-throughput-slos'].steps['step-2-tpot'].guess, { kind: 'choices', value: [0] });

  await page.reload();
  await waitForLesson(page);
  const again = page.locator('#step-2-tpot');
  await again.locator('.predict-outcome').waitFor();
  assert.equal(await again.locator('.predict-verdict').innerText(), 'Not right');
  assert.equal(await again.getByRole('radio', { name: 'Prefill of the prompt' }).isChecked(), true, 'the guess is remembered');
  assert.equal(await again.getByRole('radio', { name: 'Prefill of the prompt' }).isDisabled(), true);
  assert.match(await page.locator('.progress-count').innerText(), /^1 of \d+ steps answered, 0 right\.$/);

  // Try again starts the step over; "Reset my progress" forgets everything, after a second press.
  await button(again, 'Try again').click();
  assert.equal(await again.locator('.predict-outcome').count(), 0);
  assert.equal(await again.getByRole('radio', { name: 'Prefill of the prompt' }).isChecked(), false);
  await again.getByRole('radio', { name: 'The decode step time of the batch the request is in' }).check();
  await button(again, 'Commit my guess').click();
  await button(again, 'Reveal').click();
  assert.equal(await again.locator('.predict-verdict').innerText(), 'Right');
  assert.match(await page.locator('.progress-count').innerText(), /^1 of \d+ steps answered, 1 right\.$/);
  const progressLine = page.locator('.lesson-progress');
  await button(progressLine, 'Reset my progress').click();
  await page.waitForFunction(() => document.activeElement?.textContent.trim() === 'Keep it');
  await button(progressLine, 'Keep it').click();
  assert.match(await page.locator('.progress-count').innerText(), /^1 of \d+ steps answered, 1 right\.$/, 'Keep it keeps it');
  await button(progressLine, 'Reset my progress').click();
  await button(progressLine, 'Yes, reset').click();
  await page.waitForFunction(() => document.activeElement?.textContent.trim() === 'Reset my progress');
  assert.equal(await progressLine.locator('.progress-done').innerText(), 'Progress reset.');
  assert.match(await page.locator('.progress-count').innerText(), /^0 of \d+ steps answered, 0 right\.$/);
  assert.equal(await again.locator('.predict-outcome').count(), 0);
  await page.reload();
  await waitForLesson(page);
  assert.equal(await page.locator('.predict-outcome').count(), 0, 'nothing is revealed after a reset and a reload');
  assert.deepEqual(problems(), []);
});

test('a chart prediction draws the real curve over the marker and states the distance', async () => {
  const { page, problems } = await openLesson();
  const step = page.locator('#predict-slo-crossing');
  const canvas = step.locator('canvas');
  await step.scrollIntoViewIfNeeded();
  assert.match(await canvas.getAttribute('aria-label'), /No marker placed yet for the SLO crossing; the real curve appears after Reveal/);
  // Pointer: a press on the chart puts the marker there, a drag moves it.
  const box = await canvas.boundingBox();
  await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.6);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.6, { steps: 5 });
  await page.mouse.up();
  const dragged = Number((await step.locator('.predict-marker-text').innerText()).match(/([\d.]+)% load/)[1]);
  assert.ok(dragged > 80 && dragged < 89.5, `the drag moved the marker left of the middle: ${dragged}%`);
  // The labelled slider sets it exactly.
  await step.getByLabel('Offered load where you expect the SLO crossing').fill('88');
  assert.equal(await step.locator('.predict-marker-text').innerText(), 'Your marker: 88% load.');
  await button(step, 'Commit my guess').click();

  // The curve is computed a slice per task and drawn as it grows: the chart's label passes through intermediate
  // states ("computing the real curve, 7 of 20 loads so far"), which a computation in one task could not show.
  await page.evaluate(() => {
    window.__longTasks = [];
    window.__labels = [];
    new PerformanceObserver((list) => { for (const entry of list.getEntries()) window.__longTasks.push(entry.duration); })
      .observe({ type: 'longtask' });
    const canvas = document.querySelector('#predict-slo-crossing canvas');
    new MutationObserver(() => window.__labels.push(canvas.getAttribute('aria-label')))
      .observe(canvas, { attributes: true, attributeFilter: ['aria-label'] });
  });
  const started = Date.now();
  await button(step, 'Reveal').click();
  const announce = step.locator('.predict-announce');
  await announce.filter({ hasText: 'The real curve gets there' }).waitFor({ timeout: 60000 });
  const elapsed = Date.now() - started;
  const [longTasks, labels] = await page.evaluate(() => [window.__longTasks, window.__labels]);
  const partial = labels.filter((label) => /computing the real curve, \d+ of 20 loads so far/.test(label));
  console.log(`chart reveal: 20 loads in ${elapsed} ms, drawn in ${partial.length} partial states; tasks over 50 ms: ${longTasks.length} (longest ${Math.max(0, ...longTasks).toFixed(0)} ms)`);
  assert.ok(partial.length >= 5, `the curve grew in steps: ${partial.length} partial states`);

  const distance = parseDistance(await announce.innerText());
  assert.equal(distance.guess, 88);
  assert.ok(distance.actual > 85 && distance.actual < 96, `the SLO crossing of the course replica: ${distance.actual}%`);
  assert.ok(Math.abs(distance.off - (distance.guess - distance.actual)) < 0.06, JSON.stringify(distance));
  assert.equal(distance.within, Math.abs(distance.off) <= distance.tolerance);
  assert.equal(await step.locator('.predict-verdict').innerText(), distance.within ? 'Right' : 'Not right');
  assert.match(await canvas.getAttribute('aria-label'), new RegExp(`on the real p99 TTFT curve it is at ${distance.actual}% load`));

  // The data: one row per simulated load, p99 rising through the 500 ms SLO.
  const table = step.locator('.chart-data');
  await table.locator('summary').click();
  // The rows are rendered on the details' toggle event, which comes a task after the click.
  await table.locator('tbody tr').first().waitFor();
  const rows = await table.locator('tbody tr').allInnerTexts();
  assert.equal(rows.length, 20, 'loads 80% to 99%');
  assert.match(rows[0], /^80%\s+\d+ ms$/);
  const seconds = (cell) => (cell.endsWith(' ms') ? Number(cell.slice(0, -3)) / 1000 : Number(cell.slice(0, -2)));
  const p99 = rows.map((row) => seconds(row.split('\t')[1].trim()));
  assert.ok(p99[0] < 0.5 && p99[19] > 0.5, `p99 crosses 500 ms: ${p99.join(', ')}`);
  await step.screenshot({ path: 'tests/browser/artifacts/predict-chart-revealed.png' });

  // After a reload the marker is remembered and the curve is computed again, to the same verdict.
  const sentence = await announce.innerText();
  await page.reload();
  await waitForLesson(page);
  const again = page.locator('#predict-slo-crossing .predict-announce');
  await again.filter({ hasText: 'The real curve gets there' }).waitFor({ timeout: 60000 });
  assert.equal(await again.innerText(), sentence);
  assert.deepEqual(problems(), []);
});

test('a damaged or foreign saved value resets with one note and the page keeps working', async () => {
  for (const damaged of ['{"version": 1, "lessons": ', '[1, 2, 3]', '{"version": 1, "lessons": {"latency-throughput-slos": {"steps": 4}}}']) {
    const { page, problems } = await openLesson();
    await page.evaluate(([key, value]) => localStorage.setItem(key, value), [STORAGE_KEY, damaged]);
    await page.reload();
    await waitForLesson(page);
    const note = page.locator('.progress-note');
    assert.match(await note.innerText(), /could not be read .* so it has been reset/, damaged);
    const step = page.locator('#step-1-ttft');
    await step.getByRole('radio', { name: 'Prefill: the single pass over the whole prompt' }).check();
    await button(step, 'Commit my guess').click();
    await button(step, 'Reveal').click();
    assert.equal(await step.locator('.predict-verdict').innerText(), 'Right');
    const stored = JSON.parse(await page.evaluate((key) => localStorage.getItem(key), STORAGE_KEY));
    assert.equal(stored.version, 1, 'the damaged value was replaced by progress this page can read');
    await page.reload();
    await waitForLesson(page);
    assert.equal(await page.locator('.progress-note').innerText(), '', 'the note is shown once, not on every visit');
    assert.deepEqual(problems(), []);
  }
});

test('storage that throws keeps the page working in memory and says so once', async () => {
  const scenarios = [
    ['setItem throws (quota full)', () => {
      Storage.prototype.setItem = function setItem() { throw new DOMException('The quota has been exceeded.', 'QuotaExceededError'); };
    }, /would not let this page save your progress/],
    ['localStorage itself throws (private mode)', () => {
      Object.defineProperty(window, 'localStorage', { get() { throw new DOMException('The operation is insecure.', 'SecurityError'); } });
    }, /would not let this page read or save your progress/],
  ];
  for (const [name, breakStorage, expected] of scenarios) {
    const { page, context, problems } = await openLesson();
    await context.addInitScript(breakStorage);
    await page.reload();
    await waitForLesson(page);
    for (const [id, label] of [['step-1-ttft', 'Decode: the token-by-token loop'], ['step-2-tpot', 'The decode step time of the batch the request is in']]) {
      const step = page.locator(`#${id}`);
      await step.getByRole('radio', { name: label }).check();
      await button(step, 'Commit my guess').click();
      await button(step, 'Reveal').click();
      await step.locator('.predict-outcome').waitFor();
    }
    const note = await page.locator('.progress-note').innerText();
    assert.match(note, expected, name);
    assert.equal(note.split('would not let').length, 2, `said once: ${note}`);
    assert.match(await page.locator('.progress-count').innerText(), /^2 of \d+ steps answered, 1 right\.$/, name);
    assert.deepEqual(problems(), [], name);
  }
});

test('a task checklist shows which tasks are ticked, from saved progress', async () => {
  const { page, problems } = await openLesson();
  const list = page.locator('#knee-lab-tasks');
  // The lab runs by itself once the learner reaches it, at the lesson's 85% open-loop load, where none of its four
  // tasks is done yet: the count is read once its estimate is final, so a task it ticked on its own would show here.
  const labDone = page.locator('section#knee-lab .lab-status[data-state="done"]');
  await liveWidget(page, 'knee-lab');
  await labDone.waitFor({ timeout: 30000 });
  assert.equal(await list.locator('.task-count').innerText(), '0 of 4 done.');
  const saved = { version: 1, lessons: { 'latency-throughput-slos': { steps: {}, ticks: ['knee-lab/p99-crosses-slo'] } } };
  await page.evaluate(([key, value]) => localStorage.setItem(key, value), [STORAGE_KEY, JSON.stringify(saved)]);
  await page.reload();
  await waitForLesson(page);
  await liveWidget(page, 'knee-lab');
  await labDone.waitFor({ timeout: 30000 });
  assert.equal(await list.locator('.task-count').innerText(), '1 of 4 done.');
  assert.match(await list.locator('[data-task="knee-lab/p99-crosses-slo"]').innerText(), /Find the load where p99 TTFT crosses the 500 ms SLO\.\s*\(done\)/);
  assert.match(await list.locator('[data-task="knee-lab/closed-loop"]').innerText(), /\(not yet\)/);
  assert.deepEqual(problems(), []);
});

test('the class tally shows the counts an instructor types, as a table of bars', async () => {
  const { page, problems } = await openLesson();
  const step = page.locator('#step-1-ttft');
  const tally = step.locator('.predict-tally');
  await tally.locator('summary').click();
  await tally.getByLabel('Hands for: Prefill: the single pass over the whole prompt').fill('12');
  await tally.getByLabel('Hands for: Decode: the token-by-token loop').fill('5');
  await tally.getByLabel('Hands for: Neither: TTFT is network latency').fill('3');
  const table = tally.locator('table');
  assert.equal(await table.locator('caption').innerText(), 'Class tally: 20 hands');
  const rows = await table.locator('tbody tr').allInnerTexts();
  assert.match(rows[0], /Prefill: the single pass over the whole prompt\s+12\s+60%/);
  assert.match(rows[1], /Decode: the token-by-token loop\s+5\s+25%/);
  assert.match(rows[2], /Neither: TTFT is network latency\s+3\s+15%/);
  assert.equal(await table.locator('svg rect').first().getAttribute('width'), '60.0');
  // Nonsense in a count field counts as zero rather than breaking the tally.
  await tally.getByLabel('Hands for: Neither: TTFT is network latency').fill('-4');
  assert.equal(await table.locator('caption').innerText(), 'Class tally: 17 hands');
  assert.deepEqual(problems(), []);
});

test('everything can be done by keyboard alone: answer, commit, reveal, try again, a chart prediction and a tally', async () => {
  const { page, problems } = await openLesson();
  const active = () => page.evaluate(() => {
    const el = document.activeElement;
    return { id: el.id, text: el.textContent.trim(), classes: el.className, type: el.type ?? '' };
  });
  // Multiple choice: Tab to the options, Space to pick, Tab to Commit, Enter; focus moves to Reveal, Enter; focus
  // moves to the outcome and the live region says the result.
  await tabUntil(page, () => document.activeElement?.name === 'step-1-ttft');
  await page.keyboard.press('Space');
  await page.keyboard.press('Tab');
  assert.equal((await active()).text, 'Commit my guess');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.activeElement?.textContent.trim() === 'Reveal');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.activeElement?.classList.contains('predict-outcome'));
  const step = page.locator('#step-1-ttft');
  assert.equal(await step.locator('.predict-announce').innerText(), 'Right.');
  // Try again is the next stop; it returns focus to the step's title.
  await page.keyboard.press('Tab');
  assert.equal((await active()).text, 'Try again');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.activeElement?.id === 'step-1-ttft-title');
  assert.equal(await step.locator('.predict-outcome').count(), 0);

  // A numeric estimate: type, commit, reveal.
  await tabUntil(page, () => document.activeElement?.id === 'step-5-sizing-estimate');
  await page.keyboard.type('4.5');
  await page.keyboard.press('Tab');
  assert.equal((await active()).text, 'Commit my guess');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.activeElement?.textContent.trim() === 'Reveal');
  await page.keyboard.press('Enter');
  const sizing = page.locator('#step-5-sizing');
  await sizing.locator('.predict-outcome').waitFor();
  assert.match(await sizing.locator('.predict-outcome').innerText(), /Your estimate: 4.5 replicas\.\s+The answer: 5 replicas \(anything within ±0.5 replicas counts as right\)/);
  assert.equal(await sizing.locator('.predict-announce').innerText(), 'Right.');

  // A chart prediction: the slider moves the marker (End = 99%, then down to 95%), commit, reveal.
  await tabUntil(page, () => document.activeElement?.id === 'predict-goodput-90-marker');
  await page.keyboard.press('End');
  for (let i = 0; i < 8; i += 1) await page.keyboard.press('ArrowLeft');
  const chart = page.locator('#predict-goodput-90');
  assert.equal(await chart.locator('.predict-marker-text').innerText(), 'Your marker: 95% load.');
  await page.keyboard.press('Tab');
  assert.equal((await active()).text, 'Commit my guess');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.activeElement?.textContent.trim() === 'Reveal');
  await page.keyboard.press('Enter');
  await chart.locator('.predict-announce').filter({ hasText: 'The real curve gets there' }).waitFor({ timeout: 60000 });
  const distance = parseDistance(await chart.locator('.predict-announce').innerText());
  assert.equal(distance.guess, 95);
  assert.ok(distance.actual > 82 && distance.actual < 95, `goodput falls below 90% before 95% load: ${distance.actual}%`);
  assert.equal(distance.within, false);
  assert.match(await chart.locator('.predict-announce').innerText(), /^Not right this time\./);

  // The tally of that step: Tab past Try again to its summary, open it, type the counts.
  await tabUntil(page, () => document.activeElement?.closest('#predict-goodput-90 .predict-tally') && document.activeElement.tagName === 'SUMMARY');
  await page.keyboard.press('Enter');
  await page.keyboard.press('Tab');
  await page.keyboard.type('4');
  await page.keyboard.press('Tab');
  await page.keyboard.type('9');
  assert.equal(await chart.locator('.tally-table caption').innerText(), 'Class tally: 13 hands');
  assert.match(await page.locator('.progress-count').innerText(), /^2 of \d+ steps answered, 1 right\.$/);
  assert.deepEqual(problems(), []);
});

test('revealed steps, a chart and a tally have no axe violations on a laptop and a phone', async () => {
  for (const [width, height] of [[1280, 720], [390, 844]]) {
    const { page, problems } = await openLesson({ width, height });
    const mc = page.locator('#step-4-goodput');
    await mc.getByRole('checkbox', { name: 'Goodput fell, although throughput did not' }).check();
    await button(mc, 'Commit my guess').click();
    await button(mc, 'Reveal').click();
    assert.equal(await mc.locator('.predict-verdict').innerText(), 'Not right', 'half of the right answer is not right');
    const knee = page.locator('#step-3-knee');
    // A chart prediction's chart is code fetched on demand: it comes as the step nears the viewport.
    await knee.scrollIntoViewIfNeeded();
    await knee.getByLabel('Offered load where you expect the knee').fill('85');
    await button(knee, 'Commit my guess').click();
    await button(knee, 'Reveal').click();
    await knee.locator('.predict-announce').filter({ hasText: 'The real curve gets there' }).waitFor({ timeout: 60000 });
    const recall = page.locator('#recall-knee');
    await button(recall, "I've said my answer").click();
    await button(recall, 'Reveal').click();
    await button(recall, 'I had it').click();
    assert.equal(await recall.locator('.predict-verdict').innerText(), 'Right');
    const tally = knee.locator('.predict-tally');
    await tally.locator('summary').click();
    await tally.getByLabel('Hands for: Within the tolerance').fill('6');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow}px at ${width}×${height}`);
    await knee.scrollIntoViewIfNeeded();
    await screenshot(page, `predict-${width}x${height}`);
    assert.deepEqual(await axeViolations(page), [], `axe at ${width}×${height}`);
    assert.deepEqual(problems(), []);
  }
});
