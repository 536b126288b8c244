// "On your cluster": the Little's Law sizer and the /metrics reader as a learner uses them, by mouse and by
// keyboard, on a laptop and on a phone. Figures are read from the page's text and checked against sums done by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { siteUnderTest, axeViolations, screenshot, liveWidget } from './harness.mjs';

const LESSON_PATH = 'lessons/latency-throughput-slos/';
const FIXTURES = new URL('../fixtures/metrics/', import.meta.url);
const HEALTHY = await readFile(new URL('healthy.prom', FIXTURES), 'utf8');
const PAST_THE_KNEE = await readFile(new URL('past-the-knee.prom', FIXTURES), 'utf8');
const HEALTHY_LATER = await readFile(new URL('healthy-later.prom', FIXTURES), 'utf8');
const SHEDDING = await readFile(new URL('shedding.prom', FIXTURES), 'utf8');
const SHEDDING_LATER = await readFile(new URL('shedding-later.prom', FIXTURES), 'utf8');
const site = siteUnderTest();

async function openWidget(name, viewport) {
  const opened = await site.open(LESSON_PATH, viewport);
  await opened.page.getByRole('heading', { level: 1, name: /Latency, Throughput & SLOs/ }).waitFor({ timeout: 15000 });
  const widget = await liveWidget(opened.page, name);
  await widget.scrollIntoViewIfNeeded();
  return { ...opened, widget };
}

/** The text of the sizer's three figures, by their labels. */
async function sizerFigures(widget) {
  const figures = {};
  for (const group of await widget.locator('.sizer-figures > div').all()) {
    figures[(await group.locator('dt').textContent()).trim()] = (await group.locator('dd').textContent()).trim();
  }
  return figures;
}

/**
 * Waits until `read()` gives `expected` (deep equality), then returns it: the reader's answer comes from its worker a
 * moment after a paste or a click, as a learner sees it appear.
 */
