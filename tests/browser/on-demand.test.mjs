// The page as a thin shell: the lesson's first visit fetches none of the widgets' code, and each widget, opened cold
// (a fresh profile following a link to it), fetches its own module and the chunks it shares, once, and draws.
// Presentation mode's code comes only with `?present=1`. Which files are which: tools/split-page.mjs names each
// on-demand module `lazy-NAME-HASH.wasm` and the loader that fetches them `split-HASH.js`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { axeViolations, siteUnderTest, waitForApp, liveWidget } from './harness.mjs';

const LESSON_PATH = 'lessons/latency-throughput-slos/';
const site = siteUnderTest();

/** Every request the page makes for an on-demand module, by file name, in order. */
function recordModules(page) {
  const fetched = [];
  page.on('request', (request) => {
    const file = new URL(request.url()).pathname.split('/').pop();
    if (/^lazy-.*\.wasm$/.test(file)) fetched.push(file);
  });
  return fetched;
}

/** The names fetched more than once. */
const twice = (files) => files.filter((file, index) => files.indexOf(file) !== index);

/** What a drawn widget shows: chart widgets a canvas drawn at least once (`chart:draw:*`), the others their output. */
const DRAWN = {
  'knee-lab': { chart: true },
  'goodput-chart': { chart: true },
  'batch-timeline': { chart: true },
  'littles-law-sizer': { shows: '.sizer-figures dd' },
  'metrics-reader': { shows: 'textarea' },
  'fleet-day': { shows: '.fleet-charts svg' },
};

test('a first visit at the lesson top fetches no widget or presentation code', async () => {
  const { page, context, problems } = await site.open(LESSON_PATH);
  const fetched = recordModules(page);
  await waitForApp(page);
  await page.waitForTimeout(1500);
  assert.deepEqual(fetched, [], 'modules fetched without the reader going near a widget');
  assert.deepEqual(problems(), []);
  await context.close();
});

for (const [name, drawn] of Object.entries(DRAWN)) {
  test(`the ${name} widget, opened cold by a link, fetches its code once and draws`, async () => {
    const { page, context, problems } = await site.open(LESSON_PATH);
    const fetched = recordModules(page);
    await waitForApp(page);
    const widget = await liveWidget(page, name);
    if (drawn.chart) {
      await page.waitForFunction((widgetName) => {
        const section = document.querySelector(`section.lesson-widget[data-widget="${widgetName}"]`);
        return section?.querySelector('canvas')
          && performance.getEntriesByType('measure').some((entry) => entry.name.startsWith('chart:draw:'));
      }, name, { timeout: 20000 });
      const canvas = widget.locator('canvas').first();
      const box = await canvas.boundingBox();
      assert.ok(box && box.width > 100 && box.height > 100, `the ${name} canvas has room (${JSON.stringify(box)})`);
    } else {
      await widget.locator(drawn.shows).first().waitFor({ timeout: 20000 });
    }
    assert.ok(fetched.length > 0, `the ${name} widget came without fetching its module`);
    assert.ok(!fetched.some((file) => file.includes('presentation')), `presentation code fetched: ${fetched}`);
    assert.deepEqual(twice(fetched), [], 'a module fetched twice');
    assert.deepEqual(problems(), []);
    await context.close();
  });
}

