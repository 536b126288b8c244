// The static site: served under /course/ from the release build, it lists and renders lessons,
// survives deep-link reloads with no server-side rewrite, stays on its own origin and passes axe.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { siteUnderTest, axeViolations, screenshot, waitForApp } from './harness.mjs';

const LESSON_TITLE = 'Latency, Throughput & SLOs';
const LESSON_PATH = 'lessons/latency-throughput-slos/';
const site = siteUnderTest();

test('the home page lists the lesson and links to it under the sub-path', async () => {
  const { page, problems } = await site.open();
  await waitForApp(page);
  const link = page.getByRole('link', { name: new RegExp(LESSON_TITLE) });
  await link.waitFor();
  // A relative link, so the site works under any sub-path; here it resolves under /course/.
  assert.equal(new URL(await link.evaluate((a) => a.href)).pathname, `/course/${LESSON_PATH}`);
  await screenshot(page, 'home-1280x720');
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(problems(), []);
});

test('clicking a lesson opens its page, whose HTML already holds the whole lesson', async () => {
  const { page, problems } = await site.open();
  await waitForApp(page);
  const arrived = page.waitForResponse((response) => new URL(response.url()).pathname === `/course/${LESSON_PATH}`);
  await page.getByRole('link', { name: new RegExp(LESSON_TITLE) }).click();
  // Every page is its own HTML, written at build time: readable before (and without) the wasm.
  const html = await (await arrived).text();
  assert.match(html, /<h1 id="lesson-title">Latency, Throughput &amp; SLOs<\/h1>/);
  assert.ok((html.match(/<h2 id=/g) ?? []).length > 5, 'the sections are in the HTML');
  await page.getByRole('heading', { level: 1, name: new RegExp(LESSON_TITLE) }).waitFor();
  assert.equal(new URL(page.url()).pathname, `/course/${LESSON_PATH}`);
  await waitForApp(page);
  assert.deepEqual(problems(), []);
});

test('a deep link to a lesson loads and survives a reload', async () => {
  const { page, problems } = await site.open(LESSON_PATH);
  const heading = page.getByRole('heading', { level: 1, name: new RegExp(LESSON_TITLE) });
  await heading.waitFor({ timeout: 15000 });
  await page.reload();
  await heading.waitFor({ timeout: 15000 });
  assert.match(await page.title(), new RegExp(LESSON_TITLE));
  await screenshot(page, 'lesson-1280x720');
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(problems(), []);
});

test('the header link leads back home from a deep link', async () => {
  const { page, problems } = await site.open(LESSON_PATH);
  await waitForApp(page);
  await page.getByRole('link', { name: 'goodput', exact: true }).click();
  await page.getByRole('heading', { level: 1, name: /latency, throughput and SLOs/i }).waitFor();
  assert.equal(new URL(page.url()).pathname, '/course/');
  assert.deepEqual(problems(), []);
});

test('an unknown lesson says so and links home', async () => {
  // A static host serves the site's 404.html at an address it has no file for (the test server does too).
  const { page, problems } = await site.open('lessons/no-such-lesson/');
  await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();
  await waitForApp(page);
  const home = page.getByRole('link', { name: 'Go to the course home' });
  assert.equal(new URL(await home.evaluate((a) => a.href)).pathname, '/course/');
  assert.deepEqual(await axeViolations(page), []);
  // The 404 itself is the only complaint: the page found its stylesheets and its wasm.
  assert.deepEqual(problems().filter((p) => !/404 \(Not Found\)/.test(p)), []);
});

test('a panic in the page shows a visible error instead of a dead page', async () => {
  const { page, problems } = await site.open();
  await waitForApp(page);
  const thrown = await page.evaluate(() => {
    try {
      window.wasmBindings.panic_for_test();
      return null;
    } catch (error) {
      return String(error);
    }
  });
  assert.ok(thrown, 'the panic did not reach JavaScript');
  const banner = page.getByRole('alert');
  await banner.waitFor();
  assert.match(await banner.textContent(), /internal error.*Reload the page.*deliberate panic/s);
  await screenshot(page, 'panic-banner-1280x720');
  // The panic is logged for a bug report; nothing else went wrong.
  assert.deepEqual(problems().filter((p) => !/deliberate panic|unreachable/.test(p)), []);
  assert.ok(problems().some((p) => /goodput panicked: .*deliberate panic/s.test(p)));
});
