// The Ask box at the lesson's end: questions answered from the course (a definition with its section's link, a
// Little's Law sizing worked to its replica count), and a learner's own model asked through it: a stand-in
// OpenAI-compatible server on loopback streams with known delays, and the page shows the answer token by token
// with its TTFT and TPOT; then the failures a learner meets (nothing listening, CORS refused, a 401).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { siteUnderTest, axeViolations, screenshot, waitForApp } from './harness.mjs';
import { startModelStandIn } from './model-stand-in.mjs';

const LESSON_PATH = 'lessons/latency-throughput-slos/';
const site = siteUnderTest();

/** The stand-in's delays: its first token after TTFT_MS, then one every TPOT_MS, TOKENS in all. */
const TTFT_MS = 800;
const TPOT_MS = 120;
const TOKENS = 12;

/** The stand-in `vllm serve` with those delays; `options` as `startModelStandIn` takes them. */
function standIn(options = {}) {
  const words = Array.from({ length: TOKENS }, (_, i) => `word${i} `);
  return startModelStandIn({ words, ttftMs: TTFT_MS, tpotMs: TPOT_MS, ...options });
}

/** What a test may see fail on purpose: requests to the stand-in, and the browser's own lines about them. */
const unexpected = (problems, base) => problems.filter((problem) => !problem.includes(new URL(base).origin)
  && !/Failed to load resource|ERR_CONNECTION_REFUSED|CORS policy/.test(problem));

async function openLesson(viewport) {
  const opened = await site.open(LESSON_PATH, viewport);
  await waitForApp(opened.page);
  return opened;
}

async function ask(page, question) {
  const field = page.getByRole('textbox', { name: /^Ask/ });
  await field.fill(question);
  await field.press('Enter');
}