// An address that opens on a widget, or on a presentation, asks for that code as soon as the page is parsed, beside
// the page's own wasm, rather than once the wasm has started (over a second on a slow link: BENCHMARKS.md). The
// page's wasm is held back here until the module has been asked for, or for 10 s.
for (const [address, module] of [['#knee-lab', 'knee-lab'], ['?present=1', 'presentation']]) {
  test(`a link to ${address} fetches its module while the page's own wasm downloads`, async () => {
    let asked;
    const moduleAsked = new Promise((resolve) => { asked = resolve; });
    const heldBack = [];
    let fetched;
    const { page, context, problems } = await site.open(`${LESSON_PATH}${address}`, undefined, {
      before: async (page) => {
        fetched = recordModules(page);
        page.on('request', (request) => {
          if (new URL(request.url()).pathname.split('/').pop().startsWith(`lazy-split-${module}-`)) asked();
        });
        await page.route(/\/goodput-[^/]*_bg\.wasm$/, async (route) => {
          const timeout = new Promise((resolve) => { setTimeout(resolve, 10000, false); });
          heldBack.push(await Promise.race([moduleAsked.then(() => true), timeout]));
          await route.continue();
        });
      },
    });
    await waitForApp(page);
    if (module === 'knee-lab') await liveWidget(page, 'knee-lab');
    else await page.locator('.present-stage').first().waitFor({ timeout: 15000 });
    assert.deepEqual(heldBack, [true], `the ${module} module was not asked for before the page's wasm arrived`);
    assert.deepEqual(twice(fetched), [], 'a module fetched twice');
    assert.deepEqual(problems(), []);
    await context.close();
  });
}

// Until the lab's module runs, its island shows pictures of the lab at the lesson's settings. Asked for lazily, after
// layout, they queued behind the lab's 39 module files: on the slow link the learner saw two white boxes for 3 s
// (BENCHMARKS.md). A link to the lab asks for them first. Here the page's wasm is held back until the latency picture
// has been shown, or for 10 s, and the lab's worker gets no wasm: its own pictures, which can take the static ones'
// place before those are asked for, are tested below.
test('a link to #knee-lab asks for the lab\'s pictures before its code, and shows them while the page\'s wasm downloads', async () => {
  const asked = [];
  let pictureShown;
  const shown = new Promise((resolve) => { pictureShown = resolve; });
  const heldBack = [];
  const { page, context, problems } = await site.open(`${LESSON_PATH}#knee-lab`, undefined, {
    before: async (page) => {
      page.on('request', (request) => {
        const file = new URL(request.url()).pathname.split('/').pop();
        if (/^knee-lab-.*\.svg$/.test(file)) asked.push('picture');
        else if (/^lazy-.*\.wasm$/.test(file)) asked.push('module');
      });
      await page.route(/\/lab-worker-[^/]*_bg\.wasm$/, (route) => route.abort());
      await page.exposeFunction('pictureShown', () => pictureShown());
      await page.addInitScript(() => {
        const watch = () => {
          const picture = document.querySelector('#knee-lab .chart-static img');
          if (!picture) return;
          if (picture.complete && picture.naturalWidth > 0) window.pictureShown();
          else picture.addEventListener('load', () => window.pictureShown(), { once: true });
        };
        document.addEventListener('DOMContentLoaded', watch, { once: true });
      });
      await page.route(/\/goodput-[^/]*_bg\.wasm$/, async (route) => {
        const timeout = new Promise((resolve) => { setTimeout(resolve, 10000, false); });
        heldBack.push(await Promise.race([shown.then(() => true), timeout]));
        await route.continue();
      });
    },
  });
  await waitForApp(page);
  await liveWidget(page, 'knee-lab');
  assert.deepEqual(heldBack, [true], 'the lab\'s picture was not shown before the page\'s wasm arrived');
  const firstModule = asked.indexOf('module');
  assert.ok(firstModule > 0, `no module asked for after a picture: ${asked}`);
  assert.deepEqual(asked.slice(0, firstModule), ['picture', 'picture'], `asked for in this order: ${asked}`);
  assert.deepEqual(problems(), []);
  await context.close();
});

