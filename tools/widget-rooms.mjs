// Measures each widget's live height across screen widths and prints the CSS that holds its room until it mounts
// (style/widgets.css, "Room held for a widget"). Run after `make dist`: node tools/widget-rooms.mjs
//
// A widget's height falls in steps as its text wraps less, and jumps where its layout changes (the knee lab's charts
// go two by two from 1176 px). In each range between those widths the room is a line in vw under every measured
// height (never above one, or the page would shrink when the widget mounts), 24 px lower since between two measured
// widths a text can wrap one line shorter, with a floor at the range's smallest height.
import { startStaticServer, launchBrowser } from '../tests/browser/harness.mjs';

const LESSON = 'lessons/latency-throughput-slos/';
const WIDGETS = ['knee-lab', 'goodput-chart', 'littles-law-sizer', 'metrics-reader', 'batch-timeline'];
/** Where each range starts: the phone layout below 480 px, the prose column's and the widgets' own changes above. */
const RANGE_STARTS = { default: [480, 768], 'knee-lab': [480, 768, 1176] };
const MARGIN_PX = 24;

async function liveHeights(browser, server, width) {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  const page = await context.newPage();
  await page.goto(server.url(LESSON));
  await page.locator('html[data-islands="mounted"]').waitFor({ state: 'attached' });
  await page.evaluate(async () => {
    for (let y = 0; y < document.documentElement.scrollHeight; y += innerHeight) {
      scrollTo(0, y);
      await new Promise((done) => setTimeout(done, 120));
    }
  });
  await page.waitForFunction(() => document.querySelectorAll('[data-island]:not(.island-mounted)').length === 0);
  await page.waitForTimeout(1500);
  const heights = await page.evaluate(() => Object.fromEntries([...document.querySelectorAll('[data-widget-name]')]
    .map((island) => [island.dataset.widgetName, Math.round(island.getBoundingClientRect().height)])));
  await context.close();
  return heights;
}

/** The room for one range: the line under every point that holds the most room, or the floor alone. */
function room(points) {
  const floor = Math.min(...points.map(([, h]) => h));
  let best = { a: floor, slope: 0, area: floor * points.length };
  for (const [w1, h1] of points) {
    for (const [w2, h2] of points) {
      if (w2 <= w1) continue;
      const slope = (h2 - h1) / (w2 - w1);
      const a = h1 - slope * w1;
      const at = (w) => Math.max(floor, a + slope * w);
      if (points.some(([w, h]) => at(w) > h + 0.01)) continue;
      const area = points.reduce((sum, [w]) => sum + at(w), 0);
      if (area > best.area) best = { a, slope, area };
    }
  }
  const vw = Number((best.slope * 100).toFixed(2));
  return vw === 0 ? `${floor - MARGIN_PX}px`
    : `max(${floor - MARGIN_PX}px, calc(${Math.floor(best.a) - MARGIN_PX}px - ${-vw}vw))`;
}

const starts = [...new Set(Object.values(RANGE_STARTS).flat())];
const widths = [...new Set([...Array.from({ length: 51 }, (_, i) => 320 + 32 * i), ...starts])].sort((a, b) => a - b);
const server = await startStaticServer({});
const browser = await launchBrowser();
const measured = {};
for (const width of widths) {
  measured[width] = await liveHeights(browser, server, width);
  process.stderr.write(`${width} `);
}
await browser.close();
await server.close?.();

const rules = new Map();
for (const name of WIDGETS) {
  const cuts = [0, ...(RANGE_STARTS[name] ?? RANGE_STARTS.default), Infinity];
  for (let i = 0; i + 1 < cuts.length; i++) {
    const points = widths.filter((w) => w >= cuts[i] && w < cuts[i + 1]).map((w) => [w, measured[w][name]]);
    if (points.some(([, h]) => !(h > 0))) throw new Error(`${name} did not mount at one of ${points.map(([w]) => w)}`);
    const rule = `html.js .island-widget:not(.island-mounted)[data-widget-name="${name}"] { min-height: ${room(points)}; }`;
    rules.set(cuts[i], [...(rules.get(cuts[i]) ?? []), rule]);
  }
}
process.stderr.write('\n');
for (const [start, lines] of [...rules].sort(([a], [b]) => a - b)) {
  console.log(start === 0 ? lines.join('\n') : `@media (min-width: ${start}px) {\n  ${lines.join('\n  ')}\n}`);
}
process.exit(0);