async function eventually(read, expected, timeout = 10000) {
  const until = Date.now() + timeout;
  let last;
  while (Date.now() < until) {
    last = await read();
    try {
      assert.deepEqual(last, expected);
      return last;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  assert.deepEqual(last, expected);
  return last;
}

/** A lab button once the knee lab has published a converged reading (disabled until then). */
const labButton = (scope, name) => scope.getByRole('button', { name, disabled: false });

/** Seconds from a readout duration: "69 ms" / "7.9 s". */
function seconds(text) {
  const match = /^([\d.]+) (ms|s)$/.exec(text);
  assert.ok(match, `not a duration: ${text}`);
  return Number(match[1]) / (match[2] === 'ms' ? 1000 : 1);
}

test('the metrics reader reads each pasted sample page and gives the verdict in the lesson\'s terms', async () => {
  const { page, widget, problems } = await openWidget('metrics-reader');
  const textarea = widget.getByLabel(/Prometheus text from a vLLM server's \/metrics/);
  const verdict = widget.locator('.reader-verdict');

  await textarea.fill(HEALTHY);
  await verdict.waitFor();
  assert.equal((await verdict.textContent()).trim(), 'Verdict: below the knee');
  assert.match(await widget.locator('.reader-labels').textContent(), /model_name="course-27b-fp8"/);
  // The same estimates `goodput-sim metrics` prints for this page (tests/cli.rs reads them with the same parser).
  const ttft = await widget.getByRole('row', { name: /TTFT/ }).locator('td').allTextContents();
  assert.deepEqual(ttft, ['43 ms', '98 ms', '217 ms', 'p99 ≤ 500 ms']);
  const tpot = await widget.getByRole('row', { name: /TPOT/ }).locator('td').allTextContents();
  assert.deepEqual(tpot, ['9.0 ms', '24 ms', '38 ms', 'p95 ≤ 40 ms']);
  const itl = await widget.getByRole('row', { name: /ITL/ }).locator('td').allTextContents();
  assert.deepEqual(itl, ['8.6 ms', '23 ms', '25 ms', '—']);
  // Each figure names the metric it came from: today's names.
  assert.match(await widget.getByRole('row', { name: /TPOT/ }).locator('th').textContent(), /vllm:request_time_per_output_token_seconds/);
  assert.match(await widget.getByRole('row', { name: /ITL/ }).locator('th').textContent(), /vllm:inter_token_latency_seconds/);
  assert.equal((await widget.locator('.reader-queue').textContent()).trim(),
    'Running: 19 · Waiting: 1 · KV cache: not on the page · Preemptions: 0 since the server started');
  assert.match(await widget.locator('.reader-span').textContent(), /^since the server started: 20000 requests/);
  assert.match(await widget.locator('.reader-estimate-note').textContent(), /estimates from the histogram buckets.*interpolated linearly/s);
  assert.match(await widget.locator('.reader-itl-note').textContent(), /^ITL counts every engine step.*one figure per request/);
  // No queue: Little's Law says which cap holds 20 in flight at 80% headroom: ceil(20 ÷ 0.8) = 25.
  assert.match(await widget.locator('.reader-suggestion').textContent(), /at least ceil\(20 ÷ 0\.80\) = 25/);
  await verdict.scrollIntoViewIfNeeded();
  await screenshot(page, 'cluster-reader-healthy');

  await textarea.fill(PAST_THE_KNEE);
  await page.waitForFunction(() => /past the knee/.test(document.querySelector('.reader-verdict')?.textContent ?? ''));
  assert.equal((await verdict.textContent()).trim(), 'Verdict: past the knee');
  assert.match((await widget.locator('.reader-queue').textContent()).trim(), /^Running: 64 · Waiting: 1789 · /);
  assert.match(await widget.locator('.reader-reasons').textContent(), /the queue is large, so it is growing/);
  assert.match(await widget.locator('.reader-reasons').textContent(), /p99 TTFT ≈ 79 s breaks the 500 ms SLO/);
  // 64 running + 1789 waiting = 1853 in flight; a full replica's cap is 64, 80% of it 51.2; ceil(1853 ÷ 51.2) = 37
  // absorbs the backlog at once; the demand fills this replica, so at least ceil(1 ÷ 0.8) = 2.
  assert.match(await widget.locator('.reader-suggestion').textContent(), /suggests between 2 and 37 replicas like this one/);
  assert.match(await widget.getByRole('status').filter({ hasText: /^Read / }).textContent(), /Read 1 label set: past the knee/);
  await widget.locator('.reader-server').scrollIntoViewIfNeeded();
  await screenshot(page, 'cluster-reader-past-the-knee');

  // The sample buttons load the same pages.
  const verdictText = async () => (await verdict.textContent()).trim();
  await widget.getByRole('button', { name: 'Load the healthy sample' }).click();
  await eventually(verdictText, 'Verdict: below the knee');
  assert.equal(await textarea.inputValue(), HEALTHY);
  await widget.getByRole('button', { name: 'Load the past-the-knee sample' }).click();
  await eventually(verdictText, 'Verdict: past the knee');

  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(problems(), []);
});

test('pasting a later scrape shows the window between the two: the present, not the history', async () => {
  const { page, widget, problems } = await openWidget('metrics-reader');
  const first = widget.getByLabel(/Prometheus text from a vLLM server's \/metrics/);
  const later = widget.getByLabel(/Paste a later scrape/);
  const seconds = widget.getByLabel(/Seconds between the two scrapes/);
  const status = widget.locator('.reader-status');
  const ttftRow = () => widget.getByRole('row', { name: /TTFT/ }).locator('td').allTextContents();

  // The later scrape alone: it says it needs the earlier one.
  await later.fill(HEALTHY_LATER);
  await status.filter({ hasText: /needs the earlier one/ }).waitFor();
  // One scrape of the server after it fell behind: since the start, p99 TTFT still looks fine (150 slow requests
  // among 20 150), though the queue gauge gives it away.
  await later.fill('');
  await first.fill(HEALTHY_LATER);
  await status.filter({ hasText: /^Read 1 label set: past the knee\.$/ }).waitFor();
  assert.deepEqual(await ttftRow(), ['43 ms', '108 ms', '241 ms', 'p99 ≤ 500 ms']);
  assert.match(await widget.locator('.reader-reasons').textContent(), /p99 TTFT ≈ 241 ms meets the 500 ms SLO/);

  // Both scrapes, a minute apart: the figures are those of the 150 requests in between.
  await first.fill(HEALTHY);
  await later.fill(HEALTHY_LATER);
  await seconds.fill('60');
  await status.filter({ hasText: /^Read 1 label set over the window between the two scrapes: past the knee\.$/ }).waitFor();
  await page.waitForFunction(() => /in 60 s/.test(document.querySelector('.reader-span')?.textContent ?? ''));
  assert.equal((await widget.locator('.reader-span').textContent()).trim(),
    'window between the two scrapes: 150 requests in 60 s, 2.5 requests/s');
  // The same figures `goodput-sim metrics --seconds 60 healthy.prom healthy-later.prom` prints.
  assert.deepEqual(await ttftRow(), ['60 s', '78 s', '80 s', 'p99 ≤ 500 ms']);
  assert.match(await widget.locator('.reader-table caption').textContent(), /bucket differences between the two scrapes/);
  assert.match(await widget.locator('.reader-reasons').textContent(), /p99 TTFT ≈ 80 s breaks the 500 ms SLO/);
  assert.match(await widget.locator('.reader-reasons').textContent(), /no preemptions in the window/);
  assert.match((await widget.locator('.reader-queue').textContent()).trim(), /Preemptions: 0 in the window$/);
  await widget.locator('.reader-server').scrollIntoViewIfNeeded();
  await screenshot(page, 'cluster-reader-window');

  // Without the seconds the window's length is unknown, and a bad number says so.
  await seconds.fill('soon');
  await widget.getByText(/Not a positive number of seconds/).waitFor();
  assert.equal((await widget.locator('.reader-span').textContent()).trim(), 'window between the two scrapes: 150 requests (length unknown)');
  await seconds.fill('');

  // A later page whose counters went down: a restart, named as such, never a negative window.
  await later.fill(PAST_THE_KNEE);
  await page.waitForFunction(() => /restarted/.test(document.querySelector('.reader-span')?.textContent ?? ''));
  assert.match(await widget.locator('.reader-span').textContent(),
    /^the server restarted between the scrapes \(vllm:time_to_first_token_seconds_count fell from 20000 to 18140\), so these figures count since the restart: 18140 requests$/);
  // A later page that does not parse names itself and its line.
  await later.fill(HEALTHY_LATER.replace('model_name="course-27b-fp8",engine="0"} 64.0', 'model_name="course-27b-fp8,engine="0"} 64.0'));
  await widget.getByRole('alert').getByText(/Cannot read the later scrape: line \d+: /).waitFor();
  // The sample pair loads both boxes; a sample loaded into the first box alone clears the later one.
  await widget.getByRole('button', { name: 'Load two scrapes of a server that fell behind' }).click();
  await eventually(ttftRow, ['60 s', '78 s', '80 s', 'p99 ≤ 500 ms']);
  assert.equal(await first.inputValue(), HEALTHY);
  assert.equal(await later.inputValue(), HEALTHY_LATER);
  await widget.getByRole('button', { name: 'Load the healthy sample' }).click();
  await eventually(ttftRow, ['43 ms', '98 ms', '217 ms', 'p99 ≤ 500 ms']);
  assert.equal(await later.inputValue(), '');
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(problems(), []);
});

test('a server that turns requests away reads past the knee, with how many it refused', async () => {
  const { page, widget, problems } = await openWidget('metrics-reader');
  await widget.getByLabel(/Prometheus text from a vLLM server's \/metrics/).fill(SHEDDING);
  await widget.getByLabel(/Paste a later scrape/).fill(SHEDDING_LATER);
  await widget.getByLabel(/Seconds between the two scrapes/).fill('60');
  const status = widget.locator('.reader-status');
  await status.filter({ hasText: /^Read 1 label set over the window between the two scrapes: past the knee\.$/ }).waitFor();
  // Its queue is short and its SLOs are met: only the rejections give it away.
  assert.match((await widget.locator('.reader-refusals').textContent()).trim(),
    /^Turned away: 900 of 1500 arriving \(60%\) in the window \(vllm:admission_rejections_total; by reason: 900 max_num_queued_reqs/);
  const reasons = await widget.locator('.reader-reasons').textContent();
  assert.match(reasons, /turned away 900 of 1500 arriving requests \(60%\) in the window/);
  assert.match(reasons, /num_requests_waiting \(8\) no longer measures the overload/);
  assert.match(reasons, /p99 TTFT ≈ [\d.]+ ms meets the 500 ms SLO/);
  await widget.locator('.reader-server').scrollIntoViewIfNeeded();
  await screenshot(page, 'cluster-reader-shedding');
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(problems(), []);
});

test('invalid input shows an error with its line number, and the page keeps working', async () => {
  const { page, widget, problems } = await openWidget('metrics-reader');
  const textarea = widget.getByLabel(/Prometheus text from a vLLM server's \/metrics/);
  const alert = widget.getByRole('alert');

  // The running gauge's line of the healthy page (line 5, after two comment lines and its HELP and TYPE) loses
  // its closing quote.
  const lines = HEALTHY.split('\n');
  assert.match(lines[4], /^vllm:num_requests_running\{model_name="course-27b-fp8",engine="0"\} 19\.0$/);
  lines[4] = 'vllm:num_requests_running{model_name="course-27b-fp8,engine="0"} 19.0';
  await textarea.fill(lines.join('\n'));
  await alert.getByText(/Cannot read this page/).waitFor();
  const message = await alert.textContent();
  assert.match(message, /line 5: /);
  assert.match(message, /Line 5: vllm:num_requests_running\{model_name="course-27b-fp8,engine="0"\} 19\.0/);
  assert.equal(await widget.locator('.reader-verdict').count(), 0, 'no verdict for a page that does not parse');
  await alert.scrollIntoViewIfNeeded();
  await screenshot(page, 'cluster-reader-error');

  // Garbage, a truncated histogram, and a page without vLLM metrics.
  await textarea.fill('}{ not metrics at all');
  await alert.getByText(/line 1: expected a metric name/).waitFor();
  const truncated = PAST_THE_KNEE.slice(0, PAST_THE_KNEE.indexOf('le="2560.0"'));
  await textarea.fill(truncated);
  await alert.getByText(/line \d+: /).waitFor();
  await textarea.fill('node_load1 0.5\n');
  await widget.getByRole('status').filter({ hasText: /has no vLLM metrics/ }).waitFor();
  assert.equal((await alert.textContent()).trim(), '');

  // The page is still alive: a sample loads and reads.
  await widget.getByRole('button', { name: 'Load the healthy sample' }).click();
  await eventually(async () => (await widget.locator('.reader-verdict').textContent()).trim(), 'Verdict: below the knee');
  assert.equal((await alert.textContent()).trim(), '');
  assert.deepEqual(problems(), []);
});

/** A page in vLLM's shape of at least `minBytes`, like `cluster::exposition::synthetic_page` (the bench's page). */
function syntheticPage(minBytes) {
  const bounds = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80, 160, 640, 2560];
  const ttft = 'vllm:time_to_first_token_seconds';
  let gauges = '# TYPE vllm:num_requests_running gauge\n';
  let histograms = `# TYPE ${ttft} histogram\n`;
  for (let model = 0; gauges.length + histograms.length < minBytes; model++) {
    const labels = `model_name="org/model-${model} \\"v2\\"",engine="0"`;
    gauges += `vllm:num_requests_running{${labels}} ${model}.0\n`;
    bounds.forEach((bound, index) => { histograms += `${ttft}_bucket{${labels},le="${bound}"} ${index * 10}.0\n`; });
    const total = bounds.length * 10;
    histograms += `${ttft}_bucket{${labels},le="+Inf"} ${total}.0\n${ttft}_count{${labels}} ${total}.0\n${ttft}_sum{${labels}} 123.45\n`;
  }
  return gauges + histograms;
}

test('a 1 MB paste reads in well under a second, and one over 5 MB is refused with the limit', async (t) => {
  const { page, widget, problems } = await openWidget('metrics-reader');
  // The knee lab above runs its sweep (and then its simulated /metrics) on load; time the reader once that is done.
  await labButton(widget, "Use the knee lab's /metrics").waitFor({ timeout: 30000 });
  const big = syntheticPage(1024 * 1024);
  // Set the text as a paste does (one input event); typing a megabyte key by key is not what a learner does.
  const paste = (text) => page.evaluate((value) => {
    const textarea = document.getElementById('metrics-reader-page');
    textarea.value = value;
    textarea.dispatchEvent(new Event('input', { bubbles: true }));
  }, text);
  await paste(big);
  const pasted = Date.now();
  const status = widget.locator('.reader-status');
  await status.filter({ hasText: /^Read \d+ label sets/ }).waitFor();
  // The 300 ms pause before reading, then parse, signals, verdicts and drawing.
  const elapsed = Date.now() - pasted;
  assert.ok(elapsed < 1500, `a 1 MB page took ${elapsed} ms to read and draw`);
  t.diagnostic(`1 MB page: ${elapsed} ms from paste to drawn verdicts, the 300 ms pause included`);
  // Every synthetic label set has a TTFT p99 in the +Inf bucket, above 2560 s: all past the knee.
  const summary = await status.textContent();
  const sets = Number(summary.match(/^Read (\d+) label sets: \1 past the knee\.$/)?.[1]);
  assert.ok(sets > 100, summary);
  // Thousands of label sets would stall the page if drawn at once: a dozen at a time, more on request.
  assert.equal(await widget.locator('.reader-server').count(), 12);
  assert.match(await widget.locator('.reader-more').textContent(), new RegExp(`Showing the first 12 of ${sets} label sets`));
  await widget.getByRole('button', { name: 'Show 12 more' }).click();
  await eventually(() => widget.locator('.reader-server').count(), 24);

  await paste('# padding\n'.repeat(550_000));
  await widget.getByRole('alert').getByText(/the limit is 5 MB/).waitFor();
  assert.equal(await widget.locator('.reader-server').count(), 0);
  // Still responsive: a sample loads at once, and from its first label set again.
  await widget.getByRole('button', { name: 'Load the healthy sample' }).click();
  await eventually(async () => (await widget.locator('.reader-verdict').textContent()).trim(), 'Verdict: below the knee');
  assert.deepEqual(problems(), []);
});

test('a file is read through the picker, and one over 5 MB is refused before reading', async () => {
  const { widget, problems } = await openWidget('metrics-reader');
  const picker = widget.getByLabel('Or open a file');
  await picker.setInputFiles({ name: 'scrape.prom', mimeType: 'text/plain', buffer: Buffer.from(PAST_THE_KNEE) });
  await widget.locator('.reader-verdict').getByText('past the knee').waitFor();

  await picker.setInputFiles({ name: 'huge.prom', mimeType: 'text/plain', buffer: Buffer.alloc(6 * 1024 * 1024, '#') });
  const alert = widget.getByRole('alert');
  await alert.getByText(/huge\.prom is 6\.0 MB; the limit is 5 MB/).waitFor();
  assert.match(await alert.textContent(), /Nothing was read/);
  // What was read before is still there.
  assert.equal((await widget.locator('.reader-verdict').textContent()).trim(), 'Verdict: past the knee');
  assert.deepEqual(problems(), []);
});

test('without a knee-lab run, the lab buttons are disabled and say why; once it converges they are enabled', async () => {
  // The lab starts its run as it mounts (when it nears the viewport) and shares it only after a pause once it has
  // converged (a timer): the page's timers are paused so that nothing is shared before the check, then resumed. The
  // sweep itself yields through a MessageChannel, not a timer, so it may already show a rough estimate.
  const { page, problems } = await site.open('');
  await page.clock.install({ time: new Date('2026-01-01T00:00:00Z') });
  await page.clock.pauseAt(new Date('2026-01-01T00:00:01Z'));
  await page.goto(site.url(`${LESSON_PATH}#knee-lab`));
  const status = page.locator('section#knee-lab .lab-status');
  await status.waitFor({ timeout: 15000 });
  assert.match((await status.textContent()).trim(), /^(Simulating…|Rough estimate|Final estimate)/);
  const buttons = ["Use the knee lab's /metrics", "Use the knee lab's latency"];
  const reasonOf = async (button) => page.locator(`[id="${await button.getAttribute('aria-describedby')}"]`).textContent();
  for (const widget of ['metrics-reader', 'littles-law-sizer']) await liveWidget(page, widget);
  for (const name of buttons) {
    const button = page.getByRole('button', { name });
    await button.waitFor();
    assert.equal(await button.isDisabled(), true, `${name} should be disabled`);
    assert.match(await reasonOf(button), /The knee lab has no run yet/);
  }
  await page.clock.resume();
  for (const name of buttons) {
    const button = labButton(page, name);
    await button.waitFor({ timeout: 30000 });
    assert.match(await reasonOf(button), /^The knee lab's run.* at 85% load/);
  }
  assert.deepEqual(problems(), []);
});

test('after the knee lab converges at 99% load, its latency fills the sizer and its /metrics reads past the knee', async () => {
  const { page, problems } = await site.open(`${LESSON_PATH}?load=0.99`);
  const lab = await liveWidget(page, 'knee-lab');
  await lab.locator('.lab-status[data-state="done"]').waitFor({ timeout: 30000 });
  assert.equal((await lab.locator('[data-readout="load"] dd').textContent()).trim(), '99%');
  // The lab's mean end-to-end latency is the W of its Little's Law readout: "L in the system; X req/s × W = L".
  const little = (await lab.locator('[data-readout="little"] dd').textContent()).trim();
  const mean = little.match(/ × (\S+ m?s) = /)?.[1];
  assert.ok(mean, `no mean latency in the Little's Law readout: ${little}`);

  const sizer = await liveWidget(page, 'littles-law-sizer');
  const useLatency = labButton(sizer, "Use the knee lab's latency");
  await useLatency.waitFor({ timeout: 5000 });
  const note = page.locator(`[id="${await useLatency.getAttribute('aria-describedby')}"]`);
  assert.match(await note.textContent(), new RegExp(`^The knee lab's run: mean latency ${mean.replace('.', '\\.')} at 99% load, --max-num-seqs \\d+\\.$`));
  await useLatency.click();
  const latency = Number(await sizer.getByLabel(/mean latency/).inputValue());
  // The field gets the same mean to two decimals of a second; the readout rounds it to its own digits.
  const shown = seconds(mean);
  const readoutStep = /\./.test(mean) ? 0.05 : 0.5;
  const unit = mean.endsWith(' ms') ? 0.001 : 1;
  assert.ok(Math.abs(latency - shown) <= readoutStep * unit + 0.005, `sizer latency ${latency} s, lab mean ${mean}`);
  const arithmetic = await sizer.locator('.sizer-result .sizer-arithmetic li').first().textContent();
  // The sizer now works from that latency: 64 ÷ W.
  const used = arithmetic.match(/= 64 ÷ (\S+ m?s) = /)?.[1];
  assert.ok(used && Math.abs(seconds(used) - latency) <= 0.05, `the arithmetic does not use ${latency} s: ${arithmetic}`);
  await screenshot(page, 'cluster-sizer-from-lab');

  const reader = await liveWidget(page, 'metrics-reader');
  await labButton(reader, "Use the knee lab's /metrics").click();
  const verdict = reader.locator('.reader-verdict').first();
  await verdict.waitFor();
  // 99% of saturation, open loop: the simulated server is at or past the knee, never below it.
  assert.match((await verdict.textContent()).trim(), /^Verdict: (at the knee|past the knee)/);
  assert.match(await reader.getByLabel(/Prometheus text from a vLLM server's \/metrics/).inputValue(), /^# HELP vllm:/m);
  await verdict.scrollIntoViewIfNeeded();
  await screenshot(page, 'cluster-reader-from-lab');
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(problems(), []);
});

test('the sizer\'s arithmetic matches the hand-computed case, and its scaling rule is ready to paste', async () => {
  const { page, context, widget, problems } = await openWidget('littles-law-sizer');
  // The lesson's settings: cap 64, 8 s, 30 requests/s, headroom 0.8.
  for (const [label, value] of [[/max-num-seqs/, '64'], [/mean latency/, '8'], [/peak demand/, '30'], [/target headroom/, '0.8']]) {
    assert.equal(await widget.getByLabel(label).inputValue(), value);
  }
  // By hand: 64 ÷ 8 s = 8 requests/s per replica; 0.8 × 8 = 6.4; ceil(30 ÷ 6.4) = ceil(4.6875) = 5; 30 × 8 = 240.
  assert.deepEqual(await sizerFigures(widget), {
    'Per-replica max QPS': '8.0 requests/s',
    'Replicas needed': '5',
    'In flight at peak': '240 requests',
  });
  const arithmetic = await widget.locator('.sizer-result .sizer-arithmetic li').allTextContents();
  assert.equal(arithmetic[0], 'Per-replica max QPS = cap ÷ latency = 64 ÷ 8.0 s = 8.0 requests/s');
  assert.equal(arithmetic[2], 'Replicas = ceil(peak ÷ per-replica target) = ceil(30 ÷ 6.4) = ceil(4.7) = 5');
  assert.match(arithmetic[3], /In flight at peak = peak × latency = 30 × 8\.0 s = 240 requests, in 320 slots/);

  // The lesson's Step 5: cap 32, 4 s, 36 requests/s, no headroom → 8 per replica, ceil(4.5) = 5, 144 in flight.
  await widget.getByLabel(/max-num-seqs/).fill('32');
  await widget.getByLabel(/mean latency/).fill('4');
  await widget.getByLabel(/peak demand/).fill('36');
  await widget.getByLabel(/target headroom/).fill('1');
  assert.deepEqual(await sizerFigures(widget), {
    'Per-replica max QPS': '8.0 requests/s',
    'Replicas needed': '5',
    'In flight at peak': '144 requests',
  });
  assert.match(await widget.locator('.sizer-result').textContent(), /ceil\(36 ÷ 8\.0\) = ceil\(4\.5\) = 5/);

  // Back to the lesson's case: threshold ceil(64 × 0.2) = 13 waiting, 5 to 10 replicas (twice the peak).
  await widget.getByLabel(/max-num-seqs/).fill('64');
  await widget.getByLabel(/mean latency/).fill('8');
  await widget.getByLabel(/peak demand/).fill('30');
  await widget.getByLabel(/target headroom/).fill('0.8');
  await widget.getByLabel(/Model name/).fill('qwen-27b');
  const rule = widget.getByRole('region', { name: /From numbers to an autoscaler/ });
  assert.match(await rule.locator('p').first().textContent(), /cap of 64, 8\.0 s latency, a peak of 30 requests\/s and 80% headroom/);
  const alertRule = await rule.getByLabel('Prometheus alert rule, vllm-knee.rules.yaml').textContent();
  assert.match(alertRule, /expr: "avg\(vllm:num_requests_waiting\{model_name=\\"qwen-27b\\"\}\) > 13"/);
  const keda = await rule.getByLabel('KEDA ScaledObject, vllm-keda.yaml').textContent();
  assert.match(keda, /minReplicaCount: 5\n/);
  assert.match(keda, /maxReplicaCount: 10\n/);
  assert.match(keda, /threshold: "13"/);
  assert.match(keda, /# minReplicas 5 = ceil\(peak 30 ÷ \(8\.0 requests\/s per replica × 0\.80\)\)/);

  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await rule.getByRole('button', { name: 'Copy vllm-keda.yaml' }).click();
  await rule.getByText('Copied.').waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), keda);

  const slo = await widget.locator('.slo-card').allTextContents();
  assert.equal(slo.length, 5);
  assert.match(slo[0], /Chat.*p99 TTFT ≤ 500 ms.*p95 TPOT ≤ 50 ms.*A person is watching/s);
  assert.match(slo[1], /RAG.*p99 TTFT ≤ 1\.5 s/s);
  assert.match(slo[2], /Code completion.*p99 TTFT ≤ 300 ms.*p95 TPOT ≤ 20 ms/s);
  assert.match(slo[3], /Agents.*p99 TTFT ≤ 1\.0 s.*p95 TPOT ≤ 30 ms/s);
  assert.match(slo[4], /Batch summarisation.*p99 TTFT ≤ 60 s.*p95 TPOT ≤ 200 ms/s);

  await widget.locator('.sizer').scrollIntoViewIfNeeded();
  await screenshot(page, 'cluster-sizer');
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(problems(), []);
});

test('without navigator.clipboard (plain http from another host) the copy button selects the text and says so', async () => {
  const { page, widget, problems } = await openWidget('littles-law-sizer');
  // Outside a secure context browsers leave navigator.clipboard undefined.
  await page.evaluate(() => Object.defineProperty(Navigator.prototype, 'clipboard', { get: () => undefined, configurable: true }));
  const rule = widget.getByRole('region', { name: /From numbers to an autoscaler/ });
  await rule.getByRole('button', { name: 'Copy vllm-keda.yaml' }).click();
  await rule.getByText(/^Copy failed: select the text and copy it by hand\./).waitFor();
  const keda = await rule.getByLabel('KEDA ScaledObject, vllm-keda.yaml').textContent();
  // All of it is selected (Chromium leaves out the final newline of a <pre> when it turns a selection into text).
  assert.equal(await page.evaluate(() => window.getSelection().toString()), keda.trimEnd());
  assert.deepEqual(problems(), []);
});

test('an invalid sizer field shows its message beside it, and NaN never appears', async () => {
  const { page, widget, problems } = await openWidget('littles-law-sizer');
  const cases = [
    [/mean latency/, '0', 'must be more than 0; enter the mean end-to-end latency in seconds, e.g. 8'],
    [/mean latency/, '-3', 'must be more than 0; enter the mean end-to-end latency in seconds, e.g. 8'],
    [/max-num-seqs/, 'abc', '"abc" is not a number'],
    [/max-num-seqs/, '', 'enter a number'],
    [/max-num-seqs/, '12.5', 'must be a whole number of sequences'],
    [/peak demand/, '1e9', 'is implausibly large; at most'],
    [/target headroom/, '80', 'a fraction of 1: for 80% enter 0.8'],
  ];
  const valid = { 'mean latency': '8', 'max-num-seqs': '64', 'peak demand': '30', 'target headroom': '0.8' };
  for (const [label, value, message] of cases) {
    const field = widget.getByLabel(label);
    await field.fill(value);
    assert.equal(await field.getAttribute('aria-invalid'), 'true', `${label} = ${value}`);
    const describedBy = (await field.getAttribute('aria-describedby')).split(' ');
    const error = page.locator(`[id="${describedBy[0]}"]`);
    assert.ok((await error.textContent()).includes(message), `${label} = ${value}: ${await error.textContent()}`);
    // The message sits beside its own field, inside the same field group.
    assert.equal(await widget.locator('.sizer-field.has-error').count(), 1);
    assert.deepEqual(Object.values(await sizerFigures(widget)), ['—', '—', '—']);
    assert.match(await widget.locator('.sizer-result').textContent(), /Fix the marked field/);
    assert.match(await widget.locator('.sizer-rule').textContent(), /Fix the marked field above/);
    const text = await page.locator('body').innerText();
    assert.ok(!/NaN|Infinity|undefined/.test(text), `${label} = ${value} shows NaN/Infinity/undefined`);
    if (value === '80') break; // the last case stays refused for the screenshot
    await field.fill(valid[label.source]);
    assert.equal(await field.getAttribute('aria-invalid'), 'false');
  }
  await screenshot(page, 'cluster-sizer-error');
  // Fixing the field brings the result back and clears the mark.
  const headroom = widget.getByLabel(/target headroom/);
  await headroom.fill('0.8');
  assert.equal(await headroom.getAttribute('aria-invalid'), 'false');
  assert.equal((await sizerFigures(widget))['Replicas needed'], '5');
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(problems(), []);
});

test('the sizer works from the keyboard alone', async () => {
  const { page, widget, problems } = await openWidget('littles-law-sizer');
  // The lab on the page runs by itself; wait for its reading so the tab order below is the settled one.
  await labButton(widget, "Use the knee lab's latency").waitFor({ timeout: 30000 });
  const focused = () => page.evaluate(() => document.activeElement?.id || document.activeElement?.textContent?.trim());
  const cap = widget.getByLabel(/max-num-seqs/);
  const capId = await cap.getAttribute('id');
  // Tab into the widget from the focusable element just before its first field (a field inside a closed <details>,
  // such as a predict step's class tally, is not rendered and cannot take focus).
  await cap.evaluate((input) => {
    const all = [...document.querySelectorAll('a[href], button:not([disabled]), input, textarea, summary, [tabindex="0"]')]
      .filter((element) => element === input || element.checkVisibility());
    all[all.indexOf(input) - 1].focus();
  });
  await page.keyboard.press('Tab');
  assert.equal(await focused(), capId);
  await page.keyboard.press('Control+A');
  await page.keyboard.type('32');
  await page.keyboard.press('Tab');
  assert.equal(await focused(), await widget.getByLabel(/mean latency/).getAttribute('id'));
  await page.keyboard.press('Control+A');
  await page.keyboard.type('4');
  // The knee lab above has converged, so its latency button is enabled and takes its turn between the two fields.
  await page.keyboard.press('Tab');
  assert.equal(await focused(), "Use the knee lab's latency");
  await page.keyboard.press('Tab');
  assert.equal(await focused(), await widget.getByLabel(/peak demand/).getAttribute('id'));
  await page.keyboard.press('Control+A');
  await page.keyboard.type('36');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Control+A');
  await page.keyboard.type('0.8');
  // 32 ÷ 4 = 8 per replica; 0.8 × 8 = 6.4; ceil(36 ÷ 6.4) = ceil(5.625) = 6; 36 × 4 = 144 in flight.
  assert.deepEqual(await sizerFigures(widget), {
    'Per-replica max QPS': '8.0 requests/s',
    'Replicas needed': '6',
    'In flight at peak': '144 requests',
  });
  // On through the model name and the first YAML block to its Copy button.
  await page.keyboard.press('Tab');
  assert.equal(await focused(), await widget.getByLabel(/Model name/).getAttribute('id'));
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.tagName), 'PRE');
  await page.keyboard.press('Tab');
  assert.equal(await focused(), 'Copy vllm-knee.rules.yaml');
  await page.keyboard.press('Enter');
  await widget.getByRole('status').filter({ hasText: /Copied\.|copy it by hand/ }).first().waitFor();
  assert.deepEqual(problems(), []);
});

test('both widgets fit a 390 px phone and a 1280 × 720 projector', async () => {
  for (const viewport of [{ width: 390, height: 844 }, { width: 1280, height: 720 }]) {
    for (const name of ['littles-law-sizer', 'metrics-reader']) {
      const { page, widget, problems } = await openWidget(name, viewport);
      if (name === 'metrics-reader') {
        await widget.getByRole('button', { name: 'Load the past-the-knee sample' }).click();
        await widget.locator('.reader-verdict').waitFor();
      }
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 0, `${name} at ${viewport.width}px overflows the page by ${overflow}px`);
      const box = await widget.boundingBox();
      assert.ok(box.x >= 0 && box.x + box.width <= viewport.width, `${name} sticks out at ${viewport.width}px`);
      for (const button of await widget.locator('button:not([disabled])').all()) {
        const { height } = await button.boundingBox();
        assert.ok(height >= 44, `a button of ${name} is ${height}px tall at ${viewport.width}px`);
      }
      await screenshot(page, `cluster-${name}-${viewport.width}`, { fullPage: false });
      // The whole widget, cut from a full-page picture: an element's screenshot waits until the element has not moved
      // for two frames, which the page above it, still mounting and keeping the reader's place, can put off for over
      // 30 s on a busy 2-core machine (it failed CI once, and took 106 s in another run).
      const whole = await widget.evaluate((element) => {
        const box = element.getBoundingClientRect();
        return { x: box.x + window.scrollX, y: box.y + window.scrollY, width: box.width, height: box.height };
      });
      await page.screenshot({ path: new URL(`artifacts/cluster-${name}-${viewport.width}-whole.png`, import.meta.url).pathname, fullPage: true, clip: whole });
      assert.deepEqual(problems(), []);
    }
  }
});
