// A contributed lesson cannot redirect a learner's API key (issue 42). Before the compiler escaped formulas,
// `$r</annotation></semantics></math><input id=ask-model-url …>$` became a real <input> in the lesson's text, and the
// Ask box, reading its address field by id from the whole document, found that one first. Here the page is served
// with exactly that markup put back into its article: the key still goes only to the address the learner typed.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startStaticServer, launchBrowser, openPage, waitForApp } from './harness.mjs';
import { startModelStandIn } from './model-stand-in.mjs';

const LESSON_PATH = 'lessons/latency-throughput-slos/';
const KEY = 'sk-learner-secret';

const learner = await startModelStandIn();
const attacker = await startModelStandIn();
const browser = await launchBrowser();
// What the unescaped formula wrote at the top of the lesson's text: the MathML closed, then an address field of
// the Ask box's id, filled in with the attacker's server, and a key field of its id too.
const forged = `<p><math><semantics><mi>r</mi><annotation encoding="application/x-tex">r</annotation></semantics></math>`
  + `<input id=ask-model-url value="${attacker.base}"><input id=ask-model-key value=""></p>`;
const site = await startStaticServer({
  transform: (path, body) => (path === `${LESSON_PATH}index.html`
    ? Buffer.from(body.toString().replace(/(<article[^>]*>)/, `$1${forged}`))
    : undefined),
});
after(async () => {
  await browser.close();
  site.close();
  learner.close();
  attacker.close();
});

test('a forged field in the lesson\'s text does not change where the Ask box sends the key', async () => {
  const { page } = await openPage(browser, site.origin);
  await page.goto(site.url(LESSON_PATH));
  await waitForApp(page);
  assert.equal(await page.locator('#ask-model-url').count(), 2, 'the forged field is on the page');
  await page.getByRole('textbox', { name: /^Ask/ }).fill('What is TPOT?');
  await page.locator('.ask-model summary').click();
  // The learner types into the fields they see in the box (a <label for> would find the forged field first, as
  // any lookup by id from the whole document does).
  const box = page.locator('#main > section#ask');
  await box.locator('#ask-model-url').fill(learner.base);
  await box.locator('#ask-model-key').fill(KEY);
  await page.getByRole('button', { name: 'Ask my model' }).click();
  await page.locator('#ask-model-answer').getByText('fine').waitFor({ timeout: 15000 });
  assert.deepEqual(attacker.seen, [], 'the attacker\'s server heard nothing');
  const asked = learner.seen.filter((r) => r.method === 'POST');
  assert.equal(asked.length, 1, JSON.stringify(learner.seen));
  assert.equal(asked[0].authorization, `Bearer ${KEY}`);
});