test('a definition is answered from the course with a link to its section, by keyboard alone', async () => {
  const { page, problems } = await openLesson();
  // The A key brings the reader to the box from anywhere in the lesson.
  await page.locator('h1').first().focus();
  await page.keyboard.press('a');
  const field = page.getByRole('textbox', { name: /^Ask/ });
  assert.equal(await field.evaluate((element) => element === document.activeElement), true);
  assert.equal(await field.inputValue(), '', 'the key is not typed into the field');
  await page.keyboard.type('What is goodput?');
  await page.keyboard.press('Enter');
  const answer = page.locator('#ask-answer');
  const link = answer.getByRole('link', { name: 'Goodput: throughput that meets the SLO' }).first();
  await link.waitFor({ timeout: 15000 });
  assert.match(await answer.textContent(), /Goodput counts only the requests that meet both/);
  await link.focus();
  await page.keyboard.press('Enter');
  await page.waitForURL(/#goodput-throughput-that-meets-the-slo$/);
  assert.match(page.url(), new RegExp(`${LESSON_PATH}#goodput`));

  await ask(page, 'What is the capital of France?');
  await page.getByText('I cannot answer that from the course').waitFor();

  // A whole log pasted after the question is refused with its length, and the text stays in the box.
  const pasted = `why is ttft so high? ${'INFO metrics.py:455] Running: 64 reqs, Waiting: 12 reqs. '.repeat(1200)}what should i change`;
  await ask(page, pasted);
  await page.getByText(`That question is ${pasted.length} characters long; I read questions of up to 2000.`).waitFor();
  assert.equal(await page.getByRole('textbox', { name: /^Ask/ }).inputValue(), pasted);
  assert.deepEqual(problems(), []);
});

test('a sizing question is worked to its replica count and opens the sizer with its numbers', async () => {
  const { page, problems } = await openLesson();
  await ask(page, 'Thirty QPS, 64 concurrent sequences, 8 s per request: how many replicas?');
  const answer = page.locator('#ask-answer');
  await answer.getByText('4 replicas', { exact: false }).first().waitFor({ timeout: 15000 });
  const text = await answer.textContent();
  assert.match(text, /64 ÷ 8\.0 = 8\.0 requests\/s/);
  assert.match(text, /Replicas = ⌈30 ÷ 8\.0⌉ = ⌈3\.8⌉ = 4\./);
  assert.match(text, /At 80% headroom each replica carries 6\.4 requests\/s, so plan on 5 replicas/);
  await answer.scrollIntoViewIfNeeded();
  await screenshot(page, 'teacher-sizing-1280');
  assert.deepEqual(await axeViolations(page), []);

  await answer.getByRole('button', { name: 'Open the sizer with these numbers' }).click();
  const peak = page.getByLabel('peak demand (requests/s)');
  await page.waitForFunction(() => document.activeElement?.closest('.sizer-inputs'), null, { timeout: 15000 });
  assert.equal(await peak.inputValue(), '30');
  assert.equal(await page.getByLabel('concurrency cap (--max-num-seqs)').inputValue(), '64');
  assert.equal(await page.getByLabel('mean latency at the knee (s)').inputValue(), '8');
  await page.waitForFunction(() => /Replicas needed\s*5/.test(document.querySelector('.sizer-figures')?.textContent));
  assert.deepEqual(problems(), []);
});

test('a learner\'s own wording: their sizing, "explain simply" and a difference', async () => {
  const { page, problems } = await openLesson();
  const answer = page.locator('#ask-answer');

  // The flag as people write it ("max-num-seqs is 128"), a rate and a time in words.
  await ask(page, 'We peak at 120 requests per second, each request takes 4 seconds and max-num-seqs is 128. How many replicas?');
  await answer.locator('.ask-result').getByText('4 replicas').waitFor({ timeout: 15000 });
  assert.match(await answer.textContent(), /128 ÷ 4\.0 = 32 requests\/s/);
  await answer.getByRole('button', { name: 'Open the sizer with these numbers' }).click();
  await page.waitForFunction(() => document.activeElement?.closest('.sizer-inputs'), null, { timeout: 15000 });
  assert.equal(await page.getByLabel('peak demand (requests/s)').inputValue(), '120');
  assert.equal(await page.getByLabel('concurrency cap (--max-num-seqs)').inputValue(), '128');
  assert.equal(await page.getByLabel('mean latency at the knee (s)').inputValue(), '4');

  // "Explain simply" leads with an analogy or the plain definition, never with a stray paragraph.
  await ask(page, 'Explain goodput simply');
  await page.waitForFunction(() => /Goodput/.test(document.querySelector('#ask-answer blockquote')?.textContent ?? ''),
    null, { timeout: 15000 });
  const lead = await answer.locator('.ask-source').first().textContent();
  assert.match(lead, /^(Analogy|TL;DR|Keyword) ·/, lead);

  // A difference sets both terms side by side.
  await ask(page, 'What is the difference between TTFT and TPOT?');
  const sides = answer.locator('.ask-compare .ask-term');
  await sides.first().waitFor({ timeout: 15000 });
  const terms = await sides.allTextContents();
  assert.equal(terms.length, 2, terms.join(' | '));
  assert.match(terms[0], /TTFT/);
  assert.match(terms[1], /TPOT/);
  const compared = await answer.locator('.ask-compare blockquote').allTextContents();
  assert.match(compared[0], /first token/i);
  assert.match(compared[1], /between streamed tokens|per output token/i);
  await answer.scrollIntoViewIfNeeded();
  await screenshot(page, 'teacher-difference-1280');
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(problems(), []);
});

test('the question asked, not a neighbouring one: one of each kind the lesson declares, Little\'s Law, the closest passage', async () => {
  const { page, problems } = await openLesson();
  const answer = page.locator('#ask-answer');
  /** Asks `question` and waits until the first passage shown (or the worked result) matches `expected`. */
  const firstShown = async (question, expected, selector = '#ask-answer blockquote') => {
    await ask(page, question);
    await page.waitForFunction(([sel, pattern]) => new RegExp(pattern, 'i').test(document.querySelector(sel)?.textContent ?? ''),
      [selector, expected.source], { timeout: 15000 });
  };
  // Composition, comparison with a term the glossary lacks, consequence, duration, "which metric".
  await firstShown('what is TTFT made of?', /queueing plus prefill/);
  await firstShown('ttft vs e2e??', /same total time/);
  await firstShown('what happens to latency at full load?', /^\s*Raise the load/);
  await firstShown('how long does a new replica take to serve?', /4 min 38 s/);
  await firstShown('which metric shows requests stuck waiting?', /^\s*num_requests_waiting:/);
  // A metric asked for, not the flag whose keyword shares its words; a declared comparison asked the other way round.
  await firstShown('which vllm metric gives the concurrency L for littles law', /num_requests_running/);
  await firstShown('num_requests_waiting vs num_requests_running?', /num_requests_running/);
  // Little's Law for the quantity asked: the requests in flight, not a replica count.
  await firstShown('how many reqs in flight at 20rps w/ 3s latency', /60 requests in flight/, '#ask-answer .ask-result');
  assert.match(await answer.textContent(), /L = X × W = 20 requests\/s × 3\.0 s = 60\./);
  // ... and for the other two of its quantities, asked by symbol or by name, given as learners type them.
  await firstShown('we see 90 requests in flight at 30 qps. whats W', /3\.0 s per request/, '#ask-answer .ask-result');
  await firstShown('we have 60 reqs in the system and latency is 3 sec, whats our throughput', /20 requests\/s/,
    '#ask-answer .ask-result');
  // A metric asked for by name: the passage that names it, not the one about what it measures.
  await firstShown('whats the prometheus metric name for ttft', /time_to_first_token_seconds/);
  // A weak match that plainly names a part of the lesson: that part's opening, said to be the closest passage.
  await ask(page, 'TTFT and the network?');
  await answer.getByText('The closest passage is the opening of', { exact: false }).waitFor({ timeout: 15000 });
  assert.match(await answer.locator('blockquote').first().textContent(), /\S/);
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(problems(), []);
});

test('SLOs for an application come from the sizer table; the box reads at 390 px', async () => {
  const { page, problems } = await openLesson({ width: 390, height: 844 });
  await ask(page, 'What TTFT and TPOT SLOs for my RAG app?');
  const answer = page.locator('#ask-answer');
  await answer.getByText('p99 TTFT ≤ 1.5 s', { exact: false }).waitFor({ timeout: 15000 });
  await page.locator('#ask').scrollIntoViewIfNeeded();
  await screenshot(page, 'teacher-slo-390');
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), true,
    'nothing scrolls sideways');
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(problems(), []);
});

