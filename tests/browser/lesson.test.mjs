// Lesson 32 as a learner meets it: the whole text, anchors, MathML, highlighted code, keywords that
// unfold and recall cards that reveal — by mouse and by keyboard — on a laptop and on a phone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { siteUnderTest, axeViolations, screenshot, waitForApp } from './harness.mjs';

const LESSON_PATH = 'lessons/latency-throughput-slos/';
const site = siteUnderTest();

async function openLesson(viewport) {
  const opened = await site.open(LESSON_PATH, viewport);
  await opened.page.getByRole('heading', { level: 1, name: /Latency, Throughput & SLOs/ }).waitFor({ timeout: 15000 });
  // The pre-rendered keywords and cards are replaced by live ones as the islands mount: wait, or a click may land
  // on an element on its way out.
  await waitForApp(opened.page);
  return opened;
}

test('every section of the lesson is there, in order', async () => {
  const { page, problems } = await openLesson();
  const headings = await page.locator('article h2').allTextContents();
  // Each topic's first heading comes after the previous topic's: the lesson builds on itself.
  let previous = -1;
  for (const topic of [/two clocks/i, /percentile|throughput/i, /knee/i, /closed.loop|load test/i, /goodput/i, /little/i, /your cluster/i]) {
    const at = headings.findIndex((h, index) => index > previous && topic.test(h));
    assert.ok(at > previous, `no section heading matching ${topic} after "${headings[previous] ?? 'the start'}": ${headings.join(' | ')}`);
    previous = at;
  }
  assert.deepEqual(problems(), []);
});

test('formulas render as MathML, laid out by the browser', async () => {
  const { page, problems } = await openLesson();
  const maths = page.locator('article math');
  assert.ok((await maths.count()) >= 5, 'expected the lesson formulas as <math> elements');
  const box = await maths.first().boundingBox();
  assert.ok(box && box.width > 0 && box.height > 0, 'MathML is not laid out');
  assert.ok(await page.locator('article math[display="block"]').count() >= 1, 'no display formula');
  assert.deepEqual(problems(), []);
});

test('code is highlighted at build time', async () => {
  const { page, problems } = await openLesson();
  const bash = page.locator('pre.code.language-bash').first();
  await bash.waitFor();
  assert.match(await bash.textContent(), /curl .*\/metrics/);
  assert.ok(await bash.locator('span[class^="hl-"]').count() > 0, 'no highlight spans in the bash block');
  assert.deepEqual(problems(), []);
});

test('section anchors link to themselves and a deep link lands on its section', async () => {
  const { page, problems } = await openLesson();
  const anchor = page.locator('article h2 a.heading-anchor').nth(2);
  // The link names the lesson's own address (the page's <base> is the site root), so it stays on this page.
  const target = new URL(await anchor.evaluate((a) => a.href));
  assert.equal(target.pathname, `/course/${LESSON_PATH}`);
  await page.evaluate(() => { window.__sameDocument = true; });
  await anchor.click();
  assert.equal(new URL(page.url()).hash, target.hash);
  assert.equal(await page.evaluate(() => window.__sameDocument), true, 'the anchor reloaded the page');
  const id = target.hash.slice(1);

  await page.goto(site.url(LESSON_PATH + target.hash));
  const heading = page.locator(`[id="${id}"]`);
  await heading.waitFor();
  await page.waitForFunction((target) => {
    const top = document.getElementById(target).getBoundingClientRect().top;
    return top >= 0 && top < 200;
  }, id, { timeout: 5000 });
  assert.deepEqual(problems(), []);
});

test('a keyword unfolds by mouse and a recall card reveals by keyboard', async () => {
  const { page, problems } = await openLesson();
  const keyword = page.locator('details.keyword').first();
  const meaning = keyword.locator('.keyword-meaning');
  assert.equal(await meaning.isVisible(), false);
  await keyword.locator('summary').click();
  await meaning.waitFor({ state: 'visible' });

  const toggle = page.locator('.lesson-recall .reveal-toggle').first();
  const answer = page.locator(`#${await toggle.getAttribute('aria-controls')}`);
  assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
  assert.equal(await answer.isVisible(), false);
  await toggle.focus();
  await page.keyboard.press('Enter');
  assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
  await answer.waitFor({ state: 'visible' });
  await page.keyboard.press('Space');
  assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
  assert.deepEqual(problems(), []);
});

test('the lesson reads well on a laptop and a phone, with no axe violations', async () => {
  for (const [width, height] of [[1280, 720], [390, 844]]) {
    const { page, problems } = await openLesson({ width, height });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow}px at ${width}×${height}`);
    await screenshot(page, `lesson-${width}x${height}`, { fullPage: false });
    await screenshot(page, `lesson-${width}x${height}-full`, { fullPage: true });
    assert.deepEqual(await axeViolations(page), [], `axe at ${width}×${height}`);
    assert.deepEqual(problems(), []);
  }
});