// On a slow link a link to the lab waits seconds for the page's wasm and the lab's module (BENCHMARKS.md). Its worker
// (src/bin/lab-worker/, started by src/boot.js) draws the lab's first screen first, with a load slider that works,
// while the page's wasm waits; the full lab then takes the island over at the load the learner left. Here the page's
// wasm is held back until the test has moved that slider.
test('a link to #knee-lab draws the lab\'s first screen from its worker, whose slider works before the page\'s wasm', async () => {
  let release;
  const released = new Promise((resolve) => { release = resolve; });
  const order = [];
  const asked = [];
  const { page, context, problems } = await site.open(`${LESSON_PATH}#knee-lab`, undefined, {
    before: async (page) => {
      page.on('request', (request) => {
        if (/\/lab-worker-[^/]*_bg\.wasm$/.test(request.url())) asked.push('wasm');
        if (/\/lab-worker-[^/]*\.js$/.test(request.url())) asked.push('glue');
      });
      page.on('requestfinished', (request) => {
        if (/\/lab-worker-[^/]*_bg\.wasm$/.test(request.url())) order.push('the worker\'s wasm arrived');
      });
      await page.route(/\/goodput-[^/]*_bg\.wasm$/, async (route) => {
        order.push('the page\'s wasm asked for');
        await released;
        await route.continue();
      });
    },
  });
  const slider = page.getByRole('slider', { name: 'Offered load' });
  await slider.waitFor({ timeout: 15000 });
  assert.equal(order[0], 'the worker\'s wasm arrived', `the page's wasm did not wait for the worker's: ${order}`);
  // The worker asks for its wasm before it loads its glue, so that the wasm does not wait for the glue's round trip.
  assert.deepEqual(asked, ['wasm', 'glue'], 'the worker\'s files in the order asked for');
  const latency = page.locator('#knee-lab .chart-static img').first();
  const said = async () => latency.getAttribute('alt');
  assert.match(await said(), /^At 85% load p99 TTFT is /);
  assert.match(await latency.getAttribute('src'), /^data:image\/svg/, 'the picture is not the worker\'s');
  for (let i = 0; i < 5; i += 1) await slider.press('ArrowRight');
  await page.waitForFunction(() => document.querySelector('#knee-lab .chart-static img')?.alt.startsWith('At 90% load'),
    undefined, { timeout: 10000 });
  assert.equal(await page.locator('#knee-lab .lab-first output').textContent(), '90%');
  // As the full lab writes it, a fraction.
  await page.waitForFunction(() => new URLSearchParams(location.search).get('load') === '0.90', undefined, { timeout: 5000 });
  assert.equal(new URL(page.url()).hash, '#knee-lab');
  // The table under the picture is the worker's too: its p99 at 90% is the one the picture names.
  const p99At90 = (await said()).match(/p99 TTFT is ([^,]+?)(,| \()/)[1];
  const row = page.locator('#knee-lab .chart-static').first().locator('tr', { hasText: /^90%/ });
  assert.match(await row.textContent(), new RegExp(p99At90.replace('.', '\\.')));
  assert.deepEqual(await axeViolations(page), []);
  release();
  await waitForApp(page);
  const lab = await liveWidget(page, 'knee-lab');
  await page.locator('#knee-lab .lab-first').waitFor({ state: 'detached', timeout: 15000 });
  assert.equal(await lab.locator('#knee-lab-load').inputValue(), '90', 'the full lab did not take the load over');
  assert.deepEqual(problems(), []);
  await context.close();
});

// A drag sends the worker loads faster than it draws them: those that come while it draws fold into the last one, so
// the picture follows the slider rather than a queue of every load passed. A worker that stops short (its panic
// hook posts "crashed") takes its slider away, leaving the last picture it drew.
test('the first screen\'s slider asks its worker one load at a time, and goes when the worker crashes', async () => {
  let started;
  const workerStarted = new Promise((resolve) => { started = resolve; });
  const { page, context, problems } = await site.open(`${LESSON_PATH}#knee-lab`, undefined, {
    before: async (page) => {
      page.on('worker', started);
      await page.route(/\/goodput-[^/]*_bg\.wasm$/, () => {}); // the page's wasm never comes
    },
  });
  const worker = await workerStarted;
  const slider = page.getByRole('slider', { name: 'Offered load' });
  await slider.waitFor({ timeout: 15000 });
  await page.waitForFunction(() => document.querySelector('#knee-lab .chart-static img')?.alt.startsWith('At 85% load'));
  await worker.evaluate(() => {
    self.questions = [];
    const read = self.onmessage;
    self.onmessage = (event) => { self.questions.push(event.data[3]); read(event); };
  });
  // Fifteen loads in one task, as a fast drag delivers them between two answers.
  await slider.evaluate((input) => {
    for (let load = 86; load <= 100; load += 1) {
      input.value = String(load);
      input.dispatchEvent(new Event('input', { bubbles: true }));
    }
  });
  await page.waitForFunction(() => document.querySelector('#knee-lab .chart-static img')?.alt.startsWith('At 100% load'),
    undefined, { timeout: 10000 });
  assert.deepEqual(await worker.evaluate(() => self.questions), ['86', '100']);
  await page.waitForFunction(() => new URLSearchParams(location.search).get('load') === '1.00', undefined, { timeout: 5000 });

  await worker.evaluate(() => postMessage(['crashed', 'a panic, as the worker\'s hook reports one']));
  await page.locator('#knee-lab .lab-first').waitFor({ state: 'hidden', timeout: 5000 });
  assert.match(await page.locator('#knee-lab .chart-static img').first().getAttribute('alt'), /^At 100% load/);
  assert.deepEqual(problems(), []);
  await context.close();
});

test('a link to #knee-lab that runs the learner\'s own server leaves the lab to the full lab', async () => {
  const { page, context, problems } = await site.open(`${LESSON_PATH}?preset=yours#knee-lab`);
  await waitForApp(page);
  const lab = await liveWidget(page, 'knee-lab');
  assert.ok(await lab.locator('#knee-lab-load').isVisible());
  assert.equal(await page.locator('.lab-first').count(), 0);
  assert.deepEqual(problems(), []);
  await context.close();
});

// The lab's worker (src/lab-start.js) starts only on an address whose fragment is the lab's: not at the lesson's top, not
// on the home page, not when presenting (the presentation draws the lab itself), and not on a fragment that is not
// valid percent-encoding; each of those preloads the page's wasm at once instead.
test('the lab\'s worker starts on a link to the lab only', async () => {
  for (const address of [LESSON_PATH, '', `${LESSON_PATH}?present=1#knee-lab`, `${LESSON_PATH}#knee-lab%`]) {
    const workers = [];
    const { page, context, problems } = await site.open(address, undefined, {
      before: async (page) => {
        page.on('request', (request) => {
          if (/\/lab-worker-[^/]*$/.test(request.url())) workers.push(request.url());
        });
      },
    });
    await waitForApp(page);
    assert.deepEqual(workers, [], `${address || 'the home page'} started the lab's worker`);
    assert.equal(await page.evaluate(() => window.goodputLabWorker), undefined);
    assert.deepEqual(problems(), []);
    await context.close();
  }
});

test('reading down the whole lesson fetches every widget module once, and presenting fetches its own', async () => {
  const { page, context, problems } = await site.open(LESSON_PATH);
  const fetched = recordModules(page);
  await waitForApp(page);
  for (const name of Object.keys(DRAWN)) await liveWidget(page, name);
  assert.deepEqual(twice(fetched), [], 'a module fetched twice');
  assert.ok(!fetched.some((file) => file.includes('presentation')), `presentation code fetched: ${fetched}`);
  await page.goto(site.url(`${LESSON_PATH}?present=1`));
  await waitForApp(page);
  await page.locator('.present-stage').first().waitFor({ timeout: 15000 });
  assert.ok(fetched.some((file) => file.includes('presentation')), `presenting fetched no presentation code: ${fetched}`);
  assert.deepEqual(problems(), []);
  await context.close();
});

// "Your server" under the lab is code of its own (the `your_server` split point): a link to the lab draws without it,
// and the panel's summary holds its place until the learner opens it from the keyboard, which fetches it once; it
// then calibrates as it always did. A browser that keeps a server fetches it with the lab, the panel open on it.
const YOUR_SERVER = /^lazy-split-your-server-/;
const RESULT = new URL('../fixtures/your-server/light-0.3rps.json', import.meta.url);

/** The lab's "Your server" panel, and whether its code has come (its form is in the panel). */
const yourServer = (lab) => lab.locator('details.lab-your-server');

test('a link to the lab draws without "Your server"; opening it from the keyboard fetches it once, and it calibrates', async () => {
  let fetched;
  const { page, context, problems } = await site.open(`${LESSON_PATH}#knee-lab`, undefined, {
    before: (page) => { fetched = recordModules(page); },
  });
  const lab = await liveWidget(page, 'knee-lab');
  await page.waitForFunction(() => performance.getEntriesByName('lab:first-draw').length > 0, null, { timeout: 20000 });
  await page.waitForTimeout(1000);
  assert.ok(fetched.some((file) => file.startsWith('lazy-split-knee-lab-')), `the lab's module: ${fetched}`);
  assert.ok(!fetched.some((file) => YOUR_SERVER.test(file)), `"Your server" fetched before it was used: ${fetched}`);
  const details = yourServer(lab);
  const closed = await details.boundingBox();
  assert.equal(await details.locator('form').count(), 0, 'the panel is filled in without its code');

  // Its summary, reached from the keyboard, fetches the code; closed, the panel keeps its height as it is filled in.
  await details.locator('summary').focus();
  await details.locator('form').waitFor({ state: 'attached', timeout: 15000 });
  assert.equal((await details.boundingBox()).height, closed.height, 'the closed panel changed height when filled in');
  await page.keyboard.press('Enter');
  assert.notEqual(await details.getAttribute('open'), null, 'Enter on the summary opens the panel');
  await details.getByLabel('Or paste (several: a line of --- between them)').fill(await readFile(RESULT, 'utf8'));
  await details.getByRole('button', { name: 'Calibrate' }).click();
  await details.locator('[data-yours="status"]').filter({ hasText: /Calibrated in/ }).waitFor({ timeout: 20000 });
  assert.equal(await lab.getByLabel('Scenario').inputValue(), 'yours');
  assert.equal(fetched.filter((file) => YOUR_SERVER.test(file)).length, 1, `fetched: ${fetched}`);
  assert.deepEqual(twice(fetched), [], 'a module fetched twice');

  // A browser that keeps the server: the lab runs it and draws, and the panel comes open on it with its report.
  const again = recordModules(page);
  await page.waitForURL(/preset=yours/, { timeout: 10000 });
  await page.reload();
  await liveWidget(page, 'knee-lab');
  await page.waitForFunction(() => performance.getEntriesByName('lab:first-draw').length > 0, null, { timeout: 20000 });
  assert.equal(await lab.getByLabel('Scenario').inputValue(), 'yours', page.url());
  await details.locator('[data-yours="report"]').waitFor({ timeout: 15000 });
  assert.match(await details.locator('[data-yours="report"]').textContent(), /max_num_seqs/);
  assert.notEqual(await details.getAttribute('open'), null);
  assert.equal(again.filter((file) => YOUR_SERVER.test(file)).length, 1, `fetched after the reload: ${again}`);
  assert.deepEqual(problems(), []);
  await context.close();
});

test('"Your server" whose code cannot be fetched says so in its place, and comes once the browser is back online', async () => {
  const { page, context, problems } = await site.open(`${LESSON_PATH}#knee-lab`);
  const lab = await liveWidget(page, 'knee-lab');
  const details = yourServer(lab);
  await context.setOffline(true);
  await details.locator('summary').click();
  await details.getByRole('status').filter({ hasText: /could not be loaded/ }).waitFor({ timeout: 15000 });
  // The first fetch once the browser is back online fails too, as it does when the network comes back a moment after
  // the browser says so (1 run in 4 here, with nothing refused): the panel asks again a little later.
  let refused = 0;
  await context.route(/\/lazy-split-your-server-[^/]*\.wasm$/, (route) => (refused++ === 0 ? route.abort() : route.continue()));
  await context.setOffline(false);
  await details.getByLabel('Files').waitFor({ timeout: 15000 });
  assert.ok(refused >= 2, `the panel's code was asked for ${refused} time(s) once back online`);
  assert.ok(await details.getByRole('status').filter({ hasText: /could not be loaded/ }).isHidden());
  const failedFetch = /^console error: (Failed to load resource: net::(ERR_FAILED|ERR_INTERNET_DISCONNECTED)|TypeError: Failed to fetch)/;
  assert.deepEqual(problems().filter((problem) => !failedFetch.test(problem)), []);
  await context.close();
});