test('the learner\'s own model streams its answer token by token, with its TTFT and TPOT', async (t) => {
  const model = await standIn();
  try {
    const { page, problems } = await openLesson();
    await page.getByRole('textbox', { name: /^Ask/ }).fill('What is TPOT?');
    await page.locator('.ask-model summary').click();
    await page.getByLabel('Server base URL').fill(model.base);
    await page.getByRole('button', { name: 'Ask my model' }).click();
    const answer = page.locator('#ask-model-answer');
    // Sample the answer as it grows: a streamed answer is seen part-written several times.
    const seen = new Set();
    const deadline = Date.now() + 15000;
    while (Date.now() < deadline) {
      const text = await answer.textContent();
      if (text) seen.add(text);
      if (text.includes(`word${TOKENS - 1}`)) break;
      await page.waitForTimeout(25);
    }
    assert.ok(seen.size >= 4, `saw the answer in ${seen.size} states: ${[...seen].join(' | ')}`);
    await page.getByText('The answer is complete.').waitFor();
    const clocks = await page.locator('#ask-model-clocks').textContent();
    const [, ttft, tpot, tokens] = clocks.match(/first token after (\d+) ms\. TPOT: then (\d+) ms per token over (\d+) tokens/)
      ?? assert.fail(`clocks: ${clocks}`);
    const { received, tokens: sentAt } = model.server.sent;
    const served = { ttft: sentAt[0] - received, tpot: (sentAt.at(-1) - sentAt[0]) / (sentAt.length - 1) };
    t.diagnostic(`stand-in: set TTFT ${TTFT_MS} ms, TPOT ${TPOT_MS} ms; sent TTFT ${served.ttft.toFixed(0)} ms, `
      + `TPOT ${served.tpot.toFixed(1)} ms; page: ${clocks}`);
    assert.equal(Number(tokens), TOKENS);
    assert.ok(Math.abs(Number(ttft) - served.ttft) <= 0.3 * served.ttft, `TTFT ${ttft} ms vs ${served.ttft} ms`);
    assert.ok(Math.abs(Number(tpot) - served.tpot) <= 0.3 * served.tpot, `TPOT ${tpot} ms vs ${served.tpot} ms`);
    // Node's timers keep whole milliseconds on a loop clock read once a turn, so one can fire up to 1 ms early by
    // performance.now(): the stand-in kept its delays if it kept them to that.
    assert.ok(served.ttft >= TTFT_MS - 1 && served.tpot >= TPOT_MS - 1, `the stand-in kept at least its delays: ${served.ttft} ms, ${served.tpot} ms`);
    // The course's passages went with the question, under the stand-in's own model name.
    assert.equal(model.server.lastRequest.model, 'stand-in-model');
    assert.equal(model.server.lastRequest.stream, true);
    assert.match(model.server.lastRequest.messages[1].content, /TPOT/);
    await page.locator('.ask-model').scrollIntoViewIfNeeded();
    await screenshot(page, 'teacher-model-1280');
    assert.deepEqual(await axeViolations(page), []);
    assert.deepEqual(unexpected(problems(), model.base), []);
  } finally {
    model.close();
  }
});

test('the stop button cancels a streaming answer', async () => {
  const model = await standIn();
  try {
    const { page } = await openLesson();
    await page.getByRole('textbox', { name: /^Ask/ }).fill('What is the knee?');
    await page.locator('.ask-model summary').click();
    await page.getByLabel('Server base URL').fill(model.base);
    await page.getByRole('button', { name: 'Ask my model' }).click();
    await page.locator('#ask-model-answer').getByText('word1').waitFor({ timeout: 15000 });
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.getByText('Stopped.').waitFor();
    await page.waitForTimeout(3 * TPOT_MS);
    assert.doesNotMatch(await page.locator('#ask-model-answer').textContent(), new RegExp(`word${TOKENS - 1}`));
    assert.equal(await page.getByRole('button', { name: 'Ask my model' }).isEnabled(), true);
  } finally {
    model.close();
  }
});

test('failures are one sentence with their fix: nothing listening, CORS refused, a 401', async () => {
  const closed = await standIn();
  const closedBase = closed.base;
  closed.close();
  const noCors = await standIn({ cors: false });
  const locked = await standIn({ status: 401 });
  try {
    const { page, problems } = await openLesson();
    await page.getByRole('textbox', { name: /^Ask/ }).fill('What is TTFT?');
    await page.locator('.ask-model summary').click();
    const status = page.locator('#ask-model-status');
    const attempt = async (base, expected) => {
      await page.getByLabel('Server base URL').fill(base);
      await page.getByRole('button', { name: 'Ask my model' }).click();
      await page.waitForFunction((pattern) => new RegExp(pattern).test(document.getElementById('ask-model-status').textContent),
        expected.source, { timeout: 15000 });
      return status.textContent();
    };
    assert.match(await attempt(closedBase, /Nothing is listening/), /vllm serve/);
    assert.match(await attempt(noCors.base, /CORS/), /--allowed-origins '\["http:\/\/127\.0\.0\.1:\d+"\]'/);
    assert.match(await attempt(locked.base, /401/), /API key/);
    assert.match(await attempt('http://gpu-box.internal:8000/v1', /loopback tunnel/), /ssh -L/);
    const own = new URL(closedBase).origin;
    assert.deepEqual(unexpected(unexpected(unexpected(problems(), own), noCors.base), locked.base), []);
  } finally {
    noCors.close();
    locked.close();
  }
});

test('the presenter window keeps the Ask box and its key; the audience window does not show it', async () => {
  const presenter = await site.open(`${LESSON_PATH}?present=1&view=presenter`);
  await waitForApp(presenter.page);
  await presenter.page.locator('.present-presenter').waitFor();
  await presenter.page.keyboard.press('a');
  const field = presenter.page.getByRole('textbox', { name: /^Ask/ });
  assert.equal(await field.evaluate((element) => element === document.activeElement), true);
  await presenter.page.keyboard.type('What is TTFT?');
  await presenter.page.keyboard.press('Enter');
  await presenter.page.locator('#ask-answer').getByText('Time to first token').first().waitFor({ timeout: 15000 });
  assert.deepEqual(presenter.problems(), []);

  const audience = await site.open(`${LESSON_PATH}?present=1`);
  await waitForApp(audience.page);
  await audience.page.locator('.present-audience').waitFor();
  assert.equal(await audience.page.locator('#ask').isVisible(), false);
});
